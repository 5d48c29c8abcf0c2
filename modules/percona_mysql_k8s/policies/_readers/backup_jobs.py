"""Which backup schedules the operator really runs: its reconcile of ``backup.schedule``, step by step (R1, R3).

One good entry cannot hide a cluster that takes no backups: the operators refuse the whole backup section
(and with it the cluster) for some mistakes, skip single entries for others, and let a later entry of the
same name replace an earlier one. Each step cites the pinned operator's code.

PXC 1.20.0 (percona-xtradb-cluster-operator b3b0b10a7):

* ``Validate`` (pkg/apis/pxc/v1/pxc_types.go:489-517), called by ``CheckNSetDefaults`` before anything is
  reconciled: with a ``backup`` section, an empty ``backup.image``, a ``pitr.storageName`` naming no storage
  while PITR is on, a schedule whose ``storageName`` names no storage, or a ``filesystem`` storage without a
  volume, stop the whole reconcile ("validate cr"): no backup runs. These refusals are rule C2's checks
  (core.operator_validation, ``pxc-backup``), which the section carries (``BackupSection.refusal``).
* ``reconcileBackups`` (pkg/controller/pxc/backup.go:30-119): entries in order; the cron job of an entry is
  keyed by its ``name``, and an entry whose job differs (``shouldRecreateBackupJob``: schedule, storage,
  ``deleteFromStorage``) deletes the job of that name before it parses its own schedule
  (``AddFuncWithSeconds``, ``cron.ParseStandard``); a schedule robfig refuses is logged and skipped, leaving
  no job of that name. So of several entries with one name, the last one's schedule runs, or none when it
  cannot be parsed. The retention applied to that job is the last entry's (``backups[bcp.Name] = bcp``).
* Retention (backup.go:87-113, ``oldScheduledBackups``): ``GetRetention`` (pxc_types.go:292-302) takes
  ``retention`` over the deprecated ``keep``; only ``count`` above 0 deletes (``IsValidCountRetention``).
  Whether a deleted backup also leaves storage depends on ``crVersion`` (``backupFinalizers``,
  backup.go:229-239): before 1.18.0 every s3/azure/filesystem backup carries the ``delete-backup`` finalizer;
  from 1.18.0 only when ``deleteFromStorage`` is true (the legacy ``keep`` always deletes).

PS v1.2.0 (percona-server-mysql-operator):

* ``CheckNSetDefaults`` (api/v1/perconaservermysql_types.go:1094-1121) with ``backup.enabled``: an empty
  ``backup.image``, two schedules with one ``name``, a ``storageName`` naming no storage, or a non-empty
  schedule ``cron.ParseStandard`` refuses, stop the whole reconcile: no backup runs (C2's ``ps-backup`` check).
* ``reconcileScheduledBackup`` (pkg/controller/ps/backup.go:134-191) and ``addBackupJob`` (backup.go:63-80):
  an entry with an empty schedule gets no job (``stopBackupJob``); ``@every``, which ParseStandard accepts,
  panics in ``addFuncWithSeconds`` (pkg/controller/ps/cron.go:35-41).
* Retention: ``keep`` above 0 deletes the oldest succeeded *full* backups of that job
  (``oldScheduledBackups``), always from storage (``FinalizerDeleteBackup``); an ``incremental`` entry needs a
  full base backup on its storage (pkg/controller/psbackup/controller.go ``setIncrementalBaseAnnotations``),
  so it alone restores nothing.

At preview a field may be unknown: the reconcile itself reads the entries' names, schedules and storage names and
the section's image (an unknown one leaves the whole reconcile unknown: which entries run depends on it), and a job
whose storage's endpoint or retention is unknown is kept, raising NotKnown only where that is read
(docs/preview-unknowns.md).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from percona_mysql_k8s.core.cron import CronError, CronSchedule, parse_schedule

from .backup import BackupSection, Schedule, Storage
from .deferred import KnownOnRead, deferred
from .values import NotKnown, join

# PXC backupFinalizers: from this crVersion, retention.deleteFromStorage false leaves rotated backups in storage.
PXC_DELETE_FROM_STORAGE_SINCE = (1, 18, 0)


@dataclass(frozen=True, eq=False)  # identity: reading a Pending field raises (deferred.KnownOnRead)
class Job(KnownOnRead):
    """A cron job the operator runs: the entry whose schedule it runs and the entry whose retention applies."""

    entry: Schedule
    retention: Schedule
    parsed: CronSchedule
    storage: Storage
    deletes_from_storage: bool

    @property
    def keep(self) -> int:
        return self.retention.keep


@dataclass
class Reconciled:
    refused: str | None = None  # why the operator refuses the whole backup section, or None
    jobs: list[Job] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # each entry that runs no job, and why


def reconcile(section: BackupSection) -> Reconciled:
    """The cron jobs the operator keeps for this backup section once it has reconciled it."""
    if section.off:
        return Reconciled(refused=section.off)
    refused = section.refusal  # rule C2's backup checks (core.operator_validation), read through the section
    if refused:
        return Reconciled(refused=refused)
    return _pxc_jobs(section) if section.operator == "pxc" else _ps_jobs(section)


def _parsed(entry: Schedule, skipped: list[str]) -> CronSchedule | None:
    try:
        return parse_schedule(entry.schedule)
    except CronError as error:
        skipped.append(f"{join(entry.path, 'schedule')} {entry.schedule!r} cannot be run by the operator ({error})")
        return None


def _pxc_jobs(section: BackupSection) -> Reconciled:
    """backup.go:30-119 reconcileBackups from an empty cron registry (the operator's start, and its steady state)."""
    result = Reconciled()
    running: dict[str, tuple[Schedule, CronSchedule]] = {}
    last: dict[str, Schedule] = {}
    for entry in section.schedules:
        last[entry.name] = entry  # backups[bcp.Name] = bcp: the retention the job of this name gets
        current = running.get(entry.name)
        if current is not None and not _pxc_recreate(current[0], entry):
            continue
        running.pop(entry.name, None)  # deleteBackupJob before AddFuncWithSeconds
        if current is not None:
            result.skipped.append(f"{current[0].path} is replaced by {entry.path}, which has the same name {entry.name!r}")
        parsed = _parsed(entry, result.skipped)
        if parsed is not None:
            running[entry.name] = (entry, parsed)

    def deletes(retention: Schedule) -> bool:  # read by R3 only (crVersion, retention may be unknown at preview)
        old_keep = section.cr_version is not None and section.cr_version < PXC_DELETE_FROM_STORAGE_SINCE
        return retention.deletes_from_storage or old_keep

    for name, (entry, parsed) in running.items():
        retention = last[name]
        storage = section.storages[entry.storage_name]
        result.jobs.append(Job(entry, retention, parsed, storage, deferred(lambda retention=retention: deletes(retention))))
    return result


def _pxc_recreate(existing: Schedule, expected: Schedule) -> bool:
    """backup.go:121-138 shouldRecreateBackupJob."""
    return (
        existing.schedule != expected.schedule
        or existing.storage_name != expected.storage_name
        or existing.deletes_from_storage != expected.deletes_from_storage
    )


def _ps_jobs(section: BackupSection) -> Reconciled:
    """backup.go:134-191 reconcileScheduledBackup (names are unique: CheckNSetDefaults refused duplicates)."""
    result = Reconciled()
    for entry in section.schedules:
        if not entry.schedule:
            result.skipped.append(f"{join(entry.path, 'schedule')} is empty: the operator stops its job")
            continue
        parsed = _parsed(entry, result.skipped)
        if parsed is None:
            continue
        if entry.kind != "full":
            result.skipped.append(
                f"{entry.path} takes {entry.kind} backups, which restore only on top of a full backup of its storage"
            )
            continue
        result.jobs.append(Job(entry, entry, parsed, section.storages[entry.storage_name], True))
    return result


def offsite_jobs(section: BackupSection) -> tuple[list[Job], list[str]]:
    """The jobs that back up to object storage outside the cluster (R1), and why every other entry does not.
    NotKnown when none does for sure and a job whose storage is unknown at preview may."""
    good, why, undecided = jobs_and_undecided(section)
    if not good and undecided is not None:
        raise undecided
    return good, why


def jobs_and_undecided(section: BackupSection) -> tuple[list[Job], list[str], NotKnown | None]:
    """:func:`offsite_jobs`, and the NotKnown of a job whose storage is unknown at preview (it may count too)."""
    reconciled = reconcile(section)
    if reconciled.refused:
        return [], [reconciled.refused], None
    good, why, undecided = [], list(reconciled.skipped), None
    for job in reconciled.jobs:
        try:
            problem = job.storage.offsite_problem(section.operator)
        except NotKnown as error:
            undecided = undecided or error
            continue
        if problem:
            why.append(f"{job.entry.path} writes to {problem}")
        else:
            good.append(job)
    if not good and not why and undecided is None:
        why.append(f"{section.path}.schedule is empty")
    return good, why, undecided
