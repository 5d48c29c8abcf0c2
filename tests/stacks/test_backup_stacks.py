"""The shipped stacks' backups (issue 11 §1; R1-R4), run as `pulumi up` runs them, under mocks: gke and eks create
the bucket and its identity and a custom resource with scheduled backups and PITR on it; existing names an
S3-compatible endpoint; kind (ephemeral) runs without. The policy pack's verdict on them is tests/policies/test_check.py's."""

from __future__ import annotations

import pytest
from database import crd
from database.harness import SecretAwareMonitor, plaintext_secrets, stack_outputs
from percona_mysql_k8s.cli import offline
from percona_mysql_k8s.core.backup import GCS_ENDPOINT, STORAGE_NAME
from percona_mysql_k8s.core.units import GIB
from percona_mysql_k8s.plan.clusters import kind as kind_plan

CR_TYPES = ("kubernetes:pxc.percona.com/v1:PerconaXtraDBCluster", "kubernetes:ps.percona.com/v1:PerconaServerMySQL")
SECRET = "kubernetes:core/v1:Secret"


@pytest.fixture
def run(monkeypatch):
    monkeypatch.setattr(kind_plan, "host_resources", lambda: (8000, 32 * GIB))
    monkeypatch.setattr(offline, "RecordingMonitor", SecretAwareMonitor)

    def go(stack: str, overrides=None):
        SecretAwareMonitor.instances.clear()
        return offline.run_stack(stack, overrides=overrides), SecretAwareMonitor.instances[-1]

    return go


def _of(registrations, type_):
    return [r for r in registrations if r.type == type_]


def _cr(registrations):
    (cr,) = [r for r in registrations if r.type in CR_TYPES]
    return cr


def test_gke_creates_a_private_bucket_an_identity_and_backs_up_to_it(run):
    registrations, monitor = run("gke")
    (bucket,) = _of(registrations, "gcp:storage/bucket:Bucket")
    # Pulumi.gke.yaml: gcpProject my-gcp-project, clusterName gke-mysql -> <project>-<cluster>-mysql-backups
    assert bucket.inputs["name"] == "my-gcp-project-gke-mysql-mysql-backups"
    assert bucket.inputs["publicAccessPrevention"] == "enforced" and bucket.inputs["uniformBucketLevelAccess"] is True
    assert bucket.protect is True  # a production stack: backups outlive a destroy (S4)
    assert len(_of(registrations, "gcp:serviceaccount/account:Account")) == 2  # the nodes' and the backups'
    (hmac,) = _of(registrations, "gcp:storage/hmacKey:HmacKey")
    (secret,) = [s for s in _of(registrations, SECRET) if s.inputs["metadata"]["name"] == "gke-mysql-backup-storage"]
    backup = crd._ints(_cr(registrations).inputs)["spec"]["backup"]
    storage = backup["storages"][STORAGE_NAME]
    # PXC reaches GCS through its S3-interoperable endpoint with the HMAC key in that Secret
    assert storage["s3"]["bucket"] == bucket.inputs["name"] and storage["s3"]["endpointUrl"] == GCS_ENDPOINT
    assert storage["s3"]["credentialsSecret"] == "gke-mysql-backup-storage"
    # Pulumi.yaml defaults: daily at 03:00 keeping 8 (a 7-day window, R3), PITR every 60 s (R2)
    assert backup["schedule"] == [
        {
            "name": "daily",
            "schedule": "0 3 * * *",
            "storageName": STORAGE_NAME,
            "retention": {"type": "count", "count": 8, "deleteFromStorage": True},
        }
    ]
    assert backup["pitr"]["enabled"] is True and backup["pitr"]["timeBetweenUploads"] == 60
    assert plaintext_secrets(monitor) == []  # the HMAC secret reaches the Secret only as a Pulumi secret (S1)
    assert hmac.urn in secret.dependencies or hmac.urn in sum(secret.property_dependencies.values(), [])
    assert secret.urn in _cr(registrations).dependencies  # the custom resource waits for its keys


def test_eks_creates_an_encrypted_bucket_an_identity_and_a_binlog_server(run):
    registrations, monitor = run("eks")
    (bucket,) = _of(registrations, "aws:s3/bucket:Bucket")
    assert bucket.inputs["bucket"] == "eks-mysql-eu-west-1-mysql-backups"  # <cluster>-<awsRegion>-mysql-backups
    (block,) = _of(registrations, "aws:s3/bucketPublicAccessBlock:BucketPublicAccessBlock")
    assert all(
        block.inputs[flag] is True
        for flag in ("blockPublicAcls", "blockPublicPolicy", "ignorePublicAcls", "restrictPublicBuckets")
    )
    (encryption,) = _of(registrations, "aws:s3/bucketServerSideEncryptionConfiguration:BucketServerSideEncryptionConfiguration")
    assert encryption.inputs["rules"][0]["applyServerSideEncryptionByDefault"]["sseAlgorithm"] == "aws:kms"
    (lifecycle,) = _of(registrations, "aws:s3/bucketLifecycleConfiguration:BucketLifecycleConfiguration")
    rules = {rule["id"]: rule for rule in lifecycle.inputs["rules"]}
    # the PS binlog server's logs expire once no kept backup needs them: daily keeping 8 reaches back 8 days, + 1
    assert rules["binlogs"]["filter"] == {"prefix": "binlogs/"} and rules["binlogs"]["expiration"] == {"days": 9}
    assert len(_of(registrations, "aws:iam/accessKey:AccessKey")) == 1
    spec = crd._ints(_cr(registrations).inputs)["spec"]
    backup = spec["backup"]
    assert backup["enabled"] is True
    assert backup["storages"][STORAGE_NAME]["s3"]["bucket"] == bucket.inputs["bucket"]
    assert backup["schedule"][0]["keep"] == 8
    server = backup["pitr"]["binlogServer"]
    assert backup["pitr"]["enabled"] is True and server["storage"]["s3"]["bucket"] == bucket.inputs["bucket"]
    assert plaintext_secrets(monitor) == []


def test_existing_backs_up_to_the_endpoint_it_names(run):
    registrations, _ = run("existing")
    assert not [r for r in registrations if r.type.startswith(("gcp:", "aws:"))]  # nothing outside the cluster
    storage = crd._ints(_cr(registrations).inputs)["spec"]["backup"]["storages"][STORAGE_NAME]
    # stacks/Pulumi.existing.yaml: Amazon S3 as the S3-compatible endpoint, a Secret the user created
    assert storage["s3"]["endpointUrl"] == "https://s3.amazonaws.com"
    assert storage["s3"]["credentialsSecret"] == "existing-mysql-backup-s3"
    assert storage["s3"]["bucket"] == "existing-mysql-backups"
    # the Secret lives in the database namespace, so the namespace exists before the stack runs: createNamespace
    # false, and the operator is installed into it (the Kubernetes provider refuses to create an existing object)
    assert not _of(registrations, "kubernetes:core/v1:Namespace")
    assert [r for r in registrations if r.type == "kubernetes:helm.sh/v3:Release" and "operator" in r.name]


def test_a_namespace_the_stack_creates_when_nobody_made_it(run):
    (namespace,) = _of(run("gke")[0], "kubernetes:core/v1:Namespace")
    assert namespace.inputs["metadata"]["name"] == "mysql" and namespace.protect is True


def test_kind_runs_without_backups_and_creates_no_storage(run):
    registrations, _ = run("kind")
    assert "backup" not in crd._ints(_cr(registrations).inputs)["spec"]
    assert not [r for r in registrations if r.type.startswith(("gcp:", "aws:"))]


def test_backup_false_on_a_production_stack_removes_them(run):
    registrations, _ = run("gke", overrides={"backup": "false"})
    assert "backup" not in crd._ints(_cr(registrations).inputs)["spec"]
    assert not _of(registrations, "gcp:storage/bucket:Bucket")


def test_the_backups_output_says_where_and_how_to_restore(run):
    run("gke")
    backups = stack_outputs()["backups"]
    assert backups["bucket"] == "my-gcp-project-gke-mysql-mysql-backups" and backups["keep"] == 8
    assert backups["list"] == "kubectl -n mysql get pxc-backup"
    assert backups["restore"].startswith("percona-mysql-restore --engine pxc --cluster gke-mysql --namespace mysql")
