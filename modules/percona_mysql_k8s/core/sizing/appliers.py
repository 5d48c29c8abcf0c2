"""The appliers sizing gives mysqld, the queue flow control lets build, and the brownout they bound (F2-F6, G1-G3).

The formulas are core/flow_control.py's (the policy pack judges with the same ones); here they are applied to
mysqld's CPU within the ranges mysqld accepts, and the brownout budget (F5) is enforced.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

from .. import flow_control
from ..errors import InputError
from ..memory import GROUP_REPLICATION
from ..rules import MAX_REPLICA_PARALLEL_WORKERS, MAX_WSREP_APPLIER_THREADS
from .inputs import SizingInput


@dataclass(frozen=True)
class GroupReplicationQueue:
    """F2/F3/F6: the parallel appliers, the rate they apply at and the queue threshold it allows."""

    appliers: int
    rate: float
    threshold: int


def gr_queue(cpu: int, thresholds: Mapping[str, float]) -> GroupReplicationQueue:
    appliers = min(MAX_REPLICA_PARALLEL_WORKERS, flow_control.replica_workers(cpu, thresholds))
    rate = flow_control.apply_rate_tps(appliers, thresholds)
    return GroupReplicationQueue(appliers, rate, flow_control.gr_applier_threshold(rate, thresholds))


def galera_appliers(cpu: int, thresholds: Mapping[str, float]) -> int:
    """G3: wsrep_applier_threads from the cores, within its range."""
    return min(MAX_WSREP_APPLIER_THREADS, flow_control.galera_applier_threads(cpu, thresholds))


def check_brownout_budget(
    inp: SizingInput, brownout: float, queue_bound: float, rate: float, thresholds: Mapping[str, float]
) -> None:
    """F5: the smallest queue bound flow control allows (a threshold of 1, and for group replication one
    period's overshoot) must drain within the budget; a budget no setting meets is refused, never exceeded."""
    budget = thresholds["max_failover_brownout_seconds"]
    if brownout <= budget * (1 + 1e-12):  # the chosen bound meets it (up to float rounding of queue / rate)
        return
    if inp.engine == GROUP_REPLICATION:
        why = (
            f"even a flow-control threshold of 1 lets the queue reach {queue_bound:.0f} transactions (one "
            f"period's overshoot at primary_to_applier_rate_ratio {thresholds['primary_to_applier_rate_ratio']:g})"
        )
        fix = "lower primary_to_applier_rate_ratio, or give mysqld more CPU (more appliers)"
    else:
        why = f"even gcs.fc_limit 1 lets {inp.cluster_size} members queue {queue_bound:.1f} write-sets"
        fix = "give mysqld more CPU (more appliers)"
    raise InputError(
        "thresholds",
        f"max_failover_brownout_seconds = {budget:g} s cannot be met: {why}, which the appliers drain at ~{rate:g} tps "
        f"in {brownout:.4g} s; raise max_failover_brownout_seconds to at least {math.ceil(brownout * 1000) / 1000:g}, or {fix}",
        "F5",
    )
