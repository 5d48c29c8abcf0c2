"""The restore objects, from a named backup and optionally a point in time (R2), as data.

Pure (no Pulumi): ``percona-mysql-restore`` (:mod:`percona_mysql_k8s.cli.restore`) writes them, and the tests apply
them to a real API server. The storage a PXC point in time reads its binary logs from is written as the
custom resources' own ``spec.backup`` storage is (:mod:`percona_mysql_k8s.plan.database.backup_manifests`).
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from percona_mysql_k8s.core.backup import STORAGE_NAME, BackupStorage
from percona_mysql_k8s.core.errors import InputError
from percona_mysql_k8s.core.memory import GROUP_REPLICATION, PXC
from percona_mysql_k8s.core.names import dns1123_label_problem, dns1123_subdomain_problem

from . import versions
from .backup_manifests import check_storage, s3_block

POINT_IN_TIME_FORMAT = "%Y-%m-%d %H:%M:%S"  # both operators: "2006-01-02 15:04:05" (UTC), see restore_manifest
# The PXC 1.20 restore CRD's CEL rule for pitr.date, verbatim (helm-pxc-operator-1.20.0-crds-crd.yaml).
_PXC_DATE = re.compile(r"^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01]) ([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]$")
# A binary log event's timestamp is 4 bytes of seconds since the Unix epoch (the event header's ``when``,
# MySQL libbinlogevents binlog_event.h): no point in time before it can be rolled forward to.
BINLOG_EPOCH = datetime(1970, 1, 1)


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
        raise InputError(
            key,
            f"{text!r} is before 1970-01-01 00:00:00 UTC, where binary log timestamps start: no backup or binary log holds it",
            "R2",
        )
    return when


def check_point_in_time(when: datetime, now: datetime, key: str = "time") -> None:
    """A point in time a restore can reach: not after ``now`` (naive UTC), when no binary log has it yet."""
    if when > now:
        raise InputError(
            key,
            f"{when.strftime(POINT_IN_TIME_FORMAT)} UTC is in the future (it is "
            f"{now.strftime(POINT_IN_TIME_FORMAT)} UTC now): no binary log holds it yet",
            "R2",
        )


def check_restore_names(cluster: str, namespace: str, name: str) -> None:
    """The names a restore object carries, as the API server checks them (core.names): the namespace a
    DNS-1123 label, the cluster's and the restore's names DNS-1123 subdomains."""
    for key, problem in (
        ("cluster", dns1123_subdomain_problem(cluster)),
        ("namespace", dns1123_label_problem(namespace)),
        ("name", dns1123_subdomain_problem(name)),
    ):
        if problem:
            raise InputError(key, problem)


def restore_manifest(
    engine: str,
    cluster: str,
    namespace: str,
    *,
    name: str,
    backup_name: str | None = None,
    point_in_time: str | None = None,
    storage: BackupStorage | None = None,
) -> dict[str, Any]:
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
            source = {"storageName": STORAGE_NAME} if storage is None else {"s3": s3_block(storage, with_prefix_field=False)}
            if storage is not None:
                check_storage(storage)
                if not storage.credentials_secret:
                    raise InputError("storage", "the PXC restore Job reads the binlogs with keys from a credentials Secret", "R2")
            spec["pitr"] = {"type": "date", "date": point_in_time, "backupSource": source}
        kind = "PerconaXtraDBClusterRestore"
    elif engine == GROUP_REPLICATION:
        if storage is not None:
            raise InputError(
                "storage",
                "a PS restore reads the binary logs through the cluster's own binlog server; no other storage can be named",
            )
        release = versions.PS
        spec = {"clusterName": cluster, "backupName": backup_name}
        if point_in_time is not None:
            spec["pitr"] = {"type": "date", "date": point_in_time}
        kind = "PerconaServerMySQLRestore"
    else:
        raise InputError("engine", f"must be one of {PXC}, {GROUP_REPLICATION}; got {engine!r}")
    return {"apiVersion": release.api_version, "kind": kind, "metadata": {"name": name, "namespace": namespace}, "spec": spec}
