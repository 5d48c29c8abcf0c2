"""The pack's model of what the operators render (policies/_readers/operator_pods.py), on hand-written resources.

Each expectation is read in the operators' source (PXC 1.20.0 at b3b0b10a7, PS v1.2.0; the function is named beside
it). The operator tier checks the same model against the real operators' renders (tests/operators, docs/operators.md);
these cases keep it honest where no tier runs.
"""

from __future__ import annotations

import copy

import pytest
from percona_mysql_k8s.core.qos import BURSTABLE, GUARANTEED
from percona_mysql_k8s.policies._readers.database import database_view
from percona_mysql_k8s.policies._readers.operator_pods import (
    HOSTNAME,
    anti_affinity_key,
    containers,
    init_containers,
    pod_models,
)

EXACT = {"requests": {"cpu": "1", "memory": "1Gi"}, "limits": {"cpu": "1", "memory": "1Gi"}}
SMALL = {"requests": {"cpu": "100m", "memory": "64Mi"}, "limits": {"cpu": "100m", "memory": "64Mi"}}
PXC = {
    "apiVersion": "pxc.percona.com/v1",
    "kind": "PerconaXtraDBCluster",
    "metadata": {"name": "c1"},
    "spec": {
        "crVersion": "1.20.0",
        "pxc": {"size": 3, "image": "percona/percona-xtradb-cluster:8.4.7", "resources": EXACT},
        "haproxy": {"enabled": True, "size": 3, "resources": SMALL, "sidecarResources": SMALL},
        "proxysql": {"enabled": False},
        "logcollector": {"enabled": True, "resources": SMALL},
        "pmm": {"enabled": True, "resources": SMALL},
    },
}
PS = {
    "apiVersion": "ps.percona.com/v1",
    "kind": "PerconaServerMySQL",
    "metadata": {"name": "c1"},
    "spec": {
        "crVersion": "1.2.0",
        "mysql": {"clusterType": "group-replication", "size": 3, "image": "percona/percona-server:8.4.6", "resources": EXACT},
        "proxy": {"haproxy": {"enabled": True, "size": 3, "resources": SMALL, "sidecarResources": {"mysql-monit": SMALL}}},
        "orchestrator": {"enabled": False},
        "pmm": {"enabled": False},
        "backup": {"enabled": False},
    },
}


def view(body: dict, **spec):
    body = copy.deepcopy(body)
    for path, value in spec.items():
        *parents, last = path.split("__")
        node = body["spec"]
        for part in parents:
            node = node.setdefault(part, {})
        node[last] = value
    return database_view(f"kubernetes:{body['apiVersion']}:{body['kind']}", body, "c1")


def component(v, key: str):
    return next(c for c in v.pods() if c.key == key)


def names(found) -> list[tuple[str, str]]:
    return [(c.name, c.path) for c in found]


# ---- init containers ---------------------------------------------------------------------------------


def test_pxc_init_containers_take_the_operators_default_from_1_14():
    v = view(PXC)  # pxc_types.go CheckNSetDefaults: initContainer.resources unset -> limits 50M / 50m
    assert [c.name for c in init_containers(v, component(v, "pxc"))] == ["pxc-init"]
    haproxy = init_containers(v, component(v, "haproxy"))  # proxyInitContainers (1.13) + HaproxyEntrypointInitContainer (1.15)
    assert [c.name for c in haproxy] == ["pxc-init", "haproxy-init"]
    resources = haproxy[1].resources()
    assert (resources.cpu_limit, resources.memory_limit, resources.cpu_request) == (50, 50_000_000, None)


def test_pxc_init_container_before_1_14_takes_the_pxc_containers_resources():
    v = view(PXC, crVersion="1.13.0")  # init.go EntrypointInitContainer: initResources := cr.Spec.PXC.Resources
    assert names(init_containers(v, component(v, "pxc"))) == [("pxc-init", "spec.pxc.resources")]
    assert [c.name for c in init_containers(v, component(v, "haproxy"))] == ["pxc-init"]  # no haproxy-init before 1.15
    older = view(PXC, crVersion="1.12.0")
    assert init_containers(older, component(older, "haproxy")) == []  # proxyInitContainers from 1.13.0


def test_a_declared_pxc_init_container_budget_goes_to_every_init_container():
    v = view(PXC, initContainer={"resources": SMALL})
    assert {c.path for p in v.pods() for c in init_containers(v, p)} == {"spec.initContainer.resources"}


def test_ps_init_containers_take_the_components_resources_unless_declared():
    v = view(PS)  # pkg/k8s/init_image.go InitContainer: component initContainer > spec.initContainer > component resources
    assert names(init_containers(v, component(v, "mysql"))) == [("mysql-init", "spec.mysql.resources")]
    v = view(PS, initContainer={"resources": SMALL})
    assert names(init_containers(v, component(v, "mysql"))) == [("mysql-init", "spec.initContainer.resources")]
    v = view(PS, initContainer={"resources": SMALL}, mysql__initContainer={"resources": EXACT})
    assert names(init_containers(v, component(v, "mysql"))) == [("mysql-init", "spec.mysql.initContainer.resources")]


# ---- containers ----------------------------------------------------------------------------------------


def test_proxysql_runs_no_proxysql_monit_with_its_scheduler():
    # proxysql.go SidecarContainers: "we are disabling ProxySQL cluster mode in case scheduler is enabled"
    base = {"enabled": True, "size": 3, "resources": SMALL, "sidecarResources": SMALL}
    on = view(PXC, haproxy={"enabled": False}, proxysql={**base, "scheduler": {"enabled": True}})
    off = view(PXC, haproxy={"enabled": False}, proxysql=base)
    assert [c.name for c in containers(on, component(on, "proxysql"))] == ["proxysql", "pxc-monit", "pmm-client"]
    assert [c.name for c in containers(off, component(off, "proxysql"))] == [
        "proxysql",
        "pxc-monit",
        "proxysql-monit",
        "pmm-client",
    ]


def test_the_ps_orchestrator_pod_runs_mysql_monit_on_the_orchestrators_resources():
    v = view(PS, mysql__clusterType="async", orchestrator={"enabled": True, "size": 3, "resources": SMALL})
    assert names(containers(v, component(v, "orchestrator"))) == [
        ("orchestrator", "spec.orchestrator.resources"),
        ("mysql-monit", "spec.orchestrator.resources"),  # orchestrator.go sidecarContainers
    ]


SIDECAR = {"name": "extra", "image": "busybox", "resources": SMALL}


def test_user_sidecars_never_take_an_operators_container_name():
    # PXC AddSidecarContainers skips it ("Wrong sidecar container name"); PS appendUniqueContainers likewise
    v = view(PXC, pxc__sidecars=[{**SIDECAR, "name": "pmm-client"}, SIDECAR])
    assert [c.name for c in containers(v, component(v, "pxc"))][-1:] == ["extra"]
    assert [c.name for c in containers(v, component(v, "pxc"))].count("pmm-client") == 1


def test_a_second_sidecar_of_one_name_ps_skips_and_pxc_keeps():
    pxc = view(PXC, pxc__sidecars=[SIDECAR, SIDECAR])  # PXC compares with its own containers only
    assert [c.name for c in containers(pxc, component(pxc, "pxc"))].count("extra") == 2
    ps = view(PS, mysql__sidecars=[SIDECAR, SIDECAR])  # PS appendUniqueContainers marks each name it appends
    assert [c.name for c in containers(ps, component(ps, "mysql"))].count("extra") == 1


def test_ps_adds_user_sidecars_to_the_mysql_pods_only():
    v = view(PS, proxy__haproxy__sidecars=[SIDECAR])  # pkg/haproxy has no spec.Sidecars
    assert "extra" not in [c.name for c in containers(v, component(v, "haproxy"))]


# ---- anti-affinity ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("operator", "affinity", "key"),
    [
        ("pxc", None, HOSTNAME),  # reconcileAffinityOpts: no affinity -> the hostname
        ("pxc", {"antiAffinityTopologyKey": "none"}, None),  # PodAffinity: "none" turns it off
        ("pxc", {"antiAffinityTopologyKey": "None"}, HOSTNAME),  # not a valid key (the map is case-sensitive)
        ("pxc", {"antiAffinityTopologyKey": "example.com/rack"}, HOSTNAME),
        ("pxc", {"antiAffinityTopologyKey": "topology.kubernetes.io/zone"}, "topology.kubernetes.io/zone"),
        ("pxc", {"antiAffinityTopologyKey": "failure-domain.beta.kubernetes.io/zone"}, "failure-domain.beta.kubernetes.io/zone"),
        ("ps", {"antiAffinityTopologyKey": "failure-domain.beta.kubernetes.io/zone"}, HOSTNAME),  # not in PS's list
        ("pxc", {"advanced": {"nodeAffinity": {}}, "antiAffinityTopologyKey": "topology.kubernetes.io/zone"}, None),
    ],
)
def test_the_anti_affinity_key_the_operator_settles_on(operator, affinity, key):
    rel = "pxc" if operator == "pxc" else "mysql"
    v = view(PXC if operator == "pxc" else PS, **({f"{rel}__affinity": affinity} if affinity is not None else {}))
    assert anti_affinity_key(v, component(v, rel)) == key


# ---- QoS ---------------------------------------------------------------------------------------------------


def test_request_equal_to_limit_everywhere_gives_guaranteed_pods():
    assert {m.component.key: m.qos_class() for m in pod_models(view(PXC))} == {"pxc": GUARANTEED, "haproxy": GUARANTEED}


def test_a_sidecar_without_limits_makes_its_pod_burstable():
    v = view(PXC, pxc__sidecars=[{**SIDECAR, "resources": {"requests": {"cpu": "100m", "memory": "64Mi"}}}])
    assert {m.component.key: m.qos_class() for m in pod_models(v)} == {"pxc": BURSTABLE, "haproxy": GUARANTEED}


def test_an_init_container_with_requests_only_makes_its_pod_burstable():
    v = view(PS, initContainer={"resources": {"requests": {"cpu": "100m", "memory": "64Mi"}}})
    assert {m.component.key: m.qos_class() for m in pod_models(v)}["mysql"] == BURSTABLE
