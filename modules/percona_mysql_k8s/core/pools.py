"""Node pools as the database layer sees them, whatever the cloud (rule K4).

A pool is selected by its node labels and protected by its taints; the database layer places pods with
:meth:`PoolShape.placement` and never asks which provider made the pool. What a pool's nodes carry
(:meth:`PoolShape.nodes`, with the labels the provider adds) and whether a pod lands there are decided by
:mod:`percona_mysql_k8s.core.scheduling`, the reader the policy pack judges stacks with.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from .allocatable import NodeBudget
from .scheduling import PodPlacement, PoolNodes, eks_pool_nodes, gke_pool_nodes, kind_config_pools
from .units import human_bytes
from .zones import ZoneLayout

# The labels and taint our cluster components put on their pools. The policy pack recognises the
# database pool by POOL_LABEL=DATABASE_POOL (or by the taint) on resources it did not create.
POOL_LABEL = "mysql.percona.com/pool"
DATABASE_POOL = "database"
MONITORING_POOL = "monitoring"
NO_SCHEDULE = "NoSchedule"


@dataclass(frozen=True)
class Taint:
    key: str
    value: str
    effect: str = NO_SCHEDULE

    def as_toleration(self) -> dict[str, str]:
        return {"key": self.key, "operator": "Equal", "value": self.value, "effect": self.effect}

    def as_k8s(self) -> dict[str, str]:
        return {"key": self.key, "value": self.value, "effect": self.effect}


DATABASE_TAINT = Taint(POOL_LABEL, DATABASE_POOL)


@dataclass(frozen=True)
class PoolShape:
    """One node pool: how to select it, what protects it, and what one node can hold (K1/K5)."""

    name: str
    labels: Mapping[str, str]
    node_count: int
    node: NodeBudget
    taints: tuple[Taint, ...] = field(default=())
    machine_type: str | None = None
    # Its nodes per zone (K7); None while only the cluster component can tell (an EKS node group's subnets), and
    # the stack config key that decided it, named when the zones cannot keep a majority.
    zones: ZoneLayout | None = None
    zones_key: str = ""

    def node_selector(self) -> dict[str, str]:
        return dict(self.labels)

    def describe(self) -> str:
        """One line: the pool's nodes, each one's capacity and what is left for pods after K1."""
        node = self.node
        machine = self.machine_type or (node.machine.name if node.machine is not None else "kind worker")
        return (
            f"node pool {self.name}: {self.node_count} x {machine}, each {node.capacity_cpu_millicores}m CPU and "
            f"{human_bytes(node.capacity_memory_bytes)}, of which {node.usable_cpu_millicores}m and "
            f"{human_bytes(node.usable_memory_bytes)} for pods (K1)"
        )

    def tolerations(self) -> list[dict[str, str]]:
        return [taint.as_toleration() for taint in self.taints]

    def placement(self) -> PodPlacement:
        """How a pod is pinned to this pool: its labels as nodeSelector, a toleration of each taint (K4)."""
        return PodPlacement(self.node_selector(), None, tuple(self.tolerations()))

    def nodes(self) -> PoolNodes:
        """What this pool's nodes carry: its labels and taints plus what the provider adds (the pool's
        cloud name is not known here: the clusters layer names it)."""
        taints = [taint.as_k8s() for taint in self.taints]
        provider = self.node.provider
        if provider == "gke":
            return gke_pool_nodes(name=None, machine_type=self.machine_type, labels=self.labels, taints=taints)
        if provider == "eks":
            return eks_pool_nodes(
                name=None, instance_types=[self.machine_type] if self.machine_type else [], labels=self.labels, taints=taints
            )
        return kind_config_pools([("worker", self.labels, taints)])[0][0]
