"""GKE under mocks: the cluster, the two node pools, and the kubeconfig."""

from __future__ import annotations

import json

import pytest
from cluster_stacks import FAKE_CA, GKE, GKE_ZONES, with_
from percona_mysql_k8s.clusters import cluster_from_config
from percona_mysql_k8s.clusters.gke import pool_name
from percona_mysql_k8s.core.allocatable import node_budget
from percona_mysql_k8s.core.pools import DATABASE_TAINT, POOL_LABEL, PoolShape, Taint

CLUSTER = "gcp:container/cluster:Cluster"
NODE_POOL = "gcp:container/nodePool:NodePool"


def deploy(mocked, values=GKE):
    return mocked.run(
        lambda: cluster_from_config(values),
        lambda target: {"kubeconfig": target.kubeconfig, "secret": target.kubeconfig.is_secret()},
    )


def test_resources(mocked):
    deploy(mocked)
    assert sorted(r.type for r in mocked.resources()) == sorted(
        ["percona:clusters:GkeCluster", CLUSTER, NODE_POOL, NODE_POOL, "pulumi:providers:kubernetes"]
    )
    assert all(r.parent_type == "percona:clusters:GkeCluster" for r in mocked.resources() if r.type != "percona:clusters:GkeCluster")


def test_cluster(mocked):
    deploy(mocked)
    cluster = mocked.one(CLUSTER).state
    assert cluster["name"] == "perf"
    assert cluster["project"] == "perf-project-1"
    assert cluster["location"] == "europe-west1"
    assert cluster["nodeLocations"] == GKE_ZONES
    assert cluster["removeDefaultNodePool"] is True
    assert cluster["initialNodeCount"] == 1
    assert cluster["releaseChannel"] == {"channel": "REGULAR"}
    assert cluster["networkingMode"] == "VPC_NATIVE"
    assert "ipAllocationPolicy" in cluster  # VPC-native: alias IP ranges picked by GKE
    assert cluster["network"] == "default"
    assert cluster["workloadIdentityConfig"] == {"workloadPool": "perf-project-1.svc.id.goog"}
    assert cluster["enableShieldedNodes"] is True
    assert "privateClusterConfig" not in cluster
    assert cluster["deletionProtection"] is True


def test_private_nodes_subnetwork_channel_and_ephemeral(mocked):
    deploy(mocked, with_(GKE, gkePrivateNodes=True, gkeSubnetwork="db-subnet", gkeReleaseChannel="stable", ephemeral=True))
    cluster = mocked.one(CLUSTER).state
    assert cluster["privateClusterConfig"] == {"enablePrivateNodes": True, "enablePrivateEndpoint": False}
    assert cluster["subnetwork"] == "db-subnet"
    assert cluster["releaseChannel"] == {"channel": "STABLE"}
    assert cluster["deletionProtection"] is False


def test_database_pool(mocked):
    deploy(mocked)
    registered = mocked.one(NODE_POOL, "perf-database")
    assert registered.options["deleteBeforeReplace"] is False  # a replacement pool comes up before the old one goes
    pool = registered.state
    assert pool["name"].startswith("perf-database-") and len(pool["name"]) <= 40
    assert pool["cluster"] == "perf"
    assert pool["location"] == "europe-west1"
    assert pool["nodeLocations"] == GKE_ZONES
    assert pool["nodeCount"] == 1  # per zone: 3 nodes
    config = pool["nodeConfig"]
    assert config["machineType"] == "n2-standard-16"
    assert config["diskType"] == "pd-ssd"
    assert config["diskSizeGb"] == 100
    assert config["labels"] == {POOL_LABEL: "database"}
    assert config["taints"] == [{"key": POOL_LABEL, "value": "database", "effect": "NO_SCHEDULE"}]
    assert config["shieldedInstanceConfig"] == {"enableSecureBoot": True, "enableIntegrityMonitoring": True}
    assert config["workloadMetadataConfig"] == {"mode": "GKE_METADATA"}
    assert config["oauthScopes"] == ["https://www.googleapis.com/auth/cloud-platform"]
    assert pool["management"] == {"autoRepair": True, "autoUpgrade": True}
    # surge upgrades: never take a database node down before its replacement is up
    assert pool["upgradeSettings"] == {"strategy": "SURGE", "maxSurge": 1, "maxUnavailable": 0}


def test_monitoring_pool(mocked):
    deploy(mocked)
    pool = mocked.one(NODE_POOL, "perf-monitoring").state
    assert pool["name"].startswith("perf-monitoring-") and len(pool["name"]) <= 40
    assert pool["nodeConfig"]["machineType"] == "n2-standard-8"
    assert pool["nodeConfig"]["labels"] == {POOL_LABEL: "monitoring"}
    assert pool["nodeConfig"]["taints"] == []
    assert pool["nodeConfig"]["diskType"] == "pd-ssd"
    assert pool["nodeLocations"] == ["europe-west1-b"]
    assert pool["nodeCount"] == 1


def test_node_count_is_per_zone(mocked):
    target, _ = deploy(mocked, with_(GKE, databaseNodeCount=5, monitoringNodeCount=2, databaseDiskSizeGb=500))
    database = mocked.one(NODE_POOL, "perf-database").state
    assert database["nodeCount"] == 2 and database["nodeLocations"] == GKE_ZONES
    assert database["nodeConfig"]["diskSizeGb"] == 500
    assert target.database_pool.node_count == 6  # what the database layer is told: 2 per zone × 3 zones
    monitoring = mocked.one(NODE_POOL, "perf-monitoring").state
    assert monitoring["nodeCount"] == 1 and monitoring["nodeLocations"] == GKE_ZONES[:2]
    assert target.monitoring_pool.node_count == 2


def test_target(mocked):
    target, values = deploy(mocked)
    assert target.kind == "gke" and target.name == "perf"
    assert target.database_pool.node == node_budget("n2-standard-16", "gke")
    assert target.database_pool.taints == (DATABASE_TAINT,)
    assert target.monitoring_pool.node == node_budget("n2-standard-8", "gke")
    assert len(target.ready) == 2
    kubeconfig = json.loads(values["kubeconfig"])
    assert values["secret"] is True
    assert kubeconfig["clusters"][0]["cluster"] == {"server": "https://203.0.113.10", "certificate-authority-data": FAKE_CA}
    assert kubeconfig["users"][0]["user"]["exec"]["command"] == "gke-gcloud-auth-plugin"
    assert kubeconfig["current-context"] == "perf"


def _pool(**changes) -> PoolShape:
    base = {"name": "perf-database", "labels": {POOL_LABEL: "database"}, "node_count": 3,
            "node": node_budget("n2-standard-16", "gke"), "taints": (DATABASE_TAINT,), "machine_type": "n2-standard-16"}
    return PoolShape(**{**base, **changes})


@pytest.mark.parametrize(
    "changed",
    [
        _pool(machine_type="n2-highmem-16"),
        _pool(taints=(Taint(POOL_LABEL, "database", "NoExecute"),)),
        _pool(taints=()),
    ],
)
def test_pool_name_changes_with_what_recreates_the_pool(changed):
    """A new name lets Pulumi create the replacement pool before deleting the old one."""
    assert pool_name(changed, 100) != pool_name(_pool(), 100)
    assert pool_name(_pool(), 200) != pool_name(_pool(), 100)


def test_pool_name_is_stable():
    assert pool_name(_pool(node_count=6), 100) == pool_name(_pool(), 100)
