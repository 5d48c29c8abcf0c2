"""The 400-year Gregorian cycle core.cron measures schedules over: which days of one cycle a day pattern
(months, days of month, days of week, robfig's star rule) runs on, and its longest gap. Pure; no Pulumi."""

from __future__ import annotations

import operator
from datetime import date
from functools import cache

# The Gregorian calendar repeats every 400 years: 146097 days, which is exactly 20871 weeks, so the
# (month, day of month, day of week) of every day, leap days and weekday alignment included, repeats with
# this period. Every cron schedule in a fixed-offset zone is therefore periodic with it, and the shortest
# span over any run of consecutive gaps seen over one cycle (wrapping around) is the shortest ever.
GREGORIAN_CYCLE_DAYS = 146097
CYCLE_START = date(2001, 1, 1)  # any day works; this one starts a 400-year cycle's worth of days


@cache
def cycle_calendar() -> tuple[tuple[int, int, int], ...]:
    """(month, day of month, Go weekday) of each day of one 400-year cycle from CYCLE_START."""
    days = []
    weekday = (CYCLE_START.weekday() + 1) % 7  # Go's time.Weekday: Sunday = 0
    for year in range(CYCLE_START.year, CYCLE_START.year + 400):
        leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
        for month, length in enumerate((31, 29 if leap else 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31), start=1):
            for day in range(1, length + 1):
                days.append((month, day, weekday))
                weekday = (weekday + 1) % 7
    return tuple(days)


@cache
def run_days_of(pattern: tuple[frozenset[int], frozenset[int], frozenset[int], bool]) -> tuple[int, ...]:
    months, doms, dows, any_star = pattern
    calendar = cycle_calendar()
    if any_star:
        return tuple(i for i, (m, d, w) in enumerate(calendar) if m in months and d in doms and w in dows)
    return tuple(i for i, (m, d, w) in enumerate(calendar) if m in months and (d in doms or w in dows))


@cache
def longest_day_gap(pattern: tuple) -> int:
    days = run_days_of(pattern)
    return max(max(map(operator.sub, days[1:], days), default=0), days[0] + GREGORIAN_CYCLE_DAYS - days[-1])
