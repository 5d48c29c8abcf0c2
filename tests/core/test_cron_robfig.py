"""core.cron's calendar computation against robfig's own ``Next`` (core/cron_next.py, a line-by-line port
that tests/core/test_cron_oracle.py checks against robfig itself).

In UTC the runs must be the same; in zones with daylight saving time the window core.cron computes over
its horizon must never exceed what robfig's runs actually span around the transitions of one year.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from percona_mysql_k8s.core.cron import CronError, next_runs, parse_schedule, retention_window_seconds
from percona_mysql_k8s.core.cron_next import GoZone, go_next

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def go_runs(schedule, start: datetime, end: datetime) -> list[int]:
    """Every run in [start, end) as Unix seconds, by repeated go_next, as robfig's scheduler does."""
    zone = GoZone(schedule.time_zone)
    runs = []
    t = int((start - _EPOCH).total_seconds()) - 1
    stop = int((end - _EPOCH).total_seconds())
    while True:
        t = go_next(schedule, t, zone)
        if t is None or t >= stop:
            return runs
        runs.append(t)


_BOUNDS = {"minute": (0, 59), "hour": (0, 23), "dom": (1, 31), "month": (1, 12), "dow": (0, 6)}


@st.composite
def _field(draw, kind: str) -> str:
    low, high = _BOUNDS[kind]
    choice = draw(st.sampled_from(["*", "?", "list", "range", "step", "ranged-step"]))
    if choice in ("*", "?"):
        return choice
    if choice == "step":
        return f"*/{draw(st.integers(1, high - low + 1))}"
    if choice in ("range", "ranged-step"):
        start = draw(st.integers(low, high))
        text = f"{start}-{draw(st.integers(start, high))}"
        return text + (f"/{draw(st.integers(1, 7))}" if choice == "ranged-step" else "")
    return ",".join(str(v) for v in draw(st.lists(st.integers(low, high), min_size=1, max_size=4)))


@st.composite
def _utc_schedules(draw):
    text = " ".join(draw(_field(kind)) for kind in ("minute", "hour", "dom", "month", "dow"))
    try:
        return parse_schedule(text)
    except CronError:
        assume(False)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow])
@given(_utc_schedules(), st.datetimes(min_value=datetime(2001, 1, 1), max_value=datetime(2390, 1, 1)))
def test_runs_are_robfigs_in_utc(schedule, after):
    after = after.replace(microsecond=0)
    zone = GoZone("")
    expected = []
    t = int((after.replace(tzinfo=UTC) - _EPOCH).total_seconds())
    for _ in range(4):
        t = go_next(schedule, t, zone)
        assert t is not None  # parse_schedule refused every schedule robfig could lose
        expected.append((_EPOCH + timedelta(seconds=t)).replace(tzinfo=None))
    assert next_runs(schedule, after, 4) == expected


def test_robfig_runs_the_repeated_hour_twice():
    # the behaviour the daylight-saving bound accounts for: New York, 2026-11-01, 01:30 EDT then 01:30 EST
    runs = go_runs(
        parse_schedule("TZ=America/New_York 30 1 * * *"), datetime(2026, 10, 31, tzinfo=UTC), datetime(2026, 11, 3, tzinfo=UTC)
    )
    assert [runs[2] - runs[1], runs[3] - runs[2]] == [3600, 25 * 3600 - 3600]  # 1 h apart, then the next day


def _transitions(zone_name: str, year: int) -> list[datetime]:
    zone = GoZone(zone_name)
    day = datetime(year, 1, 1, tzinfo=UTC)
    found, previous = [], None
    while day.year == year:
        offset = zone.offset(int((day - _EPOCH).total_seconds()))
        if previous is not None and offset != previous:
            found.append(day)
        previous, day = offset, day + timedelta(days=1)
    return found


@pytest.mark.parametrize("zone", ["America/New_York", "Europe/London", "Europe/Paris", "Australia/Lord_Howe"])
@pytest.mark.parametrize(
    "expression", ["30 1 * * *", "30 2 * * *", "30 4 * * *", "0 * * * *", "*/20 0-3 * * *", "0 2 * * 0", "15 1,2 * * *"]
)
def test_the_daylight_saving_window_is_a_guarantee(zone, expression):
    # Lord Howe moves by 30 minutes, the others by an hour; the schedules sit in and around the moved hour
    schedule = parse_schedule(f"TZ={zone} {expression}")
    transitions = _transitions(zone, 2026)
    assert len(transitions) == 2
    keeps = (2, 3, 5, 8, 25)
    # enough days either side for the largest keep's windows to straddle the transition (daily: 26 days, weekly: 26 weeks)
    days = max(keeps) + 1 if schedule.days_of_week == frozenset(range(7)) else 7 * (max(keeps) + 1)
    for moment in transitions:
        runs = go_runs(schedule, moment - timedelta(days=days), moment + timedelta(days=days))
        for keep in keeps:
            actual = min(runs[i + keep - 1] - runs[i] for i in range(len(runs) - keep + 1))
            assert retention_window_seconds(schedule, keep) <= actual, (keep, moment)
