"""R4 (stack): on a production stack, every bucket is private and encrypted, and the stack config holds no
static cloud key.

* ``gcp:storage/bucket:Bucket``: ``publicAccessPrevention: enforced`` (no ACL or IAM grant can make an
  object public; the default ``inherited`` defers to an org policy the stack cannot see) and
  ``uniformBucketLevelAccess: true`` (no per-object ACLs). Cloud Storage encrypts every object at rest.
* ``aws:s3/bucket:Bucket`` and ``aws:s3/bucketV2:BucketV2`` (pulumi-aws 7): a
  ``aws:s3/bucketPublicAccessBlock:BucketPublicAccessBlock`` with ``blockPublicAcls``,
  ``blockPublicPolicy``, ``ignorePublicAcls`` and ``restrictPublicBuckets`` all true, and a default
  server-side encryption (an ``sseAlgorithm`` in the bucket's inline ``serverSideEncryptionConfiguration(s)``
  or in a ``aws:s3/bucketServerSideEncryptionConfiguration[V2]`` resource). A companion resource belongs to
  a bucket when its ``bucket`` is the bucket's name, or, when that is not known yet (``bucket.id`` at
  preview), when it depends on the bucket.
* Stack config (``PULUMI_CONFIG``, as the engine passes it to the pack): no static cloud key
  (core.cloud_keys: AWS access key ids, Cloud Storage HMAC ids, provider credentials, secret-key names).

Production only: not an ephemeral stack (data_protection.ephemeral: ``ephemeral_stacks`` or config
``ephemeral: true``). Every bucket of such a stack is judged: a percona-mysql stack has no public bucket to keep.
"""

from __future__ import annotations

import json
import os

from percona_mysql_k8s.core.cloud_keys import static_cloud_keys
from percona_mysql_k8s.core.finding_field import CONFIG_PREFIX

from ._framework import Context, Spec, stack_policy
from ._readers.values import MISSING, NotKnown, Unknown, as_bool, as_str, describe
from .data_protection import SPEC as DATA_PROTECTION
from .data_protection import ephemeral

GCS_BUCKET = "gcp:storage/bucket:Bucket"
S3_BUCKETS = ("aws:s3/bucket:Bucket", "aws:s3/bucketV2:BucketV2")
PUBLIC_ACCESS_BLOCK = "aws:s3/bucketPublicAccessBlock:BucketPublicAccessBlock"
ENCRYPTION = (
    "aws:s3/bucketServerSideEncryptionConfigurationV2:BucketServerSideEncryptionConfigurationV2",
    "aws:s3/bucketServerSideEncryptionConfiguration:BucketServerSideEncryptionConfiguration",
)
BLOCK_FLAGS = ("blockPublicAcls", "blockPublicPolicy", "ignorePublicAcls", "restrictPublicBuckets")
INLINE_ENCRYPTION = ("serverSideEncryptionConfiguration", "serverSideEncryptionConfigurations")

SPEC = Spec(
    name="backup-buckets",
    rules=("R4",),
    settings=DATA_PROTECTION.settings,
    description="buckets are private and encrypted, and no static cloud key is in the stack config, on production stacks",
    remediation="Enforce public access prevention and uniform access (GCS), block all public access and encrypt by "
    "default (S3); keep keys out of config: a credentials Secret the stack creates from a key scoped to the "
    "bucket, or one you create (the operators read keys from a Secret, not a pod identity).",
)

ALLOWED = "the rule keeps backup storage private and encrypted on production stacks"


def _config() -> dict:
    try:
        config = json.loads(os.environ.get("PULUMI_CONFIG") or "{}")
    except ValueError:
        return {}
    return config if isinstance(config, dict) else {}


def _encrypts(value, path: str = "") -> bool:
    """Some ``applyServerSideEncryptionByDefault`` below ``value`` names an ``sseAlgorithm``; NotKnown when none
    does for sure and one unknown at preview may."""
    return _encrypts_known(value, path)


def _encrypts_known(value, path: str = "") -> bool:
    if isinstance(value, Unknown):
        raise value.error(path)
    if isinstance(value, list):
        return _any_encrypts((item, f"{path}[{index}]") for index, item in enumerate(value))
    if not isinstance(value, dict):
        return False
    default = value.get("applyServerSideEncryptionByDefault")
    for rule in default if isinstance(default, list) else [default]:
        algorithm = rule.get("sseAlgorithm") if isinstance(rule, dict) else None
        if isinstance(algorithm, str) and algorithm:
            return True
    return _any_encrypts((item, f"{path}.{key}" if path else key) for key, item in value.items())


def _any_encrypts(items) -> bool:
    """Some (value, path) encrypts; NotKnown when none does for sure and an unknown one may."""
    undecided = None
    for item, path in items:
        try:
            if _encrypts_known(item, path):
                return True
        except NotKnown as error:
            undecided = undecided or error
    if undecided is not None:
        raise undecided
    return False


def _belongs(companion, bucket, name) -> bool:
    """Whether ``companion`` configures ``bucket``: it names it, or depends on it. NotKnown when a name that
    decides it is unknown at preview (the companion then may configure it)."""
    target = companion.props.get("bucket", MISSING)
    if isinstance(target, str) and isinstance(name, str) and target == name:
        return True
    if bucket.urn in companion.dependencies:
        return True
    if isinstance(target, Unknown):
        raise NotKnown("bucket", target.sentinel, companion.label)
    if isinstance(name, Unknown) and isinstance(target, str):
        raise NotKnown("bucket", name.sentinel, bucket.label)
    return False


def _gcs(ctx: Context, bucket) -> None:
    with ctx.checking("R4", bucket.urn, bucket.label):
        prevention = as_str(bucket.props.get("publicAccessPrevention", MISSING), "publicAccessPrevention", "inherited")
        uniform = as_bool(bucket.props.get("uniformBucketLevelAccess", MISSING), "uniformBucketLevelAccess", False)
        if prevention != "enforced":
            ctx.violation(
                "R4",
                f"{bucket.label} has publicAccessPrevention {describe(prevention)}, so an ACL or IAM "
                "grant can make its backups public",
                ALLOWED,
                "set publicAccessPrevention: enforced",
                bucket.urn,
                field="publicAccessPrevention",
            )
        if not uniform:
            ctx.violation(
                "R4",
                f"{bucket.label} does not set uniformBucketLevelAccess, so objects carry their own ACLs",
                ALLOWED,
                "set uniformBucketLevelAccess: true",
                bucket.urn,
                field="uniformBucketLevelAccess",
            )


def _s3(ctx: Context, bucket, resources) -> None:
    name = bucket.props.get("bucket", MISSING)
    label = bucket.label
    blocks, undecided = [], None
    for companion in resources:
        if companion.type == PUBLIC_ACCESS_BLOCK:
            try:
                if _belongs(companion, bucket, name):
                    blocks.append(companion)
            except NotKnown as error:  # it may be this bucket's block
                undecided = undecided or error
    with ctx.checking("R4", bucket.urn, bucket.label):
        if not blocks and undecided is not None:
            raise undecided
        if not blocks:
            ctx.violation(
                "R4",
                f"{label} has no {PUBLIC_ACCESS_BLOCK.rpartition(':')[2]}",
                ALLOWED,
                f"add an aws.s3.BucketPublicAccessBlock for it with {', '.join(BLOCK_FLAGS)} all true",
                bucket.urn,
                field="",
            )
    for block in blocks:
        with ctx.checking("R4", block.urn, block.label):
            off = [flag for flag in BLOCK_FLAGS if not as_bool(block.props.get(flag, MISSING), flag, False)]
            if off:
                ctx.violation(
                    "R4",
                    f"{block.label} leaves {', '.join(off)} off for {label}",
                    ALLOWED,
                    f"set {', '.join(off)} true",
                    block.urn,
                    field=off[0],
                )
    with ctx.checking("R4", bucket.urn, label):
        undecided = None
        encrypted = False
        for key in INLINE_ENCRYPTION:
            try:
                encrypted = encrypted or _encrypts(bucket.props.get(key), key)
            except NotKnown as error:
                undecided = undecided or error
        for companion in resources:
            if companion.type not in ENCRYPTION:
                continue
            try:
                if _belongs(companion, bucket, name):
                    encrypted = encrypted or _encrypts(companion.props.get("rules"), "rules")
            except NotKnown as error:
                error.subject = error.subject or companion.label
                undecided = undecided or error
        if not encrypted and undecided is not None:
            raise undecided
        if not encrypted:
            ctx.violation(
                "R4",
                f"{label} has no default server-side encryption",
                ALLOWED,
                "add an aws.s3.BucketServerSideEncryptionConfiguration for it (sseAlgorithm aws:kms or AES256)",
                bucket.urn,
                field="serverSideEncryptionConfiguration",
            )


def check(ctx: Context) -> None:
    if ephemeral(ctx, None)[0]:
        return
    for resource in ctx.resources:
        if not isinstance(resource.props, dict):
            continue
        if resource.type == GCS_BUCKET:
            _gcs(ctx, resource)
        elif resource.type in S3_BUCKETS:
            _s3(ctx, resource, ctx.resources)
    for key in static_cloud_keys(_config()):
        ctx.violation(
            "R4",
            f"the stack config entry {key.key} {key.what}",
            "the rule reaches backup storage through workload identity or IRSA: no static cloud keys in stack config",
            f"remove {key.key} from the stack config: let the stack create a key scoped to the bucket "
            "(its storage component, as gke/eks do), or name a credentials Secret you created",
            field=f"{CONFIG_PREFIX}{key.key}",
        )


POLICY = stack_policy(SPEC, check)
