"""The sizing result as the stable JSON contract other tools read (``--format json``).

Top-level keys: ``input``, ``resources`` (container -> requests/limits, CPU in millicores and memory in
bytes, both ints; the mysqld container is ``mysqld``), ``mysqld`` (my.cnf key -> value exactly as
written), ``memory_model`` (``limit_bytes``, ``peak_bytes``, ``terms``), ``brownout_seconds``, ``rules``;
and, beside them, ``budget``, ``pods``, ``flow_control``, ``probes`` and ``notes``.
"""

from __future__ import annotations

import math
from dataclasses import asdict
from typing import Any

from .sizing import SizingResult

CONTRACT_KEYS = ("input", "resources", "mysqld", "memory_model", "brownout_seconds", "rules")


def _resources(cpu: int, memory: int) -> dict[str, dict[str, int]]:
    amounts = {"cpu": cpu, "memory": memory}
    return {"requests": dict(amounts), "limits": dict(amounts)}


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
    pods["member"] = {"containers": [], **_resources(member.cpu_millicores, member.memory_bytes)}
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
            name: _resources(size.cpu_millicores, size.memory_bytes) for name, size in result.containers.items()
        },
        "pods": pods,
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
            "appliers_counted_at_most": result.thresholds["applier_scaling_max_workers"],
        },
        "probes": {
            component: {kind: probe.as_dict() for kind, probe in kinds.items()}
            for component, kinds in result.probes.items()
        },
        "rules": {key: list(ids) for key, ids in result.rules.items()},
        "notes": list(result.notes),
    }
