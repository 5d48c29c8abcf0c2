"""The shipped stacks run offline here; the existing stack reads its cluster's Nodes at preview/up, so every
test in this folder answers that read with the cluster stacks/Pulumi.existing.yaml describes."""

from __future__ import annotations

import pytest
from percona_mysql_k8s.plan.clusters import inventory as cluster_inventory


def existing_cluster(kubeconfig: str, context: str):
    """Three database nodes and one monitoring node of 7910m / 28Gi allocatable, labelled and tainted as the
    existing stack's pools, each database node in its own zone (as a regional cloud pool's), with no DaemonSet pods
    (so usable = allocatable), as the API server lists them."""

    def node(name, pool, taints, zone="us-east-1a"):
        labels = {"mysql.percona.com/pool": pool, "topology.kubernetes.io/zone": zone}
        return {
            "metadata": {"name": name, "labels": labels},
            "spec": {"taints": taints},
            "status": {
                "allocatable": {"cpu": "7910m", "memory": "28Gi", "pods": "110"},
                "conditions": [{"type": "Ready", "status": "True"}],
            },
        }

    taint = [{"key": "mysql.percona.com/pool", "value": "database", "effect": "NoSchedule"}]
    database = [node(f"db-{i}", "database", taint, f"us-east-1{'abc'[i]}") for i in range(3)]
    return database + [node("mon-0", "monitoring", [])], []


@pytest.fixture(autouse=True)
def fake_existing_cluster(monkeypatch):
    monkeypatch.setattr(cluster_inventory, "read_cluster", existing_cluster)
