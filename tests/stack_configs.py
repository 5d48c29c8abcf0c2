"""Stack config values of one valid stack per target, as the tests' starting points."""

from __future__ import annotations

HOST = (8000, 32 * 2**30)  # the machine the kind tests pretend to run on: 8 CPUs, 32 GiB

GKE_ZONES = ["europe-west1-b", "europe-west1-c", "europe-west1-d"]

GKE = {
    "target": "gke",
    "clusterName": "perf",
    "databaseNodeType": "n2-standard-16",
    "databaseNodeCount": 3,
    "monitoringNodeType": "n2-standard-8",
    "gcpProject": "perf-project-1",
    "gcpRegion": "europe-west1",
    "gcpZones": GKE_ZONES,
}

EKS = {
    "target": "eks",
    "clusterName": "perf",
    "databaseNodeType": "m6i.4xlarge",
    "databaseNodeCount": 3,
    "monitoringNodeType": "m6i.2xlarge",
    "awsRegion": "eu-west-1",
}

KIND = {"target": "kind", "clusterName": "perf", "clusterSize": 3}

EXISTING = {
    "target": "existing",
    "clusterName": "perf",
    "databasePoolLabels": "mysql.percona.com/pool=database",
    "databasePoolTaint": "mysql.percona.com/pool=database:NoSchedule",
    "monitoringPoolLabels": "mysql.percona.com/pool=monitoring",
    "existingNodeCpu": "15890m",
    "existingNodeMemory": "58Gi",
    # offline: these tests plan from config; reading a cluster's Nodes is tested in test_existing_nodes.py
    "existingNodeSource": "config",
    "existingNodeZones": ["us-east-1a", "us-east-1b", "us-east-1c"],  # the nodes' zones, declared offline (K7)
}

ALL = {"gke": GKE, "eks": EKS, "kind": KIND, "existing": EXISTING}


def with_(base: dict, **changes) -> dict:
    values = dict(base)
    for key, value in changes.items():
        if value is None:
            values.pop(key, None)
        else:
            values[key] = value
    return values


# Every bad input the issue lists, and more: (id, values, config key named by the error, rule).
BAD_INPUTS = [
    # (id, values, key, rule)
    ("unknown machine type", with_(GKE, databaseNodeType="n2-standard-17"), "databaseNodeType", "K1"),
    ("machine type of the other cloud", with_(GKE, databaseNodeType="m6i.4xlarge"), "databaseNodeType", "K1"),
    ("eks: unknown machine type", with_(EKS, databaseNodeType="m6i.3xlarge"), "databaseNodeType", "K1"),
    ("no database machine type", with_(EKS, databaseNodeType=None), "databaseNodeType", "K1"),
    ("unknown monitoring machine type", with_(GKE, monitoringNodeType="n9-tiny-1"), "monitoringNodeType", "K1"),
    ("existing: unknown machine type", with_(EXISTING, databaseNodeType="x1.huge"), "databaseNodeType", "K1"),
    ("gke: pool smaller than the cluster", with_(GKE, databaseNodeCount=2), "databaseNodeCount", "K5"),
    ("eks: pool smaller than the cluster", with_(EKS, clusterSize=5, databaseNodeCount=3), "databaseNodeCount", "K5"),
    ("existing: pool smaller than the cluster", with_(EXISTING, databaseNodeCount=1), "databaseNodeCount", "K5"),
    ("existing: no database labels", with_(EXISTING, databasePoolLabels=None), "databasePoolLabels", "K4"),
    ("existing: no monitoring labels", with_(EXISTING, monitoringPoolLabels=""), "monitoringPoolLabels", "K4"),
    ("existing: labels not k=v", with_(EXISTING, databasePoolLabels="database"), "databasePoolLabels", "K4"),
    ("existing: invalid label key", with_(EXISTING, databasePoolLabels="bad key=x"), "databasePoolLabels", "K4"),
    (
        "existing: one label set for both pools",
        with_(EXISTING, monitoringPoolLabels="mysql.percona.com/pool=database"),
        "monitoringPoolLabels",
        "K4",
    ),
    # core.scheduling: pods selecting only pool=db land on nodes labelled pool=db,disk=ssd when no taint keeps them off.
    (
        "existing: monitoring labels a subset of the untainted database pool's",
        with_(EXISTING, databasePoolLabels="pool=db,disk=ssd", databasePoolTaint="", monitoringPoolLabels="pool=db"),
        "monitoringPoolLabels",
        "K4",
    ),
    ("existing: unknown taint effect", with_(EXISTING, databasePoolTaint="pool=db:NoEntry"), "databasePoolTaint", "K4"),
    ("existing: node size unknown", with_(EXISTING, existingNodeCpu=None), "existingNodeCpu", "K1"),
    ("existing: memory unknown", with_(EXISTING, existingNodeMemory=None), "existingNodeMemory", "K1"),
    ("existing: memory not a quantity", with_(EXISTING, existingNodeMemory="lots"), "existingNodeMemory", "K1"),
    ("existing: kubeconfig missing", with_(EXISTING, kubeconfig="/nonexistent/kubeconfig"), "kubeconfig", None),
    ("gke: no region", with_(GKE, gcpRegion=None), "gcpRegion", None),
    ("gke: no zones", with_(GKE, gcpZones=[]), "gcpZones", None),
    ("gke: zone outside the region", with_(GKE, gcpZones=["europe-west1-b", "us-central1-a"]), "gcpZones", None),
    ("gke: a zone twice", with_(GKE, gcpZones=["europe-west1-b", "europe-west1-b"]), "gcpZones", None),
    ("gke: no project", with_(GKE, gcpProject=""), "gcpProject", None),
    ("gke: unknown release channel", with_(GKE, gkeReleaseChannel="NIGHTLY"), "gkeReleaseChannel", None),
    ("eks: no region", with_(EKS, awsRegion=None), "awsRegion", None),
    ("eks: region malformed", with_(EKS, awsRegion="Ireland"), "awsRegion", None),
    ("eks: subnets without a VPC", with_(EKS, eksSubnetIds=["subnet-0a", "subnet-0b"]), "eksVpcId", None),
    ("eks: VPC with one subnet", with_(EKS, eksVpcId="vpc-0abc", eksSubnetIds=["subnet-0a"]), "eksSubnetIds", None),
    ("eks: version malformed", with_(EKS, eksVersion="latest"), "eksVersion", None),
    ("kind: share zero", with_(KIND, kindHostShare="0"), "kindHostShare", "K1"),
    ("kind: share above one", with_(KIND, kindHostShare="1.5"), "kindHostShare", "K1"),
    ("kind: share not a number", with_(KIND, kindHostShare="a fifth"), "kindHostShare", "K1"),
    ("kind: share too small for a node", with_(KIND, kindHostShare="0.0001"), "kindHostShare", "K1"),
    ("unknown target", with_(GKE, target="aks"), "target", None),
    ("cluster name with capitals", with_(GKE, clusterName="Perf_1"), "clusterName", None),
    ("cluster name too long", with_(GKE, clusterName="p" * 25), "clusterName", None),
    ("one member, not ephemeral", with_(KIND, clusterSize=1), "clusterSize", "T1"),
    ("no members", with_(KIND, clusterSize=0, ephemeral=True), "clusterSize", "T1"),
    ("no monitoring node", with_(GKE, monitoringNodeCount=0), "monitoringNodeCount", "K4"),
    ("node count not a number", with_(GKE, databaseNodeCount="three"), "databaseNodeCount", "K5"),
    ("flag not a boolean", with_(GKE, gkePrivateNodes="yes"), "gkePrivateNodes", None),
    ("DaemonSet CPU not a quantity", with_(GKE, daemonsetCpu="two cores"), "daemonsetCpu", "K1"),
    ("DaemonSets larger than the node", with_(GKE, daemonsetCpu="64"), "daemonsetCpu", "K1"),
    ("DaemonSets larger than a kind node", with_(KIND, daemonsetMemory="64Gi"), "daemonsetMemory", "K1"),
    ("disk too small", with_(GKE, databaseDiskSizeGb=5), "databaseDiskSizeGb", None),
]

# Computed outputs the mocks return (conftest.py) and the tests compare with.
FAKE_CA = "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCnRlc3QKLS0tLS1FTkQgQ0VSVElGSUNBVEUtLS0tLQo="
KIND_KUBECONFIG = "apiVersion: v1\nkind: Config\nclusters:\n- name: kind-test\n  cluster: {server: 'https://127.0.0.1:40000'}\n"
ZONES = ["eu-west-1a", "eu-west-1b", "eu-west-1c", "eu-west-1d"]
