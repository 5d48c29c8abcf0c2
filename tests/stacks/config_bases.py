"""Valid stack configs, one per cloud target and kind, from which the config-domain tests change one key: a
production GKE stack with a fixed connection count, an EKS group-replication stack, and an ephemeral one-member
kind stack on the 8-CPU, 32 GiB host ``HOST`` the tests pretend to run on."""

from __future__ import annotations

HOST = (8000, 32 * 2**30)
GKE = {
    "target": "gke",
    "gcpProject": "perf-project",
    "gcpRegion": "europe-west1",
    "gcpZones": ["europe-west1-b", "europe-west1-c", "europe-west1-d"],
    "databaseNodeType": "n2-standard-16",
    "connections": 2000,
}
EKS = {"target": "eks", "awsRegion": "eu-west-1", "databaseNodeType": "m6i.4xlarge", "engine": "group-replication"}
KIND = {
    "target": "kind",
    "kindHostCpu": "8",
    "kindHostMemory": "32Gi",
    "clusterSize": 1,
    "ephemeral": True,
    "sysbenchThreads": [1, 4, 16],
}
