"""``spec.backup`` of both custom resources, and the restore objects, from a :class:`BackupPlan` (R1-R4, M3, K5).

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
import re
from datetime import datetime
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
from percona_mysql_k8s.core.memory import GROUP_REPLICATION, PXC
from percona_mysql_k8s.core.names import dns1123_label_problem, dns1123_subdomain_problem
from percona_mysql_k8s.core.scheduling import PodPlacement
from percona_mysql_k8s.core.sidecars import ContainerSize

from . import manifests, versions  # module imports both ways: manifests.custom_resource calls back here

if TYPE_CHECKING:
    from .manifests import DatabaseSpec

BINLOG_FOLDER = "binlogs"  # the PS binlog server's folder under the storage prefix
SCHEDULE_NAME = "daily"  # the one schedule; a scheduled backup's name is derived by the operators from it
POINT_IN_TIME_FORMAT = "%Y-%m-%d %H:%M:%S"  # both operators: "2006-01-02 15:04:05" (UTC), see restore_manifest
# The PXC 1.20 restore CRD's CEL rule for pitr.date, verbatim (helm-pxc-operator-1.20.0-crds-crd.yaml).
_PXC_DATE = re.compile(r"^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01]) ([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]$")
# A binary log event's timestamp is 4 bytes of seconds since the Unix epoch (the event header's ``when``,
# MySQL libbinlogevents binlog_event.h): no point in time before it can be rolled forward to.
BINLOG_EPOCH = datetime(1970, 1, 1)


def _resources(size: ContainerSize) -> dict[str, dict[str, str]]:
    return manifests.resources(size)  # one formatter for every container: request = limit (M3)


def _placement(placement: PodPlacement) -> dict[str, Any]:
    """nodeSelector + tolerations (+ affinity) of the monitoring pool (K4, K5)."""
    return placement.as_pod_spec()


def _s3(storage: BackupStorage, *, with_prefix_field: bool) -> dict[str, Any]:
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


def _check_storage(storage: BackupStorage) -> None:
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


def _storage_block(storage: BackupStorage, plan: BackupPlan, placement: PodPlacement, storage_body: dict[str, Any]) -> dict[str, Any]:
    """The storage with the backup Job's own size and placement (the operators read both from here)."""
    return {**storage_body, "verifyTLS": storage.verify_tls, "resources": _resources(plan.backup_job), **_placement(placement)}


def _pitr_size(plan: BackupPlan) -> ContainerSize | None:
    if plan.pitr and plan.pitr_collector is None:
        raise InputError("pitr", "point-in-time recovery is on but the plan sizes no binlog collector", "R2")
    if plan.pitr and plan.pitr_upload_seconds <= 0:
        raise InputError("pitrUploadSeconds", f"must be > 0, got {plan.pitr_upload_seconds}", "R2")
    return plan.pitr_collector


def pxc_backup(spec: DatabaseSpec, plan: BackupPlan, placement: PodPlacement) -> dict[str, Any]:
    """``PerconaXtraDBCluster.spec.backup``: one storage, one schedule with count retention, PITR."""
    storage = plan.storage
    _check_storage(storage)
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
        "storages": {STORAGE_NAME: _storage_block(storage, plan, placement, {
            "type": "s3", "s3": _s3(storage, with_prefix_field=False),
            # xbcloud's parallelism pinned: the backup script's default is the node's CPU count, which the Job's
            # memory size (core.backup.PXC_BACKUP_JOB) does not cover (run_backup.sh; XBCLOUD_ARGS come last)
            "containerOptions": {"args": {"xbcloud": list(PXC_XBCLOUD_ARGS)}},
        })},
        "schedule": [{
            "name": SCHEDULE_NAME,
            "schedule": plan.schedule,
            "retention": {"type": "count", "count": plan.keep, "deleteFromStorage": True},
            "storageName": STORAGE_NAME,
        }],
    }
    if storage.service_account:
        body["serviceAccountName"] = storage.service_account
    collector = _pitr_size(plan)
    if plan.pitr:
        body["pitr"] = {
            "enabled": True,
            "storageName": STORAGE_NAME,
            "timeBetweenUploads": plan.pitr_upload_seconds,  # seconds between binlog uploads (COLLECT_SPAN_SEC)
            "resources": _resources(collector),
        }
    return body


def ps_backup(spec: DatabaseSpec, plan: BackupPlan, placement: PodPlacement, sidecar: ContainerSize | None = None) -> dict[str, Any]:
    """``PerconaServerMySQL.spec.backup``: one storage, one full-backup schedule with ``keep``, the binlog server.

    ``sidecar`` is the ``xtrabackup`` sidecar's size from the member budget (``backup.resources``).
    """
    storage = plan.storage
    _check_storage(storage)
    if not storage.credentials_secret:
        raise InputError("backup", "the PS operator requires a credentials Secret for every storage (CRD: credentialsSecret "
                                   "is required; the backup controller refuses a storage whose Secret is missing)", "R4")
    if storage.kind == GCS:
        gcs: dict[str, Any] = {"bucket": storage.bucket, "credentialsSecret": storage.credentials_secret, "endpointUrl": GCS_ENDPOINT}
        if storage.prefix:
            gcs["prefix"] = storage.prefix
        storage_body: dict[str, Any] = {"type": "gcs", "gcs": gcs}
    else:
        storage_body = {"type": "s3", "s3": _s3(storage, with_prefix_field=True)}
    body: dict[str, Any] = {
        "enabled": True,
        "image": versions.PS.image(spec.mysql_version, "backup"),
        "storages": {STORAGE_NAME: _storage_block(storage, plan, placement, storage_body)},
        "schedule": [{
            "name": SCHEDULE_NAME,
            "schedule": plan.schedule,
            "keep": plan.keep,
            "storageName": STORAGE_NAME,
            "type": "full",
        }],
    }
    if sidecar is not None:
        body["resources"] = _resources(sidecar)
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
                "storage": {"s3": _s3(binlogs, with_prefix_field=True)},
                # storage.checkpoint_interval of the binlog server: after this long it writes what it streamed
                # to storage, /\d+[smhd]?/ (Percona-Lab/percona-binlog-server README; the operator's default "30s").
                # On S3 each checkpoint re-uploads the whole current binlog file (S3 has no append).
                "checkpointInterval": ps_checkpoint_interval(plan.pitr_upload_seconds),
                "resources": _resources(collector),
                **_placement(placement),
            },
        }
    return body


# --------------------------------------------------------------------------------------------------
# restore


def parse_point_in_time(text: str, key: str = "time") -> datetime:
    """``YYYY-MM-DD hh:mm:ss`` (UTC): the PXC recoverer parses ``"2006-01-02 15:04:05"`` (cmd/pitr/recoverer),
    the PS operator turns the space into ``T`` for the binlog server's timestamp search (psrestore/controller.go)."""
    if not isinstance(text, str) or not _PXC_DATE.fullmatch(text):  # CEL's $ (RE2) is the end of the text
        raise InputError(key, f"{text!r} is not a point in time of the form YYYY-MM-DD hh:mm:ss (UTC)")
    try:
        when = datetime.strptime(text, POINT_IN_TIME_FORMAT)
    except ValueError as error:  # 2026-02-30 passes the pattern
        raise InputError(key, f"{text!r}: {error}") from None
    if when < BINLOG_EPOCH:
        raise InputError(key, f"{text!r} is before 1970-01-01 00:00:00 UTC, where binary log timestamps start: no backup "
                              "or binary log holds it", "R2")
    return when


def check_point_in_time(when: datetime, now: datetime, key: str = "time") -> None:
    """A point in time a restore can reach: not after ``now`` (naive UTC), when no binary log has it yet."""
    if when > now:
        raise InputError(key, f"{when.strftime(POINT_IN_TIME_FORMAT)} UTC is in the future (it is "
                              f"{now.strftime(POINT_IN_TIME_FORMAT)} UTC now): no binary log holds it yet", "R2")


def check_restore_names(cluster: str, namespace: str, name: str) -> None:
    """The names a restore object carries, as the API server checks them (core.names): the namespace a
    DNS-1123 label, the cluster's and the restore's names DNS-1123 subdomains."""
    for key, problem in (("cluster", dns1123_subdomain_problem(cluster)), ("namespace", dns1123_label_problem(namespace)),
                         ("name", dns1123_subdomain_problem(name))):
        if problem:
            raise InputError(key, problem)


def restore_manifest(engine: str, cluster: str, namespace: str, *, name: str, backup_name: str | None = None,
                     point_in_time: str | None = None, storage: BackupStorage | None = None) -> dict[str, Any]:
    """A ``PerconaXtraDBClusterRestore`` / ``PerconaServerMySQLRestore`` for a named backup, optionally rolled
    forward to ``point_in_time`` with the binary logs the collector uploaded.

    Both operators need the base backup named (PXC ``CheckNsetDefaults``: "backupName and BackupSource can't
    be empty simultaneously"; PS ``getBackup``: "backupName and backupSource are empty"): the latest
    succeeded backup completed before the point in time (see :mod:`percona_mysql_k8s.cli.restore`). A PXC point
    in time reads the binlogs from ``pitr.backupSource`` (``restore.go`` s3Envs: "no bucket in storage"
    otherwise): the cluster's own storage by name, or ``storage`` given explicitly (a cluster restored from
    another's binlogs). PS reads them through the cluster's binlog server (``SearchByTimestamp``).
    """
    check_restore_names(cluster, namespace, name)
    if not backup_name:
        raise InputError("backup", "name the backup to restore (the base backup for a point in time): both operators need it")
    problem = dns1123_subdomain_problem(backup_name)
    if problem:
        raise InputError("backup", f"{problem} (a backup object's name)")
    if point_in_time is not None:
        parse_point_in_time(point_in_time)
    if engine == PXC:
        release = versions.PXC
        spec: dict[str, Any] = {"pxcCluster": cluster, "backupName": backup_name}
        if point_in_time is not None:
            source = {"storageName": STORAGE_NAME} if storage is None else {"s3": _s3(storage, with_prefix_field=False)}
            if storage is not None:
                _check_storage(storage)
                if not storage.credentials_secret:
                    raise InputError("storage", "the PXC restore Job reads the binlogs with keys from a credentials Secret", "R2")
            spec["pitr"] = {"type": "date", "date": point_in_time, "backupSource": source}
        kind = "PerconaXtraDBClusterRestore"
    elif engine == GROUP_REPLICATION:
        if storage is not None:
            raise InputError("storage", "a PS restore reads the binary logs through the cluster's own binlog server; "
                                        "no other storage can be named")
        release = versions.PS
        spec = {"clusterName": cluster, "backupName": backup_name}
        if point_in_time is not None:
            spec["pitr"] = {"type": "date", "date": point_in_time}
        kind = "PerconaServerMySQLRestore"
    else:
        raise InputError("engine", f"must be one of {PXC}, {GROUP_REPLICATION}; got {engine!r}")
    return {"apiVersion": release.api_version, "kind": kind, "metadata": {"name": name, "namespace": namespace}, "spec": spec}
