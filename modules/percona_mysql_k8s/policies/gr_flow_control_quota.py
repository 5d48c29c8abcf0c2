"""F4 (advisory): aggressive quota: group_replication_flow_control_min_quota=0, hold_percent=100,
release_percent=5, period=1 (server defaults: 0, 10, 50, 1)."""

from __future__ import annotations

from percona_mysql_k8s.core.memory import GROUP_REPLICATION

from ._framework import Context, Spec, resource_policy
from ._readers.flow import integer_option
from ._subjects import database, database_types

SPEC = Spec(
    name="gr-flow-control-quota",
    rules=("F4",),
    applies_to=database_types,
    description="group replication flow control uses the aggressive quota: min_quota 0, hold_percent 100, "
    "release_percent 5, period 1 s",
)
WANTED = (
    ("group_replication_flow_control_min_quota", 0, 0),
    ("group_replication_flow_control_hold_percent", 100, 10),
    ("group_replication_flow_control_release_percent", 5, 50),
    ("group_replication_flow_control_period", 1, 1),
)


def check(ctx: Context) -> None:
    view = database(ctx, "F4")
    if view is None:
        return
    with ctx.checking("F4"):
        if view.cluster_type() != GROUP_REPLICATION:
            return
        off = []
        for name, wanted, default in WANTED:
            found = integer_option(view, name)
            value = found[1] if found else default
            if value != wanted:
                off.append((name, value, wanted, found is None))
        if off:
            ctx.violation(
                "F4",
                f"{view.path(view.config_rel)} has "
                + ", ".join(f"{name}={value}{' (server default)' if default else ''}" for name, value, _, default in off),
                "the rule asks for min_quota 0, hold_percent 100, release_percent 5 and period 1",
                "set " + ", ".join(f"{name}={wanted}" for name, _, wanted, _ in off),
                field=view.config_field(*(name for name, _, _, _ in off)),
            )


POLICY = resource_policy(SPEC, check)
