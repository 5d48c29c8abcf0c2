"""The backup keys of the stack config (issue 11 §1; R1-R4): validated before any resource exists, with the key and
the rule in every error; production stacks are held to the rules the policy pack enforces, ephemeral ones are not."""

from __future__ import annotations

import pytest
from percona_mysql_k8s.core.backup import GCS, GCS_ENDPOINT, S3, S3_COMPATIBLE, in_cluster_host
from percona_mysql_k8s.core.errors import InputError
from percona_mysql_k8s.stack.settings import stack_settings_from_config
from stack_configs import EXISTING

HOST = (8000, 32 * 2**30)
GKE = {
    "target": "gke",
    "clusterName": "perf",
    "gcpProject": "perf-project",
    "gcpRegion": "europe-west1",
    "gcpZones": ["europe-west1-b", "europe-west1-c", "europe-west1-d"],
    "databaseNodeType": "n2-standard-16",
    "gkeMasterAuthorizedNetworks": ["203.0.113.0/24"],
    "connections": 2000,
}
EKS = {
    "target": "eks",
    "clusterName": "perf",
    "awsRegion": "eu-west-1",
    "databaseNodeType": "m6i.4xlarge",
    "engine": "group-replication",
}
KIND = {"target": "kind", "kindHostCpu": "8", "kindHostMemory": "32Gi", "clusterSize": 1, "ephemeral": True}
ENDPOINT = {
    "backupEndpoint": "https://s3.eu-central-1.example.net",
    "backupBucket": "perf-backups",
    "backupCredentialsSecret": "perf-backup-s3",
}


def settings(values):
    return stack_settings_from_config(values, host=lambda: HOST)


def test_gke_backs_up_to_a_gcs_bucket_named_after_its_project_and_cluster():
    result = settings(GKE)
    plan = result.backup.plan
    # Pulumi.yaml defaults: backups on, daily at 03:00, a 7-day window, PITR every 60 s
    assert result.backup.provisioned and result.database.backup
    assert (plan.storage.kind, plan.storage.bucket, plan.storage.endpoint_url) == (
        GCS,
        "perf-project-perf-mysql-backups",
        GCS_ENDPOINT,
    )
    assert (plan.schedule.text, plan.retention_days, plan.pitr, plan.pitr_upload_seconds) == ("0 3 * * *", 7, True, 60)
    # a daily schedule keeps 8: right after the 8th run the oldest is 7 days old ((keep - 1) gaps, docs/backups.md)
    assert plan.keep == 8
    # the backup Job and the binlog collector run on the monitoring pool and count in its fit (K5)
    assert result.monitoring.backup_job == plan.backup_job and result.monitoring.pitr_collector == plan.pitr_collector


def test_the_schedule_is_parsed_once_and_the_plan_holds_that_parse(monkeypatch):
    """One decoder (plan.config.backup) parses backupSchedule; the plan, the custom resource and the bucket's
    binary-log expiry receive that CronSchedule: the core's backup_plan parses nothing of its own."""
    from percona_mysql_k8s.core import backup, cron

    parsed = []

    def counting(text):
        parsed.append(real(text))
        return parsed[-1]

    def refused(text):
        raise AssertionError(f"backup_plan parsed {text!r} again")

    real = cron.parse_schedule
    monkeypatch.setattr(cron, "parse_schedule", counting)
    monkeypatch.setattr(backup, "parse_schedule", refused)
    plan = settings({**GKE, "backupSchedule": "CRON_TZ=UTC 30 1 * * MON-FRI"}).backup.plan
    assert [schedule.text for schedule in parsed] == ["CRON_TZ=UTC 30 1 * * MON-FRI"]
    assert plan.schedule is parsed[0] and plan.schedule.time_zone == "UTC"


def test_eks_backs_up_to_an_s3_bucket_in_its_region():
    plan = settings(EKS).backup.plan
    assert (plan.storage.kind, plan.storage.bucket, plan.storage.region) == (S3, "perf-eu-west-1-mysql-backups", "eu-west-1")


def test_backup_false_turns_everything_off_and_the_budget_with_it():
    result = settings({**GKE, "backup": False})
    assert result.backup is None and not result.database.backup
    assert result.monitoring.backup_job is None and result.monitoring.pitr_collector is None


def test_an_ephemeral_kind_stack_without_an_endpoint_runs_without_backups():
    result = settings(KIND)
    assert result.backup is None and not result.database.backup


def test_an_ephemeral_stack_may_use_an_in_cluster_minio_over_http():
    minio = {
        "backupEndpoint": "http://minio.minio.svc:9000",
        "backupBucket": "kind-backups",
        "backupCredentialsSecret": "minio-keys",
        "backupRetentionDays": 1,
    }
    storage = settings({**KIND, **minio}).backup.plan.storage
    assert (storage.kind, storage.endpoint_url, storage.region, storage.credentials_secret) == (
        S3_COMPATIBLE,
        "http://minio.minio.svc:9000",
        "us-east-1",
        "minio-keys",
    )


def test_an_existing_production_cluster_backs_up_to_the_endpoint_it_names():
    storage = settings({**EXISTING, **ENDPOINT}).backup.plan.storage
    assert (storage.kind, storage.bucket, storage.credentials_secret) == (S3_COMPATIBLE, "perf-backups", "perf-backup-s3")


# (id, base, overrides, key, rule)
BAD = [
    ("production without an endpoint", EXISTING, {}, "backupEndpoint", "R1"),
    ("production without the Secret", EXISTING, {**ENDPOINT, "backupCredentialsSecret": ""}, "backupCredentialsSecret", "R1"),
    ("plain http on production", EXISTING, {**ENDPOINT, "backupEndpoint": "http://s3.example.net"}, "backupEndpoint", "R4"),
    (
        "an in-cluster endpoint on production",
        EXISTING,
        {**ENDPOINT, "backupEndpoint": "https://minio.minio.svc:9000"},
        "backupEndpoint",
        "R1",
    ),
    ("a bare Service name on production", EXISTING, {**ENDPOINT, "backupEndpoint": "https://minio:9000"}, "backupEndpoint", "R1"),
    (
        "an endpoint with a path",
        EXISTING,
        {**ENDPOINT, "backupEndpoint": "https://s3.example.net/bucket"},
        "backupEndpoint",
        "R1",
    ),
    ("an endpoint that is not a URL", EXISTING, {**ENDPOINT, "backupEndpoint": "s3.example.net"}, "backupEndpoint", "R1"),
    (
        "a Secret name that is not one",
        EXISTING,
        {**ENDPOINT, "backupCredentialsSecret": "Backup Keys"},
        "backupCredentialsSecret",
        "R4",
    ),
    ("a bucket that is an IP address", EXISTING, {**ENDPOINT, "backupBucket": "192.168.1.10"}, "backupBucket", "R1"),
    ("a bucket with two dots", EXISTING, {**ENDPOINT, "backupBucket": "a..b"}, "backupBucket", "R1"),
    ("a GCS bucket with capitals", GKE, {"backupBucket": "Perf_Backups"}, "backupBucket", "R1"),
    ("a GCS bucket starting goog", GKE, {"backupBucket": "goog-backups"}, "backupBucket", "R1"),
    # 28 + 1 + 22 + len("-mysql-backups") 14 = 65 characters
    (
        "a derived GCS name too long",
        {**GKE, "gcpProject": "a-very-long-project-id-for-x"},
        {"clusterName": "a-longer-cluster-name1"},
        "backupBucket",
        "R1",
    ),
    ("a KMS key that is not a Cloud KMS name", GKE, {"backupKmsKey": "my-key"}, "backupKmsKey", "R4"),
    ("a KMS key that is not an ARN", EKS, {"backupKmsKey": "alias/backups"}, "backupKmsKey", "R4"),
    (
        "an endpoint on gke, where the stack makes the bucket",
        GKE,
        {"backupEndpoint": "https://s3.example.net"},
        "backupEndpoint",
        None,
    ),
    ("a KMS key on kind", KIND, {"backupKmsKey": "arn:aws:kms:eu-west-1:123456789012:key/abc"}, "backupKmsKey", None),
    ("@every, which the operators cannot run", GKE, {"backupSchedule": "@every 1h"}, "backupSchedule", "R1"),
    ("a cron expression with six fields", GKE, {"backupSchedule": "0 0 3 * * *"}, "backupSchedule", "R1"),
    ("retention below the R3 window on production", GKE, {"backupRetentionDays": 3}, "backupRetentionDays", "R3"),
    ("a bad schedule even with backups off", GKE, {"backup": False, "backupSchedule": "daily"}, "backupSchedule", "R1"),
]


@pytest.mark.parametrize(("base", "overrides", "key", "rule"), [case[1:] for case in BAD], ids=[case[0] for case in BAD])
def test_every_bad_backup_value_names_its_key_and_rule(base, overrides, key, rule):
    with pytest.raises(InputError) as error:
        settings({**base, **overrides})
    assert (error.value.key, error.value.rule) == (key, rule), str(error.value)


def test_an_ephemeral_stack_may_keep_backups_for_a_day():
    assert settings({**GKE, "ephemeral": True, "backupRetentionDays": 1}).backup.plan.retention_days == 1


@pytest.mark.parametrize(
    ("host", "inside"),
    [
        ("minio.minio.svc", True),
        ("minio.minio.svc.cluster.local", True),
        ("MINIO.minio.svc.cluster.local.", True),
        ("minio", True),
        ("localhost", True),
        ("127.0.0.1", True),
        ("::1", True),
        ("s3.amazonaws.com", False),
        ("minio.example.com", False),
        ("10.0.0.5", False),
    ],
)
def test_in_cluster_hosts(host, inside):
    # a Service's names resolve only through the cluster DNS; a private IP may well be outside the cluster
    assert (in_cluster_host(host) is not None) is inside
