"""EKS under mocks: pulumi_eks.Cluster's inputs, the node role, the VPC, and the two aws.eks.NodeGroups."""

from __future__ import annotations

import json

import pytest
from conftest import EKS_ENDPOINT
from percona_mysql_k8s.clusters import cluster_from_config
from percona_mysql_k8s.clusters.eks import NODE_POLICIES
from percona_mysql_k8s.core.allocatable import node_budget
from percona_mysql_k8s.core.pools import DATABASE_TAINT, POOL_LABEL
from stack_configs import EKS, FAKE_CA, ZONES, with_

NODE_GROUP = "aws:eks/nodeGroup:NodeGroup"
EKS_CLUSTER = "eks:index:Cluster"


def deploy(mocked, values=EKS):
    return mocked.run(
        lambda: cluster_from_config(values),
        lambda target: {"kubeconfig": target.kubeconfig, "secret": target.kubeconfig.is_secret()},
    )


def test_resources_with_a_created_vpc(mocked):
    deploy(mocked)
    counts: dict[str, int] = {}
    for r in mocked.resources():
        counts[r.type] = counts.get(r.type, 0) + 1
    assert counts[EKS_CLUSTER] == 1
    assert counts[NODE_GROUP] == 2  # visible to policies: not inside a remote component
    assert counts["aws:iam/role:Role"] == 2  # nodes, EBS CSI driver
    assert counts["aws:iam/rolePolicyAttachment:RolePolicyAttachment"] == 4
    assert counts["aws:eks/addon:Addon"] == 1
    assert counts["kubernetes:storage.k8s.io/v1:StorageClass"] == 1
    assert counts["aws:ec2/vpc:Vpc"] == 1
    assert counts["aws:ec2/subnet:Subnet"] == 6  # public + private in three of the four zones
    assert counts["aws:ec2/natGateway:NatGateway"] == 1
    assert counts["aws:ec2/internetGateway:InternetGateway"] == 1
    assert counts["pulumi:providers:aws"] == 1
    assert counts["pulumi:providers:kubernetes"] == 1
    assert "eks:index:ManagedNodeGroup" not in counts


def test_eks_cluster(mocked):
    deploy(mocked)
    cluster = mocked.one(EKS_CLUSTER).state
    assert cluster["name"] == "perf"
    assert cluster["version"] == "1.33"
    assert cluster["skipDefaultNodeGroup"] is True
    assert cluster["skipDefaultSecurityGroups"] is True
    assert cluster["authenticationMode"] == "API"
    assert cluster["createOidcProvider"] is True
    assert cluster["endpointPrivateAccess"] is True
    assert cluster["endpointPublicAccess"] is False  # private by default: no eksPublicAccessCidrs (issue 11)
    assert cluster["deletionProtection"] is True
    vpc = mocked.one("aws:ec2/vpc:Vpc")
    assert cluster["vpcId"] == f"{vpc.name}-id"
    assert len(cluster["privateSubnetIds"]) == 3 and len(cluster["publicSubnetIds"]) == 3


def test_region_goes_to_an_explicit_provider(mocked):
    deploy(mocked)
    assert mocked.one("pulumi:providers:aws").state["region"] == "eu-west-1"
    zones_call = next(c for c in mocked.mocks.calls if c.token == "aws:index/getAvailabilityZones:getAvailabilityZones")
    # the component's own AWS provider (the mocks' project and stack in the URN differ between SDK releases)
    assert "::percona-mysql:index:EksCluster$pulumi:providers:aws::perf-aws::" in zones_call.provider


def test_created_vpc_layout(mocked):
    deploy(mocked)
    subnets = {r.name: r.state for r in mocked.of_type("aws:ec2/subnet:Subnet")}
    private = [s for name, s in subnets.items() if "-private-" in name]
    public = [s for name, s in subnets.items() if "-public-" in name]
    assert sorted(s["availabilityZone"] for s in private) == ZONES[:3]
    assert sorted(s["availabilityZone"] for s in public) == ZONES[:3]
    assert all(s["tags"]["kubernetes.io/role/internal-elb"] == "1" for s in private)
    assert all(s["tags"]["kubernetes.io/role/elb"] == "1" and s["mapPublicIpOnLaunch"] for s in public)
    cidrs = sorted(s["cidrBlock"] for s in subnets.values())
    assert len(set(cidrs)) == 6
    tables = {r.name: r.state for r in mocked.of_type("aws:ec2/routeTable:RouteTable")}
    assert tables["perf-private"]["routes"][0]["natGatewayId"] == "perf-nat-id"
    assert tables["perf-public"]["routes"][0]["gatewayId"] == "perf-igw-id"


def _node_role(mocked):
    return next(r for r in mocked.of_type("aws:iam/role:Role") if not r.name.endswith("-ebs-csi"))


def test_node_role_has_the_managed_policies_only(mocked):
    deploy(mocked)
    node_role = _node_role(mocked)
    role = node_role.state
    policy = json.loads(role["assumeRolePolicy"])
    assert policy["Statement"] == [{"Effect": "Allow", "Principal": {"Service": "ec2.amazonaws.com"}, "Action": "sts:AssumeRole"}]
    attached = sorted(
        r.state["policyArn"]
        for r in mocked.of_type("aws:iam/rolePolicyAttachment:RolePolicyAttachment")
        if not r.name.endswith("-ebs-csi")
    )
    assert attached == sorted(f"arn:aws:iam::aws:policy/{name}" for name in NODE_POLICIES)
    assert set(NODE_POLICIES) == {"AmazonEKSWorkerNodePolicy", "AmazonEKS_CNI_Policy", "AmazonEC2ContainerRegistryReadOnly"}
    assert "inlinePolicies" not in role and "managedPolicyArns" not in role


def test_database_node_group(mocked):
    deploy(mocked)
    group = mocked.one(NODE_GROUP, "perf-database").state
    assert group["clusterName"] == "perf"  # from the aws.eks.Cluster inside eks.Cluster
    assert group["nodeGroupNamePrefix"] == "perf-database-"
    assert group["nodeRoleArn"] == "arn:aws:iam::123456789012:role/perf-node"
    assert group["instanceTypes"] == ["m6i.4xlarge"]
    assert group["labels"] == {POOL_LABEL: "database"}
    assert group["taints"] == [{"key": POOL_LABEL, "value": "database", "effect": "NO_SCHEDULE"}]
    assert group["scalingConfig"] == {"desiredSize": 3, "minSize": 3, "maxSize": 3}
    assert group["updateConfig"] == {"maxUnavailable": 1}  # never two database nodes down at once
    assert group["diskSize"] == 100
    assert group["amiType"] == "AL2023_x86_64_STANDARD"
    assert group["capacityType"] == "ON_DEMAND"
    assert group["version"] == "1.33"
    private = sorted(f"{r.name}-id" for r in mocked.of_type("aws:ec2/subnet:Subnet") if "-private-" in r.name)
    assert sorted(group["subnetIds"]) == private  # nodes in the private subnets, spread over the zones


def test_monitoring_node_group(mocked):
    deploy(mocked, with_(EKS, monitoringNodeCount=2))
    group = mocked.one(NODE_GROUP, "perf-monitoring").state
    assert group["instanceTypes"] == ["m6i.2xlarge"]
    assert group["labels"] == {POOL_LABEL: "monitoring"}
    assert group["taints"] == []
    assert group["scalingConfig"] == {"desiredSize": 2, "minSize": 2, "maxSize": 2}


def test_existing_vpc_and_private_endpoint(mocked):
    deploy(
        mocked,
        with_(
            EKS,
            eksVpcId="vpc-0abc",
            eksSubnetIds=["subnet-0a", "subnet-0b"],
            eksPrivateEndpoint=True,
            ephemeral=True,
            databaseNodeCount=5,
        ),
    )
    assert not mocked.of_type("aws:ec2/vpc:Vpc") and not mocked.of_type("aws:ec2/subnet:Subnet")
    assert not any(c.token == "aws:index/getAvailabilityZones:getAvailabilityZones" for c in mocked.mocks.calls)
    cluster = mocked.one(EKS_CLUSTER).state
    assert cluster["vpcId"] == "vpc-0abc"
    assert cluster["privateSubnetIds"] == ["subnet-0a", "subnet-0b"]
    assert "publicSubnetIds" not in cluster
    assert cluster["endpointPublicAccess"] is False and cluster["endpointPrivateAccess"] is True
    assert cluster["deletionProtection"] is False
    group = mocked.one(NODE_GROUP, "perf-database").state
    assert group["subnetIds"] == ["subnet-0a", "subnet-0b"]
    assert group["scalingConfig"]["desiredSize"] == 5


def test_target(mocked):
    target, values = deploy(mocked)
    assert target.kind == "eks" and target.name == "perf"
    assert target.database_pool.node == node_budget("m6i.4xlarge", "eks")
    assert target.database_pool.taints == (DATABASE_TAINT,)
    assert target.database_pool.node_count == 3
    assert target.monitoring_pool.node == node_budget("m6i.2xlarge", "eks")
    assert len(target.ready) == 4  # both node groups, the EBS CSI add-on, the gp3 StorageClass
    assert values["secret"] is True
    _assert_aws_kubeconfig(values["kubeconfig"])


def _assert_aws_kubeconfig(text: str) -> None:
    # What `aws eks update-kubeconfig --region eu-west-1 --name perf` writes: the cluster's endpoint and CA, and
    # the AWS CLI as the exec credential plugin (docs.aws.amazon.com/eks/latest/userguide/create-kubeconfig.html)
    kubeconfig = json.loads(text)
    assert kubeconfig["clusters"] == [
        {"name": "perf", "cluster": {"server": EKS_ENDPOINT, "certificate-authority-data": FAKE_CA}}
    ]
    assert kubeconfig["current-context"] == "perf"
    assert kubeconfig["contexts"] == [{"name": "perf", "context": {"cluster": "perf", "user": "perf"}}]
    (user,) = kubeconfig["users"]
    assert user["name"] == "perf"
    plugin = user["user"]["exec"]
    assert plugin["apiVersion"] == "client.authentication.k8s.io/v1beta1"
    assert [plugin["command"], *plugin["args"]] == [
        "aws",
        "--region",
        "eu-west-1",
        "eks",
        "get-token",
        "--cluster-name",
        "perf",
        "--output",
        "json",
    ]


def test_kubeconfig_when_the_cluster_reference_is_degraded_to_its_name(mocked):
    # An older pulumi_aws than pulumi_eks was built with: eks.Cluster hands back the cluster's name; its endpoint
    # and CA are then read with aws.eks.getCluster once the cluster exists, through the cluster's AWS provider.
    mocked.mocks.degraded_eks_reference = True
    _target, values = deploy(mocked)
    assert values["secret"] is True
    _assert_aws_kubeconfig(values["kubeconfig"])
    (lookup,) = [call for call in mocked.mocks.calls if call.token == "aws:eks/getCluster:getCluster"]
    assert lookup.args == {"name": "perf"} and lookup.provider.endswith("::perf-aws::perf-aws-id")


def test_node_groups_wait_for_their_role_policies_network_and_cluster(mocked):
    deploy(mocked)
    attachments = {
        r.urn for r in mocked.of_type("aws:iam/rolePolicyAttachment:RolePolicyAttachment") if not r.name.endswith("-ebs-csi")
    }  # the node role's; the driver's comes after the nodes
    associations = {r.urn for r in mocked.of_type("aws:ec2/routeTableAssociation:RouteTableAssociation")}
    aws_cluster = mocked.one("aws:eks/cluster:Cluster").urn
    for group in mocked.of_type(NODE_GROUP):
        assert attachments <= group.dependencies  # nodes cannot join before the role has its policies
        assert associations <= group.dependencies  # nor pull images before the NAT route exists
        assert aws_cluster in group.dependencies  # and are deleted before the cluster


def test_cluster_name_from_every_form_of_the_reference():
    from percona_mysql_k8s.clusters.eks import _name_of

    assert _name_of("perf") == "perf"  # reference degraded to the ID (= the EKS cluster name)

    class Rehydrated:
        name = "perf"

    assert _name_of(Rehydrated()) == "perf"


def test_volumes_come_from_the_ebs_csi_driver_with_its_own_irsa_role(mocked):
    deploy(mocked)
    role = next(r for r in mocked.of_type("aws:iam/role:Role") if r.name.endswith("-ebs-csi"))
    statement = json.loads(role.state["assumeRolePolicy"])["Statement"][0]
    assert statement["Action"] == "sts:AssumeRoleWithWebIdentity"
    assert statement["Principal"]["Federated"].endswith("oidc.eks.eu-west-1.amazonaws.com/id/ABC")
    # only the driver's controller service account may assume it
    assert statement["Condition"]["StringEquals"] == {
        "oidc.eks.eu-west-1.amazonaws.com/id/ABC:sub": "system:serviceaccount:kube-system:ebs-csi-controller-sa",
        "oidc.eks.eu-west-1.amazonaws.com/id/ABC:aud": "sts.amazonaws.com",
    }
    attachment = next(
        r for r in mocked.of_type("aws:iam/rolePolicyAttachment:RolePolicyAttachment") if r.name.endswith("-ebs-csi")
    )
    assert attachment.state["policyArn"] == "arn:aws:iam::aws:policy/service-role/AmazonEBSCSIDriverPolicy"
    addon = mocked.one("aws:eks/addon:Addon")
    assert addon.state["addonName"] == "aws-ebs-csi-driver"
    assert {group.urn for group in mocked.of_type(NODE_GROUP)} <= addon.dependencies  # its controller runs on nodes
    storage_class = mocked.one("kubernetes:storage.k8s.io/v1:StorageClass")
    assert storage_class.state["metadata"]["name"] == "gp3"
    assert storage_class.state["provisioner"] == "ebs.csi.aws.com"
    assert storage_class.state["parameters"] == {"type": "gp3", "encrypted": "true"}
    assert storage_class.state["volumeBindingMode"] == "WaitForFirstConsumer"
    # the CRs set enableVolumeExpansion: the class must let a storageSize change grow the EBS volumes
    assert storage_class.state["allowVolumeExpansion"] is True
    assert addon.urn in storage_class.dependencies


# ---- hardening (issue 11) ---------------------------------------------------------------------------


def test_public_endpoint_only_for_the_configured_cidrs(mocked):
    deploy(mocked, with_(EKS, eksPublicAccessCidrs=["203.0.113.0/24", "198.51.100.7/32"]))
    cluster = mocked.one(EKS_CLUSTER).state
    assert cluster["endpointPublicAccess"] is True and cluster["endpointPrivateAccess"] is True
    assert cluster["publicAccessCidrs"] == ["203.0.113.0/24", "198.51.100.7/32"]


def test_no_public_cidrs_no_public_endpoint(mocked):
    deploy(mocked)
    cluster = mocked.one(EKS_CLUSTER).state
    assert cluster["endpointPublicAccess"] is False and "publicAccessCidrs" not in cluster


def test_secrets_envelope_encryption_with_a_key_of_the_stack(mocked):
    deploy(mocked)
    key = mocked.one("aws:kms/key:Key")
    assert key.state["enableKeyRotation"] is True
    assert key.options["protect"] is True  # losing the key loses every Secret of a production cluster
    assert mocked.one(EKS_CLUSTER).state["encryptionConfigKeyArn"] == key.state["arn"]


def test_secrets_encryption_with_a_given_key(mocked):
    arn = "arn:aws:kms:eu-west-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab"
    deploy(mocked, with_(EKS, eksSecretsKmsKeyArn=arn))
    assert not mocked.of_type("aws:kms/key:Key")
    assert mocked.one(EKS_CLUSTER).state["encryptionConfigKeyArn"] == arn


def test_every_control_plane_log_type_is_on(mocked):
    deploy(mocked)
    # the five log types EKS offers (aws eks update-cluster-config --logging)
    assert sorted(mocked.one(EKS_CLUSTER).state["enabledClusterLogTypes"]) == sorted(
        ["api", "audit", "authenticator", "controllerManager", "scheduler"]
    )


@pytest.mark.parametrize(
    ("changes", "key", "fragment"),
    [
        ({"eksPublicAccessCidrs": ["0.0.0.0/0"]}, "eksPublicAccessCidrs", "every address"),
        ({"eksPublicAccessCidrs": ["203.0.113.9/24"]}, "eksPublicAccessCidrs", "not an IPv4 CIDR"),
        ({"eksPublicAccessCidrs": [f"10.{i}.0.0/16" for i in range(41)]}, "eksPublicAccessCidrs", "at most 40"),
        ({"eksPublicAccessCidrs": ["203.0.113.0/24"], "eksPrivateEndpoint": True}, "eksPublicAccessCidrs", "eksPrivateEndpoint"),
        ({"eksSecretsKmsKeyArn": "alias/eks"}, "eksSecretsKmsKeyArn", "not a KMS key ARN"),
        ({"eksSecretsKmsKeyArn": "arn:aws:kms:us-east-1:123456789012:key/1234abcd"}, "eksSecretsKmsKeyArn", "eu-west-1"),
    ],
)
def test_bad_hardening_config_names_its_key(changes, key, fragment):
    from percona_mysql_k8s.core.errors import InputError
    from percona_mysql_k8s.plan.clusters import cluster_settings_from_config

    with pytest.raises(InputError) as error:
        cluster_settings_from_config(with_(EKS, **changes))
    assert error.value.key == key and fragment in str(error.value)


def test_vpc_cni_enforces_network_policies(mocked):
    deploy(mocked)
    assert mocked.one(EKS_CLUSTER).state["vpcCniOptions"]["enableNetworkPolicy"] is True


def test_target_carries_region_partition_and_provider(mocked):
    target, values = mocked.run(lambda: cluster_from_config(EKS), lambda target: {"provider": target.aws.provider.urn})
    facts = target.aws
    assert target.gcp is None
    assert facts.region == "eu-west-1"  # awsRegion
    assert facts.partition == "aws"  # aws.get_partition, as the mocks answer it
    # the cluster's explicit AWS provider (its region), the only one registered: storage beside the cluster uses it
    assert values["provider"] == mocked.one("pulumi:providers:aws").urn
