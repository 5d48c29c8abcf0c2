"""The custom resources as data: CRD schema, CEL rules, operator rules, and sizes from the engine."""

from __future__ import annotations

import itertools

import pytest
from percona_mysql_k8s.core.allocatable import kind_node_budget
from percona_mysql_k8s.core.errors import InputError
from percona_mysql_k8s.core.haproxy_bound import operator_pod_bound
from percona_mysql_k8s.core.mycnf import mysqld_options, parse
from percona_mysql_k8s.core.operator_validation import validate
from percona_mysql_k8s.core.pools import DATABASE_POOL, DATABASE_TAINT, POOL_LABEL, PoolShape
from percona_mysql_k8s.core.proxy_limits import router_configured_limits
from percona_mysql_k8s.core.units import GIB, cpu_to_millicores, memory_to_bytes
from percona_mysql_k8s.plan.database import versions
from percona_mysql_k8s.plan.database.manifests import custom_resource
from percona_mysql_k8s.plan.database.spec import (
    HOSTNAME_TOPOLOGY,
    NO_ANTI_AFFINITY,
    PS_SECRET_KEYS,
    PXC_SECRET_KEYS,
    DatabaseSpec,
    size_for_pool,
    writer_endpoint,
)

from . import crd
from .fixtures import backup_plan, eks_pools, gke_pools, kind_pools

PXC_CRD = versions.PXC.reference_crd
PS_CRD = versions.PS.reference_crd


def operator_refusals(cr: dict) -> list[str]:
    """What the operator's own validation refuses (rule C2's definition, proven against the real operators in the
    operator tier): the words it would log."""
    operator = "pxc" if cr["kind"] == "PerconaXtraDBCluster" else "ps"
    verdict = validate(operator, cr)
    return [finding.words for finding in verdict.findings] + [str(problem) for _, problem in verdict.unreadable]


def assert_valid(cr: dict) -> None:
    if cr["kind"] == "PerconaXtraDBCluster":
        assert crd.schema_errors(cr, PXC_CRD, "PerconaXtraDBCluster") == []
        assert crd.cel_violations(cr, PXC_CRD, "PerconaXtraDBCluster") == []
    else:
        assert crd.schema_errors(cr, PS_CRD, "PerconaServerMySQL") == []
        assert crd.cel_violations(cr, PS_CRD, "PerconaServerMySQL") == []
    assert operator_refusals(cr) == []


COMBINATIONS = [
    (engine, proxy, version, backup, pmm)
    for engine, proxy in (
        ("pxc", "haproxy"),
        ("pxc", "proxysql"),
        ("group-replication", "haproxy"),
        ("group-replication", "router"),
    )
    for version, backup, pmm in itertools.product(("8.0", "8.4"), (False, True), (False, True))
]


@pytest.mark.parametrize("engine,proxy,version,backup,pmm", COMBINATIONS)
def test_every_combination_validates_against_its_crd(engine, proxy, version, backup, pmm):
    database, monitoring = gke_pools()
    spec = DatabaseSpec(
        name="db1",
        namespace="mysql",
        engine=engine,
        proxy=proxy,
        mysql_version=version,
        backup=backup,
        pmm_enabled=pmm,
        storage_class="premium-rwo",
    )
    place, sizing = size_for_pool(spec, database)
    plan = backup_plan() if backup else None
    assert_valid(custom_resource(spec, sizing, place, "monitoring-service", plan, monitoring.placement() if backup else None))


@pytest.mark.parametrize(
    "engine,proxy", [("pxc", "haproxy"), ("pxc", "proxysql"), ("group-replication", "haproxy"), ("group-replication", "router")]
)
def test_ephemeral_single_member_uses_the_unsafe_flags_and_still_validates(engine, proxy):
    database, _ = kind_pools(nodes=1)
    spec = DatabaseSpec(
        name="kind", namespace="mysql", engine=engine, proxy=proxy, cluster_size=1, ephemeral=True, log_collector=engine == "pxc"
    )
    place, sizing = size_for_pool(spec, database)
    cr = custom_resource(spec, sizing, place, "monitoring-service")
    assert_valid(cr)
    flags = cr["spec"]["unsafeFlags"]
    if engine == "pxc":
        assert flags == {"tls": False, "pxcSize": True, "proxySize": True, "backupIfUnhealthy": False}
        assert cr["spec"]["tls"] == {"enabled": True}  # S2 even on kind
    else:
        assert flags["mysqlSize"] and flags["proxySize"] and not flags["proxy"]


def test_ephemeral_with_fewer_nodes_than_members_shares_nodes_without_anti_affinity():
    database = PoolShape("db", {POOL_LABEL: DATABASE_POOL}, 1, kind_node_budget(16000, 64 * GIB, 0.5), (DATABASE_TAINT,))
    spec = DatabaseSpec(name="kind", namespace="mysql", cluster_size=3, ephemeral=True)
    place, sizing = size_for_pool(spec, database)
    assert place.anti_affinity_key == NO_ANTI_AFFINITY and place.members_per_node == 3
    assert sizing.budget_cpu_millicores == database.node.usable_cpu_millicores // 3
    # K5: three members fit the one node
    assert 3 * sizing.member_total.memory_bytes <= database.node.usable_memory_bytes
    assert 3 * sizing.member_total.cpu_millicores <= database.node.usable_cpu_millicores


def test_persistent_stack_with_too_few_nodes_is_refused():
    database, _ = gke_pools(nodes=2)
    with pytest.raises(InputError, match="K5: databaseNodeCount"):
        size_for_pool(DatabaseSpec(name="db1", namespace="mysql"), database)


def _quantity_pair(resources: dict) -> tuple[int, int]:
    requests, limits = resources["requests"], resources["limits"]
    assert requests == limits, "requests must equal limits (K2, K3)"
    return cpu_to_millicores(requests["cpu"]), memory_to_bytes(requests["memory"])


def test_pxc_sizes_are_the_engines():
    database, _ = gke_pools()
    spec = DatabaseSpec(name="db1", namespace="mysql", engine="pxc", proxy="proxysql")
    place, sizing = size_for_pool(spec, database)
    body = custom_resource(spec, sizing, place, "monitoring-service")["spec"]
    size = lambda name: (sizing.containers[name].cpu_millicores, sizing.containers[name].memory_bytes)  # noqa: E731
    assert _quantity_pair(body["pxc"]["resources"]) == size("mysqld")
    assert _quantity_pair(body["proxysql"]["resources"]) == size("proxysql")
    assert _quantity_pair(body["proxysql"]["sidecarResources"]) == size("pxc-monit")
    # the scheduler is on (T5), so the operator runs no proxysql-monit and the sizing budgets none
    assert body["proxysql"]["scheduler"]["enabled"] and "proxysql-monit" not in sizing.containers
    assert _quantity_pair(body["logcollector"]["resources"]) == size("logs") == size("logrotate")
    assert _quantity_pair(body["pmm"]["resources"]) == size("pmm-client")
    assert mysqld_options(body["pxc"]["configuration"]) == {k: v for k, v in parse(_render(sizing.mysqld))["mysqld"].items()}
    assert body["pxc"]["configuration"].startswith("[mysqld]\n")
    assert body["pxc"]["readinessProbes"] == sizing.probes["mysqld"]["readiness"].as_dict()
    assert body["pxc"]["livenessProbes"] == sizing.probes["mysqld"]["liveness"].as_dict()
    assert body["proxysql"]["livenessProbes"] == sizing.probes["proxysql"]["liveness"].as_dict()
    assert body["haproxy"] == {"enabled": False}
    assert body["proxysql"]["size"] == body["pxc"]["size"] == 3


def _render(options):
    from percona_mysql_k8s.core.mycnf import render

    return render(options, "mysqld")


def test_ps_sizes_are_the_engines():
    database, monitoring = eks_pools()
    spec = DatabaseSpec(name="db1", namespace="mysql", engine="group-replication", proxy="haproxy", backup=True)
    place, sizing = size_for_pool(spec, database)
    body = custom_resource(spec, sizing, place, "monitoring-service", backup_plan(), monitoring.placement())["spec"]
    size = lambda name: (sizing.containers[name].cpu_millicores, sizing.containers[name].memory_bytes)  # noqa: E731
    assert _quantity_pair(body["mysql"]["resources"]) == size("mysqld")
    assert _quantity_pair(body["proxy"]["haproxy"]["resources"]) == size("haproxy")
    assert _quantity_pair(body["proxy"]["haproxy"]["sidecarResources"]["mysql-monit"]) == size("mysql-monit")
    assert _quantity_pair(body["pmm"]["resources"]) == size("pmm-client")
    assert _quantity_pair(body["backup"]["resources"]) == size("xtrabackup")
    assert not body["mysql"]["configuration"].startswith("[")  # PS: plain lines under an implied [mysqld]
    assert mysqld_options(body["mysql"]["configuration"]) == parse(_render(sizing.mysqld))["mysqld"]
    assert body["mysql"]["readinessProbe"] == sizing.probes["mysqld"]["readiness"].as_dict()
    assert "readinessProbes" not in body["mysql"]
    assert body["proxy"]["haproxy"]["livenessProbe"] == sizing.probes["haproxy"]["liveness"].as_dict()
    # INTERFACES §4.4: every block the v1.2.0 CEL rules dereference is present
    assert set(body["unsafeFlags"]) == {
        "mysqlSize",
        "backupNonReadyCluster",
        "proxy",
        "proxySize",
        "orchestrator",
        "orchestratorSize",
    }
    for block in (body["proxy"]["haproxy"], body["proxy"]["router"], body["orchestrator"]):
        assert {"enabled", "size", "image"} <= set(block)
    assert body["proxy"]["router"]["enabled"] is False and body["orchestrator"]["enabled"] is False
    assert body["mysql"]["clusterType"] == "group-replication" and body["updateStrategy"] == "SmartUpdate"


@pytest.mark.parametrize("engine,proxy", [("pxc", "haproxy"), ("group-replication", "router")])
def test_placement_pins_database_and_proxy_pods_to_the_database_pool(engine, proxy):
    database, _ = gke_pools()
    spec = DatabaseSpec(name="db1", namespace="mysql", engine=engine, proxy=proxy)
    place, sizing = size_for_pool(spec, database)
    body = custom_resource(spec, sizing, place, "monitoring-service")["spec"]
    blocks = [body["pxc"], body[proxy]] if engine == "pxc" else [body["mysql"], body["proxy"][proxy]]
    for block in blocks:
        assert block["nodeSelector"] == database.node_selector()
        assert block["tolerations"] == database.tolerations()
        assert block["affinity"] == {"antiAffinityTopologyKey": HOSTNAME_TOPOLOGY}


def test_safety_fields():
    database, _ = gke_pools()
    for engine, release in (("pxc", versions.PXC), ("group-replication", versions.PS)):
        spec = DatabaseSpec(name="db1", namespace="mysql", engine=engine)
        place, sizing = size_for_pool(spec, database)
        cr = custom_resource(spec, sizing, place, "monitoring-service")
        assert cr["metadata"]["finalizers"] == [release.finalizer]  # S4: no PVC-deleting finalizer
        assert cr["metadata"]["annotations"]["pulumi.com/waitFor"] == "jsonpath={.status.state}=ready"
        assert cr["spec"]["crVersion"] == release.cr_version
        assert cr["spec"]["upgradeOptions"] == {"apply": "disabled"}
        assert cr["spec"]["secretsName"] == "db1-secrets"
        assert versions.image_major(cr["spec"]["pmm"]["image"]) == versions.PMM.major  # S5


@pytest.mark.parametrize("engine", ["pxc", "group-replication"])
def test_database_await_picks_what_pulumi_waits_for_on_the_custom_resource(engine):
    """ready: the operator's own "ready" state (a value after "="); reconciled: any state at all (no value: the
    provider's JSONPath condition then only needs the path to select something, pulumi-kubernetes
    provider/pkg/jsonpath Parsed.Matches). Anything else is refused naming the key."""
    database, _ = gke_pools()
    found = {}
    for wait in ("ready", "reconciled"):
        spec = DatabaseSpec(name="db1", namespace="mysql", engine=engine, database_await=wait)
        place, sizing = size_for_pool(spec, database)
        found[wait] = custom_resource(spec, sizing, place, "monitoring-service")["metadata"]["annotations"]
    assert found == {
        "ready": {"pulumi.com/waitFor": "jsonpath={.status.state}=ready"},
        "reconciled": {"pulumi.com/waitFor": "jsonpath={.status.state}"},
    }
    for bad in ("initializing", "Ready", "", "none"):
        with pytest.raises(InputError) as error:
            DatabaseSpec(name="db1", namespace="mysql", engine=engine, database_await=bad)
        assert error.value.key == "databaseAwait" and "ready or reconciled" in str(error.value)


@pytest.mark.parametrize("engine", ["pxc", "group-replication"])
def test_a_storage_size_change_resizes_the_volumes(engine):
    """enableVolumeExpansion is on in both CRs (without it the operators ignore a new volumeSpec size) and
    the CRD knows it: the strict schema check would reject an unknown or misspelt field."""
    database, _ = gke_pools()
    crs = []
    for storage in ("100Gi", "150Gi"):
        spec = DatabaseSpec(name="db1", namespace="mysql", engine=engine, storage_class="premium-rwo", storage_size=storage)
        place, sizing = size_for_pool(spec, database)
        crs.append(custom_resource(spec, sizing, place, "monitoring-service"))
    for cr in crs:
        assert cr["spec"]["enableVolumeExpansion"] is True
        assert_valid(cr)
    component = "pxc" if engine == "pxc" else "mysql"
    claims = [cr["spec"][component]["volumeSpec"]["persistentVolumeClaim"] for cr in crs]
    assert [c["resources"]["requests"]["storage"] for c in claims] == ["100Gi", "150Gi"]
    # only the size moves: the same class, so the operator resizes the PVCs rather than asking for new ones
    assert claims[0]["storageClassName"] == claims[1]["storageClassName"] == "premium-rwo"


@pytest.mark.parametrize(
    "other", [{"engine": "group-replication"}, {"cluster_size": 5}, {"proxy": "proxysql"}], ids=["engine", "size", "proxy"]
)
def test_a_sizing_computed_for_another_cluster_is_refused(other):
    database, _ = gke_pools(nodes=5)
    spec = DatabaseSpec(name="db1", namespace="mysql")
    place, _ = size_for_pool(spec, database)
    _, sizing = size_for_pool(DatabaseSpec(name="db1", namespace="mysql", **other), database)
    with pytest.raises(ValueError, match="computed for a different cluster"):
        custom_resource(spec, sizing, place, "monitoring-service")


def test_pmm_off_needs_no_server_and_pmm_on_needs_one():
    database, _ = gke_pools()
    spec = DatabaseSpec(name="db1", namespace="mysql", pmm_enabled=False)
    place, sizing = size_for_pool(spec, database)
    assert "pmm-client" not in sizing.containers
    assert custom_resource(spec, sizing, place, None)["spec"]["pmm"] == {"enabled": False}
    spec = DatabaseSpec(name="db1", namespace="mysql")
    place, sizing = size_for_pool(spec, database)
    with pytest.raises(InputError, match="pmmServerHost"):
        custom_resource(spec, sizing, place, None)


def test_writer_endpoints_are_never_the_replicas_service():
    assert writer_endpoint(DatabaseSpec(name="a", namespace="n")).host == "a-haproxy.n.svc"
    assert writer_endpoint(DatabaseSpec(name="a", namespace="n", proxy="proxysql")).service == "a-proxysql"
    router = writer_endpoint(DatabaseSpec(name="a", namespace="n", engine="group-replication", proxy="router"))
    assert (router.service, router.port) == ("a-router", 6446)


def test_secret_keys_are_what_each_operator_needs():
    assert DatabaseSpec(name="a", namespace="n").secret_keys == PXC_SECRET_KEYS
    assert set(DatabaseSpec(name="a", namespace="n", engine="group-replication").secret_keys) == set(PS_SECRET_KEYS)
    assert "proxyadmin" in PXC_SECRET_KEYS and "clusterset" in PS_SECRET_KEYS


@pytest.mark.parametrize(
    "changes,key",
    [
        ({"name": "a-very-long-cluster-name-1"}, "dbClusterName"),
        ({"name": "Bad_Name"}, "dbClusterName"),
        ({"name": "1db"}, "dbClusterName"),  # a Service is named after it: an RFC 1035 label starts with a letter
        ({"name": "db1\n"}, "dbClusterName"),
        ({"namespace": "No Space"}, "namespace"),
        ({"namespace": "mysql\n"}, "namespace"),  # accepted before: Python's $ matches before a final newline
        ({"engine": "galera"}, "engine"),
        ({"proxy": "proxysql", "engine": "group-replication"}, "T2: proxy"),
        ({"proxy": "router"}, "T2: proxy"),
        ({"cluster_size": 4}, "T1: clusterSize"),
        ({"cluster_size": 1}, "T1: clusterSize"),
        ({"cluster_size": 7}, "T1: clusterSize"),
        ({"mysql_version": "5.7"}, "mysqlVersion"),
        ({"storage_size": "lots"}, "storageSize"),
        ({"storage_size": "100Mi"}, "storageSize"),
        ({"connections": -1}, "connections"),
        ({"load": "olap"}, "load"),
    ],
)
def test_bad_specs_name_their_config_key(changes, key):
    with pytest.raises(InputError, match=key):
        DatabaseSpec(**{"name": "db1", "namespace": "mysql", **changes})


def test_validator_catches_what_the_api_server_would_prune_or_reject():
    """The checks in this file have teeth: a wrong-operator field and a missing router block both fail."""
    database, _ = gke_pools()
    spec = DatabaseSpec(name="db1", namespace="mysql", engine="group-replication")
    place, sizing = size_for_pool(spec, database)
    cr = custom_resource(spec, sizing, place, "monitoring-service")
    wrong = {**cr, "spec": {**cr["spec"], "mysql": {**cr["spec"]["mysql"], "readinessProbes": {"timeoutSeconds": 5}}}}
    assert any("readinessProbes" in error for error in crd.schema_errors(wrong, PS_CRD, "PerconaServerMySQL"))
    no_router = {**cr, "spec": {**cr["spec"], "proxy": {"haproxy": cr["spec"]["proxy"]["haproxy"]}}}
    assert crd.cel_violations(no_router, PS_CRD, "PerconaServerMySQL")


def test_reference_examples_pass_the_same_checks():
    """Upstream's own example CRs are accepted by this validator (it is not stricter than the API server)."""
    import yaml

    for name, crd_file, kind in (
        ("ps-operator-v1.2.0-cr.yaml", PS_CRD, "PerconaServerMySQL"),
        ("ps-operator-v1.2.0-cr-minimal.yaml", PS_CRD, "PerconaServerMySQL"),
        ("pxc-operator-v1.19.0-cr.yaml", PXC_CRD, "PerconaXtraDBCluster"),
    ):
        obj = yaml.safe_load(crd.reference_file(name).read_text())
        assert crd.schema_errors(obj, crd_file, kind) == []
        assert crd.cel_violations(obj, crd_file, kind) == []


def test_every_ps_cel_rule_on_emitted_blocks_is_understood():
    """Each of the CRD's twelve spec rules compiles in the core's CEL environment and admits what we emit."""
    from percona_mysql_k8s.core.crd.cel import compiled

    database, monitoring = eks_pools()
    spec = DatabaseSpec(name="db1", namespace="mysql", engine="group-replication", backup=True)
    place, sizing = size_for_pool(spec, database)
    cr = custom_resource(spec, sizing, place, "monitoring-service", backup_plan(), monitoring.placement())
    interfaces_rules = [rule for path, rule in crd.cel_rules(PS_CRD, "PerconaServerMySQL") if path == ".spec"]
    assert len(interfaces_rules) == 12  # INTERFACES §4.1 lists twelve
    assert all(compiled(rule) is not None for rule in interfaces_rules)
    assert crd.cel_violations(cr, PS_CRD, "PerconaServerMySQL") == []
    assert not crd.admission(cr, PS_CRD, "PerconaServerMySQL").unjudged


def _backend_limit(block: dict, proxy: str, operator: str) -> int:
    """One pod's backend connections to one mysqld, read as each proxy reads its configuration (core.proxy_limits)."""
    if proxy == "haproxy":  # HAProxy: the bound its global file imposes beside the operator's backends
        return operator_pod_bound(operator, block["configuration"]).connections
    if proxy == "proxysql":  # ProxySQL: the scheduler's per-server limit, in the writer and the reader hostgroup
        assert block["scheduler"]["enabled"] is True
        return 2 * block["scheduler"]["maxConnections"]
    return router_configured_limits(block["configuration"]).backend_limit  # Router: clients + the idle pool


@pytest.mark.parametrize(
    ("engine", "proxy"),
    [("pxc", "haproxy"), ("pxc", "proxysql"), ("group-replication", "haproxy"), ("group-replication", "router")],
)
@pytest.mark.parametrize("connections", [0, 500])
def test_the_proxies_limits_and_max_connections_agree(engine, proxy, connections):
    # T5: mysqld accepts every backend connection the proxy pods can open plus min_connections (20) of its own;
    # the settings are written where each proxy reads them, from that one number
    spec = DatabaseSpec(name="db1", namespace="mysql", engine=engine, proxy=proxy, connections=connections)
    database, _ = gke_pools()
    place, sizing = size_for_pool(spec, database)
    cr = custom_resource(spec, sizing, place, "pmm.example")["spec"]
    block = cr[proxy] if engine == "pxc" else cr["proxy"][proxy]
    backend = _backend_limit(block, proxy, "pxc" if engine == "pxc" else "ps")
    assert backend == sizing.proxy_limits.backend_limit >= 1
    config = cr["pxc"]["configuration"] if engine == "pxc" else cr["mysql"]["configuration"]
    max_connections = int(mysqld_options(config)["max_connections"])
    share = (max_connections - 20) // spec.proxy_size
    assert spec.proxy_size * backend + 20 <= max_connections
    assert backend == (share // 2 * 2 if proxy == "proxysql" else share)  # written from the share, not merely below it
    if connections == 0:  # derived on n2-standard-16: the proxies' shipped limits bind
        assert backend == {"haproxy": 2048, "proxysql": 2000, "router": 576}[proxy]
