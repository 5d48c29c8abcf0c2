"""Sizings per second of the engine over a budget grid, in one process.

Grid: both engines x the four loads x 1..16 cores x 2..64 GiB (every whole GiB) x connections 0
(derived, M6) and 100. Errors (InputError for budgets that cannot hold a member) are counted as
sizings: answering "no" is part of the work. Run from the repository root:

    .venv/bin/python benchmarks/sizing_bench.py
"""

from __future__ import annotations

import itertools
import time

from percona_mysql_k8s.core.errors import InputError
from percona_mysql_k8s.core.memory import ENGINES
from percona_mysql_k8s.core.profiles import LOADS
from percona_mysql_k8s.core.sizing import SizingInput, size
from percona_mysql_k8s.core.units import GIB

CORES = range(1, 17)
MEMORY_GIB = range(2, 65)
CONNECTIONS = (0, 100)


def grid() -> list[SizingInput]:
    return [
        SizingInput(engine=engine, load=load, cpu_millicores=cores * 1000, memory_bytes=gib * GIB, connections=connections)
        for engine, load, cores, gib, connections in itertools.product(ENGINES, LOADS, CORES, MEMORY_GIB, CONNECTIONS)
    ]


def run(inputs: list[SizingInput]) -> tuple[float, int, dict[int, int]]:
    """(seconds, errors, errors by connection setting) for one pass over ``inputs``."""
    errors = 0
    errors_by_connections = dict.fromkeys(CONNECTIONS, 0)
    start = time.perf_counter()
    for inp in inputs:
        try:
            size(inp)
        except InputError:
            errors += 1
            errors_by_connections[inp.connections] += 1
    return time.perf_counter() - start, errors, errors_by_connections


def main() -> int:
    inputs = grid()
    seconds, errors, by_connections = run(inputs)
    print(
        f"sizings:  {len(inputs)} ({len(ENGINES)} engines x {len(LOADS)} loads x {len(CORES)} core counts "
        f"x {len(MEMORY_GIB)} memory sizes x connections {'/'.join(map(str, CONNECTIONS))})"
    )
    print(f"elapsed:  {seconds:.2f} s")
    print(f"rate:     {len(inputs) / seconds:,.0f} sizings/s (single process)")
    print(f"errors:   {errors} InputError ({', '.join(f'connections={c}: {n}' for c, n in by_connections.items())})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
