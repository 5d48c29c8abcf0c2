"""The shape every target decides: a :class:`ClusterSettings` (name, size, the two pools as
:class:`~percona_mysql_k8s.core.pools.PoolShape`) and the part of one target (GKE, EKS, kind, existing).

Data only: the target modules of :mod:`percona_mysql_k8s.plan.clusters` decide these from the stack config, and
the cluster components of :mod:`percona_mysql_k8s.clusters` take them and register resources.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar, Self

from percona_mysql_k8s.core.pools import PoolShape
from percona_mysql_k8s.core.scheduling import KUBERNETES_EFFECTS, cloud_effect

TARGETS = ("kind", "gke", "eks", "existing")
TAINT_EFFECTS = KUBERNETES_EFFECTS
# The cloud APIs (GKE node pools, EKS node groups) spell taint effects in upper snake case (core.scheduling).
CLOUD_TAINT_EFFECTS = {effect: cloud_effect(effect) for effect in KUBERNETES_EFFECTS}


@dataclass(frozen=True)
class ZonePlacement:
    """Where a GKE node pool's nodes go. GKE's ``node_count`` is *per zone* of ``node_locations``, so a
    regional pool of ``nodes_per_zone`` has ``nodes_per_zone × len(zones)`` nodes."""

    zones: tuple[str, ...]
    nodes_per_zone: int

    @property
    def total(self) -> int:
        return self.nodes_per_zone * len(self.zones)


@dataclass(frozen=True)
class GkeSettings:
    project: str
    region: str
    zones: tuple[str, ...]
    release_channel: str
    private_nodes: bool
    network: str
    subnetwork: str
    database_placement: ZonePlacement
    monitoring_placement: ZonePlacement
    # hardening: see plan.clusters.gke.hardening
    cloud_nat: bool = True
    master_authorized_networks: tuple[str, ...] = ()
    secrets_kms_key: str = ""


@dataclass(frozen=True)
class EksSettings:
    region: str
    version: str
    vpc_id: str  # "" = create a VPC
    subnet_ids: tuple[str, ...]
    private_endpoint: bool
    # hardening: see plan.clusters.eks.hardening
    public_access_cidrs: tuple[str, ...] = ()  # empty: no public endpoint
    secrets_kms_key_arn: str = ""  # empty: a key created by the stack


@dataclass(frozen=True)
class KindSettings:
    node_image: str
    host_share: float | None  # None: ``auto``, the workers share the host as core.kind_host models it
    host_cpu_millicores: int
    host_memory_bytes: int


@dataclass(frozen=True)
class ExistingSettings:
    kubeconfig: str  # absolute path, or "" for the ambient kubeconfig ($KUBECONFIG, ~/.kube/config)
    context: str  # "" = the kubeconfig's current context


@dataclass(frozen=True)
class ClusterSettings:
    """Everything a cluster component needs; exactly one of ``gke``/``eks``/``kind``/``existing`` is set."""

    target: str
    cluster_name: str
    cluster_size: int
    ephemeral: bool
    database_pool: PoolShape
    monitoring_pool: PoolShape
    database_disk_size_gb: int
    gke: GkeSettings | None = None
    eks: EksSettings | None = None
    kind: KindSettings | None = None
    existing: ExistingSettings | None = None
    notes: tuple[str, ...] = field(default=())
    accept_zone_loss: bool = False  # acceptZoneLoss (K7)


@dataclass(frozen=True)
class ClusterArgs:
    """What every cluster component takes, one shape for the four targets: the cluster's name and two pools,
    the cloud pools' boot disk and deletion protection, and the target's part of the plan (the one not None).

    A component's subclass names its target (``TARGET``): :meth:`from_settings` refuses another target's plan.
    """

    TARGET: ClassVar[str] = ""
    cluster_name: str
    database_pool: PoolShape
    monitoring_pool: PoolShape
    disk_size_gb: int = 0  # the cloud pools' boot disk (gke, eks)
    deletion_protection: bool = True  # cloud clusters: off only for an ephemeral stack
    gke: GkeSettings | None = None
    eks: EksSettings | None = None
    kind: KindSettings | None = None
    existing: ExistingSettings | None = None
    members: int = 3  # the database members whose majority a zone's loss must leave (K7; checked where zones are learnt)
    accept_zone_loss: bool = False

    @classmethod
    def from_settings(cls, settings: ClusterSettings) -> Self:
        if cls.TARGET and settings.target != cls.TARGET:
            raise ValueError(f"{cls.__name__} needs settings of the {cls.TARGET} target")
        return cls(
            settings.cluster_name,
            settings.database_pool,
            settings.monitoring_pool,
            settings.database_disk_size_gb,
            not settings.ephemeral,
            settings.gke,
            settings.eks,
            settings.kind,
            settings.existing,
            settings.cluster_size,
            settings.accept_zone_loss,
        )
