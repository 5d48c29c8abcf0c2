"""K4 (stack): against the pools the stack declares, database pods can run only on the database pool, and
nothing else (PMM server, other workloads; DaemonSets excepted) can run there. A pod "can run" on a pool
when it matches the pool's labels and tolerates all its NoSchedule/NoExecute taints. Load generators are
load-generator-pool's (B1)."""

from __future__ import annotations

from ._framework import Context, Spec, stack_policy
from ._readers.placement import POOL_SETTINGS, pool_settings
from ._readers.stack import DAEMONSET, DATABASE, LOAD_GENERATOR, candidates, read_stack

SPEC = Spec(name="pool-placement", rules=("K4",),
            description="against the stack's node pools, database pods run only on the database pool and nothing else can run there",
            settings=POOL_SETTINGS)


def check(ctx: Context) -> None:
    db_labels, _, _ = pool_settings(ctx)
    stack = read_stack(ctx.resources)
    if not stack.pools:
        return
    database_pools = {id(pool) for _, pool in stack.pools if all(pool.labels.get(k) == v for k, v in db_labels.items())}
    for group in stack.groups:
        if group.role in (DAEMONSET, LOAD_GENERATOR) or group.replicas == 0:
            continue
        pools = candidates(group, stack.pools)
        if group.role == DATABASE:
            others = [pool.name for pool in pools if id(pool) not in database_pools]
            if others:
                ctx.violation("K4", f"{group.label} can run on node pool(s) {', '.join(others)}, not the database pool",
                              "the rule runs mysqld and proxy pods only on the database pool",
                              "select the database pool's labels and tolerate its taint; keep the taint off other pools", group.urn)
        else:
            inside = [pool.name for pool in pools if id(pool) in database_pools]
            if inside:
                ctx.violation("K4", f"{group.label} ({group.role}) can run on the database pool {', '.join(inside)}",
                              "the rule keeps everything but database pods off the database pool",
                              "taint the database pool and drop this workload's toleration, or select another pool", group.urn)


POLICY = stack_policy(SPEC, check)
