"""K4: dedicated pools. mysqld and proxy pods only on the database pool; the PMM server only on the
monitoring pool; nothing else tolerates the database taint; a database pool carries its taint.

Resource by resource: a database cluster (custom resource or pxc-db/ps-db values) must pin mysqld and
every enabled proxy to the database pool with a node selector (or required node affinity) and tolerate
its taint; the PMM server (pmm chart values, or a workload running a pmm-server image) must select the
monitoring pool and neither select nor tolerate the database pool; any other Pod, Deployment,
StatefulSet, ReplicaSet, Job or CronJob must not tolerate the database taint (DaemonSets are node agents
and may); a node pool labelled as the database pool must carry the taint, and a tainted one the label.
Load generators are B1's (load-generator-placement). The stack policy pool-placement checks the same
against the pools the stack actually declares.
"""

from __future__ import annotations

from ._framework import Context, Spec, resource_policy
from ._readers.placement import POOL_SETTINGS, pool_settings, read_placement, taint_text
from ._readers.values import MISSING, at
from ._readers.workloads import LOAD_GENERATOR, PMM_SERVER
from ._subjects import any_of, database, database_types, node_pool, pmm_values, pool_types, workload, workload_types

SPEC = Spec(
    name="dedicated-pools",
    rules=("K4",), applies_to=any_of(database_types, workload_types, pool_types),
    description="mysqld and proxy pods run only on the database pool, the PMM server only on the monitoring pool, "
    "and nothing else tolerates the database taint",
    settings=POOL_SETTINGS,
    remediation="Pin database pods with nodeSelector + toleration of the database pool's taint; give everything "
    "else no such toleration.",
)


def _labels_text(labels: dict) -> str:
    return "{" + ", ".join(f"{key}: {value}" for key, value in labels.items()) + "}"


def _monitoring(ctx: Context, placement, what: str, db_labels, taint, mon_labels) -> None:
    if placement.selects(db_labels) or placement.tolerates(taint):
        ctx.violation(
            "K4", f"{what} ({placement.path}: {placement.describe()}) can run on the database pool",
            "the rule runs the monitoring server only on the monitoring pool, never beside mysqld",
            f"select the monitoring pool with nodeSelector {_labels_text(mon_labels)} and drop the toleration of {taint_text(taint)}",
        )
    elif not placement.selects(mon_labels):
        ctx.violation(
            "K4", f"{what} ({placement.path}: {placement.describe()}) does not select the monitoring pool",
            "the rule runs the monitoring server only on the monitoring pool",
            f"set nodeSelector {_labels_text(mon_labels)} at {placement.path}",
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
                placement = read_placement(component.raw.get("nodeSelector", MISSING), component.raw.get("tolerations", MISSING),
                                           (component.raw.get("affinity") or {}).get("advanced", MISSING)
                                           if isinstance(component.raw.get("affinity"), dict) else MISSING, path)
                selects, tolerates = placement.selects(db_labels), placement.tolerates(taint)
                if not (selects and tolerates):
                    missing = " and ".join(part for part, ok in (
                        (f"a node selector for {_labels_text(db_labels)}", selects),
                        (f"a toleration of {taint_text(taint)}", tolerates)) if not ok)
                    ctx.violation(
                        "K4", f"{path} ({component.key} pods) lacks {missing}",
                        "the rule runs mysqld and proxy pods only on the database pool: node selector plus toleration of its taint",
                        f"set {path}.nodeSelector {_labels_text(db_labels)} and {path}.tolerations "
                        f"[{{key: {taint.key}, operator: Equal, value: {taint.value}, effect: {taint.effect}}}]",
                    )
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
                    "K4", f"{subject.kind} {subject.name} tolerates the database taint {taint_text(taint)} at {placement.path}.tolerations",
                    "the rule lets nothing but database pods tolerate the database taint",
                    "remove that toleration (an operator: Exists toleration without a key tolerates every taint)",
                )
        return
    pool = node_pool(ctx, "K4")
    if pool is not None:
        with ctx.checking("K4"):
            labelled = all(pool.labels.get(key) == value for key, value in db_labels.items())
            tainted = any(t.key == taint.key and t.value == taint.value and t.effect in ("NoSchedule", "NoExecute")
                          for t in pool.taints)
            if labelled and not tainted:
                ctx.violation(
                    "K4", f"node pool {pool.name} is labelled as the database pool ({pool.labels_path}) but has no "
                    f"{taint_text(taint)} taint ({pool.taints_path})",
                    "the rule keeps every other pod off the database pool: it carries the database taint",
                    f"add the taint {{key: {taint.key}, value: {taint.value}, effect: NO_SCHEDULE}} to {pool.taints_path}",
                )
            elif tainted and not labelled:
                ctx.violation(
                    "K4", f"node pool {pool.name} carries the database taint but not the labels {_labels_text(db_labels)}",
                    "the rule places database pods by node selector on the database pool's labels",
                    f"add {_labels_text(db_labels)} to {pool.labels_path}",
                )


POLICY = resource_policy(SPEC, check)
