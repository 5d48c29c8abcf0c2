"""Our sizing against the peer calculator on the peer's grid: the issue's "done when", printed.

Grid (tests/peer/grid.py): both engines x four loads x 1/2/4/8/16 cores x 2-64 GiB x connections
0/50/200/1000 = 960 points. Prints the share answered (the rest are clean InputErrors naming the nearest
input), invalid answers, answers over the memory model (M1), our buffer pool against the peer's wherever the
peer's own answer is safe, why it is not safe elsewhere, and our buffer pool against the peer's made to fit our
model (its pool shrunk until its own settings fit its own mysqld limit) for the same explicit connection count. Exits 1 when the issue's bar is not met. Run from the repository
root as a module, so the peer model under tests/ is importable beside the installed library:

    .venv/bin/python -m benchmarks.peer_grid_bench
"""

from __future__ import annotations

import statistics
import time
from collections import Counter

from percona_mysql_k8s.core.errors import InputError

from tests.peer.grid import MIN_ANSWERED, cases, verdict


def main() -> int:
    start = time.perf_counter()
    grid = cases()
    result = verdict(grid)
    seconds = time.perf_counter() - start
    refusals = Counter(f"{case.ours.rule}: --{case.ours.key}" for case in grid if isinstance(case.ours, InputError))
    print(f"points:      {result.total} (peer grid; {seconds:.1f} s for both calculators)")
    print(f"answered:    {result.answered} ({result.answered_share:.1%}; bar >= {MIN_ANSWERED:.0%})")
    print(f"refused:     {result.refused} ({', '.join(f'{key} x{n}' for key, n in refusals.most_common()) or 'none'})")
    print(f"invalid:     {len(result.invalid)}")
    print(f"over model:  {len(result.over_model)} (modeled peak > mysqld limit, M1)")
    print(f"peer safe:   {result.peer_safe} points")
    if result.peer_over_model:
        print(
            f"  elsewhere the peer's own my.cnf is over our model at {len(result.peer_over_model)} points (peak / its "
            f"mysqld limit: median {statistics.median(result.peer_over_model):.2f}, max {max(result.peer_over_model):.2f}): "
            "its buffer pool takes ~80% of the limit and it sets no temptable_max_ram (MySQL 8.0's 1 GiB), "
            "nor room for the page cache or performance_schema (docs/sizing.md §8)"
        )
    if result.pool_ratios:
        print(
            f"buffer pool: ours / peer's where the peer is safe: min {min(result.pool_ratios):.3f}, "
            f"median {statistics.median(result.pool_ratios):.3f}, max {max(result.pool_ratios):.3f}; "
            f"smaller than the peer's at {len(result.shortfalls)} points"
        )
    if result.fitted_ratios:
        print(
            f"buffer pool: ours / peer's made to fit our model (same explicit connections, {len(result.fitted_ratios)} "
            f"points): min {min(result.fitted_ratios):.3f}, median {statistics.median(result.fitted_ratios):.3f}; "
            f"smaller at {len(result.fitted_shortfalls)} points"
        )
    for line in (result.invalid + result.over_model + result.shortfalls + result.fitted_shortfalls)[:20]:
        print(f"  {line}")
    print("done" if result.done else "NOT done")
    return 0 if result.done else 1


if __name__ == "__main__":
    raise SystemExit(main())
