"""A hand-written Percona XtraDB Cluster whose backup endpoint is another resource's output: a random host name,
unknown during `pulumi preview` and known at `pulumi up` (tests/engine/test_engine_unknowns.py; never deployed:
the pack refuses it).

* Known at preview, whatever the endpoint turns out to be: the only backup schedule never fires
  ("0 0 30 2 *": February has no 30th), so no backup runs (R1).
* Unknown at preview: ``spec.backup.storages.minio.s3.endpointUrl``. At `up` it is
  ``http://<pet>.minio.backup.svc:9000``: plain HTTP (R4) to a host inside the cluster.

Config: ``kubeconfig`` (the cluster the preview talks to).
"""

import pulumi
import pulumi_kubernetes as k8s
import pulumi_random as random

config = pulumi.Config()
provider = k8s.Provider("cluster", kubeconfig=config.require("kubeconfig"))
host = random.RandomPet("minio-host", length=2)

k8s.apiextensions.CustomResource(
    "computed-cluster",
    api_version="pxc.percona.com/v1",
    kind="PerconaXtraDBCluster",
    metadata={"name": "computed", "namespace": "unknowns"},
    spec={
        "crVersion": "1.20.0",
        "secretsName": "computed-secrets",
        "pxc": {
            "size": 3,
            "image": "percona/percona-xtradb-cluster:8.4.7-7.1",
            "resources": {"requests": {"cpu": "2", "memory": "8Gi"}, "limits": {"cpu": "2", "memory": "8Gi"}},
            "volumeSpec": {"persistentVolumeClaim": {"resources": {"requests": {"storage": "100Gi"}}}},
        },
        "haproxy": {"enabled": True, "size": 3, "image": "percona/haproxy:2.8.17"},
        "backup": {
            "image": "percona/percona-xtrabackup:8.4.0-5.1",
            "storages": {
                "minio": {
                    "type": "s3",
                    "s3": {
                        "bucket": "backups",
                        "credentialsSecret": "minio-keys",
                        "region": "us-east-1",
                        "endpointUrl": host.id.apply(lambda name: f"http://{name}.minio.backup.svc:9000"),
                    },
                }
            },
            "schedule": [{"name": "never", "schedule": "0 0 30 2 *", "storageName": "minio", "keep": 8}],
        },
    },
    opts=pulumi.ResourceOptions(provider=provider),
)
