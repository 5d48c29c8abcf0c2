"""The backup keys of the stack config decoded, validated before any resource exists (rules R1-R4).

Pure (no Pulumi). The schedule is parsed here, once (:func:`backup_schedule`, with core.cron, the one reader of
cron syntax): the plan (core.backup.backup_plan), the custom resources and the bucket's binary-log expiry
(plan.database.backup_bucket) receive the parsed :class:`~percona_mysql_k8s.core.cron.CronSchedule`.

On gke and eks the stack provisions the bucket and its identity
(percona_mysql_k8s.database.backup_storage); on kind and existing clusters the backups go to an
S3-compatible endpoint named in config, with a credentials Secret the user created in the database
namespace (its keys never enter the stack config, R4), or they are off, explicitly (``backup: false``). An
ephemeral kind/existing stack that names no endpoint runs without backups (R1-R4 exempt ephemeral stacks).

Production stacks are held to the rules here, so a breach stops ``pulumi preview`` with the key and the rule
before the policy pack would reject it: an endpoint inside the cluster is not outside it (R1), plain HTTP is not
encrypted (R4), the retention keeps at least the R3 window. Ephemeral stacks may use an in-cluster MinIO over
HTTP and any retention.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import urlsplit

from percona_mysql_k8s.core import cron
from percona_mysql_k8s.core.backup import (
    GCS,
    GCS_ENDPOINT,
    S3,
    S3_COMPATIBLE,
    BackupPlan,
    BackupStorage,
    backup_plan,
    in_cluster_host,
)
from percona_mysql_k8s.core.bounds import MAX_VOLUME_READ_BYTES_PER_SECOND
from percona_mysql_k8s.core.errors import InputError
from percona_mysql_k8s.core.names import dns1123_subdomain_problem
from percona_mysql_k8s.core.units import format_memory
from percona_mysql_k8s.plan.database.backup_bucket import check_bucket_name, check_kms_key

from .keys import BACKUP_KEYS, CLOUD_ONLY, CLOUD_TARGETS, ENDPOINT_ONLY

__all__ = [
    "BACKUP_KEYS",
    "CLOUD_ONLY",
    "CLOUD_TARGETS",
    "ENDPOINT_ONLY",
    "BackupSettings",
    "backup_schedule",
    "backup_settings",
    "default_bucket",
]

_REGION = re.compile(r"^[a-z0-9][a-z0-9-]{0,62}$")


@dataclass(frozen=True)
class BackupSettings:
    """``plan.storage`` is complete for an S3-compatible endpoint; on gke/eks it names the bucket and the
    storage component fills in the identity (credentials Secret or ServiceAccount) when it creates them."""

    plan: BackupPlan
    provisioned: bool  # the stack creates the bucket and identity (gke, eks)
    kms_key: str  # a customer-managed key for the bucket; "" = GCS's Google-managed key / a key the stack creates on S3


def default_bucket(target: str, cluster_name: str, place: str) -> str:
    """``<project>-<cluster>-mysql-backups`` on GKE (project IDs are globally unique, so is the name);
    ``<cluster>-<region>-mysql-backups`` on EKS (set backupBucket if another account holds it)."""
    if target == "gke":
        return f"{place}-{cluster_name}-mysql-backups"
    return f"{cluster_name}-{place}-mysql-backups"


def _endpoint(url: str, production: bool) -> str:
    parts = urlsplit(url)
    if parts.scheme not in ("https", "http") or not parts.hostname:
        raise InputError(
            "backupEndpoint",
            f"{url!r} is not an http(s) URL of an S3-compatible endpoint (e.g. https://minio.example.com:9000)",
            "R1",
        )
    if parts.path not in ("", "/") or parts.query or parts.fragment or parts.username:
        raise InputError("backupEndpoint", f"{url!r}: give only scheme, host and port; the bucket is backupBucket", "R1")
    if production and parts.scheme != "https":
        raise InputError("backupEndpoint", f"{url!r} sends backups and keys in clear: a production stack needs https", "R4")
    inside = in_cluster_host(parts.hostname)
    if production and inside:
        raise InputError(
            "backupEndpoint", f"{inside}: a production database's backups must survive the cluster (storage outside it)", "R1"
        )
    return url.rstrip("/")


def _check_target_keys(values: Mapping[str, object], target: str) -> None:
    owners = (CLOUD_TARGETS, CLOUD_ONLY), (("kind", "existing"), ENDPOINT_ONLY)
    for targets, keys in owners:
        for key in keys:
            if values.get(key) and target not in targets:
                raise InputError(
                    key,
                    f"applies only to target {' or '.join(targets)}, and this stack's target is "
                    f"{target}: it would be ignored (remove it from the stack config, or change target)",
                )


def backup_schedule(text: object) -> cron.CronSchedule:
    """``backupSchedule`` parsed as both operators read it (robfig/cron ParseStandard, core.cron), R1: the one
    parse of the setting, whose result everything downstream receives."""
    if isinstance(text, cron.CronSchedule):
        return text
    try:
        return cron.parse_schedule(text)
    except cron.CronError as error:
        raise InputError("backupSchedule", f"{text!r}: {error}", "R1") from None


def _check_backup_can_finish(schedule: cron.CronSchedule, volume_bytes: int) -> None:
    """R1: a full backup of the data volume, once the data fills it, must finish before the next run starts.
    It reads the whole volume, at best as fast as any persistent disk reads (core.bounds); the shortest
    gap between two runs anywhere on the calendar (core.cron) must be at least that long."""
    gap = cron.retention_window_seconds(schedule, 2)
    reading = volume_bytes / MAX_VOLUME_READ_BYTES_PER_SECOND
    if gap < reading:
        raise InputError(
            "backupSchedule",
            f"{schedule.text!r} starts a backup {gap:g} s after the previous one, but a full backup of "
            f"the {format_memory(volume_bytes)} data volume takes at least {math.ceil(reading)} s "
            f"(read at {MAX_VOLUME_READ_BYTES_PER_SECOND // 10**6} MB/s, the fastest any disk "
            f"reads): backups would overlap; run it at most every {math.ceil(reading / 60)} "
            "minutes (e.g. hourly or daily)",
            "R1",
        )


def _cloud_storage(bucket: str, kms_key: str, *, target: str, cluster_name: str, place: str) -> BackupStorage:
    """The bucket the stack provisions on gke (GCS) or eks (S3): ``bucket`` as set, or derived (R1)."""
    if not bucket:
        bucket = default_bucket(target, cluster_name, place)
        if len(bucket) > 63:
            raise InputError(
                "backupBucket",
                f"the derived bucket name {bucket!r} is longer than the 63 characters a bucket name may have: set backupBucket",
                "R1",
            )
    kind = GCS if target == "gke" else S3
    check_bucket_name(bucket, kind)  # the names the clouds accept: one definition, with the components'
    check_kms_key(kms_key, kind)
    if kind == GCS:
        return BackupStorage(kind=GCS, bucket=bucket, endpoint_url=GCS_ENDPOINT)
    return BackupStorage(kind=S3, bucket=bucket, region=place)


def _endpoint_storage(values: Mapping[str, object], bucket: str, *, target: str, production: bool) -> BackupStorage:
    """The S3-compatible endpoint a kind/existing stack names, with its credentials Secret (R1, R4)."""
    endpoint, secret = str(values["backupEndpoint"]), str(values["backupCredentialsSecret"])
    named = (("backupEndpoint", endpoint), ("backupBucket", bucket), ("backupCredentialsSecret", secret))
    missing = [key for key, value in named if not value]
    if missing:
        given = [key for key, value in named if value]
        beside = f" beside {', '.join(given)}" if given else ""
        raise InputError(
            missing[0],
            f"target {target} backs up to an S3-compatible endpoint you name: set "
            f"{', '.join(missing)}{beside} (docs/backups.md), or set backup false to run without "
            "backups",
            "R1",
        )
    check_bucket_name(bucket, S3_COMPATIBLE)
    if dns1123_subdomain_problem(secret):  # a Secret's name is a DNS-1123 subdomain
        raise InputError("backupCredentialsSecret", f"{secret!r} is not a Secret name (lowercase DNS subdomain)", "R4")
    region = str(values["backupRegion"]) or "us-east-1"  # what S3 clients sign with when a store has no regions
    if not _REGION.fullmatch(region):
        raise InputError("backupRegion", f"{region!r} is not a region name (lowercase letters, digits, '-')")
    return BackupStorage(
        kind=S3_COMPATIBLE,
        bucket=bucket,
        region=region,
        endpoint_url=_endpoint(endpoint, production),
        credentials_secret=secret,
    )


def backup_settings(
    values: Mapping[str, object],
    *,
    target: str,
    cluster_name: str,
    place: str,
    engine: str,
    ephemeral: bool,
    volume_bytes: int | None = None,
) -> BackupSettings | None:
    """``values`` are the decoded BACKUP_KEYS (``backupSchedule`` as written, or parsed by backup_schedule);
    ``place`` is the GCP project (gke) or AWS region (eks); ``volume_bytes`` the data volume each backup copies (None: not checked against the schedule).

    None when backups are off. Raises InputError naming the key and the rule."""
    _check_target_keys(values, target)
    schedule = backup_schedule(values["backupSchedule"])
    if volume_bytes is not None:
        _check_backup_can_finish(schedule, volume_bytes)
    if not values["backup"]:
        return None
    production = not ephemeral
    if (
        target not in CLOUD_TARGETS
        and ephemeral
        and not any(values[key] for key in ("backupEndpoint", "backupBucket", "backupCredentialsSecret"))
    ):
        return None  # an ephemeral kind/existing stack with no endpoint named: nothing to back up to (R1-R4 exempt)
    bucket = str(values["backupBucket"])
    kms_key = str(values["backupKmsKey"])
    if target in CLOUD_TARGETS:
        storage = _cloud_storage(bucket, kms_key, target=target, cluster_name=cluster_name, place=place)
    else:
        storage = _endpoint_storage(values, bucket, target=target, production=production)
    provisioned = target in CLOUD_TARGETS  # the stack creates the cloud bucket; an endpoint's bucket is the user's
    minimum = None if production else 1  # None: R3's threshold (core.backup.backup_plan); ephemeral stacks are exempt
    plan = backup_plan(
        storage,
        engine=engine,
        schedule=schedule,
        retention_days=values["backupRetentionDays"],
        min_retention_days=minimum,
        pitr=values["pitr"],
        pitr_upload_seconds=values["pitrUploadSeconds"],
    )
    return BackupSettings(plan=plan, provisioned=provisioned, kms_key=kms_key)
