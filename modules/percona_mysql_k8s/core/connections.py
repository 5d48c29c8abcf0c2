"""How many connections a member can hold (rule M6): one definition for sizing and the policy pack.

The buffer pool keeps at least ``min_buffer_pool_fraction_pxc`` / ``_gr`` of the *member budget* (the
mysqld pod with its sidecars plus one proxy pod); connections may take memory until that floor.

Clients reach mysqld through the proxies, one proxy pod per member; every proxy may send all its
clients to the same mysqld (the writer). So mysqld accepts what the proxies deliver plus
``min_connections`` of its own (operator, probes, PMM, backups, replication and the proxies' health
checks): ``max_connections = proxies x per-proxy limit + min_connections``. The proxies' limits are
written from the same numbers, so both ends agree.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from .memory import GROUP_REPLICATION
from .rules import MYSQLD_MAX_CONNECTIONS
from .sidecars import PROXY_MAX_CONNECTIONS


def buffer_pool_floor_bytes(engine: str, member_memory_bytes: int, thresholds: Mapping[str, float]) -> float:
    """The smallest buffer pool M6 accepts for a member of this budget."""
    name = "min_buffer_pool_fraction_gr" if engine == GROUP_REPLICATION else "min_buffer_pool_fraction_pxc"
    return thresholds[name] * member_memory_bytes


def largest_connections(
    peak_without_pool: Callable[[int], int],
    *,
    engine: str,
    limit_bytes: int,
    member_memory_bytes: int,
    thresholds: Mapping[str, float],
    ceiling: int = MYSQLD_MAX_CONNECTIONS,
) -> int | None:
    """The largest max_connections that leaves the buffer pool its floor, for a fixed mysqld limit.

    ``peak_without_pool(n)`` is the modeled peak (M1) with ``n`` connections and an empty buffer pool;
    it is linear in ``n``, so two evaluations give the answer. None when not even ``min_connections``
    fits.
    """
    room = limit_bytes - buffer_pool_floor_bytes(engine, member_memory_bytes, thresholds)
    base = peak_without_pool(0)
    per_connection = peak_without_pool(1) - base
    largest = ceiling if per_connection <= 0 else min(ceiling, int((room - base) // per_connection))
    return largest if largest >= int(thresholds["min_connections"]) else None


def service_connections(thresholds: Mapping[str, float]) -> int:
    """Connections mysqld keeps for its own users beside the proxies' clients (``min_connections``)."""
    return int(thresholds["min_connections"])


def fewest_connections(proxies: int, thresholds: Mapping[str, float]) -> int:
    """The smallest max_connections that still lets every proxy pass one client."""
    return service_connections(thresholds) + proxies


def deliverable_connections(proxy: str, proxies: int, thresholds: Mapping[str, float]) -> int:
    """What ``proxies`` proxy pods deliver at their shipped limits, plus mysqld's own users."""
    return proxies * PROXY_MAX_CONNECTIONS[proxy] + service_connections(thresholds)


def per_proxy_connections(max_connections: int, proxies: int, thresholds: Mapping[str, float]) -> int:
    """Each proxy's client limit for a mysqld accepting ``max_connections``: all proxies together never exceed it."""
    return max(1, (max_connections - service_connections(thresholds)) // max(1, proxies))
