"""max_connections and the per-connection buffers: derived or checked against the member's memory (M1, M6).

Connections may grow until the buffer pool would fall below its floor; per-connection buffers shrink before a
budget is refused; a refusal names the nearest input that would run.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import partial

from ..connections import (
    deliverable_connections,
    estimate_crossing,
    fewest_connections,
    largest_fitting,
    service_connections,
    two_significant_figures,
)
from ..errors import InputError
from ..rules import MYSQLD_MAX_CONNECTIONS
from ..units import GIB, MIB
from .buffer_pool import MIN_BUFFER_POOL, buffer_pool_bytes, pool_target
from .options import BUFFER_SCALE_FULL, BUFFER_SCALE_MIN
from .split import Split, pool_floor, pool_floor_fraction

MAX_QUANTITY = 2**63 - 1  # Kubernetes quantities are int64 (bytes, millicores)


def connections_and_buffers(split: Split, budget_memory: int, notes: list[str]) -> tuple[int, int, int | None]:
    """(max_connections, buffer scale, pool target or None): the count given or derived (M6) and the
    per-connection buffers it leaves room for; refusals name the fewest or most connections that would do."""
    inp, thresholds = split.inp, split.thresholds
    floor_bytes = pool_floor(inp.engine, budget_memory, thresholds)  # M6

    # M6: connections may grow until the buffer pool would fall below its share of the member budget;
    # the proxies' memory grows with them too, so the limit is recomputed for every count.
    def fits(connections: int) -> bool:
        limit, pool = split.raw_pool(budget_memory, connections)
        return limit > 0 and pool > 0 and buffer_pool_bytes(pool, split.mysqld_cpu) >= floor_bytes

    fewest = fewest_connections(inp.proxy, split.proxies, thresholds)
    if fewest > MYSQLD_MAX_CONNECTIONS:
        proxies_need = fewest - service_connections(thresholds)
        raise InputError(
            "min_connections",
            f"{service_connections(thresholds)} for mysqld's own users plus the fewest backend connections of "
            f"{split.proxies} {inp.proxy} pods ({proxies_need}) exceed mysqld's largest max_connections, "
            f"{MYSQLD_MAX_CONNECTIONS}: at most {MYSQLD_MAX_CONNECTIONS - proxies_need}",
            "M6",
        )
    keeps_floor = True
    if inp.connections == 0:
        connections, keeps_floor = _derived_connections(split, budget_memory, fits, fewest)
    elif inp.connections < fewest:
        raise InputError(
            "connections",
            f"must be 0 (derive) or at least {fewest} (min_connections = {service_connections(thresholds)} for "
            f"mysqld's own users plus the fewest backend connections of {split.proxies} {inp.proxy} pods), "
            f"got {inp.connections}",
            "M6",
        )
    elif inp.connections > MYSQLD_MAX_CONNECTIONS:
        raise InputError("connections", f"mysqld accepts at most {MYSQLD_MAX_CONNECTIONS}, got {inp.connections}", "M6")
    else:
        connections = inp.connections
    if not keeps_floor and split.runs(budget_memory, connections):
        fraction = pool_floor_fraction(inp.engine, thresholds)
        limit, raw = split.raw_pool(budget_memory, connections, BUFFER_SCALE_MIN)
        kept = buffer_pool_bytes(raw, split.mysqld_cpu) / limit
        outcome = (
            f"to keep {fraction:.0%} of the mysqld limit instead"
            if kept >= fraction
            else f"and even the fewest ({connections}) leave the pool {kept:.0%} of the mysqld limit: its fixed terms "
            "(server overhead, performance_schema, the gcache or XCom cache) take the rest"
        )
        notes.append(
            f"M6: beside its sidecars the member cannot keep {fraction:.0%} of its budget for the buffer pool; "
            f"connections are derived with the smallest per-connection buffers {outcome}."
        )
        return connections, BUFFER_SCALE_MIN, None
    return (connections, *_buffer_scale(split, budget_memory, connections, notes))


def _connection_ceiling(split: Split) -> int:
    """The most connections M6 derives: what the proxies open at the limits the operators ship (plus mysqld's own
    users). With one thread per connection every connection may run at once, so the cores bound them too (the peer
    calculator's connections per core by load); the thread pool bounds the running statements instead."""
    # never above what mysqld accepts (a large min_connections beside the shipped proxy limits could ask more)
    deliverable = min(deliverable_connections(split.inp.proxy, split.proxies, split.thresholds), MYSQLD_MAX_CONNECTIONS)
    if split.inp.thread_pool:
        return deliverable
    return min(
        deliverable,
        max(
            fewest_connections(split.inp.proxy, split.proxies, split.thresholds),
            split.mysqld_cpu * split.profile.connections_per_core // 1000,
        ),
    )


def _derived_connections(split: Split, budget_memory: int, fits: Callable[[int], bool], fewest: int) -> tuple[int, bool]:
    """connections = 0 (M6): (what the proxies open at their shipped limits, fewer where the buffer pool would fall
    below ``derived_min_buffer_pool_share`` of the mysqld limit or its floor on the member budget; whether the floor
    on the member budget holds).

    Where even the fewest connections leave less than that share, the floor on the member budget alone decides;
    on a member too small for that floor too (its sidecars take the difference), the same fraction is kept of
    the mysqld limit instead, with per-connection buffers at their smallest: the count stays useful and the pool
    stays the larger part.
    """
    ceiling = _connection_ceiling(split)
    keeps_floor = fits(fewest)
    share = split.thresholds["derived_min_buffer_pool_share"]

    def keeps_share(connections: int) -> bool:
        limit, raw = split.raw_pool(budget_memory, connections)
        return fits(connections) and buffer_pool_bytes(raw, split.mysqld_cpu) >= share * limit

    if keeps_floor and keeps_share(fewest):
        if keeps_share(ceiling):
            return ceiling, True
        return max(fewest, two_significant_figures(largest_fitting(keeps_share, fewest, fewest, ceiling))), True
    if keeps_floor and fits(ceiling):
        return ceiling, True
    if not keeps_floor:
        fraction = pool_floor_fraction(split.inp.engine, split.thresholds)

        def keeps_share_of_limit(connections: int) -> bool:
            limit, raw = split.raw_pool(budget_memory, connections, BUFFER_SCALE_MIN)
            pool = buffer_pool_bytes(raw, split.mysqld_cpu)
            return limit > 0 and raw > 0 and pool >= max(MIN_BUFFER_POOL, fraction * limit)

        if not keeps_share_of_limit(fewest):
            return fewest, False
        largest = largest_fitting(keeps_share_of_limit, fewest, fewest, ceiling)
    else:
        floor_bytes = pool_floor(split.inp.engine, budget_memory, split.thresholds)
        guess = estimate_crossing(lambda n: split.raw_pool(budget_memory, n)[1], floor_bytes, fewest, ceiling)
        largest = largest_fitting(fits, fewest, guess, ceiling)
    # Rounded down to two significant figures so the value reads as chosen and the pool keeps a margin.
    return max(fewest, two_significant_figures(largest)), keeps_floor


def _buffer_scale(split: Split, budget_memory: int, connections: int, notes: list[str]) -> tuple[int, int | None]:
    """(buffer scale, pool target or None): per-connection buffers sized to the budget before refusing (M6).

    At the profile's buffers the pool is what the other terms leave. When that is below the M6 floor
    the buffers shrink (largest scale that still leaves the floor) and the pool is the floor itself, so
    the pool never shrinks as the budget grows. When even the smallest buffers cannot keep the floor,
    the pool is what they leave, as long as mysqld can start (InnoDB's 5 MiB minimum); else InputError.
    """
    inp, thresholds, cpu = split.inp, split.thresholds, split.mysqld_cpu
    floor_bytes = pool_floor(inp.engine, budget_memory, thresholds)
    limit, raw = split.raw_pool(budget_memory, connections)
    if limit > 0 and buffer_pool_bytes(raw, cpu) >= floor_bytes:
        return BUFFER_SCALE_FULL, None
    target = pool_target(floor_bytes, cpu)

    def reaches(scale: int) -> bool:
        limit, raw = split.raw_pool(budget_memory, connections, scale)
        return limit > 0 and raw >= target

    fraction = pool_floor_fraction(inp.engine, thresholds)
    if reaches(BUFFER_SCALE_MIN):
        low, high = BUFFER_SCALE_MIN, BUFFER_SCALE_FULL - 1
        while low < high:
            middle = (low + high + 1) // 2
            low, high = (middle, high) if reaches(middle) else (low, middle - 1)
        notes.append(
            f"M6: per-connection buffers scaled to {low}/256 of the {inp.load} profile so {connections} "
            f"connections leave the buffer pool {fraction:.0%} of the member budget."
        )
        return low, target
    if split.runs(budget_memory, connections):
        _, raw = split.raw_pool(budget_memory, connections, BUFFER_SCALE_MIN)
        share = buffer_pool_bytes(raw, cpu) / budget_memory
        notes.append(
            f"M6: the buffer pool is {share:.0%} of the member budget, below the {fraction:.0%} floor, even "
            f"with per-connection buffers at their smallest: the member is small for its sidecars and "
            f"{connections} connections."
        )
        return BUFFER_SCALE_MIN, None
    raise _too_small(split, budget_memory, connections)


def _too_small(split: Split, budget_memory: int, connections: int) -> InputError:
    """The refusal (M1) with the nearest input that would run: fewer connections or more memory."""
    low, high = budget_memory, min(MAX_QUANTITY, max(2 * budget_memory, GIB))
    while high < MAX_QUANTITY and not split.runs(high, connections):
        low, high = high, min(MAX_QUANTITY, high * 2)
    if split.runs(high, connections):
        while high - low > MIB:
            middle = (low + high) // 2
            low, high = (low, middle) if split.runs(middle, connections) else (middle, high)
        needed = f"at least {math.ceil(high / MIB)} MiB"
    else:
        needed = "a budget beyond the largest Kubernetes quantity: lower the thresholds"
    fewest = fewest_connections(split.inp.proxy, split.proxies, split.thresholds)
    if split.inp.connections and split.runs(budget_memory, fewest):
        runs = partial(split.runs, budget_memory)
        at_most = largest_fitting(runs, fewest, fewest, MYSQLD_MAX_CONNECTIONS)
        return InputError(
            "connections",
            f"{connections} connections do not fit a member budget of {budget_memory // MIB} MiB even with the "
            f"smallest per-connection buffers: at most {at_most} fit, or give the member {needed}",
            "M1",
        )
    return InputError(
        "memory",
        f"the member budget of {budget_memory // MIB} MiB is too small: beside its sidecars, the proxy and "
        f"{connections} connections, mysqld cannot hold InnoDB's minimum {MIN_BUFFER_POOL // MIB} MiB buffer pool; "
        f"give the member {needed}",
        "M1",
    )
