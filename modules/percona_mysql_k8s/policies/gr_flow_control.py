"""F1-F3: group replication flow control stays on (QUOTA) with bounded applier and certifier queues.

Applies to group replication clusters declared by a ``PerconaServerMySQL`` custom resource or ``ps-db``
chart values (``mysql.clusterType: group-replication``, the default). The thresholds are read from
``mysql.configuration``; an unset threshold is the server default 25000, which F2 rejects. The fix is
the value sizing chooses (percona_mysql_k8s.core.flow_control.gr_applier_threshold).
"""

from __future__ import annotations

from percona_mysql_k8s.core.memory import GROUP_REPLICATION

from ._framework import Context, Spec, resource_policy
from ._readers.flow import (
    APPLIER_THRESHOLD,
    CERTIFIER_THRESHOLD,
    FLOW_CONTROL_MODE,
    GR_DEFAULT_THRESHOLD,
    gr_thresholds,
    sizing_gr_threshold,
)
from ._subjects import database, database_types

SPEC = Spec(
    name="gr-flow-control",
    rules=("F1", "F2", "F3"),
    applies_to=database_types,
    description="group replication flow control is QUOTA, and the applier and certifier thresholds are set, "
    "equal and at most max_applier_threshold",
    thresholds=(
        "max_applier_threshold",
        "strict_applier_threshold",
        "applier_tps_per_worker",
        "applier_scaling_max_workers",
        "primary_to_applier_rate_ratio",
        "replica_workers_per_core",
        "max_failover_brownout_seconds",
    ),
    remediation="In mysql.configuration set group_replication_flow_control_mode=QUOTA and both "
    "group_replication_flow_control_applier_threshold and _certifier_threshold to the value sizing reports (500 or less).",
)


def _found(view, option: str, value: int, is_set: bool) -> str:
    """What the resource does with a threshold: sets it (and where the value comes from) or leaves the default."""
    where = view.path(view.config_rel)
    if is_set:
        return f"{where} sets {option}={value}{view.origin(option)}"
    return f"{where} does not set {option}, so the server default {GR_DEFAULT_THRESHOLD} applies"


def check(ctx: Context) -> None:
    view = database(ctx, "F1")
    if view is None:
        return
    with ctx.checking("F1"):
        if view.cluster_type() != GROUP_REPLICATION:
            return
        where = view.path(view.config_rel)
        mode = view.option(FLOW_CONTROL_MODE)
        if mode is not None and mode[1].strip().upper() != "QUOTA":
            ctx.violation(
                "F1",
                f"{where} sets {FLOW_CONTROL_MODE}={mode[1]}",
                "the rule allows only QUOTA: without flow control a lagging member's queue and certification info grow without bound",
                f"set {FLOW_CONTROL_MODE}=QUOTA (the server default) in {where}",
                field=view.config_field(FLOW_CONTROL_MODE),
            )
    maximum = int(ctx["max_applier_threshold"])
    with ctx.checking("F2"):
        if view.cluster_type() != GROUP_REPLICATION:
            return
        applier, _, applier_set, _ = gr_thresholds(view)
        strict, basis = sizing_gr_threshold(view, ctx.thresholds)
        if applier > maximum:
            ctx.violation(
                "F2",
                _found(view, APPLIER_THRESHOLD, applier, applier_set),
                f"the rule allows at most {maximum} transactions (config max_applier_threshold)",
                f"set {APPLIER_THRESHOLD}={strict}, the value sizing chooses ({basis})",
                field=view.config_field(APPLIER_THRESHOLD),
            )
    with ctx.checking("F3"):  # each rule decides the engine on its own: F2's may have been unknown
        if view.cluster_type() != GROUP_REPLICATION:
            return
        applier, certifier, _, certifier_set = gr_thresholds(view)
        strict, _ = sizing_gr_threshold(view, ctx.thresholds)
        target = applier if applier <= maximum else strict
        # the two must end equal: with the applier threshold itself above the maximum (F2), both move to sizing's value
        both = f"set {CERTIFIER_THRESHOLD}={target}" + (f" and {APPLIER_THRESHOLD}={target} (F2)" if target != applier else "")
        if certifier > maximum:
            ctx.violation(
                "F3",
                _found(view, CERTIFIER_THRESHOLD, certifier, certifier_set),
                f"the rule allows at most {maximum} (config max_applier_threshold), equal to the applier threshold",
                both if target != applier else f"{both}, equal to {APPLIER_THRESHOLD}",
                field=view.config_field(CERTIFIER_THRESHOLD),
            )
        elif certifier != applier:
            ctx.violation(
                "F3",
                f"{view.path(view.config_rel)} sets {CERTIFIER_THRESHOLD}={certifier} but {APPLIER_THRESHOLD}={applier}",
                "the rule requires the certifier threshold to equal the applier threshold",
                both,
                field=view.config_field(CERTIFIER_THRESHOLD),
            )


POLICY = resource_policy(SPEC, check)
