"""When the peer's own answer is safe, judged with our rules rather than the peer's.

Definition. A peer answer is *safe* when all of the following hold:

1. It is an answer: the client receives mysqld settings (message type 1001, 2001, or 6001 with
   settings). A 3001 pass, a 6001 with an empty answer (CPU overload even at 20 connections) and an
   HTTP 500 (memory overutilized even at 20 connections) are errors, never safe.
2. Its mysqld settings fit its own mysqld memory limit under our memory model (M1): the peer's my.cnf
   values -- ``innodb_buffer_pool_size`` = the peer's buffer pool with its static chunk of 2097152
   and the instance count it emits, ``max_connections``, ``join_buffer_size``,
   ``read_rnd_buffer_size``, ``sort_buffer_size``, ``tmp_table_size`` (16777216), and for PXC its
   ``wsrep_provider_options`` with ``gcache.size``, for group replication its
   ``group_replication_message_cache_size`` -- are evaluated with
   ``percona_mysql_k8s.core.memory.model(options, engine=..., limit_bytes=M_my, thresholds=default_thresholds(),
   version="8.0")``, every other term at mysqld's 8.0 default; the modeled peak must be <= M_my, the
   ``limit_memory`` the peer writes for mysqld.
3. Its PMM container memory is >= what we budget for the PMM client of a member with the same total
   memory (``sidecars.pmm_client(total_memory)``).
4. Its proxy container memory is >= what we budget for the HAProxy container plus its monitor
   sidecar for the same connection count (the peer's ``max_connections``): the peer has one proxy
   container and no separate monitor sidecar, so it must hold both.

Requests = 95% of limits (Burstable QoS) and the timer values are not part of this definition: it is
about memory only, the one place where a wrong answer is an OOM kill.
"""

from __future__ import annotations

from dataclasses import dataclass

from percona_mysql_k8s.core.memory import GROUP_REPLICATION, PXC, MemoryModel, model
from percona_mysql_k8s.core.mycnf import normalize_key
from percona_mysql_k8s.core.rules import default_thresholds
from percona_mysql_k8s.core.sidecars import HAPROXY, MONIT_SIDECAR, pmm_client, proxy_container

from .peer_calculator import GROUP_REPLICATION as PEER_GROUP_REPLICATION
from .peer_calculator import PXC as PEER_PXC
from .peer_calculator import PeerAnswer

OUR_ENGINE = {PEER_PXC: PXC, PEER_GROUP_REPLICATION: GROUP_REPLICATION}
_THRESHOLDS = default_thresholds()


@dataclass(frozen=True)
class Safety:
    """The verdict with the numbers behind it; ``problems`` is empty exactly when ``safe``."""

    problems: tuple[str, ...]
    memory: MemoryModel | None = None
    mysqld_limit: int | None = None
    pmm_memory: int | None = None
    pmm_needed: int | None = None
    proxy_memory: int | None = None
    proxy_needed: int | None = None

    @property
    def safe(self) -> bool:
        return not self.problems

    def summary(self) -> str:
        if not self.safe:
            return "; ".join(self.problems)
        return (
            f"peak {self.memory.peak_bytes / 2**20:.0f} <= limit {self.mysqld_limit / 2**20:.0f} MiB, "
            f"pmm {self.pmm_memory / 2**20:.0f} >= {self.pmm_needed / 2**20:.0f} MiB, "
            f"proxy {self.proxy_memory / 2**20:.0f} >= {self.proxy_needed / 2**20:.0f} MiB"
        )


def peer_memory_model(answer: PeerAnswer) -> MemoryModel:
    """Our M1 model of the peer's mysqld settings within the peer's mysqld limit."""
    options = {normalize_key(key): value for key, value in answer.mycnf().items()}
    return model(
        options,
        engine=OUR_ENGINE[answer.db],
        limit_bytes=answer.limit_memory("mysql"),
        thresholds=_THRESHOLDS,
        version="8.0",
    )


def judge(answer: PeerAnswer) -> Safety:
    """Apply the definition in this module's docstring to one peer answer."""
    if not answer.answered:
        return Safety(problems=(f"no answer (type {answer.message_type}, HTTP {answer.http_status})",))
    memory = peer_memory_model(answer)
    limit = answer.limit_memory("mysql")
    pmm, pmm_needed = answer.limit_memory("pmm"), pmm_client(int(answer.total_memory), answer.total_cpu).memory_bytes
    proxy = answer.limit_memory("proxy")
    proxy_needed = proxy_container(HAPROXY, answer.max_connections, answer.mysql_cpu).memory_bytes + MONIT_SIDECAR.memory_bytes
    problems = []
    if not memory.fits:
        problems.append(f"mysqld peak {memory.peak_bytes} > limit {limit}")
    if pmm < pmm_needed:
        problems.append(f"pmm {pmm} < {pmm_needed}")
    if proxy < proxy_needed:
        problems.append(f"proxy {proxy} < {proxy_needed}")
    return Safety(tuple(problems), memory, limit, pmm, pmm_needed, proxy, proxy_needed)


def fitted_pool(answer: PeerAnswer) -> int | None:
    """The largest buffer pool (whole MiB) that makes the peer's own mysqld settings fit its own mysqld limit under
    our model (M1), everything else of the answer kept; None when no answer or not even an empty pool fits.

    This is the peer's split made safe: the comparison that stays meaningful where the peer's answer itself
    overflows our model (it does at most points, because it reserves nothing for performance_schema's per-thread
    slots, the temporary tables or the page cache; see docs/sizing.md §8).
    """
    if not answer.answered:
        return None
    limit = answer.limit_memory("mysql")
    base = {normalize_key(key): value for key, value in answer.mycnf().items()}

    def fits(pool_mib: int) -> bool:
        options = {**base, "innodb_buffer_pool_size": str(pool_mib * 2**20)}
        return model(options, engine=OUR_ENGINE[answer.db], limit_bytes=limit, thresholds=_THRESHOLDS, version="8.0").fits

    if not fits(0):
        return None
    low, high = 0, max(0, answer.buffer_pool // 2**20)
    if fits(high):
        return answer.buffer_pool
    while low < high:
        middle = (low + high + 1) // 2
        low, high = (middle, high) if fits(middle) else (low, middle - 1)
    return low * 2**20
