"""Benchmark (not a test): resources analyzed per second by the policy pack over gRPC.

The pack is started the way the engine starts it (policies._engine.Pack) and fed a stack-like mix of
resources: for every database cluster a realistic share of small Kubernetes objects (Namespace,
Secrets, ServiceAccount, ConfigMap, Services), plus node pools, Helm releases, PXC and PS custom
resources and sysbench Jobs. It reports Analyze calls per second sequentially and with the engine's
kind of concurrency (several calls in flight), and the time of one AnalyzeStack over all of them.

    python benchmarks/policy_bench.py [--resources 2000] [--concurrency 8] [--stock]

``--stock`` runs the SDK's servicer without the shared deserialization (policies._sdk) for comparison.
Target: >= 1,000 resources/s.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPOSITORY))

from policies._engine import Pack, Resource, analyze_request  # noqa: E402

BASES = REPOSITORY / "tests" / "policies" / "_bases"


def _base(name: str) -> dict:
    return json.loads((BASES / f"{name}.json").read_text())


def stack_mix(count: int) -> list[Resource]:
    heavy = [_base(name) for name in ("pxc", "ps-gr", "sysbench-job", "gke-database-pool", "gke-monitoring-pool")]
    heavy.append({"type": "kubernetes:helm.sh/v3:Release", "name": "pmm", "props": {"chart": "pmm", "values": {"nodeSelector": {"mysql.percona.com/pool": "monitoring"}}}})
    heavy.append({"type": "kubernetes:helm.sh/v3:Release", "name": "operator", "props": {"chart": "pxc-operator", "version": "1.20.0", "values": {}}})
    light = [
        {"type": "kubernetes:core/v1:Namespace", "name": "db", "props": {"metadata": {"name": "db"}}},
        {"type": "kubernetes:core/v1:Secret", "name": "secrets", "props": {"metadata": {"name": "shop-secrets"}, "stringData": {"root": "x", "monitor": "y"}}},
        {"type": "kubernetes:core/v1:ServiceAccount", "name": "sa", "props": {"metadata": {"name": "sysbench"}}},
        {"type": "kubernetes:core/v1:ConfigMap", "name": "cm", "props": {"metadata": {"name": "scripts"}, "data": {"run.sh": "sysbench run"}}},
        {"type": "kubernetes:core/v1:Service", "name": "svc", "props": {"metadata": {"name": "pmm"}, "spec": {"type": "ClusterIP", "ports": [{"port": 443}]}}},
        {"type": "random:index/randomPassword:RandomPassword", "name": "root", "props": {"length": 20, "special": False}},
        {"type": "pulumi:providers:kubernetes", "name": "k8s", "props": {"kubeconfig": "{}"}},
    ]
    mix = []
    while len(mix) < count:
        for entry in heavy + light * 2:
            index = len(mix)
            mix.append(Resource(urn=f"urn:pulumi:bench::p::{entry['type']}::{entry['name']}-{index}", type=entry["type"],
                                name=f"{entry['name']}-{index}", properties=entry["props"]))
    return mix[:count]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--resources", type=int, default=2000)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--stock", action="store_true", help="without policies._sdk's shared deserialization")
    args = parser.parse_args()
    if args.stock:
        os.environ["PERCONA_POLICY_SHARED_DESERIALIZATION"] = "0"
    resources = stack_mix(args.resources)
    requests = [analyze_request(resource) for resource in resources]
    with Pack(stack="bench") as pack:
        policies = len(pack.info().policies)
        for request in requests[:50]:  # warm up
            pack.stub.Analyze(request)
        start = time.perf_counter()
        for request in requests:
            pack.stub.Analyze(request)
        sequential = len(requests) / (time.perf_counter() - start)
        start = time.perf_counter()
        with ThreadPoolExecutor(args.concurrency) as pool:
            list(pool.map(pack.stub.Analyze, requests))
        concurrent = len(requests) / (time.perf_counter() - start)
        start = time.perf_counter()
        pack.analyze_stack(resources[:500])
        stack_seconds = time.perf_counter() - start
    mode = "stock SDK servicer" if args.stock else "shared deserialization"
    print(f"{policies} policies, {len(resources)} resources (stack-like mix), {mode}")
    print(f"Analyze over gRPC, sequential:        {sequential:8.0f} resources/s")
    print(f"Analyze over gRPC, {args.concurrency} in flight:        {concurrent:8.0f} resources/s")
    print(f"AnalyzeStack over 500 resources:      {stack_seconds:8.2f} s")


if __name__ == "__main__":
    main()
