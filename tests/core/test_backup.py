"""The backup plan (R1-R3, M3): keep from the schedule and retention, container sizes, storage estimate."""

from __future__ import annotations

import dataclasses
import warnings

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from percona_mysql_k8s.core import backup
from percona_mysql_k8s.core.backup import (
    GCS,
    GCS_ENDPOINT,
    PITR_UPLOAD_SECONDS_MAX,
    BackupStorage,
    backup_plan,
    ps_checkpoint_interval,
    storage_estimate,
)
from percona_mysql_k8s.core.cron import parse_schedule, retention_window_seconds
from percona_mysql_k8s.core.errors import InputError
from percona_mysql_k8s.core.memory import GROUP_REPLICATION, PXC
from percona_mysql_k8s.core.units import GIB, MIB

STORAGE = BackupStorage(kind=GCS, bucket="prod-db-backups", endpoint_url=GCS_ENDPOINT, credentials_secret="gcs-hmac")
DAY = 86400


def _plan(**overrides):
    """backup_plan as the stack's decoder calls it: the schedule parsed already (plan.config.backup)."""
    arguments = dict(engine=PXC, schedule="0 3 * * *", retention_days=7, min_retention_days=7, pitr=True, pitr_upload_seconds=60)
    arguments.update(overrides)
    arguments["schedule"] = parse_schedule(arguments["schedule"])
    return backup_plan(STORAGE, **arguments)


def test_daily_backups_for_a_week_keep_eight():
    # daily runs: 7 days of restore points right after a run need 7 gaps, so 8 backups
    plan = _plan()
    assert (plan.keep, plan.retention_days, plan.pitr_upload_seconds) == (8, 7, 60)
    assert plan.storage is STORAGE and plan.schedule.text == "0 3 * * *"


def test_the_plan_keeps_the_parsed_schedule_it_was_given():
    """Parsed once: the plan holds the very schedule the decoder parsed, and reads no text again."""
    schedule = parse_schedule("TZ=Europe/Paris 30 1 * * 1-5")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        plan = backup_plan(
            STORAGE, engine=PXC, schedule=schedule, retention_days=7, min_retention_days=7, pitr=True, pitr_upload_seconds=60
        )
    assert plan.schedule is schedule
    with pytest.raises(TypeError, match="parsed schedule"):
        dataclasses.replace(plan, schedule="0 3 * * *")


@pytest.mark.parametrize("text", ["@every 24h", "0 3 * *", "0 0 30 2 *"])
def test_a_schedule_as_text_still_plans_for_one_release_warning(text):
    """The 0.2 signature (schedule as text): parsed here with a DeprecationWarning naming the new way, and a
    schedule the operators cannot run still names backupSchedule and R1."""
    with pytest.warns(DeprecationWarning, match=rf"parsed schedule .*removed in {backup.SCHEDULE_TEXT_REMOVED_IN}"):
        assert backup_plan(
            STORAGE, engine=PXC, schedule="0 3 * * *", retention_days=7, min_retention_days=7, pitr=True, pitr_upload_seconds=60
        ).schedule == parse_schedule("0 3 * * *")
    with pytest.warns(DeprecationWarning), pytest.raises(InputError) as caught:
        backup_plan(STORAGE, engine=PXC, schedule=text, retention_days=7, min_retention_days=7, pitr=True, pitr_upload_seconds=60)
    assert (caught.value.key, caught.value.rule) == ("backupSchedule", "R1")


def test_engines_get_their_operators_containers():
    pxc, ps = _plan(engine=PXC), _plan(engine=GROUP_REPLICATION)
    assert (pxc.backup_job, pxc.pitr_collector) == (backup.PXC_BACKUP_JOB, backup.PXC_PITR_COLLECTOR)
    assert (ps.backup_job, ps.pitr_collector) == (backup.PS_BACKUP_JOB, backup.PS_BINLOG_SERVER)
    assert _plan(pitr=False).pitr_collector is None


def test_container_sizes_follow_their_derivations():
    # PXC backup Job: garbd 128 MiB + 4 xbcloud slots x 2 chunks x 10 MiB + 64 MiB of processes = 272 MiB
    assert backup.PXC_BACKUP_JOB.memory_bytes == 272 * MIB
    assert backup.PXC_XBCLOUD_ARGS == ("--parallel=4",)
    # minio-go's part for an unknown size: ceil(549755813 / 16 MiB) = 33 parts of 16 MiB = 528 MiB
    assert backup.MINIO_UNKNOWN_SIZE_PART_BYTES == 528 * MIB
    # PXC collector: two 528 MiB parts (GOGC=100) + the 10 MB read buffer + 64 MiB of processes
    assert backup.PXC_PITR_COLLECTOR.memory_bytes == 2 * 528 * MIB + 10_485_760 + 64 * MIB
    # PS binlog server: a 128 MiB rewritten file + a 16 MiB checkpoint + 64 MiB of process = 208 MiB
    assert backup.PS_BINLOG_SERVER.memory_bytes == 208 * MIB
    for size in (backup.PXC_BACKUP_JOB, backup.PXC_PITR_COLLECTOR, backup.PS_BACKUP_JOB, backup.PS_BINLOG_SERVER):
        assert size.cpu_millicores > 0 and size.memory_bytes % MIB == 0


@pytest.mark.parametrize(
    ("overrides", "key", "rule"),
    [
        ({"retention_days": 6}, "backupRetentionDays", "R3"),
        ({"retention_days": 0, "min_retention_days": 0}, "backupRetentionDays", "R3"),
        ({"retention_days": 7.5}, "backupRetentionDays", "R3"),
        ({"retention_days": True}, "backupRetentionDays", "R3"),
        ({"min_retention_days": "7"}, "min_backup_retention_days", "R3"),
        ({"pitr": "yes"}, "pitr", "R2"),
        ({"pitr_upload_seconds": 0}, "pitrUploadSeconds", "R2"),
        ({"pitr_upload_seconds": 0.5}, "pitrUploadSeconds", "R2"),
        ({"pitr_upload_seconds": PITR_UPLOAD_SECONDS_MAX + 1}, "pitrUploadSeconds", "R2"),
        ({"engine": "mariadb"}, "engine", None),
    ],
)
def test_bad_input_names_its_key_and_rule(overrides, key, rule):
    with pytest.raises(InputError) as caught:
        _plan(**overrides)
    assert (caught.value.key, caught.value.rule) == (key, rule)
    if rule:
        assert str(caught.value).startswith(f"{rule}: {key}: ")


def test_storage_must_be_object_storage():
    with pytest.raises(InputError, match="R1: backup: "):
        backup_plan(
            BackupStorage(kind="pvc", bucket="x"),
            engine=PXC,
            schedule=parse_schedule("@daily"),
            retention_days=7,
            min_retention_days=7,
            pitr=True,
            pitr_upload_seconds=60,
        )


def test_upload_interval_bounds_are_accepted():
    # 9223372036 s x 1e9 ns still fits an int64 (9223372036854775807); with PITR off nothing else bounds it
    assert _plan(pitr=False, pitr_upload_seconds=PITR_UPLOAD_SECONDS_MAX).pitr_upload_seconds == 9_223_372_036
    assert _plan(pitr_upload_seconds=1).pitr_upload_seconds == 1
    assert _plan(pitr_upload_seconds=7 * DAY).pitr_upload_seconds == 7 * DAY  # one upload per restore window
    assert ps_checkpoint_interval(30) == "30s"


def test_an_upload_interval_longer_than_the_restore_window_is_refused():
    with pytest.raises(InputError) as error:
        _plan(pitr_upload_seconds=7 * DAY + 1)
    assert (error.value.key, error.value.rule) == ("pitrUploadSeconds", "R2") and "604800" in str(error.value)


def test_a_retention_beyond_ten_years_is_refused():
    assert _plan(retention_days=3650).retention_days == 3650
    with pytest.raises(InputError) as error:
        _plan(retention_days=3651)
    assert (error.value.key, error.value.rule) == ("backupRetentionDays", "R3")


def test_storage_estimate_daily_week_with_pitr():
    # keep 8 (above); peak 9 full backups of 100 GiB = 900 GiB. Right before a run the 8 kept backups reach
    # back 8 daily gaps = 8 days = 691200 s; at 1 MiB/s of binary log that is 691200 MiB = 675 GiB.
    estimate = storage_estimate(_plan(), data_bytes=100 * GIB, binlog_bytes_per_second=MIB)
    assert (estimate.full_backups, estimate.binlog_seconds) == (9, 8 * DAY)
    assert estimate.binlog_bytes == 675 * GIB
    assert estimate.total_bytes == 900 * GIB + 675 * GIB
    # without PITR no binary logs are kept
    assert storage_estimate(_plan(pitr=False), data_bytes=GIB, binlog_bytes_per_second=MIB).binlog_bytes == 0
    with pytest.raises(InputError, match="data_bytes"):
        storage_estimate(_plan(), data_bytes=-1, binlog_bytes_per_second=0)
    with pytest.raises(InputError, match="binlog_bytes_per_second"):
        storage_estimate(_plan(), data_bytes=1, binlog_bytes_per_second=float("nan"))


@settings(max_examples=60, deadline=None)
@given(
    st.sampled_from(["0 3 * * *", "0 */6 * * *", "30 1 * * 1-5", "@weekly", "0 0 1,15 * *", "15 2 * * SUN,WED"]),
    st.integers(1, 120),
    st.integers(0, 30),
)
def test_keep_covers_the_retention_and_no_fewer_would(schedule, days, minimum):
    plan = _plan(schedule=schedule, retention_days=max(days, minimum), min_retention_days=minimum)
    parsed = parse_schedule(schedule)
    assert retention_window_seconds(parsed, plan.keep) >= plan.retention_days * DAY
    assert retention_window_seconds(parsed, plan.keep - 1) < plan.retention_days * DAY


def test_the_text_schedule_goes_with_the_other_old_paths():
    """backup_plan's text schedule is removed with the moved module paths (percona_mysql_k8s._moved.REMOVED_IN)."""
    import percona_mysql_k8s
    from packaging.version import Version
    from percona_mysql_k8s import _moved

    assert backup.SCHEDULE_TEXT_REMOVED_IN == _moved.REMOVED_IN
    assert Version(percona_mysql_k8s.__version__) < Version(backup.SCHEDULE_TEXT_REMOVED_IN), (
        "remove core.backup._schedule's text branch and SCHEDULE_TEXT_REMOVED_IN (and this test)"
    )
