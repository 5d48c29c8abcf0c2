"""R3: the backups of a production database keep at least ``min_backup_retention_days`` of restore points.

Judged on the best cron job that counts for R1 (one the operator runs, to object storage outside the
cluster; _readers/backup_jobs.py): its window is the age of the oldest backup it keeps right after a run,
``keep`` consecutive actual runs of its schedule in its own zone (core.cron.retention_window_seconds). The
``keep`` is the one the operator applies to that job: PXC's ``retention.count`` (which replaces the
deprecated ``keep``, GetRetention) of the last entry of that name, or PS ``keep``; 0 deletes nothing
(unbounded). PXC ``retention.deleteFromStorage: false`` leaves rotated backups in storage (unbounded) from
crVersion 1.18.0 only: before it every rotated backup is deleted from storage (backupFinalizers).
A database with no schedule that counts is R1's to report. Production only (data_protection.production).
"""

from __future__ import annotations

import math

from percona_mysql_k8s.core.cron import keep_for, retention_window_seconds

from ._framework import Context, Spec, resource_policy
from ._readers.backup import backup_section
from ._readers.backup_jobs import jobs_and_undecided
from ._readers.values import NotKnown
from ._subjects import database, database_types
from .data_protection import SPEC as DATA_PROTECTION
from .data_protection import keep_nothing, production, stack_setting

DAY = 86_400

SPEC = Spec(
    name="backup-retention",
    rules=("R3",),
    applies_to=database_types,
    settings=DATA_PROTECTION.settings,
    thresholds=("min_backup_retention_days",),
    description="the best backup schedule to off-cluster storage keeps at least min_backup_retention_days of restore points",
    remediation="Raise the schedule's keep (PXC: retention.count) so its backups span the window, or mark the stack ephemeral.",
)


def _window(job) -> float:
    if job.keep <= 0 or not job.deletes_from_storage:
        return math.inf
    return retention_window_seconds(job.parsed, job.keep)


def _days(seconds: float) -> str:
    return f"{seconds / DAY:g}"


def check(ctx: Context) -> None:
    view = database(ctx, "R3")
    if view is None:
        return
    minimum = ctx.thresholds["min_backup_retention_days"]
    with ctx.checking("R3"):
        if not production(ctx, view):
            return
        jobs, _, undecided = jobs_and_undecided(backup_section(view))
        windows = []
        for job in jobs:
            try:
                windows.append((_window(job), job))
            except NotKnown as error:  # its retention is unknown at preview: it may keep the longest window
                undecided = undecided or error
        if windows and max(window for window, _ in windows) >= minimum * DAY:
            return  # one job keeps enough, whatever the unknown ones keep
        if undecided is not None:
            raise undecided
        if not windows:
            return  # no cron job the operator runs off the cluster: R1 reports it
        window, job = max(windows, key=lambda item: item[0])
        needed = keep_for(job.parsed, minimum)
        best = job.retention
        ctx.violation(
            "R3",
            f"the best schedule, {job.entry.path} ({job.entry.schedule!r}, "
            f"{best.keep_path} {best.keep}), keeps {_days(window)} days of restore points",
            f"the rule keeps at least min_backup_retention_days = {minimum:g} days",
            f"set {best.keep_path} to at least {needed}{stack_setting('backupRetentionDays')}, or {keep_nothing(view)}",
            field=best.keep_path,
        )


POLICY = resource_policy(SPEC, check)
