"""An existing cluster under mocks: only a Kubernetes provider, pools from config."""

from __future__ import annotations

from percona_mysql_k8s.clusters import cluster_from_config
from percona_mysql_k8s.core.allocatable import node_budget
from percona_mysql_k8s.core.pools import DATABASE_TAINT, POOL_LABEL, Taint
from stack_configs import EXISTING, with_


def deploy(mocked, values=EXISTING):
    return mocked.run(lambda: cluster_from_config(values))


def test_only_providers_are_registered(mocked):
    deploy(mocked)
    assert sorted(r.type for r in mocked.resources()) == [
        "percona-mysql:index:ExistingCluster",
        "pulumi:providers:kubernetes",
        "pulumi:providers:kubernetes",
    ]


def test_the_shared_provider_adopts_what_exists_and_the_other_does_not(mocked):
    """The cluster may hold the operators' CRDs before the stack (ClusterTarget.shared_provider): only the shared
    provider upserts; everything else fails on an existing object, the provider's default."""
    target, _ = deploy(mocked)
    providers = {r.name: r.state for r in mocked.of_type("pulumi:providers:kubernetes")}
    assert providers["perf-k8s-shared"].get("upsertExistingObjects") in (True, "true")
    assert "upsertExistingObjects" not in providers["perf-k8s"]
    assert target.shared_provider is not None and target.shared_provider is not target.provider


def test_ambient_kubeconfig_and_context(mocked):
    deploy(mocked)
    for provider in mocked.of_type("pulumi:providers:kubernetes"):
        assert "kubeconfig" not in provider.state and "context" not in provider.state


def test_kubeconfig_path_and_context(mocked, tmp_path):
    path = tmp_path / "kubeconfig"
    path.write_text("apiVersion: v1\nkind: Config\n")
    deploy(mocked, with_(EXISTING, kubeconfig=str(path), kubeContext="perf-admin"))
    for provider in mocked.of_type("pulumi:providers:kubernetes"):  # both reach the same cluster
        assert provider.state["kubeconfig"] == str(path)
        assert provider.state["context"] == "perf-admin"


def test_pools_from_labels_and_taint(mocked):
    target, _ = deploy(
        mocked,
        with_(
            EXISTING,
            databasePoolLabels="node.example.com/role=db,tier=mysql",
            databasePoolTaint="dedicated=mysql:NoSchedule",
            monitoringPoolLabels="node.example.com/role=tools",
            databaseNodeCount=5,
        ),
    )
    assert target.kind == "existing" and target.name == "perf"
    assert target.database_pool.node_selector() == {"node.example.com/role": "db", "tier": "mysql"}
    assert target.database_pool.taints == (Taint("dedicated", "mysql", "NoSchedule"),)
    assert target.database_pool.tolerations() == [
        {"key": "dedicated", "operator": "Equal", "value": "mysql", "effect": "NoSchedule"}
    ]
    assert target.database_pool.node_count == 5
    assert target.monitoring_pool.node_selector() == {"node.example.com/role": "tools"}
    assert target.monitoring_pool.taints == ()
    assert target.ready == () and target.kubeconfig is None


def test_allocatable_from_config_or_machine_type(mocked):
    target, _ = deploy(mocked)
    assert target.database_pool.node.allocatable_cpu_millicores == 15890
    assert target.database_pool.node.usable_memory_bytes == 58 * 2**30
    assert target.database_pool.labels == {POOL_LABEL: "database"}
    assert target.database_pool.taints == (DATABASE_TAINT,)


def test_machine_type_of_an_existing_cloud_cluster(mocked):
    values = with_(
        EXISTING,
        databaseNodeType="n2-highmem-8",
        existingNodeCpu=None,
        existingNodeMemory=None,
        daemonsetCpu="200m",
        daemonsetMemory="256Mi",
    )
    target, _ = deploy(mocked, values)
    assert target.database_pool.node == node_budget("n2-highmem-8", "gke", 200, 256 * 2**20)
    assert target.monitoring_pool.node == target.database_pool.node  # no monitoringNodeType: same nodes
