"""The existing target sizes from the Nodes the cluster reports (issue: a 56Gi plan on 28Gi nodes was accepted).

The reader is injected (``cluster_reader``) with API JSON; tests/apiserver reads a real API server.
"""

from __future__ import annotations

import pytest
from percona_mysql_k8s.core.errors import InputError
from percona_mysql_k8s.core.units import GIB, MIB
from percona_mysql_k8s.plan.clusters import cluster_settings_from_config
from stack_configs import EXISTING, with_

DB = {"mysql.percona.com/pool": "database"}
MON = {"mysql.percona.com/pool": "monitoring"}
DB_TAINT = {"key": "mysql.percona.com/pool", "value": "database", "effect": "NoSchedule"}
CLUSTER = with_(EXISTING, existingNodeSource="cluster", existingNodeCpu=None, existingNodeMemory=None, existingNodeZones=None)


def node(name, labels, *, cpu="7910m", memory="28Gi", taints=(), ready="True"):
    return {
        "metadata": {"name": name, "labels": {**labels, "kubernetes.io/hostname": name}},
        "spec": {"taints": list(taints)},
        "status": {
            "allocatable": {"cpu": cpu, "memory": memory, "pods": "58"},
            "conditions": [{"type": "Ready", "status": ready}],
        },
    }


def daemonset_pod(node_name, cpu="150m", memory="300Mi"):
    return {
        "metadata": {"ownerReferences": [{"kind": "DaemonSet", "name": "aws-node"}]},
        "spec": {"nodeName": node_name, "containers": [{"resources": {"requests": {"cpu": cpu, "memory": memory}}}]},
        "status": {"phase": "Running"},
    }


def cluster(database=3, monitoring=1, **database_node):
    nodes = [node(f"db-{i}", DB, taints=[DB_TAINT], **database_node) for i in range(database)]
    nodes += [node(f"mon-{i}", MON, cpu="3920m", memory="14Gi") for i in range(monitoring)]
    pods = [daemonset_pod(n["metadata"]["name"]) for n in nodes]
    calls = []

    def read(kubeconfig, context):
        calls.append((kubeconfig, context))
        return nodes, pods

    read.calls = calls
    return read


def settings(values, reader):
    return cluster_settings_from_config(values, cluster_reader=reader)


def test_budget_is_the_nodes_allocatable_minus_their_daemonsets():
    reader = cluster()
    result = settings(CLUSTER, reader)
    assert reader.calls == [("", "")]  # the ambient kubeconfig and its current context, as the provider uses them
    node = result.database_pool.node
    # 28Gi allocatable - 300Mi of DaemonSet requests; 7910m - 150m (K1)
    assert node.usable_memory_bytes == 28 * GIB - 300 * MIB
    assert node.usable_cpu_millicores == 7910 - 150
    assert node.max_pods == 58
    assert result.database_pool.node_count == 3 and result.monitoring_pool.node_count == 1
    assert result.monitoring_pool.node.usable_memory_bytes == 14 * GIB - 300 * MIB
    assert any("read from the cluster" in note for note in result.notes)


def test_a_configured_node_larger_than_the_cluster_is_refused():
    with pytest.raises(InputError) as error:
        settings(with_(CLUSTER, existingNodeCpu="7910m", existingNodeMemory="56Gi"), cluster())
    assert error.value.key == "existingNodeMemory" and error.value.rule == "K5"
    assert "smallest node" in str(error.value)


def test_a_configured_node_smaller_than_the_cluster_is_kept():
    result = settings(with_(CLUSTER, existingNodeCpu="4", existingNodeMemory="16Gi"), cluster())
    assert result.database_pool.node.capacity_memory_bytes == 16 * GIB


def test_more_members_than_database_nodes_is_refused():
    with pytest.raises(InputError) as error:
        settings(with_(CLUSTER, clusterSize=5), cluster(database=3))
    assert error.value.key == "clusterSize" and error.value.rule == "K5"
    assert "has 3 schedulable node(s)" in str(error.value)


def test_a_not_ready_node_does_not_count():
    reader = cluster(database=3)
    nodes, pods = reader("", "")
    nodes[0]["status"]["conditions"][0]["status"] = "False"
    with pytest.raises(InputError) as error:
        settings(CLUSTER, lambda kubeconfig, context: (nodes, pods))
    assert error.value.key == "clusterSize"


def test_explicit_node_count_above_the_cluster_is_refused():
    with pytest.raises(InputError) as error:
        settings(with_(CLUSTER, databaseNodeCount=4), cluster(database=3))
    assert error.value.key == "databaseNodeCount"


def test_the_smallest_node_decides():
    reader = cluster(database=3)
    nodes, pods = reader("", "")
    nodes[1]["status"]["allocatable"]["memory"] = "20Gi"
    result = settings(CLUSTER, lambda kubeconfig, context: (nodes, pods))
    assert result.database_pool.node.usable_memory_bytes == 20 * GIB - 300 * MIB


def test_database_nodes_with_a_taint_the_config_does_not_tolerate():
    with pytest.raises(InputError) as error:
        settings(with_(CLUSTER, databasePoolTaint="dedicated=mysql:NoSchedule"), cluster())
    assert error.value.key == "databasePoolTaint" and "mysql.percona.com/pool=database:NoSchedule" in str(error.value)


def test_monitoring_pool_taints_are_tolerated_by_its_pods():
    reader = cluster()
    nodes, pods = reader("", "")
    nodes[-1]["spec"]["taints"] = [{"key": "dedicated", "value": "monitoring", "effect": "NoSchedule"}]
    result = settings(CLUSTER, lambda kubeconfig, context: (nodes, pods))
    assert result.monitoring_pool.tolerations() == [
        {"key": "dedicated", "operator": "Equal", "value": "monitoring", "effect": "NoSchedule"}
    ]


def test_a_node_in_both_pools_is_refused():
    reader = cluster()
    nodes, pods = reader("", "")
    nodes[0]["metadata"]["labels"]["role"] = "both"
    with pytest.raises(InputError) as error:
        settings(with_(CLUSTER, monitoringPoolLabels="role=both"), lambda kubeconfig, context: (nodes, pods))
    assert error.value.key == "monitoringPoolLabels"
    # db-0 matches both selectors once the monitoring pool's taint check passes (it tolerates db-0's taint)
    assert "db-0" in str(error.value) and error.value.rule == "K4"


def test_no_database_nodes():
    with pytest.raises(InputError) as error:
        settings(with_(CLUSTER, databasePoolLabels="cloud.google.com/gke-nodepool=database"), cluster())
    assert error.value.key == "databasePoolTaint" or error.value.key == "databasePoolLabels"
    assert "no node of the cluster carries cloud.google.com/gke-nodepool=database" in str(error.value)


def test_unknown_source_is_refused():
    with pytest.raises(InputError) as error:
        settings(with_(CLUSTER, existingNodeSource="guess"), cluster())
    assert error.value.key == "existingNodeSource"


def test_config_source_never_reads_the_cluster():
    def refuse(kubeconfig, context):
        raise AssertionError("config mode must not read the cluster")

    result = settings(EXISTING, refuse)
    assert any("existingNodeSource=config" in note for note in result.notes)


def test_an_unreachable_cluster_names_the_key_and_the_offline_override(tmp_path):
    kubeconfig = tmp_path / "kubeconfig"
    kubeconfig.write_text(
        "apiVersion: v1\nkind: Config\ncurrent-context: c\n"
        "clusters: [{name: c, cluster: {server: 'https://127.0.0.1:1'}}]\n"
        "contexts: [{name: c, context: {cluster: c, user: u}}]\nusers: [{name: u, user: {token: t}}]\n"
    )
    with pytest.raises(InputError) as error:
        cluster_settings_from_config(with_(CLUSTER, kubeconfig=str(kubeconfig)))
    assert error.value.key == "kubeconfig" and error.value.rule == "K1"
    assert "existingNodeSource=config" in str(error.value)


def test_the_database_nodes_zones_are_read_from_their_labels():
    """K7 reads the zones as kube-scheduler does: each schedulable database node's topology.kubernetes.io/zone."""
    zoned = {**DB, "topology.kubernetes.io/zone": "us-east-1a"}
    nodes = [node("db-a", zoned, taints=[DB_TAINT]), node("db-a2", zoned, taints=[DB_TAINT])]
    nodes += [node("db-b", {**DB, "topology.kubernetes.io/zone": "us-east-1b"}, taints=[DB_TAINT])]
    nodes += [node("db-x", DB, taints=[DB_TAINT]), node("mon-0", MON, cpu="3920m", memory="14Gi")]
    result = settings(CLUSTER, lambda kubeconfig, context: (nodes, []))
    layout = result.database_pool.zones
    assert (layout.nodes, layout.labelled, result.database_pool.zones_key) == ((2, 1), True, "databasePoolLabels")
    assert any("2 zone(s)" in note for note in result.notes)  # the unlabelled node counts in no zone
    unlabelled = settings(CLUSTER, cluster())
    assert not unlabelled.database_pool.zones.labelled


def test_zones_declared_for_a_cluster_whose_nodes_tell_are_refused():
    with pytest.raises(InputError) as error:
        settings(with_(CLUSTER, existingNodeZones=["us-east-1a", "us-east-1b", "us-east-1c"]), cluster())
    assert (error.value.key, error.value.rule) == ("existingNodeZones", "K7")
