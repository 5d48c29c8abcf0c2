"""Replication flow control and the failover brownout (rules F2-F6, G1-G3).

The same functions choose values in sizing and judge values in the policy pack.
"""

from __future__ import annotations

import math
from collections.abc import Mapping


def replica_workers(cpu_millicores: int, thresholds: Mapping[str, float]) -> int:
    """F6: ~2.5 parallel applier workers per mysqld core (14000m -> 35), never more.

    Below 0.4 core that rounds to 0: the applier then runs single-threaded, which mysqld allows.
    """
    return math.floor(cpu_millicores / 1000 * thresholds["replica_workers_per_core"])


def max_replica_workers(cpu_millicores: int, thresholds: Mapping[str, float]) -> float:
    """F6: more workers than this is rejected."""
    return cpu_millicores / 1000 * thresholds["replica_workers_per_core"]


def galera_applier_threads(cpu_millicores: int, thresholds: Mapping[str, float]) -> int:
    """G3: wsrep_applier_threads from the cores (seed 002: 64 was best on 16 vCPU)."""
    return max(2, math.floor(cpu_millicores / 1000 * thresholds["galera_applier_threads_per_core"]))


def apply_rate_tps(appliers: int, thresholds: Mapping[str, float]) -> float:
    """F5: the apply rate the brownout estimate assumes (transactions per second).

    Zero parallel workers still leaves one applier thread.
    """
    return max(1, appliers) * thresholds["applier_tps_per_worker"]


def galera_effective_queue(fc_limit: float, cluster_size: int) -> float:
    """G1: Galera scales gcs.fc_limit with the square root of the cluster size (100 -> ~173 on 3)."""
    return fc_limit * math.sqrt(max(1, cluster_size))


def brownout_seconds(queue_bound: float, rate_tps: float) -> float:
    """F5: worst-case write outage after failover ~ queue bound / apply rate."""
    return math.inf if rate_tps <= 0 else queue_bound / rate_tps


def gr_applier_threshold(rate_tps: float, thresholds: Mapping[str, float]) -> int:
    """F2/F5: the strict threshold, lowered further when the brownout budget needs it."""
    by_brownout = math.floor(thresholds["max_failover_brownout_seconds"] * rate_tps)
    return max(1, min(int(thresholds["strict_applier_threshold"]), int(thresholds["max_applier_threshold"]), by_brownout))


def galera_fc_limit(rate_tps: float, cluster_size: int, thresholds: Mapping[str, float]) -> int:
    """G1/F5: gcs.fc_limit at most max_fc_limit, and small enough that the effective queue drains in budget."""
    by_brownout = math.floor(thresholds["max_failover_brownout_seconds"] * rate_tps / math.sqrt(max(1, cluster_size)))
    return max(1, min(int(thresholds["max_fc_limit"]), by_brownout))
