"""What a rule and a threshold are (core.rules, the catalogue, holds them all): a rule's level, a tunable
threshold with its domain, and the domain bounds that are facts of the consumer (mysqld's ranges)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from enum import StrEnum


class Level(StrEnum):
    MANDATORY = "mandatory"
    ADVISORY = "advisory"


@dataclass(frozen=True)
class Threshold:
    """A tunable number: policy config key ``name``, its default, JSON-schema type, meaning and domain.

    The domain is data: ``minimum``/``maximum`` bounds (each exclusive when its flag says so); every value
    must also be finite. :func:`resolve_thresholds` checks it for sizing and the policy pack alike.
    """

    name: str
    default: float | int
    description: str
    kind: str = "number"  # JSON-schema type: "number" or "integer"
    minimum: float | int | None = 0
    maximum: float | int | None = None
    exclusive_minimum: bool = False
    exclusive_maximum: bool = False

    def check(self, value: float | int) -> None:
        """Raise :class:`ThresholdError` when ``value`` is outside this threshold's domain."""
        if isinstance(value, float) and not math.isfinite(value):  # an int may be too large for a float
            raise ThresholdError(self.name, f"threshold {self.name!r} must be a finite number, got {value!r}")
        if self.kind == "integer" and isinstance(value, float) and not value.is_integer():
            raise ThresholdError(self.name, f"threshold {self.name!r} must be a whole number, got {value!r}")
        if self.minimum is not None and (value <= self.minimum if self.exclusive_minimum else value < self.minimum):
            bound = ">" if self.exclusive_minimum else ">="
            raise ThresholdError(self.name, f"threshold {self.name!r} must be {bound} {self.minimum}, got {value!r}")
        if self.maximum is not None and (value >= self.maximum if self.exclusive_maximum else value > self.maximum):
            bound = "<" if self.exclusive_maximum else "<="
            raise ThresholdError(self.name, f"threshold {self.name!r} must be {bound} {self.maximum}, got {value!r}")


class ThresholdError(ValueError):
    """A threshold value outside its domain; ``name`` says which."""

    def __init__(self, name: str, message: str) -> None:
        super().__init__(message)
        self.name = name


# Domain bounds that are facts of the consumer: mysqld's max_connections and flow-control ranges.
MYSQLD_MAX_CONNECTIONS = 100_000  # mysqld's range of max_connections is 1..100000
INT32_MAX = 2**31 - 1
INT64_MAX = 2**63 - 1  # a Kubernetes quantity: no memory term can exceed it
MAX_REPLICA_PARALLEL_WORKERS = 1024  # replica_parallel_workers' range is 0..1024
MAX_WSREP_APPLIER_THREADS = 512  # wsrep_applier_threads' range is 1..512
MAX_BROWNOUT_SECONDS = 86_400
MAX_APPLIER_TPS_PER_WORKER = 1_000_000
MAX_POOL_NODES = 100  # plan.clusters.common.MAX_NODES_PER_POOL reads it
MAX_RETENTION_DAYS = 3650
# Thresholds that must keep an order between them: (lower, upper).
ORDERED_THRESHOLDS = (("certification_min_bytes", "certification_max_bytes"),)


@dataclass(frozen=True)
class Rule:
    id: str
    title: str
    text: str
    level: Level
    sources: tuple[str, ...]
    thresholds: tuple[Threshold, ...] = field(default=())

    @property
    def mandatory(self) -> bool:
        return self.level is Level.MANDATORY

    @property
    def anchor(self) -> str:
        """The rule's anchor in docs/rules.md (``#rule-k2``), where the check's reports link to it."""
        return f"rule-{self.id.lower()}"
