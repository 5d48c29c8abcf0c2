"""EKS + Percona XtraDB Cluster (Galera) behind ProxySQL, with PMM, backed up to S3.

The modules used directly: cluster settings -> EKS cluster -> operator -> PMM -> backup bucket -> PXC.
Backups go every 6 hours to a private SSE-KMS S3 bucket with a 14-day window and point-in-time recovery
(R1-R4). The database pool is
three r6i.2xlarge (memory-optimized: a larger buffer pool per core), sized by the engine for their
allocatable; the ProxySQL pods get their own sizes and a 2Gi volume.
"""

import pulumi
from percona_mysql_k8s.clusters import build_cluster, cluster_settings_from_config
from percona_mysql_k8s.core import monitoring
from percona_mysql_k8s.core.backup import S3, BackupStorage, backup_plan
from percona_mysql_k8s.core.cron import parse_schedule
from percona_mysql_k8s.database import (
    DatabaseCluster,
    DatabaseClusterArgs,
    DatabaseSpec,
    NetworkPolicies,
    NetworkPoliciesArgs,
    OperatorArgs,
    PerconaOperator,
    PmmServer,
    PmmServerArgs,
    create_namespace,
)
from percona_mysql_k8s.database.backup_storage import provision_backup_storage
from percona_mysql_k8s.plan.database.network_policies import client_access

config = pulumi.Config()
region = config.get("awsRegion") or "eu-west-1"
settings = cluster_settings_from_config(
    {
        "target": "eks",
        "clusterName": "pxc-proxysql",
        "awsRegion": region,
        "databaseNodeType": "r6i.2xlarge",
        "databaseNodeCount": 3,
        "monitoringNodeType": "m6i.xlarge",
        "clusterSize": 3,
    }
)
spec = DatabaseSpec(
    name="pxc-proxysql",
    namespace="pxc",
    engine="pxc",
    proxy="proxysql",  # L7: query rules and read/write split; HAProxy stays the default elsewhere (T2)
    load="heavy-oltp",
    mysql_version="8.0",
    storage_size="200Gi",
    disk_iops=3000,  # gp3 baseline
    backup=True,
)
# S3 bucket names are global: set backupBucket to one of yours
backups = backup_plan(
    BackupStorage(kind=S3, bucket=config.get("backupBucket") or f"pxc-proxysql-{region}-backups", region=region),
    engine=spec.engine,
    schedule=parse_schedule("0 */6 * * *"),
    retention_days=14,
    pitr=True,
    pitr_upload_seconds=60,
)

target = build_cluster(settings)
namespace = create_namespace(spec.namespace, target, protect=True)
plan = monitoring.plan(target.monitoring_pool.node, operator=True, pmm_server=True, sysbench=False, backup=backups)
operator = PerconaOperator(
    "pxc-operator", OperatorArgs(engine="pxc", namespace=spec.namespace, target=target, depends_on=[namespace])
)
pmm = PmmServer(
    "pxc-pmm",
    PmmServerArgs(namespace=spec.namespace, target=target, resources=plan.pmm_server, protect=True, depends_on=[namespace]),
)
backups, backup_ready = provision_backup_storage(
    "pxc-backups",
    backups,
    namespace=spec.namespace,
    cluster_name=spec.name,
    engine=spec.engine,
    target=target,
    depends_on=[namespace],
)
# R6: the database pods accept only their members, proxies, the operator, PMM and backup Jobs; the proxies only
# pods of the database namespace (add client namespaces to client_access)
fences = NetworkPolicies(
    "pxc-proxysql-network",
    NetworkPoliciesArgs(
        spec=spec, target=target, clients=client_access([], []), pmm_server=True, operator_installed=True, depends_on=[namespace]
    ),
).ready
cluster = DatabaseCluster(
    "pxc-proxysql",
    DatabaseClusterArgs(
        spec=spec,
        target=target,
        operator=operator,
        pmm=pmm,
        depends_on=[namespace, *fences],
        backup=backups,
        backup_ready=backup_ready,
    ),
)

pulumi.export("writer", f"{cluster.writer.host}:{cluster.writer.port}")
pulumi.export(
    "proxysql",
    {
        "cpu": cluster.sizing.containers["proxysql"].cpu_millicores,
        "memoryBytes": cluster.sizing.containers["proxysql"].memory_bytes,
    },
)
pulumi.export("maxConnections", cluster.sizing.connections)
pulumi.export("backups", {"bucket": backups.storage.bucket, "keep": backups.keep, "schedule": backups.schedule.text})
