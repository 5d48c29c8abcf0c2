"""R2: point-in-time recovery is on for a production database wherever its operator version supports it.

PXC (crVersion >= 1.8.0): ``backup.pitr.enabled`` with ``storageName`` naming an ``s3``/``azure`` storage
outside the cluster (the binlog collector writes nowhere else). PS (crVersion >= 1.1.0, the first with a
point-in-time restore): ``backup.pitr.enabled`` with a binlog server uploading to an S3 bucket outside the
cluster (``pitr.binlogServer.storage.s3``). The CR version is ``spec.crVersion``, the chart's appVersion for
chart values, the operator's own when absent (_readers/backup.py). Production only (data_protection.production).
"""

from __future__ import annotations

from ._framework import Context, Spec, resource_policy
from ._readers.backup import PITR_SINCE, backup_section
from ._subjects import database, database_types
from .data_protection import SPEC as DATA_PROTECTION
from .data_protection import production

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
    "pxc": "set backup.pitr.enabled true and backup.pitr.storageName to an s3 storage outside the cluster "
    "(the stack's pitr setting), or mark the stack ephemeral",
    "ps": "set backup.pitr.enabled true with backup.pitr.binlogServer.storage.s3 on a bucket outside the cluster "
    "(the stack's pitr setting), or mark the stack ephemeral",
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
        ctx.violation(
            "R2",
            found,
            f"the rule keeps point-in-time recovery on for production databases (operator versions from "
            f"{'.'.join(map(str, PITR_SINCE[view.operator]))})",
            FIX[view.operator],
            field=section.path if section.off else section.pitr_path,
        )


POLICY = resource_policy(SPEC, check)
