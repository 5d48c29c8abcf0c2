"""The buffer pool's share of the mysqld limit before and after the Galera tier's calibration (issue 29), printed.

"before" sizes with the thread term as it was calibrated at a safety factor of 1.25 (``thread_resident_bytes`` =
390,912 bytes); "after" with the current calibration (1.10, core/calibration.py). Both are the sizing engine's own
answers, the first with that one threshold overridden. Shapes: n2-standard-16 (GKE) and m6i.4xlarge (EKS) with
HAProxy, light OLTP, connections derived, PMM on; the kind stack on a 4-CPU / 16 GiB laptop (its shipped config,
kindHostCpu/kindHostMemory); and the peer calculator's grid (tests/peer/grid.py), where our buffer pool is also
compared with the peer's wherever the peer's own answer is safe. Run from the repository root as a module:

    .venv/bin/python -m benchmarks.buffer_pool_share_bench
"""

from __future__ import annotations

import dataclasses
import statistics

from percona_mysql_k8s.core.calibration import THREAD_RESIDENT_BYTES
from percona_mysql_k8s.core.errors import InputError
from percona_mysql_k8s.core.sizing import SizingInput, SizingResult, size

from tests.peer.grid import CONNECTIONS, CORES, ENGINES, LOADS, MEMORY_GIB, ours
from tests.peer.peer_calculator import GIB, calculate
from tests.peer.safety import judge
from tests.stacks.test_kind_fit import fitted

BEFORE = {"thread_resident_bytes": 390_912}  # 475 KiB x 1.25 - 212 KiB: the calibration issue 21 left


def share(result: SizingResult) -> float:
    return result.memory.terms["buffer_pool"] / result.mysqld_memory_bytes


def shapes() -> dict[str, SizingInput]:
    cloud = {"load": "light-oltp", "proxy": "haproxy"}
    inputs = {
        f"n2-standard-16 (gke) {engine}": SizingInput(engine=engine, node_type="n2-standard-16", provider="gke", **cloud)
        for engine in ENGINES
    }
    inputs |= {
        f"m6i.4xlarge (eks) {engine}": SizingInput(engine=engine, node_type="m6i.4xlarge", provider="eks", **cloud)
        for engine in ENGINES
    }
    inputs["kind, 4 CPU / 16 GiB laptop, pxc"] = fitted(4, "16Gi").sizing.input
    return inputs


def grid() -> tuple[list[tuple[float, float]], list[tuple[float, float]]]:
    """(before, after) shares over every answered grid point; (before, after) ours / peer's where the peer is safe."""
    shares, against_peer = [], []
    for engine in ENGINES:
        for load in LOADS:
            for cores in CORES:
                for memory_gib in MEMORY_GIB:
                    for connections in CONNECTIONS:
                        after = ours(engine, load, cores, memory_gib, connections)
                        if isinstance(after, BaseException):
                            continue
                        before = size(dataclasses.replace(after.input, thresholds=BEFORE))
                        shares.append((share(before), share(after)))
                        peer = calculate(ENGINES[engine], cores * 1000, memory_gib * GIB, LOADS[load], connections)
                        if judge(peer).safe:
                            pool = peer.buffer_pool
                            against_peer.append(
                                (before.memory.buffer_pool_rounded / pool, after.memory.buffer_pool_rounded / pool)
                            )
    return shares, against_peer


def main() -> int:
    print(f"thread_resident_bytes: before {BEFORE['thread_resident_bytes']:,} B, after {THREAD_RESIDENT_BYTES:,} B")
    print(f"{'shape':<42}{'before':>9}{'after':>9}{'gain':>12}")
    for name, inp in shapes().items():
        try:
            after = size(inp)
            before = size(dataclasses.replace(inp, thresholds={**inp.thresholds, **BEFORE}))
        except InputError as error:
            print(f"{name:<42} refused: {error}")
            continue
        gain = (after.memory.terms["buffer_pool"] - before.memory.terms["buffer_pool"]) / 2**20
        print(f"{name:<42}{share(before):>9.1%}{share(after):>9.1%}{gain:>9,.0f} MiB")
    shares, against_peer = grid()
    for label, index in (("before", 0), ("after", 1)):
        values = [pair[index] for pair in shares]
        print(
            f"peer grid ({len(values)} answered points), {label}: buffer pool / mysqld limit min {min(values):.1%}, "
            f"median {statistics.median(values):.1%}, max {max(values):.1%}"
        )
    for label, index in (("before", 0), ("after", 1)):
        values = [pair[index] for pair in against_peer]
        print(
            f"ours / peer's buffer pool where the peer is safe ({len(values)} points), {label}: min {min(values):.3f}, "
            f"median {statistics.median(values):.3f}; smaller at {sum(v < 1 for v in values)} points"
        )
    return 0 if all(after >= 1 for _, after in against_peer) else 1


if __name__ == "__main__":
    raise SystemExit(main())
