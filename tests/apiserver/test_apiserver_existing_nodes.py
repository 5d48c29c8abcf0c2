"""The existing target reads a real API server's Nodes (issue: 56Gi planned on 28Gi nodes, 5 members on 3 nodes).

Node objects are created in the control plane. There is no kubelet: the test writes their status the way
a kubelet would (a fresh Ready heartbeat). The API server's TaintNodesByCondition admission gives every new
Node ``node.kubernetes.io/not-ready:NoSchedule``; the node lifecycle controller that lifts it once the node
is Ready does not run in this control plane, so the test lifts it as that controller would. The stack
program then runs as ``pulumi preview`` would run it, under mocks for every provider but with the real
kubeconfig, so its node reader talks to the real API server.
"""

from __future__ import annotations

import datetime
import os

import pytest
from kubernetes import client as k8s_client
from percona_mysql_k8s.cli.offline import run_stack
from percona_mysql_k8s.core.units import GIB, memory_to_bytes

pytestmark = pytest.mark.apiserver

DATABASE = {"mysql.percona.com/pool": "database"}
MONITORING = {"mysql.percona.com/pool": "monitoring"}
TAINT = {"key": "mysql.percona.com/pool", "value": "database", "effect": "NoSchedule"}
ZONE = "topology.kubernetes.io/zone"
# one database Node per zone, as a regional pool has them (K7 reads the zones from these labels)
NODES = [(f"tier-db-{i}", {**DATABASE, ZONE: f"us-east-1{'abc'[i]}"}, [TAINT]) for i in range(3)] + [
    ("tier-mon-0", MONITORING, [])
]


def _heartbeat(core: k8s_client.CoreV1Api, name: str) -> None:
    now = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    core.patch_node_status(
        name,
        {
            "status": {
                "capacity": {"cpu": "8", "memory": "30Gi", "pods": "58"},
                "allocatable": {"cpu": "7910m", "memory": "28Gi", "pods": "58"},
                "conditions": [
                    {
                        "type": "Ready",
                        "status": "True",
                        "reason": "KubeletReady",
                        "message": "tier",
                        "lastHeartbeatTime": now,
                        "lastTransitionTime": now,
                    }
                ],
            }
        },
    )


@pytest.fixture(scope="module")
def nodes(cluster):
    core = k8s_client.CoreV1Api(cluster.api)
    for name, labels, taints in NODES:
        core.create_node({"metadata": {"name": name, "labels": labels}, "spec": {"taints": taints}})
        _heartbeat(core, name)
        admitted = [t.key for t in core.read_node(name).spec.taints or []]
        assert "node.kubernetes.io/not-ready" in admitted, admitted  # the reader must not count it while it is there
        core.patch_node(name, {"spec": {"taints": taints or None}})  # what the lifecycle controller does once Ready
    yield core
    for name, _, _ in NODES:
        core.delete_node(name)


def _run(core, **overrides):
    for name, _, _ in NODES:
        _heartbeat(core, name)
    return run_stack("existing", overrides={"kubeconfig": os.environ["K8S_APISERVER_KUBECONFIG"], **overrides})


def _mysqld_memory(registrations) -> int:
    cr = next(r for r in registrations if r.type == "kubernetes:pxc.percona.com/v1:PerconaXtraDBCluster")
    return memory_to_bytes(cr.inputs["spec"]["pxc"]["resources"]["limits"]["memory"])


def test_sizes_from_the_nodes_the_api_server_reports(nodes):
    memory = _mysqld_memory(_run(nodes))
    # one member, its sidecars and a proxy share a 28Gi node: the mysqld container gets most of it, never more
    assert 20 * GIB < memory < 28 * GIB


def test_a_plan_larger_than_the_nodes_stops_before_any_resource(nodes):
    with pytest.raises(Exception) as error:
        _run(nodes, existingNodeCpu="7910m", existingNodeMemory="56Gi")
    assert "existingNodeMemory" in str(error.value) and "K5" in str(error.value)


def test_more_members_than_nodes_stops_before_any_resource(nodes):
    with pytest.raises(Exception) as error:
        _run(nodes, clusterSize=5)
    assert "clusterSize" in str(error.value) and "3 schedulable node(s)" in str(error.value)


def test_the_zones_are_read_from_the_nodes_labels(nodes):
    """Two of the three database Nodes moved into one zone: a production stack stops before any resource, with one
    line naming the setting that accepts the risk (K7); with it, the program runs."""
    try:
        nodes.patch_node("tier-db-2", {"metadata": {"labels": {ZONE: "us-east-1a"}}})
        with pytest.raises(Exception) as error:
            _run(nodes)
        message = str(error.value)
        assert "K7" in message and "databasePoolLabels" in message and "acceptZoneLoss: true" in message, message
        assert "2 zone(s)" in message, message
        cr = next(r for r in _run(nodes, acceptZoneLoss=True) if r.type.endswith(":PerconaXtraDBCluster"))
        assert "minDomains" not in cr.inputs["spec"]["pxc"]["topologySpreadConstraints"][0]
    finally:
        nodes.patch_node("tier-db-2", {"metadata": {"labels": {ZONE: "us-east-1c"}}})
    cr = next(r for r in _run(nodes) if r.type.endswith(":PerconaXtraDBCluster"))
    assert cr.inputs["spec"]["pxc"]["topologySpreadConstraints"][0]["minDomains"] == 3
