"""The sizing result as the stable JSON contract other tools read (``--format json``).

Top-level keys: ``input``, ``resources`` (one entry per container instance of the member -> requests/limits,
CPU in millicores and memory in bytes, both ints; the mysqld container is ``mysqld``; a container name that
runs in both pods, ``pmm-client``, is keyed by pod: ``mysqld/pmm-client`` and ``proxy/pmm-client``), ``mysqld``
(my.cnf key -> value exactly as written), ``memory_model`` (``limit_bytes``, ``peak_bytes``, ``terms``),
``brownout_seconds``, ``rules``; and, beside them, ``budget``, ``pods`` (each pod's containers and totals,
and ``member``: the sum of every entry of ``resources``), ``connections`` (mysqld's ``max_connections``, the
``proxies`` and each one's client limit ``per_proxy``, mysqld's own ``service_connections``, what connections cost
under ``idle`` (sessions), ``active`` (running statements' buffers) and ``threads`` (M1, M6), the ``thread_pool`` settings, and each proxy pod's ``proxy_limits``: its
settings, clients and backend connections, T5), ``flow_control``, ``probes`` and ``notes``.
"""

from __future__ import annotations

import math
from dataclasses import asdict
from typing import Any

from .connection_cost import ConnectionCosts
from .connections import service_connections
from .sizing import SizingResult

CONTRACT_KEYS = ("input", "resources", "mysqld", "memory_model", "brownout_seconds", "rules")


def _resources(cpu: int, memory: int) -> dict[str, dict[str, int]]:
    amounts = {"cpu": cpu, "memory": memory}
    return {"requests": dict(amounts), "limits": dict(amounts)}


def instances(result: SizingResult) -> dict[str, tuple[str, str]]:
    """Every container instance of the member: key -> (pod, container name); a name in two pods is keyed by pod."""
    seen: dict[str, int] = {}
    for names in result.pods.values():
        for name in names:
            seen[name] = seen.get(name, 0) + 1
    return {(f"{pod}/{name}" if seen[name] > 1 else name): (pod, name) for pod, names in result.pods.items() for name in names}


def connections_json(result: SizingResult) -> dict[str, Any]:
    """max_connections, what idle and running connections cost, the thread pool, and the proxies' limits."""
    costs: ConnectionCosts = result.memory.connections
    limits = result.proxy_limits
    proxies = result.input.cluster_size
    thread_pool = {
        key: result.mysqld[key]
        for key in ("thread_handling", "thread_pool_size", "thread_pool_oversubscribe", "thread_pool_max_threads")
        if key in result.mysqld
    }
    return {
        "max_connections": result.connections,
        "proxies": proxies,
        "per_proxy": result.proxy_connections,
        "service_connections": service_connections(result.thresholds),
        "idle": {
            "connections": costs.connections,
            "bytes_each": costs.session_bytes,
            "bytes": costs.idle_bytes,
            "term": "connections_idle",
        },
        "active": {
            "statements": costs.active,
            "bytes_each": costs.statement_bytes,
            "bytes": costs.active_bytes,
            "term": "connections_active",
        },
        "threads": {
            "threads": costs.threads,
            "bytes_each": costs.thread_bytes,
            "bytes": costs.thread_total_bytes,
            "term": "connection_threads",
        },
        "thread_pool": thread_pool or None,
        "proxy_limits": {
            "proxy": limits.proxy,
            "settings": dict(limits.settings),
            "client_limit": limits.client_limit,
            "backend_limit": limits.backend_limit,
            "backend_total": proxies * limits.backend_limit,
        },
    }


def to_json(result: SizingResult) -> dict[str, Any]:
    inp = result.input
    given = asdict(inp)
    given["thresholds"] = dict(inp.thresholds)
    given["log_collector"] = inp.log_collector_enabled
    node = None
    if result.node is not None:
        node = {name: value for name, value in asdict(result.node).items() if name != "machine"}
        node["machine"] = result.node.machine.name if hasattr(result.node.machine, "name") else str(result.node.machine)
        node["usable_cpu_millicores"] = result.node.usable_cpu_millicores
        node["usable_memory_bytes"] = result.node.usable_memory_bytes
        node["notes"] = list(result.node.notes)
    pods = {}
    for pod, names in result.pods.items():
        total = result.pod_total(pod)
        pods[pod] = {"containers": list(names), **_resources(total.cpu_millicores, total.memory_bytes)}
    member = result.member_total
    pods["member"] = {"containers": list(instances(result)), **_resources(member.cpu_millicores, member.memory_bytes)}
    brownout = result.brownout_seconds
    return {
        "input": given,
        "budget": {
            "cpu": result.budget_cpu_millicores,
            "memory": result.budget_memory_bytes,
            "source": "explicit" if result.node is None else "node",
            "node": node,
        },
        "resources": {
            key: _resources(result.containers[name].cpu_millicores, result.containers[name].memory_bytes)
            for key, (_, name) in instances(result).items()
        },
        "pods": pods,
        "connections": connections_json(result),
        "mysqld": dict(result.mysqld),
        "memory_model": {
            "limit_bytes": result.memory.limit_bytes,
            "peak_bytes": result.memory.peak_bytes,
            "headroom_bytes": result.memory.headroom_bytes,
            "buffer_pool_unrounded_bytes": result.buffer_pool_raw_bytes,
            "terms": dict(result.memory.terms),
        },
        "brownout_seconds": round(brownout, 3) if math.isfinite(brownout) else None,
        "flow_control": {
            "queue_bound": result.queue_bound,
            "apply_rate_tps": result.apply_rate_tps,
            "assumed_tps_per_applier": result.thresholds["applier_tps_per_worker"],
            "max_brownout_seconds": result.thresholds["max_failover_brownout_seconds"],  # F5: brownout_seconds never exceeds it
            "appliers_counted_at_most": result.thresholds["applier_scaling_max_workers"],
        },
        "probes": {
            component: {kind: probe.as_dict() for kind, probe in kinds.items()} for component, kinds in result.probes.items()
        },
        "rules": {key: list(ids) for key, ids in result.rules.items()},
        "notes": list(result.notes),
    }
