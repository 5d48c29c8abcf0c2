"""F6: replica_parallel_workers is at most replica_workers_per_core (2.5) per core of the mysqld container.

Cores are the mysqld container's CPU limit, else its request; without either the rule cannot be decided
(K3 asks for a request). On PXC the option has no effect (it uses wsrep_applier_threads): not checked.
"""

from __future__ import annotations

from percona_mysql_k8s.core import flow_control
from percona_mysql_k8s.core.memory import PXC

from ._framework import Context, Spec, resource_policy
from ._readers.flow import REPLICA_WORKERS, REPLICA_WORKERS_DEFAULT, integer_option, mysqld_cpu
from ._subjects import database, database_types

SPEC = Spec(
    name="replica-parallel-workers",
    rules=("F6",),
    applies_to=database_types,
    description="replica_parallel_workers is at most replica_workers_per_core per core of the mysqld container",
    thresholds=("replica_workers_per_core",),
    remediation="Set replica_parallel_workers to the value python -m percona_mysql_k8s.sizing reports (2.5 per core).",
)


def check(ctx: Context) -> None:
    view = database(ctx, "F6")
    if view is None:
        return
    with ctx.checking("F6"):
        if view.cluster_type() == PXC:
            return
        cpu = mysqld_cpu(view)
        if not cpu:
            return
        found = integer_option(view, *REPLICA_WORKERS)
        workers = found[1] if found else REPLICA_WORKERS_DEFAULT
        maximum = flow_control.max_replica_workers(cpu, ctx.thresholds)
        if workers > maximum:
            what = (
                f"{view.path(view.config_rel)} sets {found[0]}={workers}"
                if found
                else f"{view.path(view.config_rel)} leaves replica_parallel_workers at the server default {workers}"
            )
            ctx.violation(
                "F6",
                f"{what} for a mysqld container of {cpu}m",
                f"the rule allows at most {maximum:g} ({ctx['replica_workers_per_core']:g} per core, config replica_workers_per_core)",
                f"set replica_parallel_workers={flow_control.replica_workers(cpu, ctx.thresholds)} (sizing's value)",
                field=view.config_field("replica_parallel_workers", "slave_parallel_workers"),
            )


POLICY = resource_policy(SPEC, check)
