"""B1 (stack): against the pools the stack declares, no load generator can land on the database pool: the
pool the stack's database pods can land on (or, without them, the pool carrying the configured labels or
taint), matched as kube-scheduler matches (percona_mysql_k8s.core.scheduling)."""

from __future__ import annotations

from ._framework import Context, Spec, stack_policy
from ._readers.placement import POOL_SETTINGS, pool_settings
from ._readers.stack import LOAD_GENERATOR, on_database_pools, read_stack

SPEC = Spec(
    name="load-generator-pool",
    rules=("B1",),
    description="against the stack's node pools, load generators can never run on the database pool",
    settings=POOL_SETTINGS,
)


def check(ctx: Context) -> None:
    db_labels, taint, mon_labels = pool_settings(ctx)
    stack = read_stack(ctx.resources)
    for group, pools in on_database_pools(stack, db_labels, taint, lambda group: group.role == LOAD_GENERATOR):
        ctx.violation(
            "B1",
            f"{group.label} can run on the database pool {pools}",
            "the rule never runs load generators on the database pool",
            "select the monitoring pool ({}) and taint the database pool".format(
                ", ".join(f"{k}={v}" for k, v in mon_labels.items())
            ),
            group.urn,
        )


POLICY = stack_policy(SPEC, check)
