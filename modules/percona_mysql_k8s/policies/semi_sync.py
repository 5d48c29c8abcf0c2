"""T4: semi-synchronous replication on PS async clusters: wait point AFTER_SYNC only, at least 2 semi-sync
replicas (rpl_semi_sync_source_wait_for_replica_count, server default 1; the master/slave aliases too)."""

from __future__ import annotations

from ._framework import Context, Spec, resource_policy
from ._readers.database import ASYNC
from ._readers.flow import integer_option
from ._subjects import database, database_types

SPEC = Spec(name="semi-sync", rules=("T4",), applies_to=database_types,
            description="async clusters wait for at least 2 semi-sync replicas at AFTER_SYNC")
WAIT_POINT = ("rpl_semi_sync_source_wait_point", "rpl_semi_sync_master_wait_point")
REPLICA_COUNT = ("rpl_semi_sync_source_wait_for_replica_count", "rpl_semi_sync_master_wait_for_slave_count")


def check(ctx: Context) -> None:
    view = database(ctx, "T4")
    if view is None:
        return
    with ctx.checking("T4"):
        if view.cluster_type() != ASYNC:
            return
        where = view.path(view.config_rel)
        point = view.option(*WAIT_POINT)
        if point and point[1].strip().upper() != "AFTER_SYNC":
            ctx.violation("T4", f"{where} sets {point[0]}={point[1]}",
                          "the rule allows only AFTER_SYNC (AFTER_COMMIT shows commits a failover can lose)",
                          f"set {point[0]}=AFTER_SYNC")
        count = integer_option(view, *REPLICA_COUNT)
        if count is None or count[1] < 2:
            found = f"sets {count[0]}={count[1]}" if count else "leaves rpl_semi_sync_source_wait_for_replica_count at the server default 1"
            ctx.violation("T4", f"{where} {found}", "the rule waits for at least 2 semi-sync replicas",
                          "set rpl_semi_sync_source_wait_for_replica_count=2 (with 3 or more members)")


POLICY = resource_policy(SPEC, check)
