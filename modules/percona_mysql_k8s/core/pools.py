"""Node pools as the database layer sees them, whatever the cloud (rule K4).

A pool is selected by its node labels and protected by its taints; the database layer places pods with
:func:`node_selector` and :func:`tolerations` and never asks which provider made the pool.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from .allocatable import NodeBudget

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

    def node_selector(self) -> dict[str, str]:
        return dict(self.labels)

    def tolerations(self) -> list[dict[str, str]]:
        return [taint.as_toleration() for taint in self.taints]
