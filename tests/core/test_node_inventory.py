"""Nodes and pods read as the scheduler reads them (K1, K4, K5), from API JSON in the providers' style."""

from __future__ import annotations

import pytest
from percona_mysql_k8s.core.errors import InputError
from percona_mysql_k8s.core.node_inventory import observe, observe_all, pod_requests, select_pool
from percona_mysql_k8s.core.units import GIB, MIB

KI = 1024


def gke_node(name, pool="database", *, cpu="15890m", memory="60055428Ki", ready="True", taints=None, unschedulable=False):
    """A GKE node as `kubectl get node -o json` prints it (labels GKE adds itself, allocatable in Ki)."""
    return {
        "metadata": {
            "name": name,
            "labels": {
                "cloud.google.com/gke-nodepool": pool,
                "node.kubernetes.io/instance-type": "n2-standard-16",
                "kubernetes.io/hostname": name,
            },
        },
        "spec": {"taints": taints if taints is not None else [], **({"unschedulable": True} if unschedulable else {})},
        "status": {
            "allocatable": {"cpu": cpu, "memory": memory, "pods": "110"},
            "conditions": [{"type": "MemoryPressure", "status": "False"}, {"type": "Ready", "status": ready}],
        },
    }


def pod(node, *, owner="DaemonSet", phase="Running", containers=(("100m", "200Mi"),), init=(), overhead=None, mirror=False):
    metadata = {"name": f"p-{node}", "ownerReferences": [{"kind": owner, "name": "x"}] if owner else []}
    if mirror:
        metadata["annotations"] = {"kubernetes.io/config.mirror": "abc"}
    spec = {
        "nodeName": node,
        "containers": [
            {"name": f"c{i}", "resources": {"requests": {"cpu": c, "memory": m}}} for i, (c, m) in enumerate(containers)
        ],
        "initContainers": [
            {"name": f"i{i}", "resources": {"requests": {"cpu": c, "memory": m}}} for i, (c, m) in enumerate(init)
        ],
    }
    if overhead:
        spec["overhead"] = overhead
    return {"metadata": metadata, "spec": spec, "status": {"phase": phase}}


def test_pod_request_is_max_of_containers_sum_and_largest_init_plus_overhead():
    # containers 100m+300m = 400m, 200Mi+100Mi = 300Mi; the init container asks 500m / 64Mi:
    # CPU max(400, 500) = 500m, memory max(300Mi, 64Mi) = 300Mi; overhead adds 10m / 1Mi.
    p = pod(
        "n", containers=(("100m", "200Mi"), ("300m", "100Mi")), init=(("500m", "64Mi"),), overhead={"cpu": "10m", "memory": "1Mi"}
    )
    assert pod_requests(p) == (510, 301 * MIB)


def test_allocatable_minus_daemonset_and_static_pods_only():
    pods = [
        pod("db-1", containers=(("100m", "200Mi"),)),  # DaemonSet: counted
        pod("db-1", owner="Node", mirror=True, containers=(("100m", "0"),)),  # kube-proxy static pod: counted
        pod("db-1", owner="ReplicaSet", containers=(("4", "8Gi"),)),  # a Deployment's pod: may move, not counted
        pod("db-1", phase="Succeeded"),  # terminated: holds nothing
        pod("db-2"),  # another node's
    ]
    node = observe(gke_node("db-1"), pods)
    assert node.allocatable_cpu_millicores == 15890
    assert node.allocatable_memory_bytes == 60055428 * KI
    assert (node.daemonset_cpu_millicores, node.daemonset_memory_bytes) == (200, 200 * MIB)
    assert node.usable_memory_bytes == 60055428 * KI - 200 * MIB
    assert node.allocatable_pods == 110 and node.schedulable


@pytest.mark.parametrize(
    ("node", "why"),
    [
        (gke_node("a", ready="False"), "not Ready (Ready=False)"),
        (gke_node("a", ready="Unknown"), "not Ready (Ready=Unknown)"),
        (gke_node("a", unschedulable=True), "cordoned (spec.unschedulable)"),
        (
            gke_node("a", taints=[{"key": "node.kubernetes.io/not-ready", "effect": "NoSchedule"}]),
            "tainted node.kubernetes.io/not-ready by its conditions",
        ),
    ],
)
def test_cordoned_or_not_ready_nodes_take_no_pods(node, why):
    observed = observe(node, [])
    assert not observed.schedulable and observed.why_not_schedulable == why


def test_pool_by_provider_label_and_taint():
    taint = {"key": "dedicated", "value": "database", "effect": "NoSchedule"}
    nodes = observe_all(
        [
            gke_node("db-1", taints=[taint]),
            gke_node("db-2", memory="30Gi", taints=[taint]),
            gke_node("db-3", ready="False", taints=[taint]),
            gke_node("mon-1", pool="monitoring"),
        ],
        [],
    )
    pool = select_pool(
        nodes,
        {"cloud.google.com/gke-nodepool": "database"},
        [{"key": "dedicated", "operator": "Equal", "value": "database", "effect": "NoSchedule"}],
        key="k",
    )
    assert [node.name for node in pool.nodes] == ["db-1", "db-2"] and [n.name for n in pool.skipped] == ["db-3"]
    assert pool.count == 2
    assert pool.smallest_memory().name == "db-2" and pool.allocatable_memory_bytes == 30 * GIB
    assert pool.common_blocking_taints() == (taint,)


def test_no_node_with_the_labels_names_the_key_and_values_seen():
    nodes = observe_all([gke_node("db-1", pool="db")], [])
    with pytest.raises(InputError) as error:
        select_pool(nodes, {"cloud.google.com/gke-nodepool": "database"}, [], key="databasePoolLabels")
    assert error.value.key == "databasePoolLabels" and error.value.rule == "K4"
    assert "cloud.google.com/gke-nodepool=db" in str(error.value)


def test_untolerated_taint_is_an_error_naming_the_taint():
    nodes = observe_all([gke_node("db-1", taints=[{"key": "dedicated", "value": "database", "effect": "NoSchedule"}])], [])
    with pytest.raises(InputError) as error:
        select_pool(nodes, {"cloud.google.com/gke-nodepool": "database"}, [], key="databasePoolTaint")
    assert error.value.key == "databasePoolTaint" and "dedicated=database:NoSchedule" in str(error.value)


def test_every_labelled_node_unschedulable_is_k5():
    nodes = observe_all([gke_node("db-1", unschedulable=True)], [])
    with pytest.raises(InputError) as error:
        select_pool(nodes, {"cloud.google.com/gke-nodepool": "database"}, [], key="databasePoolLabels")
    assert error.value.rule == "K5" and "db-1: cordoned" in str(error.value)
