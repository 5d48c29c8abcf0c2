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

    applier_tps_per_worker is seed 002's measurement in transactions (400 sysbench events/s x 4
    autocommitted writes / 32 appliers); it scales linearly only up to the 32 appliers measured
    (applier_scaling_max_workers), so more appliers never shorten the estimate beyond what was seen.
    Zero parallel workers still leaves one applier thread.
    """
    counted = min(max(1, appliers), int(thresholds["applier_scaling_max_workers"]))
    return counted * thresholds["applier_tps_per_worker"]


# group_replication_flow_control_period as F4 sets it (seconds): how often flow control looks at the queues.
GR_FLOW_CONTROL_PERIOD_SECONDS = 1
# gcs.fc_factor's default in Galera 4 (codership/galera gcs/src/gcs_params.cpp GCS_PARAMS_FC_FACTOR_DEFAULT): flow
# control releases as soon as the queue is back under gcs.fc_limit. Sizing writes it; a member that sets none runs it.
GALERA_FC_FACTOR_DEFAULT = 1.0


def gr_overshoot(rate_tps: float, thresholds: Mapping[str, float], period: float = GR_FLOW_CONTROL_PERIOD_SECONDS) -> float:
    """F5: transactions a group replication queue gains past its threshold before flow control reacts.

    Flow control polls the queues once a period (seed 000: a spike "will not even notice ... until the
    next 1 second polling interval"), so for one period the primary commits at up to
    primary_to_applier_rate_ratio times the apply rate while the laggard applies at the apply rate.
    """
    return max(0.0, thresholds["primary_to_applier_rate_ratio"] - 1) * rate_tps * period


def gr_queue_bound(threshold: float, rate_tps: float, thresholds: Mapping[str, float]) -> float:
    """F5: the largest apply queue group replication lets build: the threshold plus one period's overshoot."""
    return threshold + gr_overshoot(rate_tps, thresholds)


def galera_effective_queue(fc_limit: float, cluster_size: int) -> float:
    """G1: Galera scales gcs.fc_limit with the square root of the cluster size (100 -> ~173 on 3)."""
    return fc_limit * math.sqrt(max(1, cluster_size))


def galera_fc_interval(fc_limit: int, fc_factor: float, members: int, single_primary: bool = False) -> tuple[int, int]:
    """G1: the flow-control interval ``(lower, upper)`` Galera computes and logs as ``Flow-control interval: [lo, hi]``.

    codership/galera gcs/src/gcs.cpp ``_set_fc_limits`` (release_26.4.18, 0bc393fb70f7a3462d512b642dd6395b9e8a7325),
    called on every configuration change with the component's member count::

        fn          = fc_single_primary ? 1.0 : sqrt(memb_num)
        upper_limit = fc_base_limit * fn + .5        (stored in a long: truncated, so rounded half up)
        lower_limit = upper_limit * fc_resume_factor + .5

    A member sends FC_STOP when its receive queue grows *past* ``upper`` (``gcs_fc_stop_begin``: queue_len >
    upper_limit + fc_offset) and FC_CONT once it is back at ``lower`` or below (``gcs_fc_cont_begin``).
    """
    if fc_limit < 1 or members < 1 or not 0 <= fc_factor <= 1:
        raise ValueError(f"fc_limit >= 1, members >= 1 and 0 <= fc_factor <= 1 expected, got {fc_limit}, {members}, {fc_factor}")
    scale = 1.0 if single_primary else math.sqrt(members)
    upper = int(fc_limit * scale + 0.5)
    return int(upper * fc_factor + 0.5), upper


def brownout_seconds(queue_bound: float, rate_tps: float) -> float:
    """F5: worst-case write outage after failover ~ queue bound / apply rate.

    Galera's queue bound is gcs.fc_limit scaled by sqrt(size): its flow control is event-driven (a node
    sends a pause as soon as its queue reaches the limit, seed 002), so it has no polling overshoot.
    """
    return math.inf if rate_tps <= 0 else queue_bound / rate_tps


def gr_applier_threshold(rate_tps: float, thresholds: Mapping[str, float]) -> int:
    """F2/F5: the strict threshold, lowered further when the brownout budget, less the overshoot, needs it."""
    by_brownout = math.floor(thresholds["max_failover_brownout_seconds"] * rate_tps - gr_overshoot(rate_tps, thresholds))
    return max(1, min(int(thresholds["strict_applier_threshold"]), int(thresholds["max_applier_threshold"]), by_brownout))


def galera_fc_limit(rate_tps: float, cluster_size: int, thresholds: Mapping[str, float]) -> int:
    """G1/F5: gcs.fc_limit at most max_fc_limit, and small enough that the effective queue drains in budget."""
    by_brownout = math.floor(thresholds["max_failover_brownout_seconds"] * rate_tps / math.sqrt(max(1, cluster_size)))
    return max(1, min(int(thresholds["max_fc_limit"]), by_brownout))


def certification_reserve_bytes(rate_tps: float, queue_bound: float, thresholds: Mapping[str, float]) -> int:
    """M5: certification info a group replication member holds, within [floor, cap].

    Write-sets are garbage-collected once every member has applied them, which the members learn from
    the stable-set broadcast every certification_gc_period_seconds. So the info holds at most one period
    of certified transactions at the rate flow control lets through (the apply rate) plus the apply
    queue a laggard may hold (its bound, F5), each costing certification_bytes_per_transaction.
    """
    transactions = rate_tps * thresholds["certification_gc_period_seconds"] + queue_bound
    raw = math.ceil(transactions * thresholds["certification_bytes_per_transaction"])
    floor, cap = int(thresholds["certification_min_bytes"]), int(thresholds["certification_max_bytes"])
    return max(floor, min(cap, raw))
