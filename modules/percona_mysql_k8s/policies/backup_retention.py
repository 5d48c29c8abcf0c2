"""R3: the backups of a production database keep at least ``min_backup_retention_days`` of restore points.

Judged on the best schedule that counts for R1 (run by the operator, to object storage outside the
cluster): its window is the guaranteed age of the oldest backup it keeps right after a run, ``keep``
consecutive runs of its cron schedule (core.cron.retention_window_seconds). ``keep`` is PXC's
``retention.count`` (which replaces the deprecated ``keep``, GetRetention) or ``keep``; 0 deletes nothing
(unbounded), and PXC ``retention.deleteFromStorage: false`` leaves old backups in storage (unbounded too).
A database with no schedule that counts is R1's to report. Production only (data_protection.production).
"""

from __future__ import annotations

import math

from percona_mysql_k8s.core.cron import keep_for, retention_window_seconds

from ._framework import Context, Spec, resource_policy
from ._readers.backup import backup_section, schedule_problem
from ._readers.values import NotKnown
from ._subjects import database, database_types
from .data_protection import SPEC as DATA_PROTECTION
from .data_protection import production

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


def _window(schedule, parsed) -> float:
    if schedule.keep <= 0 or not schedule.deletes_from_storage:
        return math.inf
    return retention_window_seconds(parsed, schedule.keep)


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
        section = backup_section(view)
        counted, undecided = [], None
        for schedule in section.schedules:
            try:
                problem, parsed = schedule_problem(section, schedule)
                if problem is None:
                    counted.append((_window(schedule, parsed), schedule, parsed))
            except NotKnown as error:  # it might count, with a longer window than the known ones
                undecided = undecided or error
        if counted and max(item[0] for item in counted) >= minimum * DAY:
            return
        if undecided is not None:
            raise undecided
        if not counted:
            return  # no schedule the operator runs off the cluster: R1 reports it
        window, best, parsed = max(counted, key=lambda item: item[0])
        needed = keep_for(parsed, minimum)
        ctx.violation(
            "R3",
            f"the best schedule, {best.path} ({best.schedule!r}, "
            f"{best.keep_path} {best.keep}), keeps {_days(window)} days of restore points",
            f"the rule keeps at least min_backup_retention_days = {minimum:g} days",
            f"set {best.keep_path} to at least {needed} (the stack's backupRetentionDays), or mark the stack ephemeral",
        )


POLICY = resource_policy(SPEC, check)
