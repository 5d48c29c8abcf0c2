"""Backups and point-in-time recovery as data (rules R1-R4, M3, K5): where they go and how often.

Pure (no Pulumi). The stack turns its cloud resources (a GCS or S3 bucket and an identity) or its config
(an S3-compatible endpoint) into a :class:`BackupStorage`; the plan adds the schedule, the retention the
rule R3 asks for, point-in-time recovery (R2) and the size of every backup container (M3), which the
monitoring pool budgets (K5). The custom resources' ``spec.backup`` is written from a :class:`BackupPlan`
(percona_mysql_k8s.database.backup_manifests), and the policy pack reads the same schedule and retention
rules (percona_mysql_k8s.core.cron) from any custom resource or chart values.
"""

from __future__ import annotations

from dataclasses import dataclass

from .sidecars import ContainerSize

GCS, S3, S3_COMPATIBLE = "gcs", "s3", "s3-compatible"
STORAGE_KINDS = (GCS, S3, S3_COMPATIBLE)
# The one storage the stack writes into the custom resources' ``spec.backup.storages``; schedules and PITR
# name it. Both CRDs key storages by any string.
STORAGE_NAME = "offsite"
GCS_ENDPOINT = "https://storage.googleapis.com"  # GCS's S3-interoperable XML API (HMAC keys)


@dataclass(frozen=True)
class BackupStorage:
    """Object storage outside the cluster (R1), as the operators address it.

    ``credentials_secret`` names a Secret in the database namespace holding the keys the operator reads
    (``AWS_ACCESS_KEY_ID``/``AWS_SECRET_ACCESS_KEY`` for S3, ``ACCESS_KEY_ID``/``SECRET_ACCESS_KEY`` for the
    PS operator's GCS type); ``""`` means the backup pods authenticate through ``service_account``
    (IRSA), which only the PXC operator's S3 storage supports (R4).
    """

    kind: str  # GCS | S3 | S3_COMPATIBLE
    bucket: str
    prefix: str = ""
    region: str = ""
    endpoint_url: str = ""  # GCS: GCS_ENDPOINT; S3: "" (AWS); S3-compatible: the endpoint given in config
    credentials_secret: str = ""
    service_account: str = ""  # the Kubernetes ServiceAccount backup pods run as ("" = the operator's default)
    verify_tls: bool = True


@dataclass(frozen=True)
class BackupPlan:
    """What the custom resource's ``spec.backup`` holds; every number derived, none guessed."""

    storage: BackupStorage
    schedule: str  # a cron expression as the operators read it (robfig/cron ParseStandard)
    retention_days: int  # the restore window asked for (R3)
    keep: int  # backups kept per schedule: the smallest count whose window covers retention_days
    pitr: bool  # point-in-time recovery (R2)
    pitr_upload_seconds: int  # how often binary logs are uploaded: the recovery point objective
    backup_job: ContainerSize  # the backup Job's container, request = limit (M3), on the monitoring pool (K5)
    pitr_collector: ContainerSize | None  # the binlog collector / binlog server (M3, K5); None without PITR
