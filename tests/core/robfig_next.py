"""A test oracle: robfig/cron v3.0.1 ``SpecSchedule.Next`` (spec.go:58-175) ported line by line.

Go's ``time`` arithmetic is reproduced on Unix seconds in a tz database zone: ``time.Date`` normalizes
out-of-range fields and resolves a local time that a transition skips or repeats as Go's
``Date`` does (time.go: look up the offset at the local time read as UTC, keep it when the resulting
instant lies in that offset's period, else take the offset at that instant); ``Add`` is elapsed time;
``AddDate`` is ``Date`` with the field increased. The schedule's seconds field is ``{0}``: the operators
set one fixed second.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


class GoZone:
    def __init__(self, name: str):
        self.zone = ZoneInfo(name) if name not in ("", "UTC", "Local") else UTC

    def offset(self, unix: int) -> int:
        if self.zone is UTC:
            return 0
        return int((_EPOCH + timedelta(seconds=unix)).astimezone(self.zone).utcoffset().total_seconds())

    def fields(self, unix: int) -> tuple[int, int, int, int, int, int, int]:
        local = _EPOCH + timedelta(seconds=unix + self.offset(unix))
        return local.year, local.month, local.day, local.hour, local.minute, local.second, (local.weekday() + 1) % 7

    def date(self, year: int, month: int, day: int, hour: int, minute: int, second: int) -> int:
        extra_years, month0 = divmod(month - 1, 12)
        base = datetime(year + extra_years, month0 + 1, 1, tzinfo=UTC)
        local = base + timedelta(days=day - 1, hours=hour, minutes=minute, seconds=second)
        unix = int((local - _EPOCH).total_seconds())  # the local time read as UTC
        offset = self.offset(unix)
        if offset != 0:
            utc = unix - offset
            if self.offset(utc) != offset:  # utc outside the period we found: take the offset at utc
                offset = self.offset(utc)
            unix -= offset
        return unix


def go_next(schedule, after_unix: int, zone: GoZone) -> int | None:
    """The next run strictly after ``after_unix`` (whole seconds), or None for Go's zero time."""
    minutes, hours = set(schedule.minutes), set(schedule.hours)
    t = after_unix + 1  # spec.go:82, on whole seconds
    added = False
    year_limit = zone.fields(t)[0] + 5

    def day_matches(fields) -> bool:
        _, _, day, _, _, _, weekday = fields
        dom, dow = day in schedule.days_of_month, weekday in schedule.days_of_week
        return (dom and dow) if (schedule.dom_star or schedule.dow_star) else (dom or dow)

    while True:  # WRAP
        y, mo, d, h, mi, s, _ = zone.fields(t)
        if y > year_limit:
            return None
        wrapped = False
        while zone.fields(t)[1] not in schedule.months:  # spec.go:97-110
            if not added:
                added = True
                y, mo, *_ = zone.fields(t)
                t = zone.date(y, mo, 1, 0, 0, 0)
            y, mo, d, h, mi, s, _ = zone.fields(t)
            t = zone.date(y, mo + 1, d, h, mi, s)
            if zone.fields(t)[1] == 1:
                wrapped = True
                break
        if wrapped:
            continue
        while not day_matches(zone.fields(t)):  # spec.go:117-136
            if not added:
                added = True
                y, mo, d, *_ = zone.fields(t)
                t = zone.date(y, mo, d, 0, 0, 0)
            y, mo, d, h, mi, s, _ = zone.fields(t)
            t = zone.date(y, mo, d + 1, h, mi, s)
            hour = zone.fields(t)[3]
            if hour != 0:
                t += (24 - hour) * 3600 if hour > 12 else -hour * 3600
            if zone.fields(t)[2] == 1:
                wrapped = True
                break
        if wrapped:
            continue
        while zone.fields(t)[3] not in hours:  # spec.go:138-148
            if not added:
                added = True
                y, mo, d, h, *_ = zone.fields(t)
                t = zone.date(y, mo, d, h, 0, 0)
            t += 3600
            if zone.fields(t)[3] == 0:
                wrapped = True
                break
        if wrapped:
            continue
        while zone.fields(t)[4] not in minutes:  # spec.go:150-160
            if not added:
                added = True
                t -= t % 60
            t += 60
            if zone.fields(t)[4] == 0:
                wrapped = True
                break
        if wrapped:
            continue
        while zone.fields(t)[5] != 0:  # spec.go:162-172, Second = {0}
            if not added:
                added = True
            t += 1
            if zone.fields(t)[5] == 0:
                wrapped = True
                break
        if wrapped:
            continue
        return t


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
