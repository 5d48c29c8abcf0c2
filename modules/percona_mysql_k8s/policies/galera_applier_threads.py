"""G3 (advisory): wsrep_applier_threads is set from the cores (galera_applier_threads_per_core)."""

from __future__ import annotations

from percona_mysql_k8s.core import flow_control
from percona_mysql_k8s.core.memory import PXC

from ._framework import Context, Spec, resource_policy
from ._readers.flow import GALERA_APPLIERS, GALERA_APPLIERS_DEFAULT, integer_option, mysqld_cpu
from ._subjects import database, database_types

SPEC = Spec(
    name="galera-applier-threads",
    rules=("G3",),
    applies_to=database_types,
    description="wsrep_applier_threads is set from the mysqld cores, not left at 2",
    thresholds=("galera_applier_threads_per_core",),
)


def check(ctx: Context) -> None:
    view = database(ctx, "G3")
    if view is None:
        return
    with ctx.checking("G3"):
        if view.cluster_type() != PXC:
            return
        found = integer_option(view, *GALERA_APPLIERS, minimum=1)
        threads = found[1] if found else GALERA_APPLIERS_DEFAULT
        cpu = mysqld_cpu(view)
        wanted = flow_control.galera_applier_threads(cpu, ctx.thresholds) if cpu else None
        if (wanted and threads < wanted) or (not wanted and threads <= GALERA_APPLIERS_DEFAULT):
            what = f"sets {found[0]}={threads}" if found else f"leaves wsrep_applier_threads at the default {threads}"
            ctx.violation(
                "G3",
                f"{view.path(view.config_rel)} {what}",
                "the rule sets the applier threads from the cores (4 doubled throughput over 2; 64 was best on 16 vCPU)",
                f"set wsrep_applier_threads={wanted}"
                if wanted
                else "set wsrep_applier_threads from the mysqld cores (sizing: 4 per core)",
                field=view.config_field(*GALERA_APPLIERS),
            )


POLICY = resource_policy(SPEC, check)
