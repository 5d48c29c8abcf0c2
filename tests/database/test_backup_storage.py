"""The backup storage components under Pulumi mocks (R1, R3, R4, S1): what each cloud gets, private,
encrypted, versioned, scoped to one bucket, keys only in a Kubernetes Secret and only as Pulumi secrets."""

from __future__ import annotations

import json

import pulumi
import pulumi_aws as aws
import pytest
from percona_mysql_k8s.cli.offline import OfflineMocks, RecordingMonitor
from percona_mysql_k8s.clusters.target import AwsFacts, GcpFacts
from percona_mysql_k8s.core.backup import GCS, GCS_ENDPOINT, S3, BackupStorage
from percona_mysql_k8s.core.errors import InputError
from percona_mysql_k8s.database import create_namespace
from percona_mysql_k8s.database.backup_storage import (
    BackupStorageArgs,
    GcsBackupStorage,
    S3BackupStorage,
    backup_storage,
)
from pulumi.runtime.settings import SETTINGS
from pulumi.runtime.stack import run_pulumi_func
from pulumi.runtime.sync_await import _sync_await

from .fixtures import eks_pools, gke_pools, kind_pools
from .harness import by_type, collect, collect_with_secrets, depends_on, one, plaintext_secrets, target

SECRET = "kubernetes:core/v1:Secret"


def gke_target():
    tgt = target(*gke_pools())
    return tgt.__class__(**{**tgt.__dict__, "kind": "gke", "gcp": GcpFacts(project="perf-project-1", region="europe-west1")})


def eks_target():
    tgt = target(*eks_pools(), kind="eks")
    provider = aws.Provider("aws", region="eu-west-1")
    facts = AwsFacts(region="eu-west-1", partition="aws", provider=provider)
    return tgt.__class__(**{**tgt.__dict__, "aws": facts})


def args(
    tgt, *, engine="pxc", kms_key="", protect=True, depends_on=(), bucket="perf-backups", retention_days=7, binlog_expiry_days=0
):
    return BackupStorageArgs(
        bucket=bucket,
        namespace="mysql",
        cluster_name="db",
        engine=engine,
        target=tgt,
        retention_days=retention_days,
        kms_key=kms_key,
        protect=protect,
        depends_on=depends_on,
        binlog_expiry_days=binlog_expiry_days,
    )


def build(make_target, **kwargs):
    box = {}

    def program():
        tgt = make_target()
        namespace = create_namespace("mysql", tgt, protect=False)
        box["storage"] = backup_storage("backups", args(tgt, depends_on=[namespace], **kwargs))
        box["namespace"] = namespace

    registrations, monitor = collect_with_secrets(program)
    return box["storage"], registrations, monitor


# ---- GKE -------------------------------------------------------------------------------------------


def test_gke_creates_a_private_versioned_bucket_with_lifecycle_for_old_versions_only():
    component, registrations, _ = build(gke_target)
    assert isinstance(component, GcsBackupStorage)
    bucket = one(registrations, "gcp:storage/bucket:Bucket")
    inputs = bucket.inputs
    assert inputs["name"] == "perf-backups" and inputs["project"] == "perf-project-1"
    assert inputs["location"] == "europe-west1"  # beside the cluster (gcpRegion)
    assert inputs["uniformBucketLevelAccess"] is True  # no object ACLs
    assert inputs["publicAccessPrevention"] == "enforced"
    assert inputs["versioning"] == {"enabled": True}
    assert inputs["forceDestroy"] is False
    assert bucket.protect is True
    assert "retentionPolicy" not in inputs  # the operator deletes rotated backups itself: a lock would stop it
    rules = {rule["action"]["type"]: rule["condition"] for rule in inputs["lifecycleRules"]}
    # Delete acts on noncurrent versions only (ARCHIVED), after the restore window (retention_days=7):
    # no rule deletes a live object by age.
    assert rules["Delete"] == {"daysSinceNoncurrentTime": 7, "withState": "ARCHIVED"}
    assert rules["AbortIncompleteMultipartUpload"] == {"age": 7}
    assert set(rules) == {"Delete", "AbortIncompleteMultipartUpload"}
    assert "encryption" not in inputs  # Google-managed unless a key is given


def test_gke_bucket_follows_the_restore_window_and_a_customer_key():
    key = "projects/p1/locations/europe-west1/keyRings/backups/cryptoKeys/db"
    _, registrations, _ = build(gke_target, kms_key=key, retention_days=30, protect=False)
    bucket = one(registrations, "gcp:storage/bucket:Bucket")
    assert bucket.inputs["encryption"] == {"defaultKmsKeyName": key}
    assert {r["action"]["type"]: r["condition"] for r in bucket.inputs["lifecycleRules"]}["Delete"][
        "daysSinceNoncurrentTime"
    ] == 30
    assert bucket.protect is False


def test_gke_identity_is_one_service_account_with_roles_on_this_bucket_only():
    _, registrations, _ = build(gke_target)
    account = one(registrations, "gcp:serviceaccount/account:Account")
    assert account.inputs["accountId"] == "backup-perf-backups" and account.inputs["project"] == "perf-project-1"
    email = "backup-perf-backups@perf-project-1.iam.gserviceaccount.com"
    members = by_type(registrations, "gcp:storage/bucketIAMMember:BucketIAMMember")
    assert sorted(m.inputs["role"] for m in members) == ["roles/storage.legacyBucketReader", "roles/storage.objectAdmin"]
    assert all(m.inputs["bucket"] == "perf-backups" and m.inputs["member"] == f"serviceAccount:{email}" for m in members)
    # nothing granted beyond the bucket: no project-level binding, no Workload Identity binding (nothing reads it)
    types = {r.type for r in registrations}
    assert not any(t.startswith("gcp:projects/") or t.startswith("gcp:serviceaccount/iam") for t in types)
    hmac = one(registrations, "gcp:storage/hmacKey:HmacKey")
    assert hmac.inputs["serviceAccountEmail"] == email
    assert all(depends_on(registrations, hmac, m) for m in members)  # the key works from its first use


@pytest.mark.parametrize(
    ("engine", "keys"),
    [
        ("pxc", {"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"}),  # PXC: type s3 towards GCS_ENDPOINT
        ("group-replication", {"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "ACCESS_KEY_ID", "SECRET_ACCESS_KEY"}),
    ],
)
def test_gke_secret_holds_the_hmac_key_as_a_pulumi_secret_under_the_names_the_operator_reads(engine, keys):
    component, registrations, monitor = build(gke_target, engine=engine)
    secret = one(registrations, SECRET, "backups-credentials")
    assert secret.inputs["metadata"]["name"] == "db-backup-storage" and secret.inputs["metadata"]["namespace"] == "mysql"
    data = secret.inputs["stringData"]
    assert set(data) == keys
    # the HMAC key's access id and secret (the mocks' placeholders), one pair under every name
    assert len({v for k, v in data.items() if "ACCESS_KEY_ID" in k}) == 1
    assert len({v for k, v in data.items() if "SECRET" in k}) == 1
    assert all(value.startswith("offline") for value in data.values())
    raw = monitor.raw_inputs[secret.urn]["stringData"]
    assert raw.get(pulumi.runtime.rpc._special_sig_key) == pulumi.runtime.rpc._special_secret_sig  # S1
    assert plaintext_secrets(monitor) == []  # and nowhere else in plain text
    assert component.storage == BackupStorage(
        kind=GCS, bucket="perf-backups", region="europe-west1", endpoint_url=GCS_ENDPOINT, credentials_secret="db-backup-storage"
    )


def test_gke_secret_goes_through_the_cluster_provider_after_the_namespace():
    component, registrations, _ = build(gke_target)
    secret = one(registrations, SECRET, "backups-credentials")
    namespace = one(registrations, "kubernetes:core/v1:Namespace")
    assert depends_on(registrations, secret, namespace)
    assert secret.provider.startswith(one(registrations, "pulumi:providers:kubernetes").urn)
    assert component.ready[0] is component.secret


# ---- EKS -------------------------------------------------------------------------------------------


def test_eks_creates_a_private_encrypted_versioned_tls_only_bucket():
    component, registrations, _ = build(eks_target)
    assert isinstance(component, S3BackupStorage)
    bucket = one(registrations, "aws:s3/bucket:Bucket")
    assert bucket.inputs["bucket"] == "perf-backups" and bucket.inputs["forceDestroy"] is False and bucket.protect
    assert not by_type(registrations, "aws:s3/bucketV2:BucketV2")  # deprecated in pulumi_aws 7
    bucket_id = "backups-offline-id"
    block = one(registrations, "aws:s3/bucketPublicAccessBlock:BucketPublicAccessBlock").inputs
    assert block == {
        "bucket": bucket_id,
        "blockPublicAcls": True,
        "blockPublicPolicy": True,
        "ignorePublicAcls": True,
        "restrictPublicBuckets": True,
    }
    ownership = one(registrations, "aws:s3/bucketOwnershipControls:BucketOwnershipControls").inputs
    assert ownership["rule"] == {"objectOwnership": "BucketOwnerEnforced"}  # ACLs off
    key = one(registrations, "aws:kms/key:Key")
    assert key.inputs["enableKeyRotation"] is True and key.protect
    key_arn = "arn:aws:kms:offline-1:000000000000:key/backups-backups"  # the mocks' ARN of the key named so
    (rule,) = one(registrations, "aws:s3/bucketServerSideEncryptionConfiguration:BucketServerSideEncryptionConfiguration").inputs[
        "rules"
    ]
    assert rule["applyServerSideEncryptionByDefault"] == {"sseAlgorithm": "aws:kms", "kmsMasterKeyId": key_arn}
    assert rule["bucketKeyEnabled"] is True
    assert one(registrations, "aws:s3/bucketVersioning:BucketVersioning").inputs["versioningConfiguration"] == {
        "status": "Enabled"
    }
    policy = json.loads(one(registrations, "aws:s3/bucketPolicy:BucketPolicy").inputs["policy"])
    (deny,) = policy["Statement"]
    assert deny["Effect"] == "Deny" and deny["Condition"] == {"Bool": {"aws:SecureTransport": "false"}}
    # every AWS resource through the cluster's AWS provider (its region)
    aws_provider = one(registrations, "pulumi:providers:aws").urn
    assert all(r.provider.startswith(aws_provider) for r in registrations if r.custom and r.type.startswith("aws:"))


def test_eks_lifecycle_expires_noncurrent_versions_after_the_window_and_never_live_objects():
    _, registrations, _ = build(eks_target, retention_days=14)
    lifecycle = one(registrations, "aws:s3/bucketLifecycleConfiguration:BucketLifecycleConfiguration")
    rules = {rule["id"]: rule for rule in lifecycle.inputs["rules"]}
    assert rules["noncurrent-versions"]["noncurrentVersionExpiration"] == {"noncurrentDays": 14}
    assert rules["incomplete-uploads"]["abortIncompleteMultipartUpload"] == {"daysAfterInitiation": 7}
    assert all(rule["status"] == "Enabled" and "expiration" not in rule for rule in rules.values())
    assert depends_on(registrations, lifecycle, one(registrations, "aws:s3/bucketVersioning:BucketVersioning"))


@pytest.mark.parametrize(("engine", "prefix"), [("pxc", "binlog_"), ("group-replication", "binlogs/")])
def test_binary_logs_expire_after_the_reach_back_of_the_kept_backups_on_both_clouds(engine, prefix):
    # nobody deletes uploaded binary logs (neither operator does): with PITR the bucket does, by age, only
    # under the engine's binlog prefix; 9 days = a daily schedule keeping 8 (backup_bucket.binlog_expiry_days)
    _, gke, _ = build(gke_target, engine=engine, binlog_expiry_days=9)
    rules = one(gke, "gcp:storage/bucket:Bucket").inputs["lifecycleRules"]
    ages = [rule["condition"] for rule in rules if rule["action"]["type"] == "Delete" and "age" in rule["condition"]]
    assert ages == [{"age": 9, "matchesPrefixes": [prefix]}]
    _, eks, _ = build(eks_target, engine=engine, binlog_expiry_days=9)
    rules = {
        rule["id"]: rule for rule in one(eks, "aws:s3/bucketLifecycleConfiguration:BucketLifecycleConfiguration").inputs["rules"]
    }
    assert rules["binlogs"]["filter"] == {"prefix": prefix} and rules["binlogs"]["expiration"] == {"days": 9}
    # the other rules still never expire a live object
    assert all("expiration" not in rule for rule_id, rule in rules.items() if rule_id != "binlogs")


def test_eks_identity_is_an_iam_user_scoped_to_the_bucket_and_its_key():
    _, registrations, _ = build(eks_target)
    user = one(registrations, "aws:iam/user:User")
    assert user.inputs["name"] == "backup-perf-backups"
    (policy,) = by_type(registrations, "aws:iam/userPolicy:UserPolicy")
    document = json.loads(policy.inputs["policy"])
    resources = {s["Resource"] for s in document["Statement"]}
    assert resources == {
        "arn:aws:s3:::perf-backups",
        "arn:aws:s3:::perf-backups/*",
        "arn:aws:kms:offline-1:000000000000:key/backups-backups",
    }
    assert not by_type(registrations, "aws:iam/userPolicyAttachment:UserPolicyAttachment")  # no managed policy
    assert not by_type(registrations, "aws:iam/role:Role")  # no IRSA role: the operators would not use it
    access_key = one(registrations, "aws:iam/accessKey:AccessKey")
    assert depends_on(registrations, access_key, policy)


def test_eks_with_a_given_key_creates_none_and_scopes_the_policy_to_it():
    key = "arn:aws:kms:eu-west-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab"
    _, registrations, _ = build(eks_target, kms_key=key)
    assert not by_type(registrations, "aws:kms/key:Key")
    (rule,) = one(registrations, "aws:s3/bucketServerSideEncryptionConfiguration:BucketServerSideEncryptionConfiguration").inputs[
        "rules"
    ]
    assert rule["applyServerSideEncryptionByDefault"]["kmsMasterKeyId"] == key
    statements = json.loads(one(registrations, "aws:iam/userPolicy:UserPolicy").inputs["policy"])["Statement"]
    assert {s["Sid"]: s["Resource"] for s in statements}["Key"] == key


@pytest.mark.parametrize("engine", ["pxc", "group-replication"])
def test_eks_secret_holds_the_access_key_as_a_pulumi_secret(engine):
    component, registrations, monitor = build(eks_target, engine=engine)
    secret = one(registrations, SECRET, "backups-credentials")
    data = secret.inputs["stringData"]
    assert data == {
        "AWS_ACCESS_KEY_ID": "backups-backup-offline-id",  # the access key's id (the mocks' resource id)
        "AWS_SECRET_ACCESS_KEY": data["AWS_SECRET_ACCESS_KEY"],
    }
    assert data["AWS_SECRET_ACCESS_KEY"].startswith("offline")
    raw = monitor.raw_inputs[secret.urn]["stringData"]
    assert raw.get(pulumi.runtime.rpc._special_sig_key) == pulumi.runtime.rpc._special_secret_sig  # S1
    assert plaintext_secrets(monitor) == []
    assert component.storage == BackupStorage(
        kind=S3, bucket="perf-backups", region="eu-west-1", credentials_secret="db-backup-storage"
    )


def test_eks_custom_resource_waits_for_the_secret_and_every_bucket_setting():
    component, _, _ = build(eks_target)
    names = {type(resource).__name__ for resource in component.ready}
    assert names == {
        "Secret",
        "BucketOwnershipControls",
        "BucketPublicAccessBlock",
        "BucketServerSideEncryptionConfiguration",
        "BucketVersioning",
        "BucketLifecycleConfiguration",
        "BucketPolicy",
    }


# ---- choice and bad input --------------------------------------------------------------------------


def test_nothing_is_created_for_kind_and_existing_clusters():
    def program():
        backup_storage("backups", args(target(*kind_pools(), kind="kind")))

    with pytest.raises(ValueError, match="S3-compatible"):
        collect(program)


def test_a_cloud_component_refuses_the_other_clouds_target():
    def program():
        S3BackupStorage("backups", args(gke_target()))

    with pytest.raises(ValueError, match="needs an EKS target"):
        collect(program)


def collect_until_error(program):
    """Run ``program`` under the offline mocks; return the error it raised and what it registered before."""
    mocks = OfflineMocks()
    monitor = RecordingMonitor(mocks)
    pulumi.runtime.set_mocks(mocks, project="percona-mysql", stack="test", preview=False, monitor=monitor)
    SETTINGS.rpc_manager.clear()
    SETTINGS.outputs.clear()
    with pytest.raises(InputError) as error:
        _sync_await(run_pulumi_func(program))
    return error.value, monitor.registrations


@pytest.mark.parametrize(
    ("changes", "key", "rule"),
    [
        ({"bucket": "Perf_Backups"}, "backupBucket", "R1"),
        ({"kms_key": "alias/backups"}, "backupKmsKey", "R4"),
        ({"retention_days": 0}, "backupRetentionDays", "R3"),
        ({"engine": "mariadb"}, "engine", None),
    ],
)
@pytest.mark.parametrize("make_target", [gke_target, eks_target])
def test_bad_input_names_its_key_and_registers_no_cloud_resource(make_target, changes, key, rule):
    error, registrations = collect_until_error(lambda: backup_storage("backups", args(make_target(), **changes)))
    assert (error.key, error.rule) == (key, rule)
    assert not [
        r.type
        for r in registrations
        if r.custom and r.type.split(":")[0] in ("gcp", "aws", "kubernetes") and not r.type.startswith("pulumi:providers")
    ]
