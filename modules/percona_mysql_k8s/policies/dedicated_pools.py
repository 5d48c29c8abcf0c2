"""K4: dedicated pools. mysqld and proxy pods only on the database pool; the PMM server only on the
monitoring pool; nothing else tolerates the database taint; a database pool carries its taint.

Resource by resource, with no pools in sight: a database cluster (custom resource or pxc-db/ps-db
values) must pin mysqld and every enabled proxy to a pool with a node selector or required node
affinity on any label that is not node-wide, never able to land on the configured monitoring pool, (the configured ``database_pool_labels``, GKE's
``cloud.google.com/gke-nodepool``, EKS's ``eks.amazonaws.com/nodegroup``, a label of your own) and
tolerate a NoSchedule/NoExecute taint; on the configured labels it must tolerate the configured taint.
The PMM server (pmm chart values, or a workload running a pmm-server image) must be pinned to a pool, unable
to land on the configured database pool and not tolerate its taint; any other Pod, Deployment, StatefulSet,
ReplicaSet, Job or CronJob must not tolerate the database taint (DaemonSets are node agents and may); a
node pool carrying the configured database labels must carry the taint.
Load generators are B1's (load-generator-placement). The stack policy pool-placement checks the same
against the pools the stack actually declares; both judge placement with one matcher
(percona_mysql_k8s.core.scheduling), the configured pools standing in for the real ones here.
"""

from __future__ import annotations

from ._framework import Context, Spec, resource_policy
from ._readers.placement import (
    POOL_SETTINGS,
    configured_pools,
    labels_text,
    off_the_monitoring_pool,
    pool_settings,
    read_placement,
    taint_text,
)
from ._readers.values import MISSING, NotKnown, at, join, known
from ._readers.workloads import LOAD_GENERATOR, PMM_SERVER
from ._subjects import any_of, database, database_types, node_pool, pmm_values, pool_types, workload, workload_types

SPEC = Spec(
    name="dedicated-pools",
    rules=("K4",),
    applies_to=any_of(database_types, workload_types, pool_types),
    description="mysqld and proxy pods run only on the database pool, the PMM server only on the monitoring pool, "
    "and nothing else tolerates the database taint",
    settings=POOL_SETTINGS,
    remediation="Pin database pods with nodeSelector + toleration of the database pool's taint; give everything "
    "else no such toleration.",
)


def _monitoring(ctx: Context, placement, what: str, db_labels, taint, mon_labels) -> None:
    problem = off_the_monitoring_pool(placement, db_labels, taint, mon_labels)
    if problem is None:
        return
    ctx.violation(
        "K4",
        f"{what} ({placement.path}: {placement.describe()}) {problem}",
        "the rule runs the monitoring server only on the monitoring pool"
        + (", never beside mysqld" if problem.on_database_pool else ""),
        f"select the monitoring pool with nodeSelector {labels_text(mon_labels)} and drop the toleration of {taint_text(taint)}"
        if problem.on_database_pool
        else f"select the monitoring pool by its labels, e.g. nodeSelector {labels_text(mon_labels)} at {placement.path}",
        field=placement.path,
    )


def _database_pods(ctx: Context, placement, what: str, db_labels, taint, mon_labels) -> None:
    """Pinned to a tainted pool by any label (a stack's pools then say which); on the configured labels,
    tolerating the configured taint; never able to land on the configured monitoring pool. A part unknown at
    preview leaves only the requirements it decides unjudged."""
    database_pool, monitoring_pool = configured_pools(db_labels, taint, mon_labels)
    if placement.selects(db_labels):
        requirements = [(f"a toleration of {taint_text(taint)}", lambda: placement.can_land_on(database_pool))]
    else:
        requirements = [
            (
                f"a node selector (or required node affinity) pinning it to a pool, e.g. {labels_text(db_labels)}",
                placement.pinned,
            ),
            (f"a toleration of that pool's taint, e.g. {taint_text(taint)}", placement.tolerates_a_dedicated_taint),
        ]
    missing, undecided = [], []
    for part, met in requirements:
        try:
            if not met():
                missing.append(part)
        except NotKnown as error:
            undecided.append((part, error))
    if not missing and undecided:
        raise undecided[0][1]
    if not missing and placement.can_land_on(monitoring_pool):
        ctx.violation(
            "K4",
            f"{placement.path} ({what}) can run on the monitoring pool {labels_text(mon_labels)} "
            f"({placement.describe()}): a required term or selector also matches it",
            "the rule runs mysqld and proxy pods only on the database pool",
            f"require exactly the database pool's labels {labels_text(db_labels)} (In with that one value, in every "
            "required node affinity term)",
            field=placement.path,
        )
    if missing:
        path = placement.path
        perhaps = "".join(error.placeholder(f"and whether it lacks {part}") for part, error in undecided)
        ctx.violation(
            "K4",
            f"{path} ({what}) lacks {' and '.join(missing)}{perhaps}",
            "the rule runs mysqld and proxy pods only on the database pool: pinned to it by its labels and tolerating its taint",
            f"set {path}.nodeSelector {labels_text(db_labels)} and {path}.tolerations "
            f"[{{key: {taint.key}, operator: Equal, value: {taint.value}, effect: {taint.effect}}}] (or your pool's own label and taint)",
            field=path,
        )


def check(ctx: Context) -> None:
    db_labels, taint, mon_labels = pool_settings(ctx)
    view = database(ctx, "K4")
    if view is not None:
        components = []
        with ctx.checking("K4"):
            components = [view.mysqld(), *view.enabled_proxies()]
        for component in components:
            with ctx.checking("K4"):
                path = view.path(component.rel)
                affinity = known(component.raw.get("affinity", MISSING), join(path, "affinity"))
                placement = read_placement(
                    component.raw.get("nodeSelector", MISSING),
                    component.raw.get("tolerations", MISSING),
                    affinity.get("advanced", MISSING) if isinstance(affinity, dict) else MISSING,
                    path,
                    affinity_path=join(path, "affinity.advanced"),
                )
                _database_pods(ctx, placement, f"{component.key} pods", db_labels, taint, mon_labels)
        return
    with ctx.checking("K4"):
        values = pmm_values(ctx, "K4")
        if values is not None:
            placement = read_placement(at(values, "nodeSelector"), at(values, "tolerations"), at(values, "affinity"), "values")
            _monitoring(ctx, placement, "the PMM server (pmm chart)", db_labels, taint, mon_labels)
            return
    subject = workload(ctx, "K4")
    if subject is not None:
        with ctx.checking("K4"):
            role = subject.role()
            if role == LOAD_GENERATOR:
                return  # B1
            placement = subject.placement()
            if role == PMM_SERVER:
                _monitoring(ctx, placement, f"the PMM server ({subject.kind} {subject.name})", db_labels, taint, mon_labels)
            elif not subject.daemonset and placement.tolerates(taint):
                ctx.violation(
                    "K4",
                    f"{subject.kind} {subject.name} tolerates the database taint {taint_text(taint)} at {placement.path}.tolerations",
                    "the rule lets nothing but database pods tolerate the database taint",
                    "remove that toleration (an operator: Exists toleration without a key tolerates every taint)",
                    field=f"{placement.path}.tolerations",
                )
        return
    pool = node_pool(ctx, "K4")
    if pool is not None:
        with ctx.checking("K4"):
            labelled = pool.nodes.carries(db_labels)
            tainted = pool.nodes.carries_taint(taint.as_k8s()) and taint.effect in ("NoSchedule", "NoExecute")
            if labelled and not tainted:
                ctx.violation(
                    "K4",
                    f"node pool {pool.name} is labelled as the database pool ({pool.labels_path}) but has no "
                    f"{taint_text(taint)} taint ({pool.taints_path})",
                    "the rule keeps every other pod off the database pool: it carries the database taint",
                    f"add the taint {{key: {taint.key}, value: {taint.value}, effect: NO_SCHEDULE}} to {pool.taints_path}",
                    field=pool.labels_path,
                )


POLICY = resource_policy(SPEC, check)
