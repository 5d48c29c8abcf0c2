"""The peer's grid and the verdict on it, shared by tests/peer/test_against_peer.py and benchmarks/peer_grid_bench.py.

Grid: both engines x four loads x 1, 2, 4, 8, 16 cores x 2-64 GiB x connections 0 (derived), 50, 200, 1000:
960 points, each sized by the peer model (``peer_calculator.calculate``) and by ours (HAProxy, PMM on, no
log collector: the peer has none). The verdict counts answered points, invalid answers (a crash, a
request != limit, containers over the budget), answers over the memory model (M1), and, wherever the
peer's own answer is safe (``safety.judge``), points where our buffer pool is smaller than the peer's. Because the
peer's own answer overflows our model at most points, the verdict also compares our buffer pool with the peer's made
to fit (``safety.fitted_pool``: its settings and split kept, its pool shrunk until M1 holds) wherever both are asked
the same explicit connection count.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from percona_mysql_k8s.core.errors import InputError
from percona_mysql_k8s.core.report import to_json
from percona_mysql_k8s.core.sizing import SizingInput, SizingResult, size

from .peer_calculator import GIB, PeerAnswer, calculate
from .safety import Safety, fitted_pool, judge

CORES = (1, 2, 4, 8, 16)
MEMORY_GIB = (2, 4, 8, 16, 32, 64)
ENGINES = {"pxc": "pxc", "group-replication": "group_replication"}  # ours -> the peer's dbtype
LOADS = {"read-heavy": 1, "light-oltp": 2, "heavy-oltp": 3, "write-heavy": 4}  # ours -> the peer's load id
CONNECTIONS = (0, 50, 200, 1000)
# The "done when": at least 95% answered, none invalid, none over the model, and our buffer pool
# at least the peer's wherever the peer is safe.
MIN_ANSWERED = 0.95


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
    peer_fitted_pool: int | None  # the peer's buffer pool shrunk until its own settings fit our model (M1)

    def __str__(self) -> str:
        return f"{self.engine}/{self.load} {self.cores} cores {self.memory_gib} GiB connections={self.connections}"


def ours(engine: str, load: str, cores: int, memory_gib: int, connections: int):
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
    except BaseException as error:  # noqa: BLE001 - recorded and judged, not raised here
        return error


def cases() -> list[Case]:
    result = []
    for engine, load, cores, memory_gib, connections in itertools.product(ENGINES, LOADS, CORES, MEMORY_GIB, CONNECTIONS):
        peer = calculate(ENGINES[engine], cores * 1000, memory_gib * GIB, LOADS[load], connections)
        answer = ours(engine, load, cores, memory_gib, connections)
        result.append(Case(engine, load, cores, memory_gib, connections, answer, peer, judge(peer), fitted_pool(peer)))
    return result


def invalid(result: SizingResult) -> list[str]:
    """What makes an answer invalid, besides the memory model (``over_model``)."""
    problems = []
    for name, resources in to_json(result)["resources"].items():
        if resources["requests"] != resources["limits"]:
            problems.append(f"{name}: request {resources['requests']} != limit {resources['limits']}")
    total = result.member_total
    if total.cpu_millicores > result.budget_cpu_millicores:
        problems.append(f"containers use {total.cpu_millicores}m of a {result.budget_cpu_millicores}m budget")
    if total.memory_bytes > result.budget_memory_bytes:
        problems.append(f"containers use {total.memory_bytes} of a {result.budget_memory_bytes} byte budget")
    return problems


def over_model(result: SizingResult) -> bool:
    return not result.memory.fits


def shortfall(case: Case) -> str | None:
    """Where the peer is safe and we give a smaller buffer pool (or refuse), why; else None."""
    if not case.peer_safety.safe:
        return None
    if not isinstance(case.ours, SizingResult):
        return f"{case}: we refuse ({case.ours}) a budget the peer serves safely ({case.peer_safety.summary()})"
    if case.ours.memory.buffer_pool_rounded < case.peer.buffer_pool:
        return (
            f"{case}: our buffer pool {case.ours.memory.buffer_pool_rounded} < peer {case.peer.buffer_pool} "
            f"(ours {case.ours.connections} connections, peer {case.peer.max_connections}; "
            f"peer safe: {case.peer_safety.summary()})"
        )
    return None


@dataclass(frozen=True)
class Verdict:
    total: int
    answered: int
    refused: int
    invalid: list[str]
    over_model: list[str]
    peer_safe: int
    shortfalls: list[str]
    pool_ratios: list[float]  # ours / peer's buffer pool wherever the peer is safe and we answer
    peer_over_model: list[float]  # the peer's modelled peak / its mysqld limit, wherever it exceeds the limit
    fitted_ratios: list[float]  # ours / the peer's pool made to fit, wherever both answer for the same connections
    fitted_shortfalls: list[str]  # where ours is smaller than the peer's pool made to fit

    @property
    def answered_share(self) -> float:
        return self.answered / self.total

    @property
    def done(self) -> bool:
        return (
            self.answered_share >= MIN_ANSWERED
            and not self.invalid
            and not self.over_model
            and not self.shortfalls
            and not self.fitted_shortfalls
        )


def verdict(grid: list[Case]) -> Verdict:
    answered = refused = peer_safe = 0
    bad, over, short, ratios = [], [], [], []
    peer_over, fitted, fitted_short = [], [], []
    for case in grid:
        if isinstance(case.ours, SizingResult):
            answered += 1
            bad.extend(f"{case}: {problem}" for problem in invalid(case.ours))
            if over_model(case.ours):
                over.append(f"{case}: modeled peak {case.ours.memory.peak_bytes} > limit {case.ours.memory.limit_bytes}")
        elif isinstance(case.ours, InputError):
            refused += 1
        else:
            bad.append(f"{case}: {type(case.ours).__name__}: {case.ours}")
        if case.peer_safety.safe:
            peer_safe += 1
            if isinstance(case.ours, SizingResult):
                ratios.append(case.ours.memory.buffer_pool_rounded / case.peer.buffer_pool)
        problem = shortfall(case)
        if problem:
            short.append(problem)
        model = case.peer_safety.memory
        if model is not None and not model.fits:
            peer_over.append(model.peak_bytes / model.limit_bytes)
        # the same explicit connection count asked of both: the peer's pool made to fit our model against ours
        if isinstance(case.ours, SizingResult) and case.peer_fitted_pool and case.connections:
            fitted.append(case.ours.memory.buffer_pool_rounded / case.peer_fitted_pool)
            if case.ours.memory.buffer_pool_rounded < case.peer_fitted_pool:
                fitted_short.append(
                    f"{case}: our buffer pool {case.ours.memory.buffer_pool_rounded} < the peer's made "
                    f"to fit {case.peer_fitted_pool}"
                )
    return Verdict(len(grid), answered, refused, bad, over, peer_safe, short, ratios, peer_over, fitted, fitted_short)
