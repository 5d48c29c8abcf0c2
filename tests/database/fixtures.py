"""Pools and specs shared by the database tests (no Pulumi)."""

from __future__ import annotations

from percona_mysql_k8s.core.allocatable import kind_node_budget, node_budget
from percona_mysql_k8s.core.backup import GCS, S3, S3_COMPATIBLE, BackupPlan, BackupStorage
from percona_mysql_k8s.core.cron import parse_schedule
from percona_mysql_k8s.core.pools import DATABASE_POOL, DATABASE_TAINT, MONITORING_POOL, POOL_LABEL, PoolShape
from percona_mysql_k8s.core.sidecars import ContainerSize
from percona_mysql_k8s.core.units import GIB, MIB


def gke_pools(nodes: int = 3) -> tuple[PoolShape, PoolShape]:
    database = PoolShape(
        "db", {POOL_LABEL: DATABASE_POOL}, nodes, node_budget("n2-standard-16", "gke"), (DATABASE_TAINT,), "n2-standard-16"
    )
    monitoring = PoolShape("mon", {POOL_LABEL: MONITORING_POOL}, 1, node_budget("n2-standard-8", "gke"), (), "n2-standard-8")
    return database, monitoring


def eks_pools(nodes: int = 3) -> tuple[PoolShape, PoolShape]:
    database = PoolShape(
        "db", {POOL_LABEL: DATABASE_POOL}, nodes, node_budget("m6i.4xlarge", "eks"), (DATABASE_TAINT,), "m6i.4xlarge"
    )
    monitoring = PoolShape("mon", {POOL_LABEL: MONITORING_POOL}, 1, node_budget("m6i.2xlarge", "eks"), (), "m6i.2xlarge")
    return database, monitoring


def kind_pools(nodes: int = 1) -> tuple[PoolShape, PoolShape]:
    budget = kind_node_budget(8000, 32 * GIB, 0.25)
    database = PoolShape("db", {POOL_LABEL: DATABASE_POOL}, nodes, budget, (DATABASE_TAINT,))
    monitoring = PoolShape("mon", {POOL_LABEL: MONITORING_POOL}, 1, budget, ())
    return database, monitoring


# Backup storages as the storage components / the integrator would build them (D's GCS and S3 with a
# credentials Secret, an S3-compatible endpoint from config), and plans with hand-picked sizes: worker A's
# plan function derives the real ones; these only need to be distinct so a test sees which one went where.
GCS_STORAGE = BackupStorage(
    kind=GCS, bucket="acme-db-backups", prefix="db1", credentials_secret="db1-backup-hmac", service_account="db1-backup"
)
S3_STORAGE = BackupStorage(
    kind=S3,
    bucket="acme-db-backups",
    prefix="db1",
    region="eu-west-1",
    credentials_secret="db1-backup-s3",
    service_account="db1-backup",
)
MINIO_STORAGE = BackupStorage(
    kind=S3_COMPATIBLE,
    bucket="backups",
    endpoint_url="https://minio.storage.svc:9000",
    credentials_secret="minio-keys",
    verify_tls=False,
)
BACKUP_JOB = ContainerSize(1000, 1536 * MIB)
COLLECTOR = ContainerSize(250, 512 * MIB)


def backup_plan(storage: BackupStorage = GCS_STORAGE, *, pitr: bool = True, keep: int = 8) -> BackupPlan:
    return BackupPlan(
        storage=storage,
        schedule=parse_schedule("0 3 * * *"),
        retention_days=7,
        keep=keep,
        pitr=pitr,
        pitr_upload_seconds=60,
        backup_job=BACKUP_JOB,
        pitr_collector=COLLECTOR if pitr else None,
    )
