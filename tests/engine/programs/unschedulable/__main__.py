"""A Deployment whose pod fits no Node: it asks the monitoring pool for more memory than any of its Nodes has
(the tier's Nodes have 28Gi allocatable). `pulumi up` of it must fail the engine tier at once with the scheduler's
message (tests/engine/test_engine_scheduling.py), not wait out the Deployment's timeout.

Config: ``kubeconfig``, ``namespace``.
"""

import pulumi
import pulumi_kubernetes as k8s

config = pulumi.Config()
provider = k8s.Provider("cluster", kubeconfig=config.require("kubeconfig"))
labels = {"app": "too-big"}

k8s.apps.v1.Deployment(
    "too-big",
    metadata={"name": "too-big", "namespace": config.require("namespace")},
    spec={
        "replicas": 1,
        "selector": {"matchLabels": labels},
        "template": {
            "metadata": {"labels": labels},
            "spec": {
                "nodeSelector": {"mysql.percona.com/pool": "monitoring"},
                "containers": [
                    {
                        "name": "main",
                        "image": "busybox:1.37",
                        "resources": {"requests": {"cpu": "100m", "memory": "64Gi"}, "limits": {"memory": "64Gi"}},
                    }
                ],
            },
        },
    },
    opts=pulumi.ResourceOptions(provider=provider),
)
