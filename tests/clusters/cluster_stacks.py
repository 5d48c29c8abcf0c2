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
