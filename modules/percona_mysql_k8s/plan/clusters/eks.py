"""The EKS target's plan: region and Kubernetes version, a VPC made by the stack or an existing one with its
subnets, and hardening (who reaches the public endpoint, the KMS key that envelope-encrypts Secrets)."""

from __future__ import annotations

import re
from dataclasses import replace

from percona_mysql_k8s.core.allocatable import NodeBudget
from percona_mysql_k8s.core.errors import InputError
from percona_mysql_k8s.core.zones import FEWEST_ZONES, even_layout

from .common import ipv4_cidrs, own_pools
from .keys import Values
from .shape import ClusterSettings, EksSettings

_AWS_REGION = re.compile(r"^[a-z]{2}(-[a-z]+)+-[0-9]+$")
_EKS_VERSION = re.compile(r"^1\.[0-9]{2}$")
_VPC_ID = re.compile(r"^vpc-[0-9a-f]+$")
_SUBNET_ID = re.compile(r"^subnet-[0-9a-f]+$")
# EKS versions both operators are tested on, from their release notes' platform lists
# (PXC operator 1.19: EKS 1.32-1.34; PS operator 1.2: EKS 1.33-1.36).
EKS_VERSIONS = tuple(f"1.{minor}" for minor in range(32, 37))


def check_bounds(v: Values) -> None:
    if v.text("eksVersion") not in EKS_VERSIONS:
        raise InputError(
            "eksVersion",
            f"{v.text('eksVersion')!r} is not an EKS version the Percona operators are tested on ({', '.join(EKS_VERSIONS)})",
        )


def cluster_settings(
    v: Values, common: dict, counts: tuple[int, int], machines: tuple[str, str], budgets: tuple[NodeBudget, NodeBudget]
) -> ClusterSettings:
    """The EKS cluster: one managed node group per pool, of ``counts`` (database, monitoring) nodes."""
    database, monitoring = own_pools(common["cluster_name"], machines, counts, budgets)
    eks = eks_settings(v)
    if eks.vpc_id and len(eks.subnet_ids) < FEWEST_ZONES:
        # fewer subnets than the zones a majority needs: at best one zone each (K7); more subnets are looked up by
        # the cluster component (clusters.eks), which knows their availability zones
        database = replace(database, zones=even_layout(counts[0], len(eks.subnet_ids)), zones_key="eksSubnetIds")
    notes: tuple[str, ...] = ()
    if not eks.public_access_cidrs:
        # the endpoint is then private: pulumi-eks creates the cluster, then cannot reach it from outside the VPC
        notes = (
            "eksPublicAccessCidrs is empty: the EKS API endpoint is private, reachable only from inside the VPC; "
            "pulumi up from a machine outside it creates the (billed) cluster and then cannot reach it to install "
            "the operator: list the networks that administer it (eksPublicAccessCidrs) or run from inside the VPC",
        )
    return ClusterSettings(**common, database_pool=database, monitoring_pool=monitoring, eks=eks, notes=notes)


# EKS service quota "Public endpoint access CIDR ranges per cluster": 40
# (docs.aws.amazon.com/eks/latest/userguide/service-quotas.html).
MAX_EKS_PUBLIC_ACCESS_CIDRS = 40
_KMS_KEY_ARN = re.compile(r"^arn:aws[-a-z]*:kms:([a-z0-9-]+):[0-9]{12}:key/[-0-9a-f]+$")


def hardening(v: Values, region: str, private_endpoint: bool) -> dict:
    """Who may reach the public API endpoint (no CIDRs = no public endpoint) and the KMS key that
    envelope-encrypts Secrets (empty = one created by the stack); EKS needs the key in the cluster's region."""
    cidrs = ipv4_cidrs(v, "eksPublicAccessCidrs", MAX_EKS_PUBLIC_ACCESS_CIDRS)
    if cidrs and private_endpoint:
        raise InputError(
            "eksPublicAccessCidrs", "eksPrivateEndpoint is true, so there is no public endpoint to open: clear one of the two"
        )
    arn = v.text("eksSecretsKmsKeyArn")
    if arn:
        match = _KMS_KEY_ARN.fullmatch(arn)
        if not match:
            raise InputError("eksSecretsKmsKeyArn", f"{arn!r} is not a KMS key ARN (arn:aws:kms:REGION:ACCOUNT:key/ID)")
        if match.group(1) != region:
            raise InputError("eksSecretsKmsKeyArn", f"the key is in {match.group(1)}, but EKS needs it in awsRegion {region}")
    return {"public_access_cidrs": cidrs, "secrets_kms_key_arn": arn}


def eks_settings(v: Values) -> EksSettings:
    region = v.matching(
        "awsRegion",
        _AWS_REGION,
        "an AWS region (e.g. eu-west-1, us-east-2)",
        missing="the eks target needs the AWS region of the cluster (e.g. eu-west-1)",
    )
    version = v.matching("eksVersion", _EKS_VERSION, "an EKS Kubernetes version (e.g. 1.33)")
    vpc_id, subnet_ids = v.text("eksVpcId"), v.strings("eksSubnetIds")
    if vpc_id and not _VPC_ID.fullmatch(vpc_id):
        raise InputError("eksVpcId", f"{vpc_id!r} is not a VPC ID (vpc-…)")
    if subnet_ids and not vpc_id:
        raise InputError(
            "eksVpcId", "eksSubnetIds are subnets of an existing VPC: set eksVpcId too (or neither, to create a VPC)"
        )
    if vpc_id:
        bad = [subnet for subnet in subnet_ids if not _SUBNET_ID.fullmatch(subnet)]
        if bad:
            raise InputError("eksSubnetIds", f"{', '.join(map(repr, bad))} not subnet IDs (subnet-…)")
        if len(subnet_ids) < 2:
            raise InputError("eksSubnetIds", "EKS needs subnets in at least two availability zones of eksVpcId: list two or more")
    private_endpoint = v.flag("eksPrivateEndpoint")
    return EksSettings(region, version, vpc_id, subnet_ids, private_endpoint, **hardening(v, region, private_endpoint))
