"""G4 (advisory): wsrep_sync_wait >= 1 (1 is enough to avoid stale reads; a global 7 costs little)."""

from __future__ import annotations

from percona_mysql_k8s.core.memory import PXC

from ._framework import Context, Spec, resource_policy
from ._readers.flow import integer_option
from ._subjects import database, database_types

SPEC = Spec(
    name="galera-sync-wait",
    rules=("G4",),
    applies_to=database_types,
    description="wsrep_sync_wait is at least 1 so reads are never stale",
)


def check(ctx: Context) -> None:
    view = database(ctx, "G4")
    if view is None:
        return
    with ctx.checking("G4"):
        if view.cluster_type() != PXC:
            return
        found = integer_option(view, "wsrep_sync_wait")
        if not found or found[1] == 0:
            option = view.config_field("wsrep_sync_wait")  # its line in the my.cnf, or the configuration's own
            ctx.violation(
                "G4",
                f"{view.path(view.config_rel)} {'sets wsrep_sync_wait=0' if found else 'leaves wsrep_sync_wait at 0'}",
                "the rule asks for wsrep_sync_wait=1 (no stale reads)",
                "set wsrep_sync_wait=1 (sizing's value)",
                field=option,
            )


POLICY = resource_policy(SPEC, check)
