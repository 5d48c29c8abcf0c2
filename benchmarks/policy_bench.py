"""Benchmark (not a test): resources analyzed per second by the policy pack over gRPC.

The pack is started the way the engine starts it (percona_mysql_k8s.cli.engine.Pack) and fed a stack-like mix of
resources: for every database cluster a realistic share of small Kubernetes objects (Namespace,
Secrets, ServiceAccount, ConfigMap, Services), plus node pools, Helm releases, PXC and PS custom
resources and sysbench Jobs. It reports Analyze calls per second sequentially and with the engine's
kind of concurrency (several calls in flight), and the time of one AnalyzeStack over all of them.

    python benchmarks/policy_bench.py [--resources 2000] [--concurrency 8] [--repeat 5] [--stock]

Target: >= 1,000 resources/s. Requests are serialized before the clock starts and answers are not
parsed (the engine does that work, in Go); each figure is the median of ``--repeat`` rounds, as this
kind of machine is noisy. ``--stock`` runs the SDK as shipped (no percona_mysql_k8s.policies._sdk, ._fastpath or ._server)
for comparison. Two more figures separate the pack's own cost from the transport: the same requests
through the SDK's servicer in this process (no gRPC), and the round trips per second of a request no
policy reads (gRPC and the SDK's fixed cost; the client here is Python and shares the cores).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from percona_mysql_k8s.cli.engine import Pack, Resource, analyze_request
from pulumi.runtime.proto import analyzer_pb2

REPOSITORY = Path(__file__).resolve().parent.parent  # the test tree's resource bases, not the package
BASES = REPOSITORY / "tests" / "policies" / "_bases"


def _base(name: str) -> dict:
    return json.loads((BASES / f"{name}.json").read_text())


def stack_mix(count: int) -> list[Resource]:
    heavy = [_base(name) for name in ("pxc", "ps-gr", "sysbench-job", "gke-database-pool", "gke-monitoring-pool")]
    heavy.append(
        {
            "type": "kubernetes:helm.sh/v3:Release",
            "name": "pmm",
            "props": {"chart": "pmm", "values": {"nodeSelector": {"mysql.percona.com/pool": "monitoring"}}},
        }
    )
    heavy.append(
        {
            "type": "kubernetes:helm.sh/v3:Release",
            "name": "operator",
            "props": {"chart": "pxc-operator", "version": "1.20.0", "values": {}},
        }
    )
    light = [
        {"type": "kubernetes:core/v1:Namespace", "name": "db", "props": {"metadata": {"name": "db"}}},
        {
            "type": "kubernetes:core/v1:Secret",
            "name": "secrets",
            "props": {"metadata": {"name": "shop-secrets"}, "stringData": {"root": "x", "monitor": "y"}},
        },
        {"type": "kubernetes:core/v1:ServiceAccount", "name": "sa", "props": {"metadata": {"name": "sysbench"}}},
        {
            "type": "kubernetes:core/v1:ConfigMap",
            "name": "cm",
            "props": {"metadata": {"name": "scripts"}, "data": {"run.sh": "sysbench run"}},
        },
        {
            "type": "kubernetes:core/v1:Service",
            "name": "svc",
            "props": {"metadata": {"name": "pmm"}, "spec": {"type": "ClusterIP", "ports": [{"port": 443}]}},
        },
        {"type": "random:index/randomPassword:RandomPassword", "name": "root", "props": {"length": 20, "special": False}},
        {"type": "pulumi:providers:kubernetes", "name": "k8s", "props": {"kubeconfig": "{}"}},
    ]
    mix = []
    while len(mix) < count:
        for entry in heavy + light * 2:
            index = len(mix)
            mix.append(
                Resource(
                    urn=f"urn:pulumi:bench::p::{entry['type']}::{entry['name']}-{index}",
                    type=entry["type"],
                    name=f"{entry['name']}-{index}",
                    properties=entry["props"],
                )
            )
    return mix[:count]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--resources", type=int, default=2000)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--repeat", type=int, default=5, help="rounds per figure; the median is printed")
    parser.add_argument(
        "--stock",
        action="store_true",
        help="the SDK as shipped: no shared deserialization (._sdk), no fast calls (._fastpath), its thread-pool server",
    )
    args = parser.parse_args()
    if args.stock:
        os.environ["PERCONA_POLICY_SHARED_DESERIALIZATION"] = "0"
        os.environ["PERCONA_POLICY_LEAN_SERVER"] = "0"
        os.environ["PERCONA_POLICY_FAST_CALLS"] = "0"
    resources = stack_mix(args.resources)
    requests = [analyze_request(resource) for resource in resources]
    # Serialized up front and answers left unparsed: marshalling is the engine's work, done in Go.
    payloads = [request.SerializeToString() for request in requests]
    untouched = analyzer_pb2.AnalyzeRequest(
        type="pulumi:providers:random", name="r", urn="urn:pulumi:bench::p::pulumi:providers:random::r"
    ).SerializeToString()
    with Pack(stack="bench") as pack:
        policies = len(pack.info().policies)
        analyze = pack.channel.unary_unary("/pulumirpc.Analyzer/Analyze")  # bytes in, bytes out
        for payload in payloads[:50]:  # warm up
            analyze(payload)

        def sequential() -> float:
            start = time.perf_counter()
            for payload in payloads:
                analyze(payload)
            return len(payloads) / (time.perf_counter() - start)

        def in_flight() -> float:
            start = time.perf_counter()
            with ThreadPoolExecutor(args.concurrency) as pool:
                list(pool.map(analyze, payloads))
            return len(payloads) / (time.perf_counter() - start)

        def round_trips() -> float:
            start = time.perf_counter()
            for _ in range(1000):
                analyze(untouched)
            return 1000 / (time.perf_counter() - start)

        figures = {
            name: statistics.median(measure() for _ in range(args.repeat))
            for name, measure in (("sequential", sequential), ("in_flight", in_flight), ("round_trips", round_trips))
        }
        start = time.perf_counter()
        pack.analyze_stack(resources[:500])
        stack_seconds = time.perf_counter() - start
    in_process = statistics.median(_in_process(requests) for _ in range(args.repeat))
    mode = "the SDK as shipped (--stock)" if args.stock else "shared deserialization, fast calls, lean server"
    print(f"{policies} policies, {len(resources)} resources (stack-like mix), {mode}; medians of {args.repeat} rounds")
    print(f"Analyze over gRPC, sequential:        {figures['sequential']:8.0f} resources/s")
    print(f"Analyze over gRPC, {args.concurrency} in flight:        {figures['in_flight']:8.0f} resources/s")
    print(f"AnalyzeStack over 500 resources:      {stack_seconds:8.2f} s")
    print(f"the pack's own cost, in process:      {in_process:8.0f} resources/s (the SDK servicer, no gRPC)")
    print(f"gRPC round trips, no policy reads it: {figures['round_trips']:8.0f} /s (the transport's ceiling here)")


def _in_process(requests) -> float:
    """Analyze through the SDK's servicer in this process: what the policies cost without transport."""
    from percona_mysql_k8s.policies._catalog import ALL_POLICIES
    from percona_mysql_k8s.policies._sdk import share_deserialization
    from pulumi_policy import policy as sdk

    share_deserialization()
    servicer = sdk._PolicyAnalyzerServicer("bench", "0", ALL_POLICIES, sdk.EnforcementLevel.ADVISORY)
    for request in requests[:50]:
        servicer.Analyze(request, None)
    start = time.perf_counter()
    for request in requests:
        servicer.Analyze(request, None)
    return len(requests) / (time.perf_counter() - start)


if __name__ == "__main__":
    main()
