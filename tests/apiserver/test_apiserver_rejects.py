"""The tier is not vacuous: custom resources the PS v1.2.0 CRD forbids are rejected by the API server.

Each bad resource goes through the same code path as the stacks (:func:`apply_and_verify`), next to a
good one that differs only in the broken setting: the good one is accepted, the bad one is rejected with
the CRD's own message (422 for CEL and schema rules; a field the schema does not declare fails server-side
apply itself, with 500 "field not declared in schema", whatever ``fieldValidation`` says).
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
from apiserver_cluster import apply_and_verify
from apiserver_objects import from_manifests, load_manifests

pytestmark = pytest.mark.apiserver

NAMESPACE = "apiserver-tier-rejects"


def good_spec() -> dict[str, Any]:
    """Group replication, HAProxy, every field the v1.2.0 CEL rules read spelled out (INTERFACES §4.4)."""
    return {
        "crVersion": "1.2.0",
        "secretsName": "rejects-secrets",
        "updateStrategy": "SmartUpdate",
        "unsafeFlags": dict.fromkeys(
            ("mysqlSize", "proxy", "proxySize", "orchestrator", "orchestratorSize", "backupNonReadyCluster"), False
        ),
        "mysql": {
            "clusterType": "group-replication",
            "size": 3,
            "image": "percona/percona-server:8.4.10-10.1",
            "resources": {"requests": {"cpu": "1", "memory": "2Gi"}, "limits": {"memory": "4Gi"}},
            "volumeSpec": {"persistentVolumeClaim": {"resources": {"requests": {"storage": "10Gi"}}}},
        },
        "proxy": {
            "haproxy": {"enabled": True, "size": 3, "image": "percona/haproxy:2.8.18-1"},
            "router": {"enabled": False, "size": 3, "image": "percona/percona-mysql-router:8.4.10"},
        },
        "orchestrator": {"enabled": False, "size": 3, "image": "percona/percona-orchestrator:3.2.6-22"},
    }


def both_proxies(spec):
    spec["proxy"]["router"]["enabled"] = True


def four_members(spec):
    spec["mysql"]["size"] = 4


def no_router_block(spec):
    del spec["proxy"]["router"]


def fractional_cpu_number(spec):
    spec["mysql"]["resources"]["requests"]["cpu"] = 1.5


def pxc_probe_names(spec):
    spec["mysql"]["readinessProbes"] = {"timeoutSeconds": 10}


BAD = {  # case: (how to break the good spec, HTTP status, message)
    # rule 12: never both proxies
    "router-and-haproxy": (
        both_proxies,
        422,
        "Invalid configuration: MySQL Router and HAProxy can't be enabled at the same time",
    ),
    # rule 6: group replication with an even size needs unsafeFlags.mysqlSize
    "group-replication-size-4": (
        four_members,
        422,
        "Invalid configuration: For 'group replication', using an even number of "
        "MySQL replicas requires 'unsafeFlags.mysqlSize: true'",
    ),
    # INTERFACES §4.4, now checked live: a missing proxy.router block makes the unguarded rules error
    "no-proxy-router-block": (
        no_router_block,
        422,
        "no such key: router evaluating rule: Invalid configuration: MySQL Router and HAProxy can't be enabled at the same time",
    ),
    # the Go provider sends 1.5 as a JSON number; the CRD's quantities are int-or-string
    "fractional-cpu-as-number": (
        fractional_cpu_number,
        422,
        "spec.mysql.resources.requests.cpu in body must be of type integer,string",
    ),
    # PXC spells probes in the plural; server-side apply refuses a field the PS schema does not declare
    # (not just a warning, as with a client-side update)
    "pxc-style-probe-name": (pxc_probe_names, 500, ".spec.mysql.readinessProbes: field not declared in schema"),
}


def _cr(name: str, spec: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": "ps.percona.com/v1", "kind": "PerconaServerMySQL", "metadata": {"name": name}, "spec": spec}


@pytest.mark.parametrize("case", sorted(BAD))
def test_ps_custom_resource_the_crd_forbids_is_rejected(cluster, reference: Path, case: str):
    cluster.install_crds([reference / "ps-operator-v1.2.0-crd.yaml"])
    break_it, status, message = BAD[case]
    bad = copy.deepcopy(good_spec())
    break_it(bad)
    namespace = from_manifests([{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE}}], source="namespace")
    objects = namespace + from_manifests(
        [_cr("good", good_spec()), _cr("bad", bad)], source=case, namespace=NAMESPACE, depends_on=[namespace[0].key]
    )
    report = apply_and_verify(cluster, objects)
    print(report.summary())
    outcomes = {o.obj.name: o for o in report.outcomes}
    assert outcomes["good"].accepted, outcomes["good"].error
    assert not outcomes["bad"].accepted, f"the API server accepted the {case} custom resource"
    assert outcomes["bad"].error.startswith(f"{status} "), outcomes["bad"].error
    assert message in outcomes["bad"].error
    assert not report.leftovers, report.leftovers


def test_a_field_the_pxc_crd_silently_prunes_is_reported(cluster, reference: Path):
    """The PXC CRD accepts fields it does not declare and drops them; only reading back shows it.

    ``backup.enabled`` is a pxc-db chart value, not a CR field (INTERFACES §2.12), and ``readinessProbe``
    is the PS spelling (PXC: ``readinessProbes``, §7.5). Both are accepted and not stored.
    """
    cluster.install_crds([reference / "helm-pxc-operator-1.20.0-crds-crd.yaml"])
    cr = load_manifests(reference / "pxc-operator-v1.19.0-cr-minimal.yaml")[0]
    cr["metadata"] = {"name": "pruned"}
    cr["spec"]["backup"] = {"enabled": False}
    cr["spec"]["pxc"]["readinessProbe"] = {"timeoutSeconds": 15}
    namespace = from_manifests([{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE}}], source="namespace")
    report = apply_and_verify(
        cluster, namespace + from_manifests([cr], source="pruned", namespace=NAMESPACE, depends_on=[namespace[0].key])
    )
    print(report.summary())
    outcome = next(o for o in report.outcomes if o.obj.name == "pruned")
    assert outcome.accepted, outcome.error
    assert sorted(diff.split(":")[0] for diff in outcome.differences) == [".spec.backup.enabled", ".spec.pxc.readinessProbe"]
    assert all("not stored (pruned or dropped)" in diff for diff in outcome.differences)
    assert len(report.problems()) == 2 and not report.leftovers
