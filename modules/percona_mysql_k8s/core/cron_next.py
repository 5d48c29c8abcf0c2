"""robfig/cron v3.0.1 ``SpecSchedule.Next`` (spec.go:58-175), line by line, on Unix seconds in a tz zone.

Needed where the wall clock jumps: robfig steps hours and minutes in elapsed time (``t.Add``) and truncates
only on its first step, so a search that crosses a 30-minute change (Australia/Lord_Howe) goes on at half
past and can pass over a run: ``0 0 * * *`` there skips the midnight after the autumn change. Away from the
changes a search finds the next matching wall-clock time, which core.cron_zone computes in bulk; this port
settles the searches that cross a change. tests/core/test_cron_oracle.py checks it against robfig itself.

Go's ``time`` arithmetic on Unix seconds: ``time.Date`` normalizes out-of-range fields and resolves a local
time that a change skips or repeats as Go's ``Date`` does (time.go: the offset at the local time read as
UTC, kept when the resulting instant lies in that offset's period, else the offset at that instant);
``Add`` is elapsed time; ``AddDate`` is ``Date`` with the field increased. The seconds field is ``{0}``
(the operators fix one second, which moves every run alike). Pure; no Pulumi.
"""

from __future__ import annotations

import bisect
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


class GoZone:
    """A tz database zone read as Go's ``time.Location``; ``""``/``UTC``/``Local`` are UTC.

    ``changes``: (first Unix second, offset) of each period of constant offset over a span (core.cron_zone
    ``periods``), so that a lookup there is a bisection; outside it zoneinfo answers.
    """

    def __init__(self, name: str, changes: tuple[tuple[int, int], ...] = ()):
        self.zone = ZoneInfo(name) if name not in ("", "UTC", "Local") else UTC
        self._starts = [start for start, _ in changes]
        self._offsets = [offset for _, offset in changes]
        self._end = changes[-1][0] if changes else 0

    def offset(self, unix: int) -> int:
        if self.zone is UTC:
            return 0
        if self._starts and self._starts[0] <= unix < self._end:
            return self._offsets[bisect.bisect_right(self._starts, unix) - 1]
        return int((_EPOCH + timedelta(seconds=unix)).astimezone(self.zone).utcoffset().total_seconds())

    def fields(self, unix: int) -> tuple[int, int, int, int, int, int, int]:
        """(year, month, day, hour, minute, second, Go weekday) of ``unix`` in the zone."""
        days, rest = divmod(unix + self.offset(unix), 86400)
        year, month, day = _civil(days)
        hour, rest = divmod(rest, 3600)
        return year, month, day, hour, rest // 60, rest % 60, (days + 4) % 7  # 1970-01-01 was a Thursday

    def clock(self, unix: int) -> tuple[int, int, int]:
        """(hour, minute, second) of ``unix`` in the zone: ``fields`` without the calendar."""
        rest = (unix + self.offset(unix)) % 86400
        return rest // 3600, rest // 60 % 60, rest % 60

    def date(self, year: int, month: int, day: int, hour: int, minute: int, second: int) -> int:
        """Go's ``time.Date`` in the zone (time.go: normalization, then the offset lookup)."""
        extra_years, month0 = divmod(month - 1, 12)
        unix = (_days(year + extra_years, month0 + 1) + day - 1) * 86400 + hour * 3600 + minute * 60 + second
        offset = self.offset(unix)  # the local time read as UTC
        if offset != 0:
            utc = unix - offset
            if self.offset(utc) != offset:  # utc outside the period the guess found: the offset at utc
                offset = self.offset(utc)
            unix -= offset
        return unix


def _days(year: int, month: int) -> int:
    """Days from 1970-01-01 to the first of ``month`` (proleptic Gregorian; H. Hinnant's days_from_civil)."""
    year -= month <= 2
    era = year // 400
    year_of_era = year - era * 400
    day_of_year = (153 * (month + (-3 if month > 2 else 9)) + 2) // 5
    day_of_era = year_of_era * 365 + year_of_era // 4 - year_of_era // 100 + day_of_year
    return era * 146097 + day_of_era - 719468


def _civil(days: int) -> tuple[int, int, int]:
    """(year, month, day) of a day count from 1970-01-01 (H. Hinnant's civil_from_days)."""
    days += 719468
    era = days // 146097
    day_of_era = days - era * 146097
    year_of_era = (day_of_era - day_of_era // 1460 + day_of_era // 36524 - day_of_era // 146096) // 365
    day_of_year = day_of_era - (365 * year_of_era + year_of_era // 4 - year_of_era // 100)
    mp = (5 * day_of_year + 2) // 153
    day = day_of_year - (153 * mp + 2) // 5 + 1
    month = mp + 3 if mp < 10 else mp - 9
    return year_of_era + era * 400 + (month <= 2), month, day


def _day_matches(schedule, fields) -> bool:
    """spec.go:179-188 ``dayMatches``."""
    day, weekday = fields[2], fields[6]
    dom, dow = day in schedule.days_of_month, weekday in schedule.days_of_week
    return (dom and dow) if (schedule.dom_star or schedule.dow_star) else (dom or dow)


def go_next(schedule, after_unix: int, zone: GoZone) -> int | None:
    """The next run strictly after ``after_unix`` (whole seconds), or None for Go's zero time.

    Long because it is spec.go's ``Next`` loop by loop, each ``goto WRAP`` a ``continue`` of the outer loop,
    so it reads beside the Go source.
    """
    hours, minutes = set(schedule.hours), set(schedule.minutes)
    t = after_unix + 1  # spec.go:82, on whole seconds
    added = False
    year_limit = zone.fields(t)[0] + 5  # spec.go:87-93
    while True:  # WRAP
        if zone.fields(t)[0] > year_limit:
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
        while not _day_matches(schedule, zone.fields(t)):  # spec.go:117-136
            if not added:
                added = True
                y, mo, d, *_ = zone.fields(t)
                t = zone.date(y, mo, d, 0, 0, 0)
            y, mo, d, h, mi, s, _ = zone.fields(t)
            t = zone.date(y, mo, d + 1, h, mi, s)
            hour = zone.fields(t)[3]
            if hour != 0:  # the day's midnight was skipped or repeated: back to its first hour
                t += (24 - hour) * 3600 if hour > 12 else -hour * 3600
            if zone.fields(t)[2] == 1:
                wrapped = True
                break
        if wrapped:
            continue
        while zone.clock(t)[0] not in hours:  # spec.go:138-148
            if not added:
                added = True
                y, mo, d, h, *_ = zone.fields(t)
                t = zone.date(y, mo, d, h, 0, 0)
            t += 3600
            if zone.clock(t)[0] == 0:
                wrapped = True
                break
        if wrapped:
            continue
        while zone.clock(t)[1] not in minutes:  # spec.go:150-160
            if not added:
                added = True
                t -= t % 60
            t += 60
            if zone.clock(t)[1] == 0:
                wrapped = True
                break
        if wrapped:
            continue
        second = zone.clock(t)[2]
        if second != 0:  # spec.go:162-172 with Second = {0}: one second at a time up to the next minute
            added = True
            # in one step where the offset is whole minutes (every offset since Monrovia's -0:44:30 of 1972)
            t += 60 - second if zone.offset(t) % 60 == 0 else 1
            continue
        return t
