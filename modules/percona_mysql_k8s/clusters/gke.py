"""GKE: a regional cluster with a database pool and a monitoring pool.

* The cluster: default pool removed, release channel, VPC-native networking (alias IPs), workload
  identity, shielded nodes. Deletion protection is on unless the stack is
  ephemeral (S4): turn ``ephemeral`` on, or the protection off in the console, before ``pulumi destroy``.
* Hardening (issue 11): private nodes by default, with a Cloud Router + Cloud NAT so they still pull
  images (``gkeCloudNat``); control-plane access limited to ``gkeMasterAuthorizedNetworks``; Dataplane V2
  (``ADVANCED_DATAPATH``), which enforces the database layer's NetworkPolicies (R6); a dedicated node
  service account holding only ``roles/container.defaultNodeServiceAccount``, the least-privilege role
  Google documents for nodes (docs.cloud.google.com/kubernetes-engine/security/configure-node-service-accounts;
  CIS GKE 5.2.1), instead of the Compute Engine default account; optionally application-layer Secrets
  encryption with ``gkeSecretsKmsKey``. The key must let the GKE service agent
  (``service-<project-number>@container-engine-robot.iam.gserviceaccount.com``) encrypt and decrypt.
* The database pool: the configured machine type, labeled and tainted as the database pool (K4), SSD
  boot disks, auto-repair and auto-upgrade, surge upgrades with ``max_surge=1, max_unavailable=0`` so a
  node is drained only once its replacement is up; GKE upgrades a regional pool one zone at a time, so two
  database nodes are never down together.
* The monitoring pool: its own machine type and label, no taint, for the PMM server and sysbench (B1).

``node_count`` of a regional node pool is *per zone* of its ``node_locations``: the settings spread the
requested nodes over the zones (:func:`~percona_mysql_k8s.plan.clusters.gke.spread_over_zones`), and the pool shape
handed to the database layer carries the resulting total.

Changing a pool's machine type, disk or taints replaces the pool (terraform-google-kubernetes-engine
#1636). Pool names end in a hash of those fields, so the replacement gets a new name and Pulumi creates it
before deleting the old pool (create-before-delete) instead of taking the whole pool away first.
"""

from __future__ import annotations

import hashlib
import json

import pulumi

from percona_mysql_k8s._extras import missing_extra
from percona_mysql_k8s._tokens import options as renamed
from percona_mysql_k8s._tokens import token

try:
    import pulumi_gcp as gcp
    import pulumi_kubernetes as k8s
except ModuleNotFoundError as missing:  # a provider SDK of an extra (pyproject.toml): say which one installs it
    raise missing_extra(missing, __name__) from None

from percona_mysql_k8s.core.errors import InputError
from percona_mysql_k8s.core.pools import PoolShape
from percona_mysql_k8s.plan.clusters.gke import PLACEHOLDER_PROJECT
from percona_mysql_k8s.plan.clusters.shape import CLOUD_TAINT_EFFECTS, ClusterArgs, ZonePlacement

from .kubeconfig import exec_plugin_kubeconfig
from .target import ClusterTarget, GcpFacts, real_engine

DISK_TYPE = "pd-ssd"
# With a dedicated service account, Google recommends the cloud-platform scope and limiting access by IAM roles.
OAUTH_SCOPES = ("https://www.googleapis.com/auth/cloud-platform",)
NODE_ROLES = ("roles/container.defaultNodeServiceAccount",)  # images come from Docker Hub: no registry role
DATAPATH_PROVIDER = "ADVANCED_DATAPATH"  # Dataplane V2: NetworkPolicy enforced by the dataplane


def node_service_account_id(cluster_name: str) -> str:
    """``<cluster>-nodes``: an IAM account ID is 6-30 characters; cluster names are at most 24."""
    return f"{cluster_name}-nodes"


def node_service_account_email(cluster_name: str, project: str) -> str:
    """A user-managed service account's address: ``<id>@<project>.iam.gserviceaccount.com``."""
    return f"{node_service_account_id(cluster_name)}@{project}.iam.gserviceaccount.com"


class GkeClusterArgs(ClusterArgs):
    """The gke cluster's part of the plan (plan.clusters.shape.ClusterArgs: one shape for every target)."""

    TARGET = "gke"


def pool_name(pool: PoolShape, disk_size_gb: int) -> str:
    """``<pool>-<hash>``: the hash covers every field whose change recreates a GKE node pool."""
    identity = json.dumps(
        [pool.machine_type, DISK_TYPE, disk_size_gb, sorted(pool.labels.items()), [taint.as_k8s() for taint in pool.taints]]
    )
    return f"{pool.name}-{hashlib.sha256(identity.encode()).hexdigest()[:4]}"


def kubeconfig(name: str, endpoint: str, ca_certificate: str) -> str:
    """A kubeconfig that authenticates with gke-gcloud-auth-plugin (the gcloud component of that name)."""
    return exec_plugin_kubeconfig(
        name,
        f"https://{endpoint}",
        ca_certificate,
        command="gke-gcloud-auth-plugin",
        args=(),
        install_hint="Install gke-gcloud-auth-plugin: gcloud components install gke-gcloud-auth-plugin",
        provide_cluster_info=True,
    )


class GkeCluster(pulumi.ComponentResource):
    """A regional GKE cluster with the database and monitoring pools; ``.target`` is what the database layer uses."""

    def __init__(self, name: str, args: GkeClusterArgs, opts: pulumi.ResourceOptions | None = None):
        gke = args.gke
        if gke.project == PLACEHOLDER_PROJECT and real_engine():  # before anything is created in its name
            raise InputError(
                "gcpProject",
                f"{PLACEHOLDER_PROJECT} is the placeholder stacks/Pulumi.gke.yaml ships: set your project ID "
                "(pulumi config set -s gke gcpProject <project-id>)",
            )
        super().__init__(token("GkeCluster"), name, None, renamed("GkeCluster", opts))
        child = pulumi.ResourceOptions(parent=self)

        private = self._private_nodes(name, args, child)
        authorized = None
        if gke.master_authorized_networks:
            authorized = gcp.container.ClusterMasterAuthorizedNetworksConfigArgs(
                cidr_blocks=[
                    gcp.container.ClusterMasterAuthorizedNetworksConfigCidrBlockArgs(cidr_block=cidr, display_name=f"config-{i}")
                    for i, cidr in enumerate(gke.master_authorized_networks)
                ]
            )
        encryption = None
        if gke.secrets_kms_key:
            encryption = gcp.container.ClusterDatabaseEncryptionArgs(state="ENCRYPTED", key_name=gke.secrets_kms_key)
        self._node_identity(name, args, child)

        self.cluster = gcp.container.Cluster(
            name,
            name=args.cluster_name,
            project=gke.project,
            location=gke.region,
            node_locations=list(gke.zones),
            remove_default_node_pool=True,
            initial_node_count=1,
            release_channel=gcp.container.ClusterReleaseChannelArgs(channel=gke.release_channel),
            networking_mode="VPC_NATIVE",
            ip_allocation_policy=gcp.container.ClusterIpAllocationPolicyArgs(),
            network=gke.network,
            subnetwork=gke.subnetwork or None,
            workload_identity_config=gcp.container.ClusterWorkloadIdentityConfigArgs(workload_pool=f"{gke.project}.svc.id.goog"),
            enable_shielded_nodes=True,
            private_cluster_config=private,
            master_authorized_networks_config=authorized,
            datapath_provider=DATAPATH_PROVIDER,
            database_encryption=encryption,
            deletion_protection=args.deletion_protection,
            opts=child,
        )

        self.database_node_pool = self._pool(f"{name}-database", args, args.database_pool, gke.database_placement)
        self.monitoring_node_pool = self._pool(f"{name}-monitoring", args, args.monitoring_pool, gke.monitoring_placement)

        self.kubeconfig = pulumi.Output.secret(
            pulumi.Output.all(self.cluster.name, self.cluster.endpoint, self.cluster.master_auth.cluster_ca_certificate).apply(
                lambda parts: kubeconfig(*parts)
            )
        )
        self.provider = k8s.Provider(f"{name}-k8s", kubeconfig=self.kubeconfig, opts=child)
        self.target = ClusterTarget(
            name=args.cluster_name,
            kind="gke",
            provider=self.provider,
            database_pool=args.database_pool,
            monitoring_pool=args.monitoring_pool,
            ready=(self.database_node_pool, self.monitoring_node_pool),
            kubeconfig=self.kubeconfig,
            gcp=GcpFacts(project=gke.project, region=gke.region),
        )
        self.register_outputs({"kubeconfig": self.kubeconfig, "clusterName": self.cluster.name})

    def _private_nodes(
        self, name: str, args: GkeClusterArgs, child: pulumi.ResourceOptions
    ) -> gcp.container.ClusterPrivateClusterConfigArgs | None:
        """Nodes without public IPs (gkePrivateNodes) and, with gkeCloudNat, the Cloud NAT they pull images through."""
        gke = args.gke
        self.nat: gcp.compute.RouterNat | None = None
        if not gke.private_nodes:
            return None
        if gke.cloud_nat:
            router = gcp.compute.Router(
                f"{name}-router",
                name=f"{args.cluster_name}-nat",
                project=gke.project,
                region=gke.region,
                network=gke.network,
                opts=child,
            )
            self.nat = gcp.compute.RouterNat(
                f"{name}-nat",
                name=f"{args.cluster_name}-nat",
                project=gke.project,
                region=gke.region,
                router=router.name,
                nat_ip_allocate_option="AUTO_ONLY",
                source_subnetwork_ip_ranges_to_nat="ALL_SUBNETWORKS_ALL_IP_RANGES",
                log_config=gcp.compute.RouterNatLogConfigArgs(enable=True, filter="ERRORS_ONLY"),
                opts=child,
            )
        # The control plane keeps its public endpoint so `pulumi up` can reach it (limited to gkeMasterAuthorizedNetworks).
        return gcp.container.ClusterPrivateClusterConfigArgs(enable_private_nodes=True, enable_private_endpoint=False)

    def _node_identity(self, name: str, args: GkeClusterArgs, child: pulumi.ResourceOptions) -> None:
        """The nodes' own service account with the least roles (NODE_ROLES), not the Compute default one."""
        gke = args.gke
        self.node_account = gcp.serviceaccount.Account(
            f"{name}-nodes",
            account_id=node_service_account_id(args.cluster_name),
            project=gke.project,
            display_name=f"GKE nodes of {args.cluster_name}",
            opts=child,
        )
        self.node_account_email = node_service_account_email(args.cluster_name, gke.project)
        self.node_roles = [
            gcp.projects.IAMMember(
                f"{name}-nodes-{role.rsplit('.', 1)[-1]}",
                project=gke.project,
                role=role,
                member=f"serviceAccount:{self.node_account_email}",
                opts=pulumi.ResourceOptions(parent=self, depends_on=[self.node_account]),
            )
            for role in NODE_ROLES
        ]

    def _pool(
        self, resource_name: str, args: GkeClusterArgs, pool: PoolShape, placement: ZonePlacement
    ) -> gcp.container.NodePool:
        gke = args.gke
        return gcp.container.NodePool(
            resource_name,
            name=pool_name(pool, args.disk_size_gb),
            project=gke.project,
            location=gke.region,
            cluster=self.cluster.name,
            node_locations=list(placement.zones),
            node_count=placement.nodes_per_zone,  # per zone: placement.total nodes in all
            node_config=gcp.container.NodePoolNodeConfigArgs(
                machine_type=pool.machine_type,
                disk_type=DISK_TYPE,
                disk_size_gb=args.disk_size_gb,
                labels=dict(pool.labels),
                taints=[
                    gcp.container.NodePoolNodeConfigTaintArgs(key=t.key, value=t.value, effect=CLOUD_TAINT_EFFECTS[t.effect])
                    for t in pool.taints
                ],
                shielded_instance_config=gcp.container.NodePoolNodeConfigShieldedInstanceConfigArgs(
                    enable_secure_boot=True, enable_integrity_monitoring=True
                ),
                workload_metadata_config=gcp.container.NodePoolNodeConfigWorkloadMetadataConfigArgs(mode="GKE_METADATA"),
                service_account=self.node_account_email,
                oauth_scopes=list(OAUTH_SCOPES),
            ),
            management=gcp.container.NodePoolManagementArgs(auto_repair=True, auto_upgrade=True),
            # Surge one node, never take one away first: a database node is drained only when its replacement
            # is ready, and zones are upgraded one after another, so two database nodes are never down at once.
            upgrade_settings=gcp.container.NodePoolUpgradeSettingsArgs(strategy="SURGE", max_surge=1, max_unavailable=0),
            # The nodes register only once they can log (their role) and, when private, reach the internet (NAT).
            opts=pulumi.ResourceOptions(
                parent=self, delete_before_replace=False, depends_on=[*self.node_roles, *([self.nat] if self.nat else [])]
            ),
        )
