"""Benchmark (not a test): the admission server's latency per review and reviews per second, on loopback over TLS.

The server runs as it runs in a pod (``percona-mysql-admission serve``, a process with its pack processes), without a
cluster (``--no-cluster``: no Node watch, no audit). The client sends AdmissionReviews of a PXC custom resource of the
policy test corpus: the good cluster (admitted) and the same without backups (refused: R1, R2), alternately, over
keep-alive HTTPS connections, as the API server does.

* latency: one review at a time, ``--reviews`` of them; p50 and p99 of the time from request to parsed answer;
* throughput: ``--concurrency`` clients at once, ``--reviews`` in all; reviews answered per second;
* the Node rules' share: the same review judged in process (admission.judge.Judge, one pack) alone and beside
  ``--nodes`` Nodes (three pools), p50 of each.

    python benchmarks/admission_bench.py [--reviews 400] [--concurrency 8] [--workers 2] [--nodes 30]

Goal (issue 35): p99 <= 50 ms for a PXC custom resource, >= 200 reviews/s on two cores. The machine's load average is
printed beside the figures: on a shared machine they move with it.
"""

from __future__ import annotations

import argparse
import os
import ssl
import statistics
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

REPOSITORY = Path(__file__).resolve().parent.parent  # the test tree's corpus and its server helper
sys.path[:0] = [str(REPOSITORY / "tests" / "admission"), str(REPOSITORY / "tests" / "policies"), str(REPOSITORY / "tests")]

from admission_helpers import base, review  # noqa: E402
from server_process import Server  # noqa: E402


def reviews(count: int) -> list[dict]:
    good = base("pxc-backed-up")
    bad = base("pxc")
    return [review(good if index % 2 else bad, uid=f"bench-{index}") for index in range(count)]


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(share * (len(ordered) - 1))))]


def latency(server: Server, bodies: list[dict]) -> list[float]:
    times = []
    with httpx.Client(verify=server.ca, timeout=30) as client:
        for body in bodies:
            started = time.perf_counter()
            client.post(server.url, json=body).json()
            times.append(time.perf_counter() - started)
    return times


def throughput(server: Server, bodies: list[dict], concurrency: int) -> float:
    context = server.ca
    chunks = [bodies[index::concurrency] for index in range(concurrency)]

    def send(chunk: list[dict]) -> int:
        with httpx.Client(verify=context, timeout=60) as client:
            for body in chunk:
                client.post(server.url, json=body).json()
        return len(chunk)

    started = time.perf_counter()
    with ThreadPoolExecutor(concurrency) as pool:
        done = sum(pool.map(send, chunks))
    return done / (time.perf_counter() - started)


def node_share(nodes: int, count: int) -> tuple[float, float]:
    """p50 of one review judged in process alone and beside ``nodes`` Nodes."""
    from percona_mysql_k8s.admission.judge import Judge
    from test_node_pools import node

    cluster = [node(f"db-{i}") for i in range(nodes // 3)]
    cluster += [node(f"mon-{i}", pool="monitoring", taints=()) for i in range(nodes // 3)]
    cluster += [node(f"app-{i}", pool="apps", taints=()) for i in range(nodes - 2 * (nodes // 3))]
    obj = base("pxc-backed-up")
    figures = []
    for nodes_now in ((), tuple(cluster)):
        judge = Judge(nodes=lambda nodes_now=nodes_now: (1, nodes_now))
        try:
            judge.judge(obj)  # warm
            times = []
            for _ in range(count):
                started = time.perf_counter()
                judge.judge(obj)
                times.append(time.perf_counter() - started)
            figures.append(statistics.median(times))
        finally:
            judge.close()
    return figures[0], figures[1]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="admission_bench.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--reviews", type=int, default=400)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--workers", type=int, default=2, help="the server's pack processes")
    parser.add_argument("--nodes", type=int, default=30)
    args = parser.parse_args(argv)
    bodies = reviews(args.reviews)
    with tempfile.TemporaryDirectory() as directory:
        server = Server(Path(directory), mode="enforce", extra=("--no-cluster", "--workers", str(args.workers))).start()
        try:
            latency(server, bodies[:20])  # warm: the packs' first answers, TLS sessions
            times = latency(server, bodies)
            rate = throughput(server, bodies, args.concurrency)
        finally:
            server.stop()
    alone, beside = node_share(args.nodes, 50)
    load = os.getloadavg()
    print(f"admission server on loopback over TLS, {args.workers} pack process(es), {os.cpu_count()} CPUs, load {load[0]:.1f}")
    print(
        f"  latency, one review at a time ({len(times)}): p50 {statistics.median(times) * 1000:.1f} ms, "
        f"p99 {percentile(times, 0.99) * 1000:.1f} ms, max {max(times) * 1000:.1f} ms"
    )
    print(f"  throughput, {args.concurrency} clients: {rate:.0f} reviews/s")
    print(f"  in process, one pack: p50 {alone * 1000:.1f} ms alone, {beside * 1000:.1f} ms beside {args.nodes} Nodes")
    return 0


if __name__ == "__main__":
    ssl.create_default_context()  # fail early on a Python without ssl
    sys.exit(main())
