"""The kind stack on the machine it runs on: the richest layout the host holds (K1, K5, T1).

With ``kindHostShare: auto`` (the default) the kind workers split the host as
:mod:`percona_mysql_k8s.core.kind_host` models it. Which layout fits is the sizing engine's answer (the member
split, M3/M6) and the monitoring plan's (K5), tried from the richest down:

1. the members asked for (``clusterSize``) with PMM as configured (server and clients);
2. the same members with PMM off: the client's two sidecars per member (one in the mysqld pod, one in
   the proxy pod) and the server are the largest costs after mysqld;
3. one member, PMM as configured: only with ``ephemeral: true``, under the operator's unsafe size flag
   (T1); one member also means one proxy pod and one database worker fewer in the kind cluster;
4. one member, PMM off.

A layout is the ordinary validated stack with ``clusterSize``, ``pmmEnabled`` and ``installPmm``
overridden, so every size still comes from the engine, and sysbench shrinks with it: its data follows
the buffer pool, its pod what the monitoring worker has left, and its thread ladder loses the steps the
member's max_connections cannot serve (B3). The first layout accepted wins, and a
note says what was given up. When none is, one line gives the smallest host that holds the last
layout and the key describing the host.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TypeVar

from percona_mysql_k8s.core.benchmark import RESERVED_CONNECTIONS
from percona_mysql_k8s.core.errors import InputError
from percona_mysql_k8s.core.units import GIB, MIB, format_cpu, human_bytes
from percona_mysql_k8s.plan.clusters.keys import Values

S = TypeVar("S")
AUTO = "auto"
# Errors that mean "this host is too small for this layout": a member the engine cannot split (M3, M6),
# a worker left nothing (K1) or a monitoring worker that cannot hold its pods (K5). Any other error is
# the user's config and is raised as it is.
CAPACITY_KEYS = frozenset({"kindHostShare", "kindHostCpu", "kindHostMemory", "monitoringNodeType"})
CAPACITY_RULES = frozenset({"K1", "K5", "M1", "M3", "M6"})  # M1: a member too small to start mysqld
# The minimum-host search: the CPU/memory grid it reports on, and the ceiling it gives up at.
# A host has whole CPUs (plan.clusters.kind refuses a fraction in kindHostCpu): the search steps by one.
CPU_STEP, MEMORY_STEP = 1000, 256 * MIB
CPU_CEILING, MEMORY_CEILING = 256_000, 1024 * GIB
AMPLE_VOLUME = "64Ti"


@dataclass(frozen=True)
class Layout:
    members: int
    pmm: bool

    def overrides(self) -> dict[str, object]:
        off = {} if self.pmm else {"pmmEnabled": False, "installPmm": False}
        return {"clusterSize": self.members, **off}

    def describe(self) -> str:
        return f"{self.members} member{'s' if self.members > 1 else ''}, PMM {'as configured' if self.pmm else 'off'}"


def _text(values: Mapping[str, object], key: str, default: str) -> str:
    value = values.get(key)
    return default if value is None else str(value).strip()


def _flag(values: Mapping[str, object], key: str, default: bool) -> bool:
    value = values.get(key)
    if value is None:
        return default
    return value if isinstance(value, bool) else str(value).strip().lower() == "true"


def applies(values: Mapping[str, object]) -> bool:
    """The kind target with ``kindHostShare: auto`` (both are the defaults)."""
    return _text(values, "target", "kind").lower() == "kind" and _text(values, "kindHostShare", AUTO).lower() == AUTO


def layouts(values: Mapping[str, object]) -> list[Layout]:
    """The layouts to try, richest first. clusterSize is read as the stack's validation reads it: a value that is
    no whole number is refused here (T1), never replaced by a size the user did not ask for."""
    members = Values(values).integer("clusterSize", 1, rule="T1", why=": a database cluster has at least one member")
    pmm = _flag(values, "pmmEnabled", True) or _flag(values, "installPmm", True)
    counts = [members] + ([1] if members > 1 and _flag(values, "ephemeral", False) else [])
    return [Layout(count, with_pmm) for count in counts for with_pmm in ((True, False) if pmm else (False,))]


def _is_capacity(error: InputError) -> bool:
    return error.key in CAPACITY_KEYS and error.rule in CAPACITY_RULES


def _accepted(build: Callable[[Mapping[str, object]], S], values: Mapping[str, object]) -> bool:
    try:
        build(values)
    except InputError as error:
        if _is_capacity(error):
            return False
        raise
    return True


def _smallest(accepts: Callable[[int], bool], step: int, ceiling: int) -> int | None:
    """The smallest multiple of ``step`` up to ``ceiling`` that ``accepts`` (monotone: a larger host holds
    whatever a smaller one does), or None."""
    low, high = 0, ceiling // step
    if not accepts(high * step):
        return None
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (low, middle) if accepts(middle * step) else (middle, high)
    return high * step


def minimum_host(
    values: Mapping[str, object], layout: Layout, build: Callable[[Mapping[str, object]], S], host: tuple[int, int]
) -> tuple[int, int] | None:
    """(CPU millicores, memory bytes) of the smallest host that holds ``layout``, in whole CPUs and 256 MiB steps.

    CPU is searched with ample memory (the CPU split does not depend on memory once PMM is off), then
    memory at that CPU or the host's, whichever is larger. The volume is made ample and the ladder one
    step: the volume is the user's to choose (B4 says so on its own key), and fit() shortens the ladder.
    """
    base = {**values, **layout.overrides(), "storageSize": AMPLE_VOLUME, "sysbenchThreads": [1]}

    def with_host(cpu: int, memory: int) -> dict[str, object]:
        return {**base, "kindHostCpu": f"{cpu}m", "kindHostMemory": str(memory)}

    roomy = max(host[1], 64 * GIB)
    cpu = _smallest(lambda c: _accepted(build, with_host(c, roomy)), CPU_STEP, CPU_CEILING)
    if cpu is None:
        return None
    at_cpu = max(cpu, host[0])
    memory = _smallest(lambda m: _accepted(build, with_host(at_cpu, m)), MEMORY_STEP, MEMORY_CEILING)
    return None if memory is None else (cpu, memory)


def fit(
    values: Mapping[str, object],
    build: Callable[[Mapping[str, object]], S],
    host: tuple[int, int],
    source: str,
    ladder: Callable[[Mapping[str, object]], tuple[int, ...] | None] = lambda values: None,
) -> tuple[S, tuple[str, ...]]:
    """The first layout ``build`` accepts, with notes saying what it gave up; or one clear InputError.

    ``host`` is the (CPU millicores, memory bytes) the kind nodes share and ``source`` where it came from;
    ``ladder`` reads the configured sysbench thread ladder (None when sysbench is off). A layout is first
    built without sysbench to learn its max_connections; ladder steps above what they leave for sysbench
    (B3) are dropped, so a small member gets a shorter ladder instead of a refusal.
    """
    refused: list[tuple[Layout, InputError]] = []
    for layout in layouts(values):
        fitted = {**values, **layout.overrides()}
        notes: list[str] = []
        try:
            probe = build({**fitted, "sysbenchEnabled": False})
            threads = ladder(fitted)
            if threads:
                room = probe.sizing.connections - RESERVED_CONNECTIONS
                kept = [count for count in threads if count <= room] or [max(room, 1)]
                if kept != list(threads):
                    fitted["sysbenchThreads"] = kept
                    notes.append(
                        f"kind: sysbench runs {kept} threads, not {list(threads)}: the member is sized for "
                        f"max_connections={probe.sizing.connections}, {RESERVED_CONNECTIONS} of them kept for "
                        "the operator and PMM (B3)"
                    )
            result = build(fitted)
        except InputError as error:
            if not _is_capacity(error):
                raise
            refused.append((layout, error))
            continue
        if refused:
            wanted, why = refused[0]
            given_up = (["PMM is off"] if wanted.pmm and not layout.pmm else []) + (
                [f"{layout.members} member{'s' if layout.members > 1 else ''}, not {wanted.members}"]
                if layout.members != wanted.members
                else []
            )
            notes.insert(  # what changes first: one line a person reads as a warning
                0,
                f"kind: {' and '.join(given_up)}: {source} ({format_cpu(host[0])} CPU, {human_bytes(host[1])}) does "
                f"not hold {wanted.describe()} ({why}); deploying {layout.describe()}, the richest layout it holds "
                "(ephemeral stack)",
            )
        return result, tuple(notes)
    smallest, why = refused[-1]
    found = f"{source} has {format_cpu(host[0])} CPU and {human_bytes(host[1])}"
    need = minimum_host(values, smallest, build, host)
    hint = "" if _flag(values, "ephemeral", False) else "; fewer than 3 members need ephemeral: true (T1)"
    levers = (
        "use a larger machine (Docker Desktop: give its VM more CPUs and memory), set sysbenchEnabled false, "
        f"or deploy to a cluster you have (target: existing){hint}"
    )
    if need is None:
        raise InputError(why.key, f"{found}: not even {smallest.describe()} fits ({why}); {levers}", rule="K1")
    key = "kindHostCpu" if host[0] < need[0] else "kindHostMemory"
    raise InputError(
        key,
        f"{found}; the kind stack needs at least {format_cpu(need[0])} CPU and {human_bytes(need[1])} "
        f"for its smallest layout ({smallest.describe()}): {levers}",
        rule="K1",
    )
