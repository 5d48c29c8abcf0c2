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
import copy
import json
import os
import signal
import socket
import ssl
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
from percona_mysql_k8s.admission import tls

REPOSITORY = Path(__file__).resolve().parent.parent  # the test tree's resource bases, not the package
BASES = REPOSITORY / "tests" / "policies" / "_bases"


def _merge(base, patch):
    """``patch`` over ``base`` as the corpus' cases merge them (tests/policies/harness.py: null deletes a key)."""
    if isinstance(base, dict) and isinstance(patch, dict):
        merged = dict(base)
        for key, value in patch.items():
            if value is None:
                merged.pop(key, None)
            else:
                merged[key] = _merge(base.get(key), value)
        return merged
    return copy.deepcopy(patch)


def base(name: str) -> dict:
    entry = json.loads((BASES / f"{name}.json").read_text())
    if "base" in entry:
        return _merge(base(entry["base"]), entry.get("patch") or {})
    return entry["props"]


def review(obj: dict, uid: str) -> dict:
    metadata = obj["metadata"]
    return {
        "apiVersion": "admission.k8s.io/v1",
        "kind": "AdmissionReview",
        "request": {
            "uid": uid,
            "kind": {"group": "pxc.percona.com", "version": "v1", "kind": obj["kind"]},
            "operation": "CREATE",
            "namespace": metadata.get("namespace", "db"),
            "name": metadata["name"],
            "object": obj,
        },
    }


def reviews(count: int) -> list[dict]:
    good = base("pxc-backed-up")
    bad = base("pxc")
    return [review(good if index % 2 else bad, f"bench-{index}") for index in range(count)]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Server:
    """``percona-mysql-admission serve --no-cluster`` on 127.0.0.1 with a certificate for that address."""

    def __init__(self, directory: Path, workers: int):
        self.tls_dir = directory / "tls"
        tls.kept(self.tls_dir, ["localhost"], ["127.0.0.1"])
        self.port = _free_port()
        self.url = f"https://127.0.0.1:{self.port}/validate"
        self.ca = ssl.create_default_context(cafile=str(self.tls_dir / "ca.crt"))
        command = [sys.executable, "-m", "percona_mysql_k8s.admission", "serve", "--mode", "enforce", "--no-cluster"]
        command += ["--host", "127.0.0.1", "--port", str(self.port), "--metrics-port", "0", "--workers", str(workers)]
        command += ["--cert", str(self.tls_dir / "tls.crt"), "--key", str(self.tls_dir / "tls.key")]
        self.process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"https://127.0.0.1:{self.port}/readyz", verify=self.ca, timeout=2).status_code == 200:
                    return
            except httpx.HTTPError:
                time.sleep(0.2)
        self.stop()
        raise TimeoutError("the admission server was not ready in 60 s")

    def stop(self) -> None:
        self.process.send_signal(signal.SIGTERM)
        self.process.wait(30)


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


def _node(name: str, pool: str, tainted: bool) -> dict:
    taints = [{"key": "mysql.percona.com/pool", "value": pool, "effect": "NoSchedule"}] if tainted else []
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": {"mysql.percona.com/pool": pool, "kubernetes.io/hostname": name}},
        "spec": {"taints": taints},
        "status": {
            "allocatable": {"cpu": "7910m", "memory": "28Gi", "pods": "110"},
            "conditions": [{"type": "Ready", "status": "True"}],
        },
    }


def node_share(nodes: int, count: int) -> tuple[float, float]:
    """p50 of one review judged in process alone and beside ``nodes`` Nodes."""
    from percona_mysql_k8s.admission.judge import Judge

    cluster = [_node(f"db-{i}", "database", True) for i in range(nodes // 3)]
    cluster += [_node(f"mon-{i}", "monitoring", False) for i in range(nodes // 3)]
    cluster += [_node(f"app-{i}", "apps", False) for i in range(nodes - 2 * (nodes // 3))]
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
        server = Server(Path(directory), args.workers)
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
    sys.exit(main())
