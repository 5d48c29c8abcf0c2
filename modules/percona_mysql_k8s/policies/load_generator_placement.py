"""B1: load generators (sysbench) run on the monitoring pool, never on the database pool.

A load generator is a Pod, Deployment, StatefulSet, ReplicaSet, Job or CronJob whose image, container
name or own name contains "sysbench", or that is labelled app.kubernetes.io/component=load-generator.
It must be pinned to a pool (a node selector or required node affinity on any label that is not
node-wide: the configured ``monitoring_pool_labels``, GKE's ``cloud.google.com/gke-nodepool``, a label of
your own), unable to land on the configured database pool (its labels and taint, judged by the scheduler
matcher of percona_mysql_k8s.core.scheduling) and not tolerate the database taint. The stack policy
load-generator-pool checks the same against the pools a stack declares.
"""

from __future__ import annotations

from ._framework import Context, Spec, resource_policy
from ._readers.placement import (
    POOL_SETTINGS,
    labels_text,
    off_the_monitoring_pool,
    pool_settings,
    taint_text,
)
from ._readers.workloads import LOAD_GENERATOR
from ._subjects import workload, workload_types

SPEC = Spec(
    name="load-generator-placement",
    rules=("B1",),
    applies_to=workload_types,
    description="load generators are pinned to a pool (the monitoring pool) and neither select nor tolerate the database pool",
    settings=POOL_SETTINGS,
    remediation="Give sysbench pods nodeSelector mysql.percona.com/pool: monitoring and no database toleration.",
)


def check(ctx: Context) -> None:
    db_labels, taint, mon_labels = pool_settings(ctx)
    subject = workload(ctx, "B1")
    if subject is None:
        return
    with ctx.checking("B1"):
        if subject.role() != LOAD_GENERATOR:
            return
        placement = subject.placement()
        problem = off_the_monitoring_pool(placement, db_labels, taint, mon_labels)
        if problem is None:
            return
        ctx.violation(
            "B1",
            f"load generator {subject.kind} {subject.name} {problem}"
            f"{'' if problem.on_database_pool else ', so it can land on the database pool'} "
            f"({placement.path}: {placement.describe()})",
            "the rule never runs load generators on the database pool: they would steal the CPU they measure"
            if problem.on_database_pool
            else "the rule runs load generators on the monitoring pool",
            f"set {placement.path}.nodeSelector {labels_text(mon_labels)}"
            + (f" and remove the toleration of {taint_text(taint)}" if problem.on_database_pool else ""),
            field=placement.path,
        )


POLICY = resource_policy(SPEC, check)
