"""The backup bucket as data (R1, R3, R4): names within the clouds' limits, policies scoped to one bucket,
the Secret's keys as each operator reads them."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st
from percona_mysql_k8s.core.backup import GCS, S3, S3_COMPATIBLE
from percona_mysql_k8s.core.cron import parse_schedule
from percona_mysql_k8s.core.errors import InputError
from percona_mysql_k8s.plan.database import backup_bucket as bb

BUCKETS = st.from_regex(r"[a-z0-9][a-z0-9-]{1,61}[a-z0-9]", fullmatch=True)


@pytest.mark.parametrize("kind", [GCS, S3])
@pytest.mark.parametrize("name", ["perf-backups", "abc", "a" * 63, "db-1-eu-west-1"])
def test_bucket_names_both_clouds_accept(name, kind):
    assert bb.check_bucket_name(name, kind) == name


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("ab", S3),
        ("a" * 64, GCS),
        ("Perf-Backups", S3),
        ("perf.backups", GCS),
        ("perf_backups", GCS),
        ("-perf", S3),
        ("perf-", GCS),
        ("", S3),
        (None, GCS),
        ("my-google-backups", GCS),
        ("goog-backups", GCS),  # GCS naming rules
        ("xn--backups", S3),
        ("sthree-backups", S3),
        ("backups-s3alias", S3),
        ("backups--ol-s3", S3),  # S3 reserved
    ],
)
def test_bad_bucket_names_name_the_key_and_r1(name, kind):
    with pytest.raises(InputError) as error:
        bb.check_bucket_name(name, kind)
    assert (error.value.key, error.value.rule) == ("backupBucket", "R1")


def test_names_reserved_by_one_cloud_only_pass_the_other():
    assert bb.check_bucket_name("xn--backups", GCS) == "xn--backups"
    assert bb.check_bucket_name("my-google-backups", S3_COMPATIBLE) == "my-google-backups"


@pytest.mark.parametrize(
    ("key", "kind"),
    [
        ("arn:aws:kms:eu-west-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab", S3),
        ("arn:aws-us-gov:kms:us-gov-west-1:123456789012:key/mrk-1234", S3),
        ("projects/p1/locations/europe-west1/keyRings/backups/cryptoKeys/db", GCS),
        ("", S3),
    ],
)
def test_kms_keys_in_their_cloud_form(key, kind):
    assert bb.check_kms_key(key, kind) == key


@pytest.mark.parametrize(
    ("key", "kind"),
    [
        ("arn:aws:kms:eu-west-1:123456789012:alias/backups", S3),  # an alias cannot be named in the IAM policy
        ("1234abcd-12ab-34cd-56ef-1234567890ab", S3),
        ("projects/p1/locations/europe-west1/keyRings/backups/cryptoKeys/db", S3),
        ("arn:aws:kms:eu-west-1:123456789012:key/abc", GCS),
        ("projects/p1/keyRings/backups/cryptoKeys/db", GCS),
    ],
)
def test_bad_kms_keys_name_the_key(key, kind):
    with pytest.raises(InputError) as error:
        bb.check_kms_key(key, kind)
    assert (error.value.key, error.value.rule) == ("backupKmsKey", "R4")


@given(BUCKETS)
def test_service_account_ids_fit_gcp_rules(bucket):
    account = bb.gcp_service_account_id(bucket)
    # IAM: 6-30 characters, a lower-case letter first, a letter or digit last
    assert re.fullmatch(r"[a-z][-a-z0-9]{4,28}[a-z0-9]", account), account


@given(BUCKETS)
def test_iam_user_names_fit_aws_rules(bucket):
    assert re.fullmatch(r"[\w+=,.@-]{1,64}", bb.aws_user_name(bucket))


def test_names_are_readable_when_short_and_unique_when_cut():
    assert bb.gcp_service_account_id("perf-backups") == "backup-perf-backups"
    assert bb.aws_user_name("perf-backups") == "backup-perf-backups"
    # 7 + 30 characters: cut to 21 + "-" + 8 hex digits; two buckets sharing the first 21 still differ
    first, second = bb.gcp_service_account_id("a" * 29 + "x"), bb.gcp_service_account_id("a" * 29 + "y")
    assert len(first) == 30 and first.startswith("backup-" + "a" * 14) and first != second
    assert len(bb.aws_user_name("b" * 63)) == 64


def test_noncurrent_versions_are_kept_for_the_restore_window():
    assert bb.noncurrent_version_days(7) == 7
    assert bb.noncurrent_version_days(35) == 35
    for bad in (0, -1, 7.5, True, "7"):
        with pytest.raises(InputError) as error:
            bb.noncurrent_version_days(bad)
        assert (error.value.key, error.value.rule) == ("backupRetentionDays", "R3")


def test_secret_keys_are_the_ones_each_operator_reads():
    # PXC reads AWS_* for its s3 type (GCS goes through it too); PS's gcs type reads ACCESS_KEY_ID/
    # SECRET_ACCESS_KEY and its binlog server AWS_* (pkg/secret, pkg/binlogserver/config.go).
    assert bb.credentials_keys(S3, "pxc") == ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY")
    assert bb.credentials_keys(S3, "group-replication") == ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY")
    assert bb.credentials_keys(GCS, "pxc") == ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY")
    assert bb.credentials_keys(GCS, "group-replication") == (
        "AWS_ACCESS_KEY_ID",
        "AWS_SECRET_ACCESS_KEY",
        "ACCESS_KEY_ID",
        "SECRET_ACCESS_KEY",
    )
    assert bb.credentials_data(GCS, "group-replication", "id1", "s1") == {
        "AWS_ACCESS_KEY_ID": "id1",
        "AWS_SECRET_ACCESS_KEY": "s1",
        "ACCESS_KEY_ID": "id1",
        "SECRET_ACCESS_KEY": "s1",
    }
    with pytest.raises(InputError) as error:
        bb.credentials_keys(S3, "mariadb")
    assert error.value.key == "engine"


KEY_ARN = "arn:aws:kms:eu-west-1:123456789012:key/k1"


def test_access_policy_allows_this_bucket_its_objects_and_its_key_only():
    policy = json.loads(bb.s3_access_policy("perf-backups", "aws", KEY_ARN))
    statements = policy["Statement"]
    assert all(s["Effect"] == "Allow" for s in statements)
    resources = {r for s in statements for r in ([s["Resource"]] if isinstance(s["Resource"], str) else s["Resource"])}
    assert resources == {"arn:aws:s3:::perf-backups", "arn:aws:s3:::perf-backups/*", KEY_ARN}
    actions = {a for s in statements for a in s["Action"]}
    assert not any("*" in a for a in actions)  # no wildcard action
    assert "s3:DeleteObjectVersion" not in actions  # a leaked key cannot destroy a version
    assert not any(a.startswith("s3:PutBucket") or a.startswith("s3:DeleteBucket") for a in actions)
    by_resource = {s["Resource"]: set(s["Action"]) for s in statements}
    assert "s3:ListBucket" in by_resource["arn:aws:s3:::perf-backups"]  # minio BucketExists = HEAD bucket
    assert {"s3:PutObject", "s3:GetObject", "s3:DeleteObject"} <= by_resource["arn:aws:s3:::perf-backups/*"]
    assert by_resource[KEY_ARN] == {"kms:GenerateDataKey", "kms:Decrypt"}


def test_policies_use_the_partition():
    policy = json.loads(bb.s3_access_policy("perf-backups", "aws-cn", KEY_ARN))
    assert policy["Statement"][0]["Resource"] == "arn:aws-cn:s3:::perf-backups"


def test_bucket_policy_denies_every_request_without_tls():
    (statement,) = json.loads(bb.s3_tls_only_policy("perf-backups", "aws"))["Statement"]
    assert statement["Effect"] == "Deny" and statement["Principal"] == "*" and statement["Action"] == "s3:*"
    assert statement["Resource"] == ["arn:aws:s3:::perf-backups", "arn:aws:s3:::perf-backups/*"]
    assert statement["Condition"] == {"Bool": {"aws:SecureTransport": "false"}}


def test_secret_name_is_the_clusters():
    assert bb.credentials_secret_name("db") == "db-backup-storage"


@pytest.mark.parametrize(
    ("schedule", "keep", "days"),
    [
        # daily, keep 8: right before the 9th run the oldest of the 8 kept is 8 days old; + 1 day margin
        ("0 3 * * *", 8, 9),
        # weekly, keep 2: the oldest reaches back 2 weeks = 14 days; + 1
        ("0 3 * * 0", 2, 15),
        # every 6 hours, keep 28: 28 gaps of 6 h = 7 days; + 1
        ("0 */6 * * *", 28, 8),
        # weekdays at 03:00, keep 5: the longest 5 gaps hold a weekend (Thu, Fri->Mon 3 days, Tue, Wed, Thu) = 7 days; + 1
        ("0 3 * * 1-5", 5, 8),
    ],
)
def test_binlog_expiry_covers_the_oldest_kept_backup(schedule, keep, days):
    assert bb.binlog_expiry_days(parse_schedule(schedule), keep) == days


def test_binlog_prefixes_are_where_each_engine_writes():
    # PXC's collector names objects binlog_<ts>_<n>_<md5> at the storage root; the PS binlog server writes in the
    # folder the custom resource gives it
    assert bb.binlog_prefix("pxc") == "binlog_"
    assert bb.binlog_prefix("group-replication") == "binlogs/"
