"""The backup bucket beside the cluster, its identity and the keys Secret (R1, R4): GCS on GKE, S3 on EKS.

What is created, and why (the names, policies and numbers: :mod:`percona_mysql_k8s.plan.database.backup_bucket`):

* GKE (:class:`GcsBackupStorage`): a bucket in the cluster's project and region with uniform bucket-level
  access (no object ACLs), public access prevention enforced, versioning, and lifecycle rules that delete
  noncurrent versions after the restore window and abort uploads left incomplete; never a live object by
  age: the operator deletes the backups it rotates out itself, and a base backup older than the window may
  still anchor point-in-time recovery. Google-managed encryption, or the Cloud KMS key ``kms_key`` (the
  Cloud Storage service agent must be allowed to use it). A Google service account holding two roles on
  this bucket only, and an HMAC key of that account.
* EKS (:class:`S3BackupStorage`): a bucket (``aws.s3.Bucket``, the pinned pulumi_aws 7's non-deprecated
  resource, with its configuration resources) with every public access block flag, object ownership
  enforced (no ACLs), SSE-KMS with a key created here (yearly rotation) unless ``kms_key`` names one,
  versioning, lifecycle (noncurrent versions after the restore window, incomplete uploads), and a bucket
  policy denying any request without TLS. An IAM user whose only policy is this bucket and this key, and
  an access key of that user. Everything through the cluster's AWS provider (its region).
* Both: a Kubernetes Secret in the database namespace holding the key under the names the operator
  reads, created through the cluster's provider after ``depends_on`` (the namespace). The key is made
  here, never read from stack config (R4), and is a Pulumi secret end to end (S1).

Why keys rather than Workload Identity or IRSA: neither operator reads a pod identity on every path it
needs (the PXC PITR collector, rotation and restore read the Secret's keys; PS requires the Secret), see
:mod:`percona_mysql_k8s.plan.database.backup_bucket`. Rotate a key with ``pulumi up --replace`` on the HMAC
key (``gcp:storage/hmacKey:HmacKey``) or the access key (``aws:iam/accessKey:AccessKey``): the Secret is
rewritten with the new one in the same update.

The buckets are protected (``protect``) and never ``force_destroy``: ``pulumi destroy`` stops at them
until they are emptied and unprotected (docs/backups.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

import pulumi

from percona_mysql_k8s._extras import missing_extra
from percona_mysql_k8s._tokens import options as renamed
from percona_mysql_k8s._tokens import token

try:
    import pulumi_kubernetes as k8s
except ModuleNotFoundError as missing:  # a provider SDK of an extra (pyproject.toml): say which one installs it
    raise missing_extra(missing, __name__) from None

from percona_mysql_k8s.clusters.target import ClusterTarget
from percona_mysql_k8s.core.backup import GCS, GCS_ENDPOINT, S3, BackupPlan, BackupStorage
from percona_mysql_k8s.plan.database import backup_bucket as plan
from percona_mysql_k8s.plan.database.pods import labels

if TYPE_CHECKING:
    import pulumi_aws as aws

STORAGE_CLASS = "STANDARD"  # backups are read rarely but must restore fast: no retrieval delay or fee
KMS_DELETION_WINDOW_DAYS = 30  # the longest AWS allows: a key scheduled for deletion by mistake can be saved


@dataclass(frozen=True)
class BackupStorageArgs:
    """``bucket``: the bucket's (globally unique) name; ``namespace``/``cluster_name``/``engine``: the database
    cluster whose Secret is written; ``retention_days``: the restore window (R3); ``kms_key``: a customer
    key to encrypt with ("" = GCS: Google-managed, S3: a key created here); ``protect``: the bucket (and the
    created KMS key) refuse deletion; ``depends_on``: what the Secret waits for (the namespace)."""

    bucket: str
    namespace: str
    cluster_name: str
    engine: str
    target: ClusterTarget
    retention_days: int
    kms_key: str = ""
    protect: bool = True
    depends_on: Sequence[pulumi.Resource] = field(default=())
    # days after which uploaded binary logs are deleted (backup_bucket.binlog_expiry_days); 0: no PITR, no rule
    binlog_expiry_days: int = 0


def _credentials_secret(
    component: pulumi.ComponentResource,
    name: str,
    args: BackupStorageArgs,
    kind: str,
    access_key_id: pulumi.Output[str],
    secret_access_key: pulumi.Output[str],
) -> k8s.core.v1.Secret:
    data = pulumi.Output.secret(
        pulumi.Output.all(access_key_id, secret_access_key).apply(
            lambda pair: plan.credentials_data(kind, args.engine, pair[0], pair[1])
        )
    )
    return k8s.core.v1.Secret(
        f"{name}-credentials",
        metadata={
            "name": plan.credentials_secret_name(args.cluster_name),
            "namespace": args.namespace,
            "labels": labels("backup-storage", args.cluster_name),
        },
        type="Opaque",
        string_data=data,
        opts=pulumi.ResourceOptions(
            parent=component, provider=args.target.provider, depends_on=[*args.depends_on, *args.target.ready]
        ),
    )


def _cloud_sdk(module: str, extra: str, component: str):
    """The cloud's SDK, imported when its storage is made: a GKE-only install has no pulumi_aws, and the
    stack program imports this module whatever its target."""
    try:
        return __import__(module)
    except ModuleNotFoundError as missing:
        raise missing_extra(missing, f"{__name__}.{component}", extra) from None


@dataclass(frozen=True)
class _Cloud:
    """One cloud's bucket storage: the component's type name, the SDK it creates with (and the extra that
    installs it), the storage kind it checks the arguments against, and the target facts it reads."""

    component: str
    sdk: str
    extra: str
    kind: str
    facts: str  # the ClusterTarget attribute holding this cloud's facts
    target: str  # the target it needs, as the error names it


_GCS_CLOUD = _Cloud("GcsBackupStorage", "pulumi_gcp", "gke", GCS, "gcp", "a GKE target (its project and region)")
_S3_CLOUD = _Cloud("S3BackupStorage", "pulumi_aws", "eks", S3, "aws", "an EKS target (its region and AWS provider)")


def _start(component: pulumi.ComponentResource, name: str, args: BackupStorageArgs, opts, cloud: _Cloud):
    """What both storages do first: import the cloud's SDK (a missing extra is named before anything is
    registered), register the component, take the target's facts of that cloud and check the arguments.
    Returns the SDK module and the facts."""
    sdk = _cloud_sdk(cloud.sdk, cloud.extra, cloud.component)
    pulumi.ComponentResource.__init__(component, token(cloud.component), name, None, renamed(cloud.component, opts))
    facts = getattr(args.target, cloud.facts)
    if facts is None:
        raise ValueError(f"{cloud.component} needs {cloud.target}; {args.target.kind} has none")
    plan.check_bucket_name(args.bucket, cloud.kind)
    plan.check_kms_key(args.kms_key, cloud.kind)
    plan.check_retention_days(args.retention_days)
    plan.check_engine(args.engine)
    return sdk, facts


class GcsBackupStorage(pulumi.ComponentResource):
    """A GCS bucket, its service account and HMAC key, and the keys Secret; ``.storage`` addresses it as
    the operators do (kind GCS, endpoint GCS_ENDPOINT: PXC type s3 there, PS type gcs), ``.ready`` is what
    the custom resource must wait for."""

    def __init__(self, name: str, args: BackupStorageArgs, opts: pulumi.ResourceOptions | None = None):
        gcp, facts = _start(self, name, args, opts, _GCS_CLOUD)
        child = pulumi.ResourceOptions(parent=self)
        days = plan.noncurrent_version_days(args.retention_days)
        self.bucket = gcp.storage.Bucket(
            name,
            name=args.bucket,
            project=facts.project,
            location=facts.region,
            storage_class=STORAGE_CLASS,
            uniform_bucket_level_access=True,
            public_access_prevention="enforced",
            versioning=gcp.storage.BucketVersioningArgs(enabled=True),
            lifecycle_rules=[
                gcp.storage.BucketLifecycleRuleArgs(
                    action=gcp.storage.BucketLifecycleRuleActionArgs(type="Delete"),
                    # ARCHIVED = noncurrent only: a live object is never deleted by age
                    condition=gcp.storage.BucketLifecycleRuleConditionArgs(
                        days_since_noncurrent_time=days, with_state="ARCHIVED"
                    ),
                ),
                gcp.storage.BucketLifecycleRuleArgs(
                    action=gcp.storage.BucketLifecycleRuleActionArgs(type="AbortIncompleteMultipartUpload"),
                    condition=gcp.storage.BucketLifecycleRuleConditionArgs(age=plan.ABORT_INCOMPLETE_UPLOAD_DAYS),
                ),
                *(
                    [
                        gcp.storage.BucketLifecycleRuleArgs(  # nobody else deletes binary logs (R2, R3)
                            action=gcp.storage.BucketLifecycleRuleActionArgs(type="Delete"),
                            condition=gcp.storage.BucketLifecycleRuleConditionArgs(
                                age=args.binlog_expiry_days, matches_prefixes=[plan.binlog_prefix(args.engine)]
                            ),
                        )
                    ]
                    if args.binlog_expiry_days
                    else []
                ),
            ],
            encryption=gcp.storage.BucketEncryptionArgs(default_kms_key_name=args.kms_key) if args.kms_key else None,
            force_destroy=False,
            labels={"app": "percona-mysql", "cluster": args.cluster_name},
            opts=pulumi.ResourceOptions(parent=self, protect=args.protect),
        )
        account_id = plan.gcp_service_account_id(args.bucket)
        self.account = gcp.serviceaccount.Account(
            f"{name}-backup",
            account_id=account_id,
            project=facts.project,
            display_name=f"Backups of {args.cluster_name} (bucket {args.bucket} only)",
            opts=child,
        )
        member = pulumi.Output.concat("serviceAccount:", self.account.email)
        self.bucket_roles = [
            gcp.storage.BucketIAMMember(
                f"{name}-backup-{role.rsplit('.', 1)[-1]}", bucket=self.bucket.name, role=role, member=member, opts=child
            )
            for role in plan.GCS_BUCKET_ROLES
        ]
        self.hmac_key = gcp.storage.HmacKey(
            f"{name}-backup",
            service_account_email=self.account.email,
            project=facts.project,
            opts=pulumi.ResourceOptions(parent=self, depends_on=self.bucket_roles),
        )
        self.secret = _credentials_secret(self, name, args, GCS, self.hmac_key.access_id, self.hmac_key.secret)
        self.storage = BackupStorage(
            kind=GCS,
            bucket=args.bucket,
            region=facts.region,
            endpoint_url=GCS_ENDPOINT,
            credentials_secret=plan.credentials_secret_name(args.cluster_name),
        )
        self.ready: list[pulumi.Resource] = [self.secret, *self.bucket_roles]
        self.register_outputs({"bucket": self.bucket.name, "serviceAccount": self.account.email})


class S3BackupStorage(pulumi.ComponentResource):
    """An S3 bucket (private, SSE-KMS, versioned, TLS only), its IAM user and access key, and the keys
    Secret; ``.storage`` addresses it (kind S3, the cluster's region), ``.ready`` is what the custom
    resource must wait for (the Secret and every bucket setting, so no backup lands before them)."""

    def __init__(self, name: str, args: BackupStorageArgs, opts: pulumi.ResourceOptions | None = None):
        aws, facts = _start(self, name, args, opts, _S3_CLOUD)
        child = pulumi.ResourceOptions(parent=self, provider=facts.provider)
        protected = pulumi.ResourceOptions.merge(child, pulumi.ResourceOptions(protect=args.protect))
        key_arn = self._kms_key(aws, name, args, protected)
        tags = {"app": "percona-mysql", "cluster": args.cluster_name}
        self._bucket_and_settings(aws, name, args, key_arn, tags, child, protected)
        self._lifecycle_and_policy(aws, name, args, facts, child)
        self._access_key(aws, name, args, facts, key_arn, tags, child)
        self.secret = _credentials_secret(self, name, args, S3, self.access_key.id, self.access_key.secret)
        self.storage = BackupStorage(
            kind=S3, bucket=args.bucket, region=facts.region, credentials_secret=plan.credentials_secret_name(args.cluster_name)
        )
        self.ready = [
            self.secret,
            self.ownership,
            self.public_access_block,
            self.encryption,
            self.versioning,
            self.lifecycle,
            self.policy,
        ]
        self.register_outputs({"bucket": self.bucket.bucket, "user": self.user.name})

    def _kms_key(self, aws, name: str, args: BackupStorageArgs, protected: pulumi.ResourceOptions) -> pulumi.Input[str]:
        """The KMS key the bucket encrypts with: the one kmsKey names, or a new one (rotated, protected)."""
        self.key: aws.kms.Key | None = None
        key_arn: pulumi.Input[str] = args.kms_key
        if not args.kms_key:
            self.key = aws.kms.Key(
                f"{name}-backups",
                description=f"Backups of {args.cluster_name} (bucket {args.bucket})",
                enable_key_rotation=True,
                deletion_window_in_days=KMS_DELETION_WINDOW_DAYS,
                opts=protected,
            )
            key_arn = self.key.arn
        return key_arn

    def _bucket_and_settings(
        self,
        aws,
        name: str,
        args: BackupStorageArgs,
        key_arn: pulumi.Input[str],
        tags: dict[str, str],
        child: pulumi.ResourceOptions,
        protected: pulumi.ResourceOptions,
    ) -> None:
        """The bucket (protected) with its ownership, public access block, SSE-KMS encryption and versioning."""
        self.bucket = aws.s3.Bucket(name, bucket=args.bucket, force_destroy=False, tags=tags, opts=protected)
        bucket_id = self.bucket.id
        self.ownership = aws.s3.BucketOwnershipControls(
            f"{name}-ownership",
            bucket=bucket_id,
            rule=aws.s3.BucketOwnershipControlsRuleArgs(object_ownership="BucketOwnerEnforced"),
            opts=child,
        )
        self.public_access_block = aws.s3.BucketPublicAccessBlock(
            f"{name}-public-access",
            bucket=bucket_id,
            block_public_acls=True,
            block_public_policy=True,
            ignore_public_acls=True,
            restrict_public_buckets=True,
            opts=child,
        )
        self.encryption = aws.s3.BucketServerSideEncryptionConfiguration(
            f"{name}-encryption",
            bucket=bucket_id,
            rules=[
                aws.s3.BucketServerSideEncryptionConfigurationRuleArgs(
                    apply_server_side_encryption_by_default=aws.s3.BucketServerSideEncryptionConfigurationRuleApplyServerSideEncryptionByDefaultArgs(
                        sse_algorithm="aws:kms", kms_master_key_id=key_arn
                    ),
                    bucket_key_enabled=True,  # one data key per bucket and period, not one KMS call per object
                )
            ],
            opts=child,
        )
        self.versioning = aws.s3.BucketVersioning(
            f"{name}-versioning",
            bucket=bucket_id,
            versioning_configuration=aws.s3.BucketVersioningVersioningConfigurationArgs(status="Enabled"),
            opts=child,
        )

    def _lifecycle_and_policy(self, aws, name: str, args: BackupStorageArgs, facts, child: pulumi.ResourceOptions) -> None:
        """What expires (noncurrent versions, incomplete uploads, binary logs) and the TLS-only bucket policy."""
        bucket_id = self.bucket.id
        days = plan.noncurrent_version_days(args.retention_days)
        everything = aws.s3.BucketLifecycleConfigurationRuleFilterArgs(prefix="")
        self.lifecycle = aws.s3.BucketLifecycleConfiguration(
            f"{name}-lifecycle",
            bucket=bucket_id,
            rules=[
                aws.s3.BucketLifecycleConfigurationRuleArgs(
                    id="noncurrent-versions",
                    status="Enabled",
                    filter=everything,
                    noncurrent_version_expiration=aws.s3.BucketLifecycleConfigurationRuleNoncurrentVersionExpirationArgs(
                        noncurrent_days=days
                    ),
                ),
                aws.s3.BucketLifecycleConfigurationRuleArgs(
                    id="incomplete-uploads",
                    status="Enabled",
                    filter=everything,
                    abort_incomplete_multipart_upload=aws.s3.BucketLifecycleConfigurationRuleAbortIncompleteMultipartUploadArgs(
                        days_after_initiation=plan.ABORT_INCOMPLETE_UPLOAD_DAYS
                    ),
                ),
                *(
                    [
                        aws.s3.BucketLifecycleConfigurationRuleArgs(  # nobody else deletes binary logs (R2, R3)
                            id="binlogs",
                            status="Enabled",
                            filter=aws.s3.BucketLifecycleConfigurationRuleFilterArgs(prefix=plan.binlog_prefix(args.engine)),
                            expiration=aws.s3.BucketLifecycleConfigurationRuleExpirationArgs(days=args.binlog_expiry_days),
                        )
                    ]
                    if args.binlog_expiry_days
                    else []
                ),
            ],
            # S3 refuses noncurrent-version rules on a bucket whose versioning is not configured yet
            opts=pulumi.ResourceOptions.merge(child, pulumi.ResourceOptions(depends_on=[self.versioning])),
        )
        self.policy = aws.s3.BucketPolicy(
            f"{name}-tls-only",
            bucket=bucket_id,
            policy=plan.s3_tls_only_policy(args.bucket, facts.partition),
            # a policy put before the public access block exists would be checked against no block at all
            opts=pulumi.ResourceOptions.merge(child, pulumi.ResourceOptions(depends_on=[self.public_access_block])),
        )

    def _access_key(
        self, aws, name: str, args: BackupStorageArgs, facts, key_arn: pulumi.Input[str], tags: dict[str, str], child
    ) -> None:
        """The IAM user that may use this bucket and key only, and its access key (after its policy)."""
        self.user = aws.iam.User(f"{name}-backup", name=plan.aws_user_name(args.bucket), tags=tags, opts=child)
        self.user_policy = aws.iam.UserPolicy(
            f"{name}-backup",
            user=self.user.name,
            policy=pulumi.Output.from_input(key_arn).apply(lambda arn: plan.s3_access_policy(args.bucket, facts.partition, arn)),
            opts=child,
        )
        self.access_key = aws.iam.AccessKey(
            f"{name}-backup",
            user=self.user.name,
            opts=pulumi.ResourceOptions.merge(child, pulumi.ResourceOptions(depends_on=[self.user_policy])),
        )


def backup_storage(
    name: str, args: BackupStorageArgs, opts: pulumi.ResourceOptions | None = None
) -> GcsBackupStorage | S3BackupStorage:
    """The bucket of the cluster's cloud: GCS on GKE, S3 on EKS. kind and existing clusters have no cloud
    to create one in: their storage is an S3-compatible endpoint given in config (``BackupStorage(kind=
    S3_COMPATIBLE, ...)`` and a Secret the user creates, docs/backups.md)."""
    if args.target.kind == "gke":
        return GcsBackupStorage(name, args, opts)
    if args.target.kind == "eks":
        return S3BackupStorage(name, args, opts)
    raise ValueError(
        f"no bucket is created on a {args.target.kind} target: use an S3-compatible endpoint "
        "(BackupStorage(kind=S3_COMPATIBLE)) and a credentials Secret of your own"
    )


def provision_backup_storage(
    name: str,
    backups: BackupPlan,
    *,
    namespace: str,
    cluster_name: str,
    engine: str,
    target: ClusterTarget,
    kms_key: str = "",
    protect: bool = True,
    depends_on: Sequence[pulumi.Resource] = (),
    opts: pulumi.ResourceOptions | None = None,
) -> tuple[BackupPlan, list[pulumi.Resource]]:
    """Create the bucket ``backups.storage`` names (and its identity) on the target's cloud; return the plan with
    the storage as the operators reach it (its credentials Secret) and what the custom resource must wait for.

    The bucket keeps noncurrent versions for the plan's restore window and, with PITR, expires binary logs
    once no kept backup needs them (backup_bucket.binlog_expiry_days): neither operator deletes them."""
    store = backup_storage(
        name,
        BackupStorageArgs(
            bucket=backups.storage.bucket,
            namespace=namespace,
            cluster_name=cluster_name,
            engine=engine,
            target=target,
            retention_days=backups.retention_days,
            kms_key=kms_key,
            protect=protect,
            depends_on=depends_on,
            binlog_expiry_days=plan.binlog_expiry_days(backups.schedule, backups.keep) if backups.pitr else 0,
        ),
        opts,
    )
    return replace(backups, storage=store.storage), list(store.ready)
