"""Backups and point-in-time recovery as data (rules R1-R4, M3, K5): where they go and how often.

Pure (no Pulumi). The stack turns its cloud resources (a GCS or S3 bucket and an identity) or its config
(an S3-compatible endpoint) into a :class:`BackupStorage`; the plan adds the schedule, the retention the
rule R3 asks for, point-in-time recovery (R2) and the size of every backup container (M3), which the
monitoring pool budgets (K5). The custom resources' ``spec.backup`` is written from a :class:`BackupPlan`
(percona_mysql_k8s.plan.database.backup_manifests), and the policy pack reads the same schedule and retention
rules (percona_mysql_k8s.core.cron) from any custom resource or chart values.
"""

from __future__ import annotations

import ipaddress
import math
import warnings
from dataclasses import dataclass

from .cron import CronError, CronSchedule, keep_for, longest_span_seconds, parse_schedule
from .errors import InputError
from .memory import ENGINES, PXC
from .rules import MAX_RETENTION_DAYS, THRESHOLDS
from .sidecars import ContainerSize
from .units import MIB

GCS, S3, S3_COMPATIBLE = "gcs", "s3", "s3-compatible"
STORAGE_KINDS = (GCS, S3, S3_COMPATIBLE)
# The one storage the stack writes into the custom resources' ``spec.backup.storages``; schedules and PITR
# name it. Both CRDs key storages by any string.
STORAGE_NAME = "offsite"
MIN_RETENTION_THRESHOLD = "min_backup_retention_days"  # R3's threshold in core.rules: one definition
GCS_ENDPOINT = "https://storage.googleapis.com"  # GCS's S3-interoperable XML API (HMAC keys)
# Names a pod resolves inside the cluster (R1: not storage outside it): Services, <svc>.<ns>.svc[.cluster.local]
# (kubernetes.io/docs/concepts/services-networking/dns-pod-service/), and a bare name, which the pod's DNS search
# path (<ns>.svc.cluster.local first) turns into a Service of its namespace.
IN_CLUSTER_SUFFIXES = (".svc", ".svc.cluster.local", ".cluster.local", ".localhost")


def in_cluster_host(host: str) -> str | None:
    """Why ``host`` (an endpoint's host name or address) resolves inside the cluster or is the pod itself, or
    None when it may be outside (R1). Read by the stack's config checks and the policy pack alike."""
    host = host.lower().rstrip(".")
    if host == "localhost" or host.endswith(IN_CLUSTER_SUFFIXES):
        return f"{host} resolves inside the cluster"
    try:
        if ipaddress.ip_address(host).is_loopback:
            return f"{host} is the pod itself"
    except ValueError:
        pass
    if "." not in host and ":" not in host:
        return f"the bare name {host} resolves to a Service of the pod's namespace"
    return None


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
    schedule: CronSchedule  # parsed once, as the operators read it (core.cron); ``schedule.text`` goes into the CR
    retention_days: int  # the restore window asked for (R3)
    keep: int  # backups kept per schedule: the smallest count whose window covers retention_days
    pitr: bool  # point-in-time recovery (R2)
    pitr_upload_seconds: int  # how often binary logs are uploaded: the recovery point objective
    backup_job: ContainerSize  # the backup Job's container, request = limit (M3), on the monitoring pool (K5)
    pitr_collector: ContainerSize | None  # the binlog collector / binlog server (M3, K5); None without PITR

    def __post_init__(self) -> None:
        if not isinstance(self.schedule, CronSchedule):
            raise TypeError(f"BackupPlan.schedule is a parsed schedule (core.cron.parse_schedule), not {self.schedule!r}")


# --- Point-in-time recovery: how often binary logs reach the bucket (the recovery point objective) ---
# PXC: spec.backup.pitr.timeBetweenUploads is float seconds; 0 means the operator's default of 60
# (pxc_types.go:1296-1299 at v1.19.0). The collector waits ``time.Duration(CollectSpanSec) * time.Second``
# between runs (cmd/pitr/main.go:143): the conversion truncates a fraction (0.5 waits 0 s) and an int64
# of nanoseconds overflows above 9223372036 s. So whole seconds from 1 to that bound are what it runs as
# written. PS: the binlog server uploads at each checkpoint, ``checkpointInterval`` (a duration string,
# default "30s", and ``checkpointSize`` "16M", perconaservermysql_types.go:721-726 at v1.2.0), written
# as "<seconds>s" (ps_checkpoint_interval); the same bounds apply.
PITR_UPLOAD_SECONDS_MIN = 1
PITR_UPLOAD_SECONDS_MAX = (2**63 - 1) // 1_000_000_000  # Go's time.Duration in seconds


def ps_checkpoint_interval(seconds: int) -> str:
    """The PS binlog server's ``checkpointInterval`` for an upload interval in seconds."""
    return f"{seconds}s"


# --- Container sizes (M3: request = limit), all on the monitoring pool (K5) ---
#
# PXC backup Job, container ``xtrabackup`` (pkg/pxc/backup/job.go:130-138 at v1.19.0, resources from
# spec.backup.storages[].resources). It runs build/backup/run_backup.sh: garbd joins the cluster as an
# arbitrator to request an SST, socat receives the donor's xbstream and pipes it into
# ``xbcloud put --parallel=$(grep -c processor /proc/cpuinfo)`` (run_backup.sh:142-168). That counts the
# node's CPUs, not the container's, so the plan pins it: ``$XBCLOUD_ARGS`` (with the storage's
# containerOptions.args.xbcloud, pxc_types.go:835-855) come after it on the command line and xbcloud
# takes the last value of an option. The CR writes PXC_XBCLOUD_ARGS there.
XBCLOUD_PARALLEL = 4  # estimate: 4 concurrent 10 MiB object uploads keep a network stream busy
PXC_XBCLOUD_ARGS = (f"--parallel={XBCLOUD_PARALLEL}",)
# xtrabackup and xbstream cut the stream into 10 MiB chunks and xbcloud stores each chunk as one object
# (Percona XtraBackup 8.0 docs, "The xbcloud binary overview"; --read-buffer-size default 10M).
XBSTREAM_CHUNK_BYTES = 10 * MIB
# estimate: each upload slot holds the chunk being sent and the next one read from the pipe
XBCLOUD_CHUNKS_PER_SLOT = 2
# estimate: garbd keeps no gcache and applies nothing; its resident set is its group communication
# buffers, tens of MiB; 128 MiB leaves room for a burst of write sets queued while the SST streams.
GARBD_MEMORY_ESTIMATE = 128 * MIB
# estimate: bash, socat (8 KiB transfer buffer, its -b default) and the xbstream/xbcloud binaries' own
# code and TLS state.
BACKUP_PROCESSES_MEMORY_ESTIMATE = 64 * MIB
# CPU: xbcloud computes an MD5 of every chunk (--md5) and encrypts with TLS; the operator's example
# storage sets 600m (deploy/cr.yaml:668-671 at v1.19.0). No measurement here beats it: taken as is.
PXC_BACKUP_CPU_MILLICORES = 600
PXC_BACKUP_JOB = ContainerSize(
    PXC_BACKUP_CPU_MILLICORES,
    GARBD_MEMORY_ESTIMATE + XBCLOUD_PARALLEL * XBCLOUD_CHUNKS_PER_SLOT * XBSTREAM_CHUNK_BYTES + BACKUP_PROCESSES_MEMORY_ESTIMATE,
)

# PXC binlog collector, Deployment ``<cluster>-pitr``, container ``pitr`` (pkg/pxc/app/binlogcollector/
# binlog-collector.go:117-123, resources from spec.backup.pitr.resources). For every binary log it runs
# ``mysqlbinlog -R --raw`` and streams it through a 10 MiB read buffer (cmd/pitr/collector/collector.go:788)
# into ``PutObject(ctx, name, pipe, -1)`` (collector.go:750; storage.go:154-156 passes no part size).
# minio-go v7.0.97 uploads an object of unknown size in parts of
# ceil((5 TiB / 10000) / 16 MiB) × 16 MiB = 33 × 16 MiB = 528 MiB (api-put-object-common.go:71-121,
# constants.go: maxMultipartPutObjectSize 5 TiB, maxPartsCount 10000, minPartSize 16 MiB) and allocates
# one buffer of that size per upload (api-put-object.go, putObjectMultipartStreamNoLength:
# ``buf := make([]byte, partSize)``), filled as far as the binary log goes (max_binlog_size defaults to
# 1 GiB, so a busy server fills it). A new buffer per binary log and Go's default GOGC=100 (the heap may
# grow to twice the live heap before a collection) let the previous buffer still be resident: two.
MINIO_UNKNOWN_SIZE_PART_BYTES = 33 * 16 * MIB
PITR_READ_BUFFER_BYTES = 10_485_760
GO_GC_HEAP_FACTOR = 2
# estimate: the Go runtime, the mysqlbinlog client it starts and TLS state
PITR_PROCESSES_MEMORY_ESTIMATE = 64 * MIB
# CPU: one binary log at a time, mysqlbinlog plus the upload; the operator's example limit is 700m
# (deploy/cr.yaml:654-660 at v1.19.0), taken as is.
PXC_PITR_CPU_MILLICORES = 700
PXC_PITR_COLLECTOR = ContainerSize(
    PXC_PITR_CPU_MILLICORES,
    GO_GC_HEAP_FACTOR * MINIO_UNKNOWN_SIZE_PART_BYTES + PITR_READ_BUFFER_BYTES + PITR_PROCESSES_MEMORY_ESTIMATE,
)

# PS backup Job (pkg/xtrabackup/xtrabackup.go:282-286 at v1.2.0, resources from spec.backup.storages[]):
# /opt/percona/run-backup.sh asks the member's ``xtrabackup`` sidecar over HTTP to run xtrabackup and
# xbcloud (cmd/sidecar/handler/backup/create.go:113-163; that work is budgeted in the member,
# sidecars.BACKUP_SIDECAR) and relays its log with curl (run-backup.sh). The same storage resources size
# the delete Job, which runs ``xbcloud delete`` (xtrabackup.go:408-412).
# estimate: bash and curl, or xbcloud deleting objects one listing page at a time: the helper-Job size
# the monitoring plan already uses for short Jobs.
PS_BACKUP_JOB = ContainerSize(100, 128 * MIB)

# PS binlog server (pkg/binlogserver/binlog_server.go, resources from spec.backup.pitr.binlogServer):
# it replicates the binary log from one member, rewrites it into files of ``rewriteFileSize`` (default
# 128M) and uploads at each checkpoint (``checkpointSize`` 16M, ``checkpointInterval``).
PS_REWRITE_FILE_BYTES = 128 * MIB
PS_CHECKPOINT_BYTES = 16 * MIB
# estimate: the C++ server's code, its MySQL client and the object storage client's TLS state
PS_BINLOG_SERVER_PROCESS_MEMORY_ESTIMATE = 64 * MIB
# estimate: one replication stream and one upload at a time, as the PXC collector; below its 700m as
# there is no mysqlbinlog child process.
PS_BINLOG_SERVER_CPU_MILLICORES = 500
PS_BINLOG_SERVER = ContainerSize(
    PS_BINLOG_SERVER_CPU_MILLICORES,
    PS_REWRITE_FILE_BYTES + PS_CHECKPOINT_BYTES + PS_BINLOG_SERVER_PROCESS_MEMORY_ESTIMATE,
)


def _integer(key: str, value: object, rule: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputError(key, f"expected a whole number, got {value!r}", rule)
    return value


# A schedule given as text to backup_plan: parsed there for one more release, with a warning.
SCHEDULE_TEXT_REMOVED_IN = "0.4.0"


def _schedule(schedule: CronSchedule | str) -> CronSchedule:
    """The parsed schedule; text (the 0.2 signature) is parsed here, warning, until SCHEDULE_TEXT_REMOVED_IN."""
    if isinstance(schedule, CronSchedule):
        return schedule
    warnings.warn(
        "backup_plan(schedule=...) takes the parsed schedule (percona_mysql_k8s.core.cron.parse_schedule, or "
        "percona_mysql_k8s.plan.config.backup_schedule for a backupSchedule setting); text is removed in "
        f"{SCHEDULE_TEXT_REMOVED_IN}",
        DeprecationWarning,
        stacklevel=3,
    )
    try:
        return parse_schedule(schedule)
    except CronError as error:
        raise InputError("backupSchedule", f"{error} (read as the operators read it: robfig/cron ParseStandard)", "R1") from None


def backup_plan(
    storage: BackupStorage,
    *,
    engine: str,
    schedule: CronSchedule | str,
    retention_days: int,
    min_retention_days: int | None = None,
    pitr: bool,
    pitr_upload_seconds: int,
) -> BackupPlan:
    """The plan the custom resource's ``spec.backup`` is written from; InputError names the config key.

    ``schedule`` is parsed already (the stack's decoder, plan.config.backup, parses ``backupSchedule`` once).
    ``keep`` is the smallest number of backups whose guaranteed window (core.cron) covers
    ``retention_days``: right after a run the oldest kept backup is at least that old (R3).
    ``min_retention_days`` defaults to R3's threshold (``min_backup_retention_days``, core.rules), the
    number the policy pack judges with; an ephemeral stack passes its own lower bound.
    """
    if engine not in ENGINES:
        raise InputError("engine", f"expected one of {', '.join(ENGINES)}, got {engine!r}")
    if not isinstance(storage, BackupStorage) or storage.kind not in STORAGE_KINDS or not storage.bucket:
        raise InputError("backup", "backups need object storage outside the cluster: a bucket and its kind", "R1")
    parsed = _schedule(schedule)
    if min_retention_days is None:
        min_retention_days = THRESHOLDS[MIN_RETENTION_THRESHOLD].default
    minimum = _integer(MIN_RETENTION_THRESHOLD, min_retention_days, "R3")
    days = _integer("backupRetentionDays", retention_days, "R3")
    if days < max(minimum, 1):
        raise InputError(
            "backupRetentionDays",
            f"{days} days of restore points is below the minimum of {max(minimum, 1)} (min_backup_retention_days)",
            "R3",
        )
    if days > MAX_RETENTION_DAYS:
        raise InputError(
            "backupRetentionDays",
            f"{days} days is above {MAX_RETENTION_DAYS} (ten years): beyond it backups are an archive, not a restore window",
            "R3",
        )
    if not isinstance(pitr, bool):
        raise InputError("pitr", f"expected true or false, got {pitr!r}", "R2")
    upload = _integer("pitrUploadSeconds", pitr_upload_seconds, "R2")
    if not PITR_UPLOAD_SECONDS_MIN <= upload <= PITR_UPLOAD_SECONDS_MAX:
        raise InputError(
            "pitrUploadSeconds",
            f"{upload} is outside {PITR_UPLOAD_SECONDS_MIN}..{PITR_UPLOAD_SECONDS_MAX} seconds: the PXC collector "
            "truncates to whole seconds (below 1 it never waits) and Go's time.Duration overflows above",
            "R2",
        )
    if pitr and upload > days * 86_400:
        raise InputError(
            "pitrUploadSeconds",
            f"{upload} s between binary-log uploads is longer than the {days}-day restore "
            "window (backupRetentionDays): a point in time would be deleted before its binary "
            f"log is uploaded; upload at most every {days * 86_400} s (the default is 60)",
            "R2",
        )
    keep = keep_for(parsed, days)
    if engine == PXC:
        job, collector = PXC_BACKUP_JOB, PXC_PITR_COLLECTOR
    else:
        job, collector = PS_BACKUP_JOB, PS_BINLOG_SERVER
    return BackupPlan(
        storage=storage,
        schedule=parsed,
        retention_days=days,
        keep=keep,
        pitr=pitr,
        pitr_upload_seconds=upload,
        backup_job=job,
        pitr_collector=collector if pitr else None,
    )


@dataclass(frozen=True)
class StorageEstimate:
    """Object storage a plan fills at its peak, in bytes (for the docs; not a rule)."""

    full_backups: int  # keep + 1: a new backup is complete before the oldest is deleted
    full_backup_bytes: int
    binlog_seconds: float  # how far back binary logs are kept: the longest span of keep gaps
    binlog_bytes: int

    @property
    def total_bytes(self) -> int:
        return self.full_backups * self.full_backup_bytes + self.binlog_bytes


def storage_estimate(plan: BackupPlan, *, data_bytes: int, binlog_bytes_per_second: float) -> StorageEstimate:
    """Peak bytes in the bucket: full backups kept, and with PITR the binary logs back to the oldest one.

    ``data_bytes`` is one full backup (xbcloud stores the xbstream as is; the operators do not compress
    unless told to). Right before a run, the ``keep`` kept backups reach back the longest span of ``keep``
    gaps of the schedule (core.cron.longest_span_seconds); a point-in-time restore from the oldest needs
    every binary log since, so that many seconds of binary log at ``binlog_bytes_per_second``. While the
    new backup uploads and before the oldest is deleted, ``keep + 1`` full backups exist.
    """
    if isinstance(data_bytes, bool) or not isinstance(data_bytes, int) or data_bytes < 0:
        raise InputError("data_bytes", f"expected a whole number of bytes >= 0, got {data_bytes!r}")
    if not isinstance(binlog_bytes_per_second, int | float) or not binlog_bytes_per_second >= 0:
        raise InputError("binlog_bytes_per_second", f"expected a rate >= 0, got {binlog_bytes_per_second!r}")
    span = longest_span_seconds(plan.schedule, plan.keep) if plan.pitr else 0.0
    return StorageEstimate(
        full_backups=plan.keep + 1,
        full_backup_bytes=data_bytes,
        binlog_seconds=span,
        binlog_bytes=math.ceil(span * binlog_bytes_per_second),
    )
