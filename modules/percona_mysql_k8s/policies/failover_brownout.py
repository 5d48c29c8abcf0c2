"""F5: the estimated write outage after a failover stays within max_failover_brownout_seconds.

A new primary refuses writes until its apply queue drains, so the worst case is the queue bound divided
by the apply rate (percona_mysql_k8s.core.flow_control.brownout_seconds). Group replication: the bound is the larger
of the applier and certifier thresholds plus the overshoot of one flow-control period
(flow_control.gr_queue_bound), the rate replica_parallel_workers x applier_tps_per_worker (at most
applier_scaling_max_workers counted).
Galera: the bound is gcs.fc_limit scaled by sqrt(cluster size) (unless gcs.fc_single_primary), the rate
wsrep_applier_threads x applier_tps_per_worker. Server defaults apply to unset options.
"""

from __future__ import annotations

import math

from percona_mysql_k8s.core import flow_control
from percona_mysql_k8s.core.memory import GROUP_REPLICATION, PXC
from percona_mysql_k8s.core.mycnf import PROVIDER_OPTIONS

from ._framework import Context, Spec, resource_policy
from ._readers.flow import (
    APPLIER_THRESHOLD,
    CERTIFIER_THRESHOLD,
    GALERA_FC_LIMIT_DEFAULT,
    galera_appliers,
    galera_queue_bound,
    gr_appliers,
    gr_thresholds,
    mysqld_cpu,
    provider_number,
)
from ._subjects import database, database_types

SPEC = Spec(
    name="failover-brownout",
    rules=("F5",),
    applies_to=database_types,
    description="the estimated write outage after a failover (queue bound / apply rate) is at most max_failover_brownout_seconds",
    thresholds=(
        "max_failover_brownout_seconds",
        "applier_tps_per_worker",
        "applier_scaling_max_workers",
        "primary_to_applier_rate_ratio",
        "strict_applier_threshold",
        "max_applier_threshold",
        "max_fc_limit",
        "replica_workers_per_core",
        "galera_applier_threads_per_core",
    ),
    remediation="Lower the queue bound (group replication thresholds, gcs.fc_limit) or raise the appliers, "
    "to the values python -m percona_mysql_k8s.sizing reports.",
)


def _or_more_appliers(view, count: int, option: str, sized, rule: str) -> str:
    """The other fix, where the appliers are fewer than sizing gives the mysqld cores (``sized``: cores -> count)."""
    cpu = mysqld_cpu(view)
    wanted = sized(cpu) if cpu else 0
    return f", or raise {option} to {wanted} (sizing's value for {cpu}m, {rule})" if wanted > count else ""


def check(ctx: Context) -> None:
    view = database(ctx, "F5")
    if view is None:
        return
    limit = ctx["max_failover_brownout_seconds"]
    th = ctx.thresholds
    with ctx.checking("F5"):
        kind = view.cluster_type()
        where = view.path(view.config_rel)
        if kind == GROUP_REPLICATION:
            applier, certifier, _, _ = gr_thresholds(view)
            threshold = max(applier, certifier)
            appliers = gr_appliers(view)
            rate = flow_control.apply_rate_tps(appliers.count, th)
            queue = flow_control.gr_queue_bound(threshold, rate, th)
            brownout = flow_control.brownout_seconds(queue, rate)
            if brownout > limit:
                bound = max(1, math.floor(limit * rate - flow_control.gr_overshoot(rate, th)))
                chosen = flow_control.gr_applier_threshold(rate, th)
                more = _or_more_appliers(
                    view, appliers.count, "replica_parallel_workers", lambda cpu: flow_control.replica_workers(cpu, th), "F6"
                )
                fits = (
                    f"set both thresholds to {chosen} (sizing's value; at most {bound} fits the budget)"
                    if limit * rate - flow_control.gr_overshoot(rate, th) >= 1
                    else f"no threshold fits: one flow-control period's overshoot alone drains in "
                    f"{flow_control.gr_overshoot(rate, th) / rate:g} s; raise max_failover_brownout_seconds or the appliers"
                )
                ctx.violation(
                    "F5",
                    f"{where} bounds the apply queue at {threshold} transactions ({APPLIER_THRESHOLD}/{CERTIFIER_THRESHOLD}), "
                    f"{queue:.0f} with one flow-control period's overshoot, "
                    f"with {appliers.source} applying ~{rate:g} tps: an estimated failover brownout of {brownout:.0f} s",
                    f"the rule allows at most {limit:g} s (config max_failover_brownout_seconds)",
                    f"{fits}{more}",
                    field=view.config_field(APPLIER_THRESHOLD, CERTIFIER_THRESHOLD),
                )
        elif kind == PXC:
            fc_limit = provider_number(view, "gcs.fc_limit")
            fc_limit = GALERA_FC_LIMIT_DEFAULT if fc_limit is None else fc_limit
            size = view.size("pxc") or 3
            queue = galera_queue_bound(view, fc_limit, size)
            appliers = galera_appliers(view)
            rate = flow_control.apply_rate_tps(appliers.count, th)
            brownout = flow_control.brownout_seconds(queue, rate)
            if brownout > limit:
                chosen = flow_control.galera_fc_limit(rate, size, th)
                more = _or_more_appliers(
                    view, appliers.count, "wsrep_applier_threads", lambda cpu: flow_control.galera_applier_threads(cpu, th), "G3"
                )
                ctx.violation(
                    "F5",
                    f"{where} sets gcs.fc_limit={fc_limit:g} (an effective queue of {queue:.0f} on {size} nodes) with "
                    f"{appliers.source} applying ~{rate:g} tps: an estimated failover brownout of {brownout:.0f} s",
                    f"the rule allows at most {limit:g} s (config max_failover_brownout_seconds)",
                    f"set gcs.fc_limit={chosen} in wsrep_provider_options (sizing's value){more}",
                    field=view.config_field(PROVIDER_OPTIONS),
                )


POLICY = resource_policy(SPEC, check)
