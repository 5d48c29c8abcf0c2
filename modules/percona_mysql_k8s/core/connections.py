"""How many connections a member takes (M6) and how the proxies share them (T5): one definition for sizing and
the policy pack.

Clients reach mysqld through the proxies, one proxy pod per member; every proxy may send all its clients to the
same mysqld (the writer). So mysqld accepts what the proxies can open plus ``min_connections`` of its own
(operator, probes, PMM, backups, replication and the proxies' health checks): ``max_connections = proxies x
share + min_connections``, and each proxy's settings are written from its share (``core/proxy_limits.py``), so
both ends agree. What a connection costs is ``core/connection_cost.py``; the buffer pool keeps at least
``min_buffer_pool_fraction_pxc`` / ``_gr`` of the *member budget* (the mysqld pod with its sidecars plus one proxy
pod), which caps the count on small members.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from .memory import GROUP_REPLICATION
from .proxy_limits import ProxyLimits, limits_for_share, shipped
from .rules import MYSQLD_MAX_CONNECTIONS


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

    ``peak_without_pool(n)`` is the modeled peak (M1) with ``n`` connections and an empty buffer pool. It grows
    with ``n`` but not at one rate (performance_schema's slots come in pages, the statements the cores run stop
    growing once every group is busy), so the answer is bisected. None when not even ``min_connections`` fits.
    """
    room = limit_bytes - buffer_pool_floor_bytes(engine, member_memory_bytes, thresholds)
    low = int(thresholds["min_connections"])
    if peak_without_pool(low) > room:
        return None
    high = ceiling
    while low < high:
        middle = (low + high + 1) // 2
        low, high = (middle, high) if peak_without_pool(middle) <= room else (low, middle - 1)
    return low


def service_connections(thresholds: Mapping[str, float]) -> int:
    """Connections mysqld keeps for its own users beside the proxies' clients (``min_connections``)."""
    return int(thresholds["min_connections"])


def fewest_connections(proxy: str, proxies: int, thresholds: Mapping[str, float]) -> int:
    """The smallest max_connections that still lets every proxy pod open the fewest backend connections it can be
    set to (one; two for ProxySQL, whose servers sit in two hostgroups)."""
    return service_connections(thresholds) + proxies * limits_for_share(proxy, 1).backend_limit


def deliverable_connections(proxy: str, proxies: int, thresholds: Mapping[str, float]) -> int:
    """What ``proxies`` proxy pods open at the limits the operators ship, plus mysqld's own users."""
    return proxies * shipped(proxy).backend_limit + service_connections(thresholds)


def per_proxy_connections(max_connections: int, proxies: int, thresholds: Mapping[str, float]) -> int:
    """Each proxy pod's share of a mysqld accepting ``max_connections``: all pods together never exceed it."""
    return max(1, (max_connections - service_connections(thresholds)) // max(1, proxies))


def proxy_limits(proxy: str, max_connections: int, proxies: int, thresholds: Mapping[str, float]) -> ProxyLimits:
    """The settings of each proxy pod for a mysqld accepting ``max_connections`` (T5 holds by construction)."""
    return limits_for_share(proxy, per_proxy_connections(max_connections, proxies, thresholds))


def backend_connections_fit(limits: ProxyLimits, proxies: int, max_connections: int, thresholds: Mapping[str, float]) -> bool:
    """T5: the proxies' backend connections and mysqld's own users fit max_connections."""
    return proxies * limits.backend_limit + service_connections(thresholds) <= max_connections


# --------------------------------------------------------------------------------------------------
# the search M6 runs over connection counts (the model is monotone in them: more never leaves more memory)


def two_significant_figures(value: int) -> int:
    """12764 -> 12000, 1362 -> 1300, 87 -> 87."""
    if value < 100:
        return value
    unit = 10 ** (len(str(value)) - 2)
    return value // unit * unit


def estimate_crossing(pool_at: Callable[[int], float], floor: float, start: int, ceiling: int) -> int:
    """Where the buffer pool ``pool_at(n)`` reaches ``floor``, extrapolated from two points (a first guess)."""
    probe = min(ceiling, start + 1000)
    if probe <= start:
        return start
    slack_a, slack_b = pool_at(start) - floor, pool_at(probe) - floor
    if slack_a <= slack_b:
        return ceiling
    return int(start + slack_a * (probe - start) / (slack_a - slack_b))


def largest_fitting(fits: Callable[[int], bool], low: int, guess: int, ceiling: int) -> int:
    """Largest n in [low, ceiling] with fits(n), given fits(low) and fits monotone (true, then false).

    Gallops from the guess to bracket the boundary, then bisects: a few evaluations instead of 17.
    """
    guess = max(low, min(ceiling, guess))
    step = 8
    if fits(guess):
        low = guess
        while True:
            high = min(low + step, ceiling)
            if high == low:
                return low
            if not fits(high):
                high -= 1
                break
            low, step = high, step * 2
    else:
        high = guess - 1
        while True:
            probe = max(high - step, low)
            if probe == low:
                break
            if fits(probe):
                low = probe
                break
            high, step = probe - 1, step * 2
    while low < high:
        middle = (low + high + 1) // 2
        low, high = (middle, high) if fits(middle) else (low, middle - 1)
    return low
