"""EKS: a ``pulumi_eks`` cluster with two managed node groups, the database pool and the monitoring pool.

Node groups: ``aws.eks.NodeGroup``, not ``pulumi_eks.ManagedNodeGroup``. Both create the same EKS managed
node group, but ``ManagedNodeGroup`` is a remote (multi-language) component: the policy pack and the tests
see only its inputs, never the ``aws:eks/nodeGroup:NodeGroup`` it creates. Our policies check that the
database pool is labeled and tainted (K4) and that its instance type has the allocatable we sized for
(K1, K5); they can only do that on a resource they can see. ``aws.eks.NodeGroup`` takes labels, taints,
scaling and update settings directly, so nothing of ``ManagedNodeGroup``'s convenience is lost. The
cluster itself is ``pulumi_eks.Cluster``: VPC CNI, OIDC provider (IRSA) and the kubeconfig, as EKS users
expect.

* Access: authentication mode ``API``. EKS creates the access entry of a managed node group's role
  itself, so no ``aws-auth`` ConfigMap is written (and none can be overwritten by a later update).
* Node IAM role: only the managed policies AmazonEKSWorkerNodePolicy, AmazonEKS_CNI_Policy and
  AmazonEC2ContainerRegistryReadOnly.
* Zones (K7): before anything is created, the availability zones the database node group spreads over (the
  created subnets' zones, or each of ``eksSubnetIds`` as EC2 reports it) must keep a majority of the members
  through a zone's loss: three zones; fewer stop a production stack unless ``acceptZoneLoss`` accepts it.
* VPC: ``eksVpcId`` + ``eksSubnetIds`` (private subnets in two or more zones), or a VPC created here with
  plain ``aws.ec2`` resources (``pulumi_awsx`` is not a dependency): one public and one private subnet in
  each of up to three availability zones, an internet gateway, and one NAT gateway for the private
  subnets (one, not one per zone: cheaper, at the price of egress depending on one zone). Nodes run in
  the private subnets.
* Endpoint (hardening, issue 11): private, plus a public endpoint only for ``eksPublicAccessCidrs``.
  Without them ``pulumi up`` must run from inside the VPC (or over VPN/peering) to deploy into the
  cluster; list the address it runs from.
* Secrets are envelope-encrypted with KMS (``eksSecretsKmsKeyArn``, or a key created here with yearly
  rotation), and every control-plane log type goes to CloudWatch (api, audit, authenticator,
  controllerManager, scheduler: the five EKS offers). The VPC CNI runs its network policy agent
  (``enableNetworkPolicy``), so the database layer's NetworkPolicies (R6) are enforced.
* Updates: ``max_unavailable=1`` on both groups, so a node group upgrade never drains two database
  nodes at once.
* Volumes: since EKS 1.23 EBS volumes are provisioned only by the EBS CSI driver, so the
  ``aws-ebs-csi-driver`` add-on is installed with its own IRSA role (AmazonEBSCSIDriverPolicy, trusted
  for its controller's service account only), and a ``gp3`` StorageClass (encrypted,
  WaitForFirstConsumer so a volume is created in its pod's zone, expandable) is created for the
  database (``storageClass: gp3``).

Credentials come from the environment (``AWS_PROFILE``, ``AWS_ACCESS_KEY_ID``…); the region is
``awsRegion``, through an explicit AWS provider shared by every resource here and by ``eks.Cluster``.
The kubeconfig (:func:`kubeconfig`, a secret output of the stack) is the one ``aws eks update-kubeconfig``
writes: the cluster's endpoint and CA, and the ``aws eks get-token`` exec credential plugin, so the AWS CLI
must be installed where the stack or ``kubectl`` runs, with the same credentials.
"""

from __future__ import annotations

import json
from typing import Any

import pulumi

from percona_mysql_k8s._extras import missing_extra
from percona_mysql_k8s._tokens import options as renamed
from percona_mysql_k8s._tokens import token

try:
    import pulumi_aws as aws
    import pulumi_eks as eks
    import pulumi_kubernetes as k8s
except ModuleNotFoundError as missing:  # a provider SDK of an extra (pyproject.toml): say which one installs it
    raise missing_extra(missing, __name__) from None

from percona_mysql_k8s.core.errors import InputError
from percona_mysql_k8s.core.pools import PoolShape
from percona_mysql_k8s.core.zones import even_layout
from percona_mysql_k8s.plan.clusters.shape import CLOUD_TAINT_EFFECTS, ClusterArgs
from percona_mysql_k8s.plan.database.zones import check_zones

from .kubeconfig import exec_plugin_kubeconfig
from .target import AwsFacts, ClusterTarget

NODE_POLICIES = ("AmazonEKSWorkerNodePolicy", "AmazonEKS_CNI_Policy", "AmazonEC2ContainerRegistryReadOnly")
EBS_CSI_POLICY = "service-role/AmazonEBSCSIDriverPolicy"
EBS_CSI_SERVICE_ACCOUNT = "system:serviceaccount:kube-system:ebs-csi-controller-sa"
STORAGE_CLASS = "gp3"
CONTROL_PLANE_LOGS = ("api", "audit", "authenticator", "controllerManager", "scheduler")


def ebs_csi_trust_policy(oidc_provider_arn: str, oidc_provider_url: str) -> str:
    """IRSA: only the EBS CSI controller's service account may assume the role."""
    issuer = oidc_provider_url.removeprefix("https://")
    return json.dumps(
        {
            "Version": "2012-10-17",
            "Statement": [
                {
                    "Effect": "Allow",
                    "Principal": {"Federated": oidc_provider_arn},
                    "Action": "sts:AssumeRoleWithWebIdentity",
                    "Condition": {
                        "StringEquals": {f"{issuer}:sub": EBS_CSI_SERVICE_ACCOUNT, f"{issuer}:aud": "sts.amazonaws.com"}
                    },
                }
            ],
        }
    )


AMI_TYPE = "AL2023_x86_64_STANDARD"  # every EC2 type of the machine catalog is x86_64
VPC_CIDR = "10.0.0.0/16"
MAX_ZONES = 3
# The tag by which load balancers find their subnets: internet-facing ones the public, internal ones the private.
SUBNET_ROLE_TAGS = {"public": "kubernetes.io/role/elb", "private": "kubernetes.io/role/internal-elb"}


def private_subnet_cidr(index: int) -> str:
    """Large private subnets (/19, 8k addresses): the VPC CNI gives every pod a VPC address."""
    return f"10.0.{index * 32}.0/19"


def public_subnet_cidr(index: int) -> str:
    return f"10.0.{96 + index * 4}.0/22"


class EksClusterArgs(ClusterArgs):
    """The eks cluster's part of the plan (plan.clusters.shape.ClusterArgs: one shape for every target)."""

    TARGET = "eks"


def kubeconfig(name: str, region: str, endpoint: str, ca_data: str) -> str:
    """A kubeconfig authenticating with ``aws eks get-token`` (the AWS CLI's exec credential plugin), as
    ``aws eks update-kubeconfig`` writes it (docs.aws.amazon.com/eks/latest/userguide/create-kubeconfig.html)."""
    return exec_plugin_kubeconfig(
        name,
        endpoint,
        ca_data,
        command="aws",
        args=("--region", region, "eks", "get-token", "--cluster-name", name, "--output", "json"),
        install_hint="Install the AWS CLI (version 2): https://docs.aws.amazon.com/cli/latest/userguide/getting-started-install.html",
        provide_cluster_info=False,
    )


def _name_of(cluster: Any) -> Any:
    """The name of the ``aws.eks.Cluster`` inside ``eks.Cluster``.

    It arrives as a resource reference, rehydrated as an ``aws.eks.Cluster`` (so node groups depend on it
    and are deleted before it). When the installed pulumi_aws is older than the one pulumi_eks was built
    with, the SDK degrades the reference to the resource's ID, which for an EKS cluster is its name.
    """
    return cluster if isinstance(cluster, str) else cluster.name


class EksCluster(pulumi.ComponentResource):
    """An EKS cluster with the database and monitoring node groups; ``.target`` is what the database layer uses."""

    def __init__(self, name: str, args: EksClusterArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__(token("EksCluster"), name, None, renamed("EksCluster", opts))
        settings = args.eks
        self.aws_provider = aws.Provider(f"{name}-aws", region=settings.region, opts=pulumi.ResourceOptions(parent=self))
        child = pulumi.ResourceOptions(parent=self, provider=self.aws_provider)

        network_ready: list[pulumi.Resource] = []
        if settings.vpc_id:
            self._check_zones(args, self._subnet_zones(settings.subnet_ids), "eksSubnetIds")
            vpc_id: pulumi.Input[str] = settings.vpc_id
            public_subnet_ids: list[pulumi.Input[str]] | None = None
            private_subnet_ids: list[pulumi.Input[str]] = list(settings.subnet_ids)
        else:
            vpc_id, public_subnet_ids, private_subnet_ids, network_ready = self._vpc(name, args, child)

        partition = self._node_role(name, args, child)
        key_arn = self._secrets_key(name, args)
        if not settings.public_access_cidrs:
            pulumi.log.info(
                f"EKS {args.cluster_name}: the API endpoint is private; pulumi up must run inside the VPC "
                "(set eksPublicAccessCidrs to the address it runs from otherwise)",
                self,
            )

        self.cluster = eks.Cluster(
            name,
            name=args.cluster_name,
            version=settings.version,
            vpc_id=vpc_id,
            public_subnet_ids=public_subnet_ids,
            private_subnet_ids=private_subnet_ids,
            skip_default_node_group=True,
            skip_default_security_groups=True,  # managed node groups use the EKS cluster security group
            authentication_mode=eks.AuthenticationMode.API,
            create_oidc_provider=True,
            endpoint_private_access=True,
            endpoint_public_access=bool(settings.public_access_cidrs) and not settings.private_endpoint,
            public_access_cidrs=list(settings.public_access_cidrs) or None,
            encryption_config_key_arn=key_arn,
            enabled_cluster_log_types=list(CONTROL_PLANE_LOGS),
            # The VPC CNI's network policy agent: without it NetworkPolicies (R6) are accepted and ignored.
            vpc_cni_options=eks.VpcCniOptionsArgs(enable_network_policy=True),
            deletion_protection=args.deletion_protection,
            opts=pulumi.ResourceOptions(parent=self, providers={"aws": self.aws_provider}, depends_on=network_ready),
        )
        cluster_name = self.cluster.eks_cluster.apply(_name_of)

        node_ready = [*self.node_policy_attachments, *network_ready]
        self.database_node_group = self._node_group(
            f"{name}-database", args, args.database_pool, cluster_name, private_subnet_ids, node_ready, child
        )
        self.monitoring_node_group = self._node_group(
            f"{name}-monitoring", args, args.monitoring_pool, cluster_name, private_subnet_ids, node_ready, child
        )

        self.kubeconfig = pulumi.Output.secret(
            pulumi.Output.all(cluster_name, self.cluster.eks_cluster.apply(self._endpoint_and_ca)).apply(
                lambda parts: kubeconfig(parts[0], settings.region, *parts[1])
            )
        )
        self.provider = k8s.Provider(f"{name}-k8s", kubeconfig=self.kubeconfig, opts=pulumi.ResourceOptions(parent=self))
        self.storage_ready = self._ebs_csi(name, cluster_name, partition, child)
        self.target = ClusterTarget(
            name=args.cluster_name,
            kind="eks",
            provider=self.provider,
            database_pool=args.database_pool,
            monitoring_pool=args.monitoring_pool,
            ready=(self.database_node_group, self.monitoring_node_group, *self.storage_ready),
            kubeconfig=self.kubeconfig,
            aws=AwsFacts(region=settings.region, partition=partition, provider=self.aws_provider),
        )
        self.register_outputs({"kubeconfig": self.kubeconfig, "clusterName": cluster_name})

    def _node_role(self, name: str, args: EksClusterArgs, child: pulumi.ResourceOptions) -> str:
        """The nodes' IAM role with the managed policies only (NODE_POLICIES); returns the AWS partition."""
        self.node_role = aws.iam.Role(
            f"{name}-node",
            assume_role_policy=json.dumps(
                {
                    "Version": "2012-10-17",
                    "Statement": [{"Effect": "Allow", "Principal": {"Service": "ec2.amazonaws.com"}, "Action": "sts:AssumeRole"}],
                }
            ),
            description=f"Nodes of the EKS cluster {args.cluster_name} (managed policies only)",
            opts=child,
        )
        partition = aws.get_partition(opts=pulumi.InvokeOptions(provider=self.aws_provider)).partition
        self.node_policy_attachments = [
            aws.iam.RolePolicyAttachment(
                f"{name}-node-{policy}",
                role=self.node_role.name,
                policy_arn=f"arn:{partition}:iam::aws:policy/{policy}",
                opts=child,
            )
            for policy in NODE_POLICIES
        ]
        return partition

    def _secrets_key(self, name: str, args: EksClusterArgs) -> pulumi.Input[str]:
        """The KMS key that envelope-encrypts Secrets: eksSecretsKmsKeyArn, or one created here (protected)."""
        settings = args.eks
        self.secrets_key: aws.kms.Key | None = None
        key_arn: pulumi.Input[str] = settings.secrets_kms_key_arn
        if not key_arn:
            self.secrets_key = aws.kms.Key(
                f"{name}-secrets",
                description=f"Envelope encryption of the Secrets of EKS cluster {args.cluster_name}",
                enable_key_rotation=True,
                deletion_window_in_days=30,
                opts=pulumi.ResourceOptions(parent=self, provider=self.aws_provider, protect=args.deletion_protection),
            )
            key_arn = self.secrets_key.arn
        return key_arn

    def _endpoint_and_ca(self, cluster: Any) -> pulumi.Output[list[str]]:
        """The API endpoint and CA of the ``aws.eks.Cluster`` inside ``eks.Cluster``; when the reference was
        degraded to the cluster's name (:func:`_name_of`), read once the cluster exists (``aws.eks.getCluster``)."""
        if isinstance(cluster, str):
            found = aws.eks.get_cluster_output(name=cluster, opts=pulumi.InvokeOptions(provider=self.aws_provider))
            return pulumi.Output.all(found.endpoint, found.certificate_authorities[0].data)
        return pulumi.Output.all(cluster.endpoint, cluster.certificate_authority.data)

    def _ebs_csi(
        self, name: str, cluster_name: pulumi.Output[str], partition: str, child: pulumi.ResourceOptions
    ) -> list[pulumi.Resource]:
        """The EBS CSI driver add-on with its IRSA role, and the gp3 StorageClass the database uses."""
        self.ebs_csi_role = aws.iam.Role(
            f"{name}-ebs-csi",
            assume_role_policy=pulumi.Output.all(self.cluster.oidc_provider_arn, self.cluster.oidc_provider_url).apply(
                lambda arn_and_url: ebs_csi_trust_policy(*arn_and_url)
            ),
            description="EBS CSI driver controller (IRSA)",
            opts=child,
        )
        attachment = aws.iam.RolePolicyAttachment(
            f"{name}-ebs-csi",
            role=self.ebs_csi_role.name,
            policy_arn=f"arn:{partition}:iam::aws:policy/{EBS_CSI_POLICY}",
            opts=child,
        )
        self.ebs_csi_addon = aws.eks.Addon(
            f"{name}-ebs-csi",
            cluster_name=cluster_name,
            addon_name="aws-ebs-csi-driver",
            service_account_role_arn=self.ebs_csi_role.arn,
            resolve_conflicts_on_create="OVERWRITE",
            resolve_conflicts_on_update="OVERWRITE",
            # the controller runs on nodes: wait for them, or the add-on stays degraded
            opts=pulumi.ResourceOptions.merge(
                child, pulumi.ResourceOptions(depends_on=[attachment, self.database_node_group, self.monitoring_node_group])
            ),
        )
        self.storage_class = k8s.storage.v1.StorageClass(
            f"{name}-{STORAGE_CLASS}",
            metadata={"name": STORAGE_CLASS},
            provisioner="ebs.csi.aws.com",
            parameters={"type": "gp3", "encrypted": "true"},
            volume_binding_mode="WaitForFirstConsumer",
            allow_volume_expansion=True,
            opts=pulumi.ResourceOptions(parent=self, provider=self.provider, depends_on=[self.ebs_csi_addon]),
        )
        return [self.ebs_csi_addon, self.storage_class]

    def _node_group(
        self,
        resource_name: str,
        args: EksClusterArgs,
        pool: PoolShape,
        cluster_name: pulumi.Output[str],
        subnet_ids: list,
        depends_on: list,
        child: pulumi.ResourceOptions,
    ) -> aws.eks.NodeGroup:
        return aws.eks.NodeGroup(
            resource_name,
            cluster_name=cluster_name,
            # A prefix, not a name: an instance type change replaces the group, and the new one (another
            # name) is created before the old one is deleted.
            node_group_name_prefix=f"{pool.name}-",
            node_role_arn=self.node_role.arn,
            subnet_ids=subnet_ids,
            instance_types=[pool.machine_type],
            ami_type=AMI_TYPE,
            capacity_type="ON_DEMAND",
            disk_size=args.disk_size_gb,
            version=args.eks.version,
            labels=dict(pool.labels),
            taints=[
                aws.eks.NodeGroupTaintArgs(key=t.key, value=t.value, effect=CLOUD_TAINT_EFFECTS[t.effect]) for t in pool.taints
            ],
            scaling_config=aws.eks.NodeGroupScalingConfigArgs(
                desired_size=pool.node_count, min_size=pool.node_count, max_size=pool.node_count
            ),
            update_config=aws.eks.NodeGroupUpdateConfigArgs(max_unavailable=1),
            tags={"Name": pool.name},
            opts=pulumi.ResourceOptions.merge(child, pulumi.ResourceOptions(depends_on=depends_on)),
        )

    def _subnet_zones(self, subnet_ids: tuple[str, ...]) -> list[str]:
        """The availability zone of each of eksSubnetIds, as EC2 reports it (the node group's nodes go there)."""
        options = pulumi.InvokeOptions(provider=self.aws_provider)
        return [aws.ec2.get_subnet(id=subnet, opts=options).availability_zone for subnet in subnet_ids]

    def _check_zones(self, args: EksClusterArgs, zones: list[str], key: str) -> None:
        """K7 before anything is created: the database node group spreads its nodes over these zones (its Auto
        Scaling group balances them), and the members must keep a majority through the loss of one; a production
        stack that cannot is refused, naming acceptZoneLoss (plan.database.zones)."""
        layout = even_layout(args.database_pool.node_count, len(set(zones)))
        try:
            notes = check_zones(args.members, layout, key, ephemeral=not args.deletion_protection, accepted=args.accept_zone_loss)
        except InputError as error:
            raise pulumi.RunError(f"stack config: {error}") from None
        for note in notes:
            pulumi.log.warn(note, self)

    def _vpc(self, name: str, args: EksClusterArgs, child: pulumi.ResourceOptions):
        """A VPC with a public and a private subnet per zone (up to three zones) and one NAT gateway."""
        cluster_name = args.cluster_name
        zones = aws.get_availability_zones(
            state="available",
            filters=[aws.GetAvailabilityZonesFilterArgs(name="opt-in-status", values=["opt-in-not-required"])],
            opts=pulumi.InvokeOptions(provider=self.aws_provider),
        ).names[:MAX_ZONES]
        if len(zones) < 2:
            raise pulumi.RunError(f"EKS needs two availability zones; the region offers {', '.join(zones) or 'none'}")
        self._check_zones(args, list(zones), "awsRegion")
        tags = {"Name": cluster_name}
        self.vpc = aws.ec2.Vpc(
            f"{name}-vpc", cidr_block=VPC_CIDR, enable_dns_hostnames=True, enable_dns_support=True, tags=tags, opts=child
        )
        gateway = aws.ec2.InternetGateway(f"{name}-igw", vpc_id=self.vpc.id, tags=tags, opts=child)
        public, ready = self._subnets(
            name, cluster_name, zones, "public", aws.ec2.RouteTableRouteArgs(cidr_block="0.0.0.0/0", gateway_id=gateway.id), child
        )
        address = aws.ec2.Eip(f"{name}-nat", domain="vpc", tags=tags, opts=child)
        nat = aws.ec2.NatGateway(
            f"{name}-nat",
            allocation_id=address.id,
            subnet_id=public[0].id,
            tags=tags,
            opts=pulumi.ResourceOptions.merge(child, pulumi.ResourceOptions(depends_on=[gateway])),
        )
        private, private_ready = self._subnets(
            name,
            cluster_name,
            zones,
            "private",
            aws.ec2.RouteTableRouteArgs(cidr_block="0.0.0.0/0", nat_gateway_id=nat.id),
            child,
        )
        return self.vpc.id, [s.id for s in public], [s.id for s in private], ready + private_ready

    def _subnets(
        self,
        name: str,
        cluster_name: str,
        zones: list[str],
        tier: str,
        route: aws.ec2.RouteTableRouteArgs,
        child: pulumi.ResourceOptions,
    ) -> tuple[list[aws.ec2.Subnet], list[pulumi.Resource]]:
        """The ``tier`` ("public" or "private") subnet of every zone, associated with one route table whose
        default route is ``route``; returns the subnets and the associations."""
        public = tier == "public"
        table = aws.ec2.RouteTable(
            f"{name}-{tier}", vpc_id=self.vpc.id, routes=[route], tags={"Name": f"{cluster_name}-{tier}"}, opts=child
        )
        subnets, associations = [], []
        for index, zone in enumerate(zones):
            subnet = aws.ec2.Subnet(
                f"{name}-{tier}-{zone}",
                vpc_id=self.vpc.id,
                availability_zone=zone,
                cidr_block=public_subnet_cidr(index) if public else private_subnet_cidr(index),
                map_public_ip_on_launch=True if public else None,
                tags={"Name": f"{cluster_name}-{tier}-{zone}", SUBNET_ROLE_TAGS[tier]: "1"},
                opts=child,
            )
            associations.append(
                aws.ec2.RouteTableAssociation(f"{name}-{tier}-{zone}", subnet_id=subnet.id, route_table_id=table.id, opts=child)
            )
            subnets.append(subnet)
        return subnets, associations
