"""GKE + group replication (Percona Server) behind MySQL Router, monitored by PMM and backed up. No benchmark.

The modules used directly, without the stack program: cluster settings -> cluster -> operator -> PMM ->
backup bucket -> database cluster. Every size comes from the sizing engine for an n2-standard-8 database
node; backups go daily to a private GCS bucket with a 7-day window and point-in-time recovery (R1-R4).
"""

import pulumi
from percona_mysql_k8s.clusters import build_cluster, cluster_settings_from_config
from percona_mysql_k8s.core import monitoring
from percona_mysql_k8s.core.backup import GCS, GCS_ENDPOINT, BackupStorage, backup_plan
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
project = config.require("gcpProject")
region = config.get("gcpRegion") or "europe-west1"
settings = cluster_settings_from_config(
    {
        "target": "gke",
        "clusterName": "gr-router",
        "gcpProject": project,
        "gcpRegion": region,
        "gcpZones": [f"{region}-b", f"{region}-c", f"{region}-d"],
        "databaseNodeType": "n2-standard-8",
        "databaseNodeCount": 3,
        "monitoringNodeType": "n2-standard-4",
        "clusterSize": 3,
    }
)
spec = DatabaseSpec(
    name="gr-router",
    namespace="mysql",
    engine="group-replication",
    proxy="router",  # T2: Router saturates near 16 client threads; fine for a modest application
    load="read-heavy",
    storage_class="premium-rwo",
    storage_size="100Gi",
    disk_iops=3000,
    backup=True,  # the xtrabackup sidecar of every member is budgeted (M3)
)
# daily at 03:00 UTC, a 7-day restore window (R3's minimum), binary logs uploaded every minute (R2)
backups = backup_plan(
    BackupStorage(kind=GCS, bucket=f"{project}-gr-router-backups", endpoint_url=GCS_ENDPOINT),
    engine=spec.engine,
    schedule=parse_schedule("0 3 * * *"),
    retention_days=7,
    pitr=True,
    pitr_upload_seconds=60,
)

target = build_cluster(settings)
namespace = create_namespace(spec.namespace, target, protect=True)
plan = monitoring.plan(target.monitoring_pool.node, operator=True, pmm_server=True, sysbench=False, backup=backups)
operator = PerconaOperator(
    "gr-operator", OperatorArgs(engine=spec.engine, namespace=spec.namespace, target=target, depends_on=[namespace])
)
pmm = PmmServer(
    "gr-pmm",
    PmmServerArgs(
        namespace=spec.namespace,
        target=target,
        resources=plan.pmm_server,
        storage_class="premium-rwo",
        protect=True,
        depends_on=[namespace],
    ),
)
backups, backup_ready = provision_backup_storage(
    "gr-backups",
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
    "gr-router-network",
    NetworkPoliciesArgs(
        spec=spec, target=target, clients=client_access([], []), pmm_server=True, operator_installed=True, depends_on=[namespace]
    ),
).ready
cluster = DatabaseCluster(
    "gr-router",
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

pulumi.export("writer", f"{cluster.writer.host}:{cluster.writer.port}")  # the router's read-write port
pulumi.export("mysqldMemory", cluster.sizing.containers["mysqld"].memory_bytes)
pulumi.export("pmm", pmm.url)
pulumi.export("backupBucket", backups.storage.bucket)
