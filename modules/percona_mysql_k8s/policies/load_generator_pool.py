"""B1 (stack): against the pools the stack declares, no load generator can land on the database pool: the
pool the stack's database pods can land on (or, without them, the pool carrying the configured labels or
taint), matched as kube-scheduler matches (percona_mysql_k8s.core.scheduling)."""

from __future__ import annotations

from ._framework import Context, Spec, stack_policy
from ._readers.placement import POOL_SETTINGS, pool_settings
from ._readers.stack import DATABASE, LOAD_GENERATOR, on_database_pools, read_stack
from ._readers.values import NotKnown

SPEC = Spec(
    name="load-generator-pool",
    rules=("B1",),
    description="against the stack's node pools, load generators can never run on the database pool",
    settings=POOL_SETTINGS,
)


def check(ctx: Context) -> None:
    db_labels, taint, mon_labels = pool_settings(ctx)
    stack = read_stack(ctx.resources)
    stack.not_judged(ctx, "B1", (DATABASE, "workload", "pool"))  # a workload whose role is unknown may be one
    if not stack.pools and stack.undecided(("pool",)) is None:
        return
    if stack.undecided(("pool",)):
        return  # where any pod lands depends on a pool not known yet: named above
    groups = []
    with ctx.checking("B1"):
        groups = on_database_pools(stack, db_labels, taint, lambda group: group.role == LOAD_GENERATOR)
    for group, pools in groups:
        if isinstance(pools, NotKnown):
            ctx.not_judged("B1", pools, group.label)
            continue
        ctx.violation(
            "B1",
            f"{group.label} can run on the database pool {pools}",
            "the rule never runs load generators on the database pool",
            "select the monitoring pool ({}) and taint the database pool".format(
                ", ".join(f"{k}={v}" for k, v in mon_labels.items())
            ),
            group.urn,
            field="",
        )


POLICY = stack_policy(SPEC, check)
