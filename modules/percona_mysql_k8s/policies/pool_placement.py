"""K4 (stack): against the pools the stack declares, the database pool is the pool the database pods can
land on; it is kept for them by a NoSchedule/NoExecute taint, and nothing else (PMM server, other
workloads; DaemonSets excepted) can land there. A pod "can land" on a pool as kube-scheduler decides it
(percona_mysql_k8s.core.scheduling): its nodeSelector and required node affinity against the pool's
labels, including the ones the provider adds (``cloud.google.com/gke-nodepool``,
``eks.amazonaws.com/nodegroup``, ...), and its tolerations against the pool's taints. Load generators are
load-generator-pool's (B1)."""

from __future__ import annotations

from ._framework import Context, Spec, stack_policy
from ._readers.placement import POOL_SETTINGS, pool_settings
from ._readers.stack import (
    BACKUP,
    DAEMONSET,
    DATABASE,
    LOAD_GENERATOR,
    PMM_ROLE,
    PodGroup,
    candidates,
    database_pools,
    on_database_pools,
    read_stack,
)
from ._readers.values import NotKnown

SPEC = Spec(
    name="pool-placement",
    rules=("K4",),
    description="against the stack's node pools, database pods land only on a tainted pool and nothing else can land there",
    settings=POOL_SETTINGS,
)


def _other_workload(group: PodGroup) -> bool:
    """Running pods that are neither database pods nor node agents, nor load generators (B1's)."""
    return group.role not in (DAEMONSET, LOAD_GENERATOR, DATABASE) and group.replicas != 0


def check(ctx: Context) -> None:
    db_labels, taint, _ = pool_settings(ctx)
    stack = read_stack(ctx.resources)
    if not stack.pools and stack.undecided(("pool",)) is None:
        return
    stack.not_judged(ctx, "K4", (DATABASE, BACKUP, PMM_ROLE, "workload", "pool"))
    if stack.undecided(("pool",)):
        return  # where any pod lands depends on a pool not known yet: named above
    found_by_pods = False
    for group in stack.groups:
        if group.role != DATABASE or group.replicas == 0:
            continue
        with ctx.checking("K4", group.urn, group.label):
            pools = candidates(group, stack.pools)
            found_by_pods = found_by_pods or bool(pools)
            open_pools = [pool.name for pool in pools if not pool.nodes.dedicated]
            if open_pools:
                ctx.violation(
                    "K4",
                    f"{group.label} can run on node pool(s) {', '.join(open_pools)}, which carry no "
                    "NoSchedule/NoExecute taint: any pod can land beside them",
                    "the rule runs mysqld and proxy pods only on the database pool, kept for them by its taint",
                    "pin these pods to one pool by its labels (nodeSelector or required node affinity), taint that pool "
                    "and tolerate the taint",
                    group.urn,
                    field="",
                )
    try:
        inside_database = database_pools(stack, db_labels, taint)
    except NotKnown:  # a database pod unknown at preview may land on any pool: named above
        return
    with ctx.checking("K4"):
        if not found_by_pods:
            for resource, pool in stack.pools:
                if pool in inside_database and not pool.nodes.dedicated:
                    ctx.violation(
                        "K4",
                        f"node pool {pool.name} is labelled as the database pool but carries no NoSchedule taint",
                        "the rule keeps every other pod off the database pool with its taint",
                        f"add the taint {taint.key}={taint.value}:{taint.effect} to {pool.taints_path}",
                        resource.urn,
                        field=pool.taints_path,
                    )
        for group, pools in on_database_pools(stack, db_labels, taint, _other_workload):
            if isinstance(pools, NotKnown):
                ctx.not_judged("K4", pools, group.label)
                continue
            ctx.violation(
                "K4",
                f"{group.label} ({group.role}) can run on the database pool {pools}",
                "the rule keeps everything but database pods off the database pool",
                "taint the database pool and drop this workload's toleration, or select another pool",
                group.urn,
                field="",
            )


POLICY = stack_policy(SPEC, check)
