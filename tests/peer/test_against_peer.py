"""The issue's "done when": our engine against the peer on the 1-16 core / 2-64 GiB grid.

For every engine, load and connection setting:
1. our ``size`` returns a valid sizing (the modeled peak fits, every container has request = limit,
   the containers fit the budget) or raises a clean ``InputError``; anything else is a failure;
2. wherever the peer's own answer is safe (see ``safety.py``), our buffer pool (after mysqld's
   rounding) is at least the peer's.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import pytest
from percona_mysql_k8s.core.errors import InputError
from percona_mysql_k8s.core.report import to_json
from percona_mysql_k8s.core.sizing import SizingInput, SizingResult, size

from .peer_calculator import GIB, PeerAnswer, calculate
from .safety import Safety, judge

CORES = (1, 2, 4, 8, 16)
MEMORY_GIB = (2, 4, 8, 16, 32, 64)
ENGINES = {"pxc": "pxc", "group-replication": "group_replication"}  # ours -> the peer's dbtype
LOADS = {"read-heavy": 1, "light-oltp": 2, "heavy-oltp": 3, "write-heavy": 4}  # ours -> the peer's load id
CONNECTIONS = (0, 50, 200, 1000)


@dataclass(frozen=True)
class Case:
    engine: str
    load: str
    cores: int
    memory_gib: int
    connections: int
    ours: SizingResult | InputError | BaseException
    peer: PeerAnswer
    peer_safety: Safety

    def __str__(self) -> str:
        return f"{self.engine}/{self.load} {self.cores} cores {self.memory_gib} GiB connections={self.connections}"


def _ours(engine: str, load: str, cores: int, memory_gib: int, connections: int):
    inp = SizingInput(
        engine=engine,
        cpu_millicores=cores * 1000,
        memory_bytes=memory_gib * GIB,
        load=load,
        connections=connections,
        proxy="haproxy",
        log_collector=False,
    )
    try:
        return size(inp)
    except BaseException as error:  # recorded and judged by the validity test, not raised here
        return error


@pytest.fixture(scope="module")
def cases() -> list[Case]:
    grid = itertools.product(ENGINES, LOADS, CORES, MEMORY_GIB, CONNECTIONS)
    result = []
    for engine, load, cores, memory_gib, connections in grid:
        peer = calculate(ENGINES[engine], cores * 1000, memory_gib * GIB, LOADS[load], connections)
        ours = _ours(engine, load, cores, memory_gib, connections)
        result.append(Case(engine, load, cores, memory_gib, connections, ours, peer, judge(peer)))
    return result


def _sizing_problems(result: SizingResult) -> list[str]:
    problems = []
    if not result.memory.fits:
        problems.append(f"modeled peak {result.memory.peak_bytes} > limit {result.memory.limit_bytes}")
    for name, resources in to_json(result)["resources"].items():
        if resources["requests"] != resources["limits"]:
            problems.append(f"{name}: request {resources['requests']} != limit {resources['limits']}")
    total = result.member_total
    if total.cpu_millicores > result.budget_cpu_millicores:
        problems.append(f"containers use {total.cpu_millicores}m of a {result.budget_cpu_millicores}m budget")
    if total.memory_bytes > result.budget_memory_bytes:
        problems.append(f"containers use {total.memory_bytes} of a {result.budget_memory_bytes} byte budget")
    return problems


def test_grid_is_complete(cases):
    assert len(cases) == len(ENGINES) * len(LOADS) * len(CORES) * len(MEMORY_GIB) * len(CONNECTIONS) == 960


def test_ours_is_a_valid_sizing_or_a_clean_input_error(cases):
    failures = []
    for case in cases:
        if isinstance(case.ours, InputError):
            continue
        if isinstance(case.ours, BaseException):
            failures.append(f"{case}: {type(case.ours).__name__}: {case.ours}")
            continue
        failures.extend(f"{case}: {problem}" for problem in _sizing_problems(case.ours))
    assert not failures, "\n".join(failures)


def test_the_peer_is_safe_somewhere(cases):
    """Guards the next test against passing vacuously: the safety definition must admit some answers."""
    assert sum(case.peer_safety.safe for case in cases) > 0


def _buffer_pool_shortfalls(cases: list[Case]) -> list[str]:
    rows = []
    for case in cases:
        if not case.peer_safety.safe:
            continue
        if not isinstance(case.ours, SizingResult):
            rows.append(f"{case}: we refuse ({case.ours}) a budget the peer serves safely ({case.peer_safety.summary()})")
        elif case.ours.memory.buffer_pool_rounded < case.peer.buffer_pool:
            rows.append(
                f"{case}: our buffer pool {case.ours.memory.buffer_pool_rounded} < peer {case.peer.buffer_pool} "
                f"(ours {case.ours.connections} connections, peer {case.peer.max_connections}; "
                f"peer safe: {case.peer_safety.summary()})"
            )
    return rows


def test_our_buffer_pool_is_at_least_the_peers_wherever_the_peer_is_safe(cases):
    shortfalls = _buffer_pool_shortfalls(cases)
    assert not shortfalls, f"{len(shortfalls)} cases:\n" + "\n".join(shortfalls)
