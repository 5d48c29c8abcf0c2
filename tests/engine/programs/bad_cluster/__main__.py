"""A hand-written Percona XtraDB Cluster, as a user might write it from the operator's minimal example without
these modules. It breaks four rules on purpose, one each, so the policy pack must name them under the real engine
(tests/engine/test_engine_existing.py runs `pulumi preview --policy-pack` on it; it is never deployed):

* T1: two members (PXC needs 3 or 5 for a majority quorum; no unsafe size flag), which the operator also refuses
  to reconcile (C2);
* G1: ``gcs.fc_limit=1000`` in the provider options (the rule allows at most 100);
* S2: TLS off (``tls.enabled: false`` with ``unsafeFlags.tls``);
* K2: the mysqld container has a memory request and no memory limit.

Config: ``kubeconfig`` (the cluster the preview talks to, whose API server validates the custom resource).
"""

import pulumi
import pulumi_kubernetes as k8s

config = pulumi.Config()
provider = k8s.Provider("cluster", kubeconfig=config.require("kubeconfig"))

k8s.apiextensions.CustomResource(
    "hand-written-cluster",
    api_version="pxc.percona.com/v1",
    kind="PerconaXtraDBCluster",
    metadata={"name": "hand-written", "namespace": "mysql"},
    spec={
        "crVersion": "1.20.0",
        "secretsName": "hand-written-secrets",
        "unsafeFlags": {"tls": True},
        "tls": {"enabled": False},
        "pxc": {
            "size": 2,
            "image": "percona/percona-xtradb-cluster:8.4.7-7.1",
            "configuration": '[mysqld]\nwsrep_provider_options="gcs.fc_limit=1000"\n',
            "resources": {"requests": {"cpu": "2", "memory": "8Gi"}},
            "volumeSpec": {"persistentVolumeClaim": {"resources": {"requests": {"storage": "100Gi"}}}},
        },
        "haproxy": {"enabled": True, "size": 2, "image": "percona/haproxy:2.8.17"},
    },
    opts=pulumi.ResourceOptions(provider=provider),
)
