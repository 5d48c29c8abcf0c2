"""The backup bucket and its identity as data (R1, R4): names, access policies, lifecycle, the keys Secret.

Pure (no Pulumi): :mod:`percona_mysql_k8s.database.backup_storage` builds the resources from these values,
and the tests read them without a cloud.

Why a key exists at all (R4 asks for none in stack config, and none is there: the stack creates it and
writes it only into a Kubernetes Secret, as a Pulumi secret). Every path of both operators that touches
the bucket authenticates with an access key read from a Secret; none reads a pod identity:

* PXC operator v1.19.0. The backup Job omits the keys when ``credentialsSecret`` is empty
  (``pkg/pxc/backup/job.go``), so xbcloud could use IRSA; but the PITR collector Deployment always reads
  ``AWS_ACCESS_KEY_ID``/``AWS_SECRET_ACCESS_KEY`` from the Secret (``pkg/pxc/app/binlogcollector``) and its
  client takes static keys only (``cmd/pitr/collector``: ``ACCESS_KEY_ID,required``; ``pkg/pxc/backup/storage``
  ``NewS3``: ``credentials.NewStaticV4``); the operator deletes rotated backups itself with the Secret's
  keys (``pkg/controller/pxcbackup/controller.go`` ``runS3BackupFinalizer``: "failed to get secret"
  without one); a restore lists the backup with them (``pkg/controller/pxcrestore/restorer.go``
  ``Validate``) and its Job reads them by ``secretKeyRef`` (``pkg/pxc/backup/restore.go``). GCS has no
  storage type of its own: it is type ``s3`` with ``endpointUrl: https://storage.googleapis.com`` and an
  HMAC key (GCS's S3-interoperable XML API).
* PS operator v1.2.0. ``credentialsSecret`` is required for ``s3`` and ``gcs`` storages and the backup
  controller refuses to start a Job without that Secret (``pkg/controller/psbackup/controller.go``); the
  ``gcs`` type reads ``ACCESS_KEY_ID``/``SECRET_ACCESS_KEY`` (``pkg/secret``: CredentialsGCS*;
  ``pkg/xtrabackup/xtrabackup.go`` ``SetStorageGCS``) and talks to GCS through the same S3 client
  (``pkg/xtrabackup/storage`` ``NewGCS``); the binlog server (PITR) has an ``s3`` storage only and writes
  ``AWS_ACCESS_KEY_ID``/``AWS_SECRET_ACCESS_KEY`` into its storage URI (``pkg/binlogserver/config.go``).

So every target gets one identity per bucket, allowed that bucket (and its key) only: on GKE a Google
service account with an HMAC key, on EKS an IAM user with an access key. No Workload Identity binding and
no IRSA role are created: nothing would use them, and an unused identity with bucket access is one more
way in. The bucket keeps noncurrent versions for the restore window, so what a leaked key deletes or
overwrites can be brought back; on S3 the key cannot delete versions at all.
"""

from __future__ import annotations

import hashlib
import json
import math
import re

from percona_mysql_k8s.core.backup import GCS, S3, S3_COMPATIBLE
from percona_mysql_k8s.core.cron import CronSchedule, longest_span_seconds
from percona_mysql_k8s.core.errors import InputError
from percona_mysql_k8s.core.memory import ENGINES, PXC

from .backup_manifests import BINLOG_FOLDER

# Stack config keys the errors name (the stack settings read them; the integrator wires them).
BUCKET_KEY = "backupBucket"
KMS_KEY = "backupKmsKey"
RETENTION_KEY = "backupRetentionDays"

# The keys each reader takes from the credentials Secret (PS v1.2.0 pkg/secret/secret.go; PXC v1.19.0
# pkg/pxc/backup/job.go, pkg/pxc/app/binlogcollector, pkg/pxc/backup/storage/options.go).
AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY = "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"  # S3 type (both), PS binlog server
GCS_ACCESS_KEY_ID, GCS_SECRET_ACCESS_KEY = "ACCESS_KEY_ID", "SECRET_ACCESS_KEY"  # PS gcs type

# GCS roles on the bucket only: every object operation (objectAdmin: storage.objects.*, multipart uploads of
# the XML API) and the bucket's metadata, which the operators' S3 client reads first (minio BucketExists =
# HEAD bucket = storage.buckets.get; legacyBucketReader: storage.buckets.get, storage.objects.list).
GCS_BUCKET_ROLES = ("roles/storage.objectAdmin", "roles/storage.legacyBucketReader")

# S3 actions (docs.aws.amazon.com/service-authorization, "Actions defined by Amazon S3"): BucketExists is
# ListBucket (HEAD bucket), the region lookup GetBucketLocation, PXC's backup script lists objects
# (run_backup.sh ``s3api list-objects``); xbcloud and minio upload in parts. No s3:DeleteObjectVersion: on a
# versioned bucket a delete only adds a delete marker, so a leaked key cannot destroy a backup.
S3_BUCKET_ACTIONS = ("s3:GetBucketLocation", "s3:ListBucket", "s3:ListBucketMultipartUploads")
S3_OBJECT_ACTIONS = ("s3:GetObject", "s3:PutObject", "s3:DeleteObject", "s3:AbortMultipartUpload", "s3:ListMultipartUploadParts")
# SSE-KMS: an upload needs a data key, a download (and a multipart upload's completion) decrypts it.
KMS_ACTIONS = ("kms:GenerateDataKey", "kms:Decrypt")

# Parts of an upload never completed are billed until aborted. A backup Job whose upload is still open
# after a week has died (its Job would have been retried or failed long before); a week is also the
# value AWS's own lifecycle examples use.
ABORT_INCOMPLETE_UPLOAD_DAYS = 7

GCP_ACCOUNT_ID_MAX, GCP_ACCOUNT_ID_MIN = 30, 6  # IAM service account ID: 6-30, [a-z][-a-z0-9]*[a-z0-9]
AWS_USER_NAME_MAX = 64  # IAM user name: 1-64 characters of [\w+=,.@-]

# Bucket names both clouds accept (S3: docs.aws.amazon.com/AmazonS3/latest/userguide/bucketnamingrules.html;
# GCS: cloud.google.com/storage/docs/buckets#naming), narrowed to no dots: a dotted name breaks TLS of
# virtual-hosted-style requests (the certificate covers one label) and the PS binlog server's
# ``s3://key:secret@bucket.region`` URI.
_BUCKET = re.compile(r"^[a-z0-9][a-z0-9-]{1,61}[a-z0-9]$")
_S3_RESERVED_PREFIXES = ("xn--", "sthree-", "amzn-s3-demo-")
_S3_RESERVED_SUFFIXES = ("-s3alias", "--ol-s3", "--x-s3", "--table-s3")
_AWS_KMS_KEY = re.compile(r"^arn:aws[-a-z]*:kms:[a-z0-9-]+:\d{12}:key/[A-Za-z0-9-]+$")
_GCP_KMS_KEY = re.compile(r"^projects/[^/]+/locations/[^/]+/keyRings/[^/]+/cryptoKeys/[^/]+$")


def check_bucket_name(name: str, kind: str) -> str:
    """``name`` as the cloud of ``kind`` (GCS or S3) accepts it, dots excluded (see ``_BUCKET``)."""
    if not isinstance(name, str) or not _BUCKET.fullmatch(name):
        raise InputError(
            BUCKET_KEY,
            f"{name!r} is not a bucket name: 3-63 lower-case letters, digits and '-', "
            "starting and ending with a letter or digit (no dots)",
            "R1",
        )
    if kind == GCS and ("google" in name or name.startswith("goog")):
        raise InputError(BUCKET_KEY, f"{name!r}: GCS refuses bucket names containing 'google' or starting with 'goog'", "R1")
    if kind in (S3, S3_COMPATIBLE) and (name.startswith(_S3_RESERVED_PREFIXES) or name.endswith(_S3_RESERVED_SUFFIXES)):
        raise InputError(
            BUCKET_KEY,
            f"{name!r}: S3 reserves the prefixes {', '.join(_S3_RESERVED_PREFIXES)} and the "
            f"suffixes {', '.join(_S3_RESERVED_SUFFIXES)}",
            "R1",
        )
    return name


def check_kms_key(key: str, kind: str) -> str:
    """A customer-managed key the bucket encrypts with: a KMS key ARN (S3; an alias cannot be named in the
    IAM policy that lets the backup identity use the key) or a Cloud KMS key's resource name (GCS)."""
    if not key:
        return key
    pattern, form = (
        (_AWS_KMS_KEY, "arn:aws:kms:<region>:<account>:key/<key-id>")
        if kind == S3
        else (_GCP_KMS_KEY, "projects/<p>/locations/<l>/keyRings/<r>/cryptoKeys/<k>")
    )
    if not isinstance(key, str) or not pattern.match(key):
        raise InputError(KMS_KEY, f"{key!r} is not a {kind.upper()} key: expected {form}", "R4")
    return key


def check_retention_days(days: object) -> int:
    if isinstance(days, bool) or not isinstance(days, int) or days < 1:
        raise InputError(RETENTION_KEY, f"{days!r}: the restore window is a whole number of days, at least 1", "R3")
    return days


def check_engine(engine: str) -> str:
    if engine not in ENGINES:
        raise InputError("engine", f"{engine!r} is not one of {', '.join(ENGINES)}")
    return engine


# Where each engine's binary logs land in the bucket (the storage has no prefix of its own): the PXC collector
# names its objects binlog_<timestamp>_<number>_<md5 of the GTID set> (+ "-gtid-set"), at the storage root
# (cmd/pitr/collector/collector.go:689, v1.19.0); the PS binlog server writes in its own folder
# (database.backup_manifests.BINLOG_FOLDER).
PXC_BINLOG_PREFIX = "binlog_"
PS_BINLOG_PREFIX = f"{BINLOG_FOLDER}/"


def binlog_prefix(engine: str) -> str:
    return PXC_BINLOG_PREFIX if check_engine(engine) == PXC else PS_BINLOG_PREFIX


def binlog_expiry_days(schedule: CronSchedule, keep: int) -> int:
    """Days after upload a binary log is deleted (R2, R3): neither operator ever deletes them.

    A point-in-time restore replays logs from the oldest kept backup on; right before a run that backup is
    at most the longest span of ``keep`` gaps old (core.cron.longest_span_seconds), and every log uploaded
    earlier holds only events older still. One day more covers a backup that runs for hours and a wall
    clock that shifts (a daylight-saving zone); lifecycle rules only ever act late.
    """
    span = longest_span_seconds(schedule, keep)  # the plan's schedule, parsed once by the decoder
    return math.ceil(span / 86_400) + 1


def noncurrent_version_days(retention_days: int) -> int:
    """Days a deleted or overwritten object's version is kept: the restore window (R3).

    Long enough to undo, within the window the stack promises to restore from, what the operator's
    rotation or a leaked key removed; no longer, since the operator already keeps every backup that window
    needs as live objects, which no rule deletes by age. No margin is added: lifecycle timing only errs
    late (S3 rounds the expiry up to the next midnight UTC; GCS acts asynchronously once the condition holds).
    """
    return check_retention_days(retention_days)


def _fit(name: str, limit: int) -> str:
    """``name``, or when longer than ``limit`` its head and 8 hex digits of its SHA-256 (still unique)."""
    if len(name) <= limit:
        return name
    digest = hashlib.sha256(name.encode()).hexdigest()[:8]
    return f"{name[: limit - 9].rstrip('-')}-{digest}"


def gcp_service_account_id(bucket: str) -> str:
    """``backup-<bucket>``, fitted to 30 characters. Bucket names are globally unique, so is the account
    within its project; ``backup-`` starts it with a letter and makes it at least 6 long."""
    return _fit(f"backup-{bucket}", GCP_ACCOUNT_ID_MAX)


def aws_user_name(bucket: str) -> str:
    """``backup-<bucket>``, fitted to IAM's 64 characters."""
    return _fit(f"backup-{bucket}", AWS_USER_NAME_MAX)


def credentials_secret_name(cluster_name: str) -> str:
    """The Secret in the database namespace the custom resource's storage names (``credentialsSecret``)."""
    return f"{cluster_name}-backup-storage"


def credentials_keys(kind: str, engine: str) -> tuple[str, ...]:
    """The keys each reader of ``kind`` storage takes from the Secret, and no other.

    S3 (and S3-compatible): ``AWS_*`` for both operators. GCS under PXC: type s3, ``AWS_*``. GCS under PS:
    the gcs type reads ``ACCESS_KEY_ID``/``SECRET_ACCESS_KEY`` and the binlog server (type s3 towards GCS's
    endpoint) ``AWS_*``: the same HMAC key under both names.
    """
    check_engine(engine)
    aws = (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY)
    if kind == GCS and engine != PXC:
        return (*aws, GCS_ACCESS_KEY_ID, GCS_SECRET_ACCESS_KEY)
    return aws


def credentials_data(kind: str, engine: str, access_key_id: str, secret_access_key: str) -> dict[str, str]:
    """The Secret's ``stringData``: the one key pair under every name its readers use."""
    keys = credentials_keys(kind, engine)
    return {name: (access_key_id if "ACCESS_KEY_ID" in name else secret_access_key) for name in keys}


def s3_bucket_arn(bucket: str, partition: str) -> str:
    return f"arn:{partition}:s3:::{bucket}"


def s3_access_policy(bucket: str, partition: str, kms_key_arn: str) -> str:
    """The backup identity's IAM policy: this bucket, its objects and its key; nothing else."""
    arn = s3_bucket_arn(bucket, partition)
    return json.dumps(
        {
            "Version": "2012-10-17",
            "Statement": [
                {"Sid": "Bucket", "Effect": "Allow", "Action": list(S3_BUCKET_ACTIONS), "Resource": arn},
                {"Sid": "Objects", "Effect": "Allow", "Action": list(S3_OBJECT_ACTIONS), "Resource": f"{arn}/*"},
                {"Sid": "Key", "Effect": "Allow", "Action": list(KMS_ACTIONS), "Resource": kms_key_arn},
            ],
        }
    )


def s3_tls_only_policy(bucket: str, partition: str) -> str:
    """The bucket policy: every request without TLS is denied, whoever sends it (aws:SecureTransport)."""
    arn = s3_bucket_arn(bucket, partition)
    return json.dumps(
        {
            "Version": "2012-10-17",
            "Statement": [
                {
                    "Sid": "DenyInsecureTransport",
                    "Effect": "Deny",
                    "Principal": "*",
                    "Action": "s3:*",
                    "Resource": [arn, f"{arn}/*"],
                    "Condition": {"Bool": {"aws:SecureTransport": "false"}},
                }
            ],
        }
    )
