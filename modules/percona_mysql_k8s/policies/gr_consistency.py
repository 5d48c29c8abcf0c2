"""F7 (advisory): no global group_replication_consistency of AFTER or BEFORE_AND_AFTER (~75% of throughput)."""

from __future__ import annotations

from percona_mysql_k8s.core.memory import GROUP_REPLICATION

from ._framework import Context, Spec, resource_policy
from ._subjects import database, database_types

SPEC = Spec(
    name="gr-consistency",
    rules=("F7",),
    applies_to=database_types,
    description="group_replication_consistency is not AFTER or BEFORE_AND_AFTER globally; use it per session",
)


def check(ctx: Context) -> None:
    view = database(ctx, "F7")
    if view is None:
        return
    with ctx.checking("F7"):
        if view.cluster_type() != GROUP_REPLICATION:
            return
        found = view.option("group_replication_consistency")
        if found and found[1].strip().upper() in ("AFTER", "BEFORE_AND_AFTER"):
            ctx.violation(
                "F7",
                f"{view.path(view.config_rel)} sets {found[0]}={view.reading('group_replication_consistency')} "
                f"globally{view.origin('group_replication_consistency')}",
                "the rule keeps strict consistency per session (it costs ~75% of throughput globally)",
                "set group_replication_consistency=BEFORE_ON_PRIMARY_FAILOVER (sizing's value) and SET SESSION the strict level where needed",
                field=view.config_field("group_replication_consistency"),
            )


POLICY = resource_policy(SPEC, check)
