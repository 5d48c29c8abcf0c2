"""T1: cluster size. PXC 3 or 5; group replication 3, 5 or 7 (sizing's CLUSTER_SIZES); async at least 3.

Fewer members only with the operator's unsafe size flag (unsafeFlags.pxcSize / mysqlSize, or PXC's
deprecated allowUnsafeConfigurations), which marks an explicitly ephemeral stack.
"""

from __future__ import annotations

from percona_mysql_k8s.core.memory import GROUP_REPLICATION, PXC
from percona_mysql_k8s.core.sizing import CLUSTER_SIZES

from ._framework import Context, Spec, resource_policy
from ._readers.database import ASYNC
from ._subjects import database, database_types
from .semi_sync import MIN_SEMI_SYNC_REPLICAS

ASYNC_MIN_MEMBERS = 1 + MIN_SEMI_SYNC_REPLICAS  # the source and the replicas it waits for (T4)

SPEC = Spec(
    name="cluster-size",
    rules=("T1",),
    applies_to=database_types,
    description="PXC has 3 or 5 members, group replication 3, 5 or 7; fewer only with the operator's unsafe flag",
    remediation="Set the size to 3 (or 5/7); for an ephemeral stack only, set the unsafe size flag.",
)


def check(ctx: Context) -> None:
    view = database(ctx, "T1")
    if view is None:
        return
    with ctx.checking("T1"):
        kind = view.cluster_type()
        rel = view.mysqld_rel
        flag = "pxcSize" if kind == PXC else "mysqlSize"
        size = view.size(rel)
        unsafe = view.unsafe(flag)
        allowed = CLUSTER_SIZES[PXC if kind == PXC else GROUP_REPLICATION]
        smallest = ASYNC_MIN_MEMBERS if kind == ASYNC else min(allowed)
        if kind == ASYNC:
            ok = size is not None and (size >= smallest or (unsafe and size >= 1))
            allowed_text = f"at least {smallest} members ({MIN_SEMI_SYNC_REPLICAS} semi-sync replicas, T4)"
        else:
            ok = size is not None and (size in allowed or (unsafe and 1 <= size < smallest))
            allowed_text = f"{' or '.join(map(str, allowed))} members (an odd majority quorum)"
        if ok:
            return
        found = f"{view.path(rel + '.size')} is {'not set' if size is None else size}"
        hint = ""
        if size is not None and size < smallest and not unsafe:
            hint = f"; an explicitly ephemeral stack may keep {size} with {view.path('unsafeFlags.' + flag)}: true"
        ctx.violation(
            "T1",
            f"{found} ({view.source}{', unsafe size flag set' if unsafe else ''})",
            f"the rule allows {allowed_text}; fewer only with the unsafe flag",
            f"set {view.path(rel + '.size')}: {smallest}{hint}",
            field=view.path(rel + ".size"),
        )


POLICY = resource_policy(SPEC, check)
