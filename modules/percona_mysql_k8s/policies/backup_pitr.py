"""R2: point-in-time recovery is on for a production database wherever its operator version supports it.

PXC (crVersion >= 1.8.0): ``backup.pitr.enabled`` with ``storageName`` naming an ``s3``/``azure`` storage
outside the cluster (the binlog collector writes nowhere else). PS (crVersion >= 1.1.0, the first with a
point-in-time restore): ``backup.pitr.enabled`` with a binlog server uploading to an S3 bucket outside the
cluster (``pitr.binlogServer.storage.s3``). The CR version is ``spec.crVersion``, the chart's appVersion for
chart values, the operator's own when absent (_readers/backup.py). Production only (data_protection.production).
"""

from __future__ import annotations

from ._framework import Context, Spec, resource_policy
from ._readers.backup import PITR_SINCE, Storage, backup_section
from ._subjects import database, database_types
from .data_protection import SPEC as DATA_PROTECTION
from .data_protection import keep_nothing, production, stack_setting

SPEC = Spec(
    name="backup-pitr",
    rules=("R2",),
    applies_to=database_types,
    settings=DATA_PROTECTION.settings,
    description="point-in-time recovery is on for production databases whose operator version supports it",
    remediation="Turn point-in-time recovery on (PXC: backup.pitr with an s3 storage; PS: backup.pitr with a "
    "binlog server uploading to S3), or mark the stack ephemeral.",
)

FIX = {
    "pxc": "set {pitr}.enabled: true and {pitr}.storageName to an s3 storage outside the cluster{setting}, or {out}",
    "ps": "set {pitr}.enabled: true with {pitr}.binlogServer.storage.s3 on a bucket outside the cluster{setting}, or {out}",
}


def check(ctx: Context) -> None:
    view = database(ctx, "R2")
    if view is None:
        return
    with ctx.checking("R2"):
        if not production(ctx, view):
            return
        section = backup_section(view)
        if not section.pitr_supported:
            since = ".".join(map(str, PITR_SINCE[view.operator]))
            ctx.not_applicable(
                f"R2: crVersion {'.'.join(map(str, view.cr_version()))} predates point-in-time recovery (from {since})"
            )
            return
        if section.off:
            found = f"{section.off}, so no base backup to recover to a point in time from"
        elif not section.pitr_enabled:
            found = f"{section.pitr_path}.enabled is not true"
        elif section.pitr_problem:
            found = f"{section.pitr_path} is on but {section.pitr_problem}"
        else:
            return
        fix = FIX[view.operator].format(
            pitr=view.path("backup.pitr"), setting=stack_setting("pitr setting"), out=keep_nothing(view)
        )
        storage = section.pitr_storage
        if section.pitr_enabled and "credentialsSecret" in str(section.pitr_problem) and isinstance(storage, Storage):
            # the storage is named and on: what it lacks is the one thing to add
            fix = (
                f"set {storage.path}.{storage.type}.credentialsSecret to the Secret that holds its keys, or {keep_nothing(view)}"
            )
        ctx.violation(
            "R2",
            found,
            f"the rule keeps point-in-time recovery on for production databases (operator versions from "
            f"{'.'.join(map(str, PITR_SINCE[view.operator]))})",
            fix,
            field=section.path if section.off else section.pitr_path,
        )


POLICY = resource_policy(SPEC, check)
