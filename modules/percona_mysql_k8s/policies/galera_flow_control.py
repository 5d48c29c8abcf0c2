"""G1, G2: Galera flow control: gcs.fc_limit at most max_fc_limit, gcs.fc_factor in (0, 1].

Read from ``wsrep_provider_options`` inside the PXC configuration (the only place PXC exposes them).
The fix for G1 is sizing's value (percona_mysql_k8s.core.flow_control.galera_fc_limit), which also keeps the
failover brownout within budget.
"""

from __future__ import annotations

from percona_mysql_k8s.core import flow_control
from percona_mysql_k8s.core.memory import PXC
from percona_mysql_k8s.core.mycnf import PROVIDER_OPTIONS

from ._framework import Context, Spec, resource_policy
from ._readers.flow import galera_appliers, provider_number
from ._subjects import database, database_types

SPEC = Spec(
    name="galera-flow-control",
    rules=("G1", "G2"),
    applies_to=database_types,
    description="gcs.fc_limit is at most max_fc_limit and gcs.fc_factor is in (0, 1]",
    thresholds=("max_fc_limit", "max_failover_brownout_seconds", "applier_tps_per_worker", "applier_scaling_max_workers"),
    remediation="Remove gcs.fc_limit/gcs.fc_factor from wsrep_provider_options (defaults 100 and 1.0) or set "
    "the values python -m percona_mysql_k8s.sizing reports.",
)


def check(ctx: Context) -> None:
    view = database(ctx, "G1")
    if view is None:
        return
    with ctx.checking("G1"):
        if view.cluster_type() != PXC:
            return
        fc_limit = provider_number(view, "gcs.fc_limit")
        maximum = ctx["max_fc_limit"]
        if fc_limit is not None and (fc_limit > maximum or fc_limit < 0):
            size = view.size("pxc") or 3
            rate = flow_control.apply_rate_tps(galera_appliers(view).count, ctx.thresholds)
            chosen = flow_control.galera_fc_limit(rate, size, ctx.thresholds)
            ctx.violation(
                "G1",
                f"{view.path(view.config_rel)} sets gcs.fc_limit={fc_limit:g} in wsrep_provider_options{view.origin(PROVIDER_OPTIONS)} "
                f"(an effective queue of ~{flow_control.galera_effective_queue(max(fc_limit, 0), size):.0f} on {size} nodes)",
                f"the rule allows 0 to {maximum:g} (config max_fc_limit; raising it was the worst configuration measured "
                "and lengthens failover)",
                f"set gcs.fc_limit={chosen} (sizing's value) or remove it (default 100)",
                field=view.config_field(PROVIDER_OPTIONS),
            )
    with ctx.checking("G2"):
        if view.cluster_type() != PXC:
            return
        factor = provider_number(view, "gcs.fc_factor")
        if factor is not None and not 0 < factor <= 1:
            ctx.violation(
                "G2",
                f"{view.path(view.config_rel)} sets gcs.fc_factor={factor:g} in wsrep_provider_options{view.origin(PROVIDER_OPTIONS)}",
                "the rule allows a value in (0, 1]",
                "set gcs.fc_factor=1.0 (Galera 4's default, sizing's value)",
                field=view.config_field(PROVIDER_OPTIONS),
            )


POLICY = resource_policy(SPEC, check)
