"""The memory split of one member: for a memory budget, a connection count and a buffer scale, what the mysqld
limit is and what the other M1 terms leave for the buffer pool (M1, M3, M6)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ..connections import buffer_pool_floor_bytes, proxy_limits
from ..memory import GROUP_REPLICATION, pool_within
from ..profiles import LoadProfile
from ..sidecars import ContainerSize, proxy_container
from ..units import MIB
from .buffer_pool import MAX_POOL_CHUNKS, MIN_BUFFER_POOL, buffer_pool_bytes
from .containers import fixed_containers, pod_sum, pods
from .inputs import SizingInput
from .options import BUFFER_SCALE_FULL, BUFFER_SCALE_MIN, evaluate, memory_options


@dataclass(frozen=True)
class Split:
    """The memory split of one member for a given memory budget, connection count and buffer scale."""

    inp: SizingInput
    profile: LoadProfile
    thresholds: Mapping[str, float]
    budget_cpu: int
    mysqld_cpu: int

    @property
    def proxies(self) -> int:
        return self.inp.cluster_size  # one proxy pod per member

    def proxy(self, connections: int) -> ContainerSize:
        """The proxy sized for its own client limit, from its share of ``connections`` (M6, T5)."""
        limits = proxy_limits(self.inp.proxy, connections, self.proxies, self.thresholds)
        return proxy_container(self.inp.proxy, limits.client_limit, self.mysqld_cpu, self.budget_cpu)

    def limit(self, budget_memory: int, connections: int) -> int:
        fixed = fixed_containers(self.inp, budget_memory, self.budget_cpu)
        fixed_memory = pod_sum(pods(self.inp, fixed), fixed, "memory_bytes")
        return (budget_memory - fixed_memory - self.proxy(connections).memory_bytes) // MIB * MIB

    def raw_pool(self, budget_memory: int, connections: int, scale: int = BUFFER_SCALE_FULL) -> tuple[int, int]:
        """(mysqld limit, what the other M1 terms leave for the buffer pool)."""
        limit = self.limit(budget_memory, connections)
        if limit <= 0:
            return limit, -1
        options = memory_options(self.inp, self.profile, limit, connections, self.mysqld_cpu, self.thresholds, scale)
        others = evaluate(self.inp, {**options, "innodb_buffer_pool_size": "0"}, limit, self.thresholds, self.mysqld_cpu)
        # M1: the pool's block descriptors come on top of it; the layout keeps at most MAX_POOL_CHUNKS chunks
        return limit, pool_within(
            limit - others.peak_bytes, int(self.thresholds["buffer_pool_descriptor_bytes"]), MAX_POOL_CHUNKS
        )

    def runs(self, budget_memory: int, connections: int) -> bool:
        """Physically possible: the smallest buffers leave mysqld at least InnoDB's minimum pool (M1)."""
        limit, raw = self.raw_pool(budget_memory, connections, BUFFER_SCALE_MIN)
        return limit > 0 and buffer_pool_bytes(raw, self.mysqld_cpu) >= MIN_BUFFER_POOL


def pool_floor(engine: str, budget_memory: int, thresholds: Mapping[str, float]) -> float:
    """The M6 floor on the member budget, never below the pool mysqld needs to start."""
    return max(MIN_BUFFER_POOL, buffer_pool_floor_bytes(engine, budget_memory, thresholds))


def pool_floor_fraction(engine: str, thresholds: Mapping[str, float]) -> float:
    """The M6 floor as a fraction of the member budget, by engine."""
    return thresholds["min_buffer_pool_fraction_gr" if engine == GROUP_REPLICATION else "min_buffer_pool_fraction_pxc"]
