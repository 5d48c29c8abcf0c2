"""R7: a production database keeps its data on a PersistentVolumeClaim.

The members' data volume is ``spec.pxc.volumeSpec`` (PXC) or ``spec.mysql.volumeSpec`` (PS), read as the
operator reads it (_readers/volumes.py): PXC mounts the claim when there is one, else ``hostPath`` /
``emptyDir``; PS takes exactly one source. An ``emptyDir`` is deleted with its pod, a ``hostPath`` stays on
one node: either way a member that restarts elsewhere starts empty and must copy the whole data set from
a peer (Galera SST, group replication clone), and losing every pod loses the data. A spec the operator
refuses (no source on PS, a claim without its storage size) is reported too: the cluster never starts.
pxc-db chart values with ``pxc.persistence.enabled: false`` render an ``emptyDir`` (chart_pxc_db). Production
only (data_protection.production). The claim's size against the data and binary logs is judged by sizing
(core.benchmark: the data set is at most half the volume), which knows the data the stack writes.
"""

from __future__ import annotations

from ._framework import Context, Spec, resource_policy
from ._readers.volumes import CLAIM, read_volume
from ._subjects import database, database_types
from .data_protection import SPEC as DATA_PROTECTION
from .data_protection import keep_nothing, production, stack_setting

SPEC = Spec(
    name="data-volume",
    rules=("R7",),
    applies_to=database_types,
    settings=DATA_PROTECTION.settings,
    description="a production database keeps its data on a PersistentVolumeClaim, not emptyDir or hostPath",
    remediation="Give the members a persistentVolumeClaim volumeSpec with a storage request (the stack's "
    "storageSize), or mark the stack ephemeral.",
)

ALLOWED = (
    "the rule keeps every production database's data on a PersistentVolumeClaim, which outlives the pod and "
    "follows it to another node"
)


def check(ctx: Context) -> None:
    view = database(ctx, "R7")
    if view is None:
        return
    with ctx.checking("R7"):
        if not production(ctx, view):
            return
        rel = f"{view.mysqld_rel}.volumeSpec"
        path = view.path(rel)
        volume = read_volume(view.get(rel), path, view.operator)
        if view.chart == "pxc-db":  # the chart writes volumeSpec from its persistence values (templates/cluster.yaml)
            persistence = view.path(f"{view.mysqld_rel}.persistence")
            claim = f"set {persistence}.enabled: true with {persistence}.size{stack_setting('storageSize')} and no hostPath"
        else:
            claim = (
                f"set {path}.persistentVolumeClaim with resources.requests.storage{stack_setting('storageSize')} and "
                "no emptyDir or hostPath"
            )
        fix = f"{claim}, or {keep_nothing(view)}"
        if volume.problem:
            ctx.violation("R7", f"the operator refuses the data volume: {volume.problem}", ALLOWED, fix, field=path)
        elif volume.source != CLAIM:
            kept = "deleted with its pod" if volume.source == "emptyDir" else "left on one node"
            ctx.violation("R7", f"{path} puts the data on {volume.source}, {kept}", ALLOWED, fix, field=f"{path}.{volume.source}")


POLICY = resource_policy(SPEC, check)
