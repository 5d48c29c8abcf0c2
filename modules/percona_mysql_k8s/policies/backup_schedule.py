"""R1: a production database backs up on a schedule to object storage outside the cluster.

Judged on what the operator does with the whole ``backup`` section (_readers/backup_jobs.py, its reconcile
cited step by step): it may refuse the section altogether (a schedule naming no storage, duplicate names on
PS, an unparsable schedule on PS, no backup image), skip entries (a schedule robfig refuses on PXC, an empty
one on PS), or let a later entry replace an earlier one of the same name (PXC). A cron job it then runs
counts when its storage is object storage (PXC ``s3``/``azure``, PS ``s3``/``gcs``/``azure``; never
``filesystem``, a volume in the cluster) whose endpoint is not inside the cluster (``*.svc``,
``*.svc.cluster.local``, a bare Service name, localhost, loopback). The violation says why each entry
does not count. Custom resources and pxc-db/ps-db chart values alike (_readers/backup.py). Production only
(data_protection.production: not an ephemeral stack, ``ephemeral_stacks`` or config ``ephemeral: true``,
and not under the operator's unsafe size flag).
"""

from __future__ import annotations

from ._framework import Context, Spec, resource_policy
from ._readers.backup import backup_section
from ._readers.backup_jobs import offsite_jobs
from ._subjects import database, database_types
from .data_protection import SPEC as DATA_PROTECTION
from .data_protection import keep_nothing, production

SPEC = Spec(
    name="backup-schedule",
    rules=("R1",),
    applies_to=database_types,
    settings=DATA_PROTECTION.settings,
    description="a production database backs up on a schedule to object storage outside the cluster",
    remediation="Add a backup schedule to an s3/gcs/azure storage outside the cluster (the stack's backup settings), "
    "or mark the stack ephemeral.",
)

ALLOWED = (
    "the rule backs up every production database on a schedule the operator runs, to object storage "
    "outside the cluster (S3, GCS, Azure or an S3-compatible endpoint)"
)
FIX = "schedule a backup (a cron expression such as '0 3 * * *') to an s3/gcs storage outside the cluster, or {out}"


REFUSED = "the operator refuses the cluster"


def reasons(section) -> list[str]:
    """Why no cron job of the operator backs up off the cluster (empty when one does). NotKnown when none does
    for sure and one whose storage is unknown at preview may: one job that counts is enough."""
    jobs, why = offsite_jobs(section)
    return [] if jobs else why


def check(ctx: Context) -> None:
    view = database(ctx, "R1")
    if view is None:
        return
    with ctx.checking("R1"):
        if not production(ctx, view):
            return
        section = backup_section(view)
        why = reasons(section)
        if why:
            fix = FIX.format(out=keep_nothing(view))
            refused = next((reason.split(": ", 1)[1] for reason in why if reason.startswith(REFUSED)), None)
            if refused:  # a schedule alone would still be refused: what the operator stops on comes first
                fix = f"first make the operator accept {view.path('backup')} ({refused}), then {fix}"
            ctx.violation(
                "R1",
                f"no scheduled backup to object storage outside the cluster: {'; '.join(why)}",
                ALLOWED,
                fix,
                field=section.path,
            )


POLICY = resource_policy(SPEC, check)
