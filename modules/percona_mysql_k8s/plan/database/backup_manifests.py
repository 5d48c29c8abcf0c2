"""``spec.backup`` of both custom resources from a :class:`BackupPlan` (R1-R4, M3, K5); the restore objects are
:mod:`percona_mysql_k8s.plan.database.restore`.

Pure (no Pulumi). Every field is read the way the operators read it (sources: percona-xtradb-cluster-operator
v1.19.0, percona-server-mysql-operator v1.2.0):

* Placement. The PXC backup Job and the PITR collector Deployment take ``nodeSelector``/``tolerations``/
  ``affinity`` from the storage (``pkg/pxc/backup/job.go``; ``pkg/pxc/app/binlogcollector/binlog-collector.go``
  reads ``Storages[pitr.storageName]``). The PS backup Job takes them from the storage too
  (``pkg/xtrabackup/xtrabackup.go``), the PS binlog server from ``pitr.binlogServer`` itself (its inline
  ``PodSpec``, ``pkg/binlogserver/binlog_server.go``). All of them go to the monitoring pool (K5).
* Sizes (M3, request = limit). PXC: the Job's container from ``storages.<name>.resources``, the collector from
  ``pitr.resources`` (its binlog buffer is 75% of that memory, ``getBufferSize``). PS: the Job's ``xtrabackup``
  container from ``storages.<name>.resources``; ``backup.resources`` is the ``xtrabackup`` sidecar in every
  mysqld pod (and the Job's init container), sized by the member budget; the binlog server from
  ``binlogServer.resources``.
* Credentials. The PXC backup Job alone can use the pod's identity (IRSA) when ``credentialsSecret`` is empty
  (``job.go``: keys only ``if s3.CredentialsSecret != ""``); the PXC collector builds static keys from the
  Secret (``binlog-collector.go``, ``cmd/pitr/collector``: ``credentials.NewStaticV4``), and so does the PXC
  restore Job (``pkg/pxc/backup/restore.go`` ``s3Envs``: ``SecretKeyRef{Name: bcp.Status.S3.CredentialsSecret}``
  unconditionally). A PXC backup without a credentials Secret could be taken but never restored by the
  operator, so it is refused (R1). The PS CRD requires ``credentialsSecret`` everywhere; its binlog server
  reads ``AWS_ACCESS_KEY_ID``/``AWS_SECRET_ACCESS_KEY`` from it and speaks S3 only (``pkg/binlogserver/config.go``
  ``s3URI``), so on GCS it uses GCS's S3-interoperable endpoint with HMAC keys.
* Retention. PXC: ``retention: {type: count, count, deleteFromStorage: true}`` (``keep`` is deprecated,
  ``pxc_types.go``); the operator deletes the oldest succeeded backups beyond ``count`` and, with
  ``deleteFromStorage``, their files (the ``delete-backup`` finalizer, ``pkg/controller/pxc/backup.go``).
  PS: ``keep`` on the schedule (``BackupSchedule.Keep``).
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

from percona_mysql_k8s.core.backup import (
    GCS,
    GCS_ENDPOINT,
    PXC_XBCLOUD_ARGS,
    S3,
    S3_COMPATIBLE,
    STORAGE_KINDS,
    STORAGE_NAME,
    BackupPlan,
    BackupStorage,
    ps_checkpoint_interval,
)
from percona_mysql_k8s.core.errors import InputError
from percona_mysql_k8s.core.names import dns1123_subdomain_problem
from percona_mysql_k8s.core.scheduling import PodPlacement
from percona_mysql_k8s.core.sidecars import ContainerSize

from . import versions
from .pods import resources

if TYPE_CHECKING:
    from .spec import DatabaseSpec

BINLOG_FOLDER = "binlogs"  # the PS binlog server's folder under the storage prefix
SCHEDULE_NAME = "daily"  # the one schedule; a scheduled backup's name is derived by the operators from it


def _placement(placement: PodPlacement) -> dict[str, Any]:
    """nodeSelector + tolerations (+ affinity) of the monitoring pool (K4, K5)."""
    return placement.as_pod_spec()


def s3_block(storage: BackupStorage, *, with_prefix_field: bool) -> dict[str, Any]:
    """An ``s3`` block. PXC has no ``prefix`` field: its bucket carries it as ``<bucket>/<prefix>``
    (``BucketAndPrefix``); PS has both and joins them."""
    block: dict[str, Any] = {"bucket": storage.bucket}
    if storage.prefix:
        if with_prefix_field:
            block["prefix"] = storage.prefix
        else:
            block["bucket"] = f"{storage.bucket}/{storage.prefix.strip('/')}"
    block["credentialsSecret"] = storage.credentials_secret
    if storage.region:
        block["region"] = storage.region
    endpoint = GCS_ENDPOINT if storage.kind == GCS else storage.endpoint_url
    if endpoint:
        block["endpointUrl"] = endpoint
    return block


def check_storage(storage: BackupStorage) -> None:
    if storage.kind not in STORAGE_KINDS:
        raise InputError("backup", f"storage kind must be one of {', '.join(STORAGE_KINDS)}; got {storage.kind!r}", "R1")
    if not storage.bucket:
        raise InputError("backup", "the backup storage names no bucket", "R1")
    if storage.kind == S3_COMPATIBLE and not storage.endpoint_url:
        raise InputError("backup", "an S3-compatible backup storage needs its endpoint URL", "R1")
    if storage.kind == S3 and not storage.region:
        # Without a region both operators address s3.amazonaws.com as us-east-1 (PXC storage.NewS3, the PXC
        # operator's getS3Options): a bucket elsewhere answers with redirects, not with backups.
        raise InputError("backup", f"the S3 bucket {storage.bucket!r} needs its region", "R1")
    if storage.credentials_secret and dns1123_subdomain_problem(storage.credentials_secret):
        raise InputError("backup", f"credentials Secret name {storage.credentials_secret!r} is not a valid Secret name", "R1")


def _storage_block(
    storage: BackupStorage, plan: BackupPlan, placement: PodPlacement, storage_body: dict[str, Any]
) -> dict[str, Any]:
    """The storage with the backup Job's own size and placement (the operators read both from here)."""
    return {**storage_body, "verifyTLS": storage.verify_tls, "resources": resources(plan.backup_job), **_placement(placement)}


def _pitr_size(plan: BackupPlan) -> ContainerSize | None:
    if plan.pitr and plan.pitr_collector is None:
        raise InputError("pitr", "point-in-time recovery is on but the plan sizes no binlog collector", "R2")
    if plan.pitr and plan.pitr_upload_seconds <= 0:
        raise InputError("pitrUploadSeconds", f"must be > 0, got {plan.pitr_upload_seconds}", "R2")
    return plan.pitr_collector


def pxc_backup(spec: DatabaseSpec, plan: BackupPlan, placement: PodPlacement) -> dict[str, Any]:
    """``PerconaXtraDBCluster.spec.backup``: one storage, one schedule with count retention, PITR."""
    storage = plan.storage
    check_storage(storage)
    if not storage.credentials_secret:
        # restore.go s3Envs names bcp.Status.S3.CredentialsSecret unconditionally: "" is an invalid
        # secretKeyRef, the restore Job is never created; the delete-backup finalizer also reads that Secret.
        raise InputError(
            "backup",
            "the PXC operator restores (and deletes) S3 backups only with keys from a credentials Secret "
            "(pkg/pxc/backup/restore.go); a backup taken through the pod's identity alone could not be restored",
            "R1",
        )
    # GCS through its S3-interoperable endpoint (HMAC keys): the PXC operator has no gcs storage type.
    body: dict[str, Any] = {
        "image": versions.PXC.image(spec.mysql_version, "backup"),
        "storages": {
            STORAGE_NAME: _storage_block(
                storage,
                plan,
                placement,
                {
                    "type": "s3",
                    "s3": s3_block(storage, with_prefix_field=False),
                    # xbcloud's parallelism pinned: the backup script's default is the node's CPU count, which the Job's
                    # memory size (core.backup.PXC_BACKUP_JOB) does not cover (run_backup.sh; XBCLOUD_ARGS come last)
                    "containerOptions": {"args": {"xbcloud": list(PXC_XBCLOUD_ARGS)}},
                },
            )
        },
        "schedule": [
            {
                "name": SCHEDULE_NAME,
                "schedule": plan.schedule.text,
                "retention": {"type": "count", "count": plan.keep, "deleteFromStorage": True},
                "storageName": STORAGE_NAME,
            }
        ],
    }
    if storage.service_account:
        body["serviceAccountName"] = storage.service_account
    collector = _pitr_size(plan)
    if plan.pitr:
        body["pitr"] = {
            "enabled": True,
            "storageName": STORAGE_NAME,
            "timeBetweenUploads": plan.pitr_upload_seconds,  # seconds between binlog uploads (COLLECT_SPAN_SEC)
            "resources": resources(collector),
        }
    return body


def ps_backup(
    spec: DatabaseSpec, plan: BackupPlan, placement: PodPlacement, sidecar: ContainerSize | None = None
) -> dict[str, Any]:
    """``PerconaServerMySQL.spec.backup``: one storage, one full-backup schedule with ``keep``, the binlog server.

    ``sidecar`` is the ``xtrabackup`` sidecar's size from the member budget (``backup.resources``).
    """
    storage = plan.storage
    check_storage(storage)
    if not storage.credentials_secret:
        raise InputError(
            "backup",
            "the PS operator requires a credentials Secret for every storage (CRD: credentialsSecret "
            "is required; the backup controller refuses a storage whose Secret is missing)",
            "R4",
        )
    if storage.kind == GCS:
        gcs: dict[str, Any] = {
            "bucket": storage.bucket,
            "credentialsSecret": storage.credentials_secret,
            "endpointUrl": GCS_ENDPOINT,
        }
        if storage.prefix:
            gcs["prefix"] = storage.prefix
        storage_body: dict[str, Any] = {"type": "gcs", "gcs": gcs}
    else:
        storage_body = {"type": "s3", "s3": s3_block(storage, with_prefix_field=True)}
    body: dict[str, Any] = {
        "enabled": True,
        "image": versions.PS.image(spec.mysql_version, "backup"),
        "storages": {STORAGE_NAME: _storage_block(storage, plan, placement, storage_body)},
        "schedule": [
            {
                "name": SCHEDULE_NAME,
                "schedule": plan.schedule.text,
                "keep": plan.keep,
                "storageName": STORAGE_NAME,
                "type": "full",
            }
        ],
    }
    if sidecar is not None:
        body["resources"] = resources(sidecar)
    if storage.service_account:
        body["serviceAccountName"] = storage.service_account
    collector = _pitr_size(plan)
    if plan.pitr:
        # The binlog server writes binlog.NNNNNN and its metadata at its prefix root: a folder of its own
        # beside the backups' <backup-name>/ folders, found again through the same config at restore time.
        binlogs = dataclasses.replace(storage, prefix="/".join(p for p in (storage.prefix.strip("/"), BINLOG_FOLDER) if p))
        body["pitr"] = {
            "enabled": True,
            "binlogServer": {
                "image": versions.BINLOG_SERVER_IMAGE,
                "size": 1,  # CEL: at most 1
                # The binlog server speaks S3 only (config.go s3URI); GCS through its S3-interoperable endpoint.
                "storage": {"s3": s3_block(binlogs, with_prefix_field=True)},
                # storage.checkpoint_interval of the binlog server: after this long it writes what it streamed
                # to storage, /\d+[smhd]?/ (Percona-Lab/percona-binlog-server README; the operator's default "30s").
                # On S3 each checkpoint re-uploads the whole current binlog file (S3 has no append).
                "checkpointInterval": ps_checkpoint_interval(plan.pitr_upload_seconds),
                "resources": resources(collector),
                **_placement(placement),
            },
        }
    return body
