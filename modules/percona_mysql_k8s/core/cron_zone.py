"""When a backup schedule really fires in a time zone whose UTC offset changes (daylight saving time).

robfig/cron v3.0.1 ``SpecSchedule.Next`` (spec.go:58-175) walks the schedule's zone's wall clock: months and
days with ``time.Date``/``AddDate``, hours, minutes and seconds with ``t.Add``, i.e. in elapsed time. So it
fires at every instant whose wall-clock time in the zone matches the schedule, and only there:

* a wall-clock time a spring-forward skips never exists, and is skipped (the hour loop steps from 01:00 to
  03:00 in Europe/Paris; the minute loop from 01:59 to 02:30 in Australia/Lord_Howe);
* a wall-clock time a fall-back repeats exists twice, and fires twice (the minute loop steps from 01:59 EDT to
  01:00 EST, which matches again);
* on a day whose midnight is skipped or repeated, spec.go:117-131 moves ``t`` back to the day's first hour,
  so the day's runs are still its matching wall-clock times.

tests/core/test_cron_oracle.py checks that reading against robfig itself (a Go program built from the module
proxy) near the transitions of many zones. From it, this module computes the actual runs, as instants, over
``HORIZON``, and the spans of ``keep`` consecutive runs there (retention windows, rule R3), exactly: no bound.
Pure; no Pulumi.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterator
from datetime import UTC, date, datetime, timedelta
from functools import cache
from zoneinfo import ZoneInfo

from .cron_calendar import CYCLE_START, run_days_of
from .cron_next import GoZone, go_next

DAY_SECONDS = 86_400
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_EPOCH_ORDINAL = date(1970, 1, 1).toordinal()
# The century the windows are measured over. The tz database projects a zone's last rule (its POSIX footer)
# forever, as Go's time package and zoneinfo both do, so a century holds every weekday alignment of the
# rules (they repeat every 28 years between century years) more than three times, and the non-leap 2100.
HORIZON = (date(2026, 1, 1), date(2126, 1, 1))
# Zones that have no fixed offset over the horizon: "" and "Local" are the operator pod's zone (UTC unless
# its Deployment sets TZ), read as UTC here.
FIXED_NAMES = ("", "UTC", "Local")


def _offset(zone: ZoneInfo, unix: int) -> int:
    return int((_EPOCH + timedelta(seconds=unix)).astimezone(zone).utcoffset().total_seconds())


@cache
def periods(zone_name: str) -> tuple[tuple[int, int, int], ...]:
    """The horizon cut where the zone's offset changes: (first Unix second, end Unix second, offset seconds).

    One period when the offset never changes. Found by sampling each day at noon UTC and bisecting each
    change to the second (no zone changes its offset twice within a day).
    """
    start = int((datetime.combine(HORIZON[0], datetime.min.time(), UTC) - _EPOCH).total_seconds())
    end = int((datetime.combine(HORIZON[1], datetime.min.time(), UTC) - _EPOCH).total_seconds())
    if zone_name in FIXED_NAMES:
        return ((start, end, 0),)
    zone = ZoneInfo(zone_name)
    cuts = [start]
    moment = start
    while moment < end:
        later = min(moment + DAY_SECONDS, end)
        if _offset(zone, later) != _offset(zone, moment):
            low, high = moment, later  # offset(low) is the old one, offset(high) the new one
            while high - low > 1:
                middle = (low + high) // 2
                low, high = (middle, high) if _offset(zone, middle) == _offset(zone, low) else (low, middle)
            cuts.append(high)
        moment = later
    cuts.append(end)
    return tuple((a, b, _offset(zone, a)) for a, b in zip(cuts, cuts[1:], strict=False) if b > a)


@cache
def go_zone(zone_name: str) -> GoZone:
    """The zone as robfig's Next reads it, with the horizon's offsets at hand."""
    cuts = periods(zone_name)
    return GoZone(zone_name, tuple((start, offset) for start, _, offset in cuts) + ((cuts[-1][1], 0),))


def has_transitions(zone_name: str) -> bool:
    return len(periods(zone_name)) > 1


class ZoneRuns:
    """The schedule's actual runs over the horizon, as ranges of its wall-clock runs.

    Wall-clock run ``w`` is time of day ``w % n`` of run day ``w // n`` (``n`` times a day). Each period of
    constant offset runs the wall-clock runs its wall-clock interval holds; the runs are those ranges in
    order, a fall-back's repeated runs in two ranges, a spring-forward's skipped ones in none.
    """

    def __init__(self, schedule, zone_name: str):
        pattern = (schedule.months, schedule.days_of_month, schedule.days_of_week, schedule.dom_star or schedule.dow_star)
        first = (HORIZON[0] - CYCLE_START).days - 2
        last = (HORIZON[1] - CYCLE_START).days + 2
        base = CYCLE_START.toordinal() - _EPOCH_ORDINAL
        cycle_days = run_days_of(pattern)
        lo, hi = bisect.bisect_left(cycle_days, first), bisect.bisect_right(cycle_days, last)
        self.days = [(base + d) * DAY_SECONDS for d in cycle_days[lo:hi]]  # midnight of each run day, wall seconds
        self.times = [m * 60 for m in schedule.minutes_of_day]
        self.n = len(self.times)
        # (first wall run, end wall run, offset, None), or (0, 1, 0, Unix second) for one run off the wall clock
        self.ranges: list[tuple[int, int, int, int | None]] = []
        for start, end, offset in periods(zone_name):
            first_run, end_run = self._index(start + offset), self._index(end + offset)
            if end_run > first_run:
                self.ranges.append((first_run, end_run, offset, None))
        self._horizon_end = periods(zone_name)[-1][1]
        self._number()
        self._day_steps: dict[int, list[int]] = {}
        zone = go_zone(zone_name)
        for start, _, _ in periods(zone_name)[1:]:
            self._settle(schedule, zone, start)

    def _number(self) -> None:
        self.starts = []  # position of each range's first run in the sequence of actual runs
        total = 0
        for first_run, end_run, _, _ in self.ranges:
            self.starts.append(total)
            total += end_run - first_run
        self.count = total

    def _position(self, unix: int) -> int:
        """How many runs are before ``unix``."""
        low, high = 0, self.count
        while low < high:
            middle = (low + high) // 2
            low, high = (middle + 1, high) if self.instant(middle) < unix else (low, middle)
        return low

    def _settle(self, schedule, zone: GoZone, change: int) -> None:
        """robfig's searches from the last run before a change, until one ends on a wall-clock run after it.

        Such a search can pass over runs, and can end off the schedule: its minute loop may cross a
        change without returning to the hour loop (spec.go:150-160), so Lord Howe's ``30 1 * * *`` also
        fires at 02:30 on the spring-forward day. Those runs replace the wall-clock ones in between.
        """
        before = self._position(change) - 1
        if before < 0:
            return
        found, extra = self.instant(before), []
        while True:
            found = go_next(schedule, found, zone)
            if found is None or found >= self._horizon_end:
                self._replace(before + 1, self.count, extra)
                return
            if found > change:
                end = self._position(found)
                if end < self.count and self.instant(end) == found:
                    self._replace(before + 1, end, extra)
                    return
            extra.append(found)

    def _replace(self, first: int, end: int, explicit: list[int]) -> None:
        """Runs [first, end) become the ``explicit`` instants."""
        if end == first and not explicit:
            return
        heads, tails = [], []
        for r, (first_run, end_run, offset, instant) in enumerate(self.ranges):
            start, length = self.starts[r], end_run - first_run
            keep_head = min(length, max(0, first - start))
            skip_tail = min(length, max(0, end - start))
            if keep_head:
                heads.append((first_run, first_run + keep_head, offset, instant))
            if skip_tail < length:
                tails.append((first_run + skip_tail, end_run, offset, instant))
        self.ranges = heads + [(0, 1, 0, unix) for unix in explicit] + tails
        self._number()

    def _index(self, wall: int) -> int:
        """The first wall-clock run at or after wall-clock second ``wall``."""
        day = bisect.bisect_right(self.days, wall) - 1
        if day < 0:
            return 0
        return day * self.n + bisect.bisect_left(self.times, wall - self.days[day])

    def wall(self, run: int) -> int:
        day, time = divmod(run, self.n)
        return self.days[day] + self.times[time]

    def instant(self, position: int) -> int:
        """The Unix second of actual run ``position``."""
        r = bisect.bisect_right(self.starts, position) - 1
        first_run, _, offset, instant = self.ranges[r]
        if instant is not None:
            return instant
        return self.wall(first_run + position - self.starts[r]) - offset

    def _steps(self, step: int) -> list[int]:
        """days[p + step] - days[p] for every p where both exist (index p - max(0, -step))."""
        if step not in self._day_steps:
            days = self.days
            if step >= 0:
                self._day_steps[step] = [b - a for a, b in zip(days, days[step:], strict=False)]
            else:
                self._day_steps[step] = [b - a for a, b in zip(days[-step:], days, strict=False)]
        return self._day_steps[step]

    def _pick_wall_span(self, shift: int, first: int, end: int, pick: Callable) -> int | None:
        """pick over wall runs w in [first, end) of wall(w + shift) - wall(w); None when the range is empty."""
        n, times = self.n, self.times
        step0, rest = divmod(shift, n)
        found = []
        for a_low, a_high, step in ((0, n - rest, step0), (n - rest, n, step0 + 1)):
            if a_low >= a_high:
                continue
            delta = [times[(a + rest) % n] - times[a] for a in range(a_low, a_high)]
            steps, offset = self._steps(step), max(0, -step)
            for day_first, day_last, a_from, a_to in self._day_rows(first, end, a_low, a_high):
                p_from, p_to = day_first - offset, day_last - offset + 1
                p_from, p_to = max(p_from, 0), min(p_to, len(steps))
                if p_from >= p_to or a_from >= a_to:
                    continue
                found.append(pick(steps[p_from:p_to]) + pick(delta[a_from - a_low : a_to - a_low]))
        return pick(found) if found else None

    def _day_rows(self, first: int, end: int, a_low: int, a_high: int) -> Iterator[tuple[int, int, int, int]]:
        """[first, end) as (first day, last day, time from, time to) blocks clipped to times [a_low, a_high)."""
        n = self.n
        first_day, first_time = divmod(first, n)
        last_day, last_time = divmod(end - 1, n)
        if first_day == last_day:
            yield first_day, first_day, max(first_time, a_low), min(last_time + 1, a_high)
            return
        yield first_day, first_day, max(first_time, a_low), a_high
        if last_day > first_day + 1:
            yield first_day + 1, last_day - 1, a_low, a_high
        yield last_day, last_day, a_low, min(last_time + 1, a_high)

    def span(self, gaps: int, pick: Callable = min) -> int | None:
        """pick over the horizon of the elapsed seconds ``gaps`` consecutive gaps span; None if too few runs."""
        if gaps >= self.count:
            return None
        found = []
        for j, (first_j, end_j, offset_j, instant_j) in enumerate(self.ranges):
            start_j = self.starts[j]
            for k in range(j, len(self.ranges)):
                first_k, end_k, offset_k, instant_k = self.ranges[k]
                start_k = self.starts[k]
                if start_k > start_j + (end_j - first_j) - 1 + gaps:
                    break
                # windows starting in range j at position q and ending in range k at q + gaps
                q_from = max(start_j, start_k - gaps)
                q_to = min(start_j + end_j - first_j, start_k + end_k - first_k - gaps)
                if q_from >= q_to:
                    continue
                if instant_j is not None or instant_k is not None:  # one window: a run off the wall clock
                    found.append(self.instant(q_from + gaps) - self.instant(q_from))
                    continue
                shift = gaps + (first_k - start_k) - (first_j - start_j)
                wall = self._pick_wall_span(shift, first_j + q_from - start_j, first_j + q_to - start_j, pick)
                if wall is not None:
                    found.append(wall - offset_k + offset_j)
        return pick(found) if found else None


@cache
def zone_runs(schedule, zone_name: str) -> ZoneRuns:
    return ZoneRuns(schedule, zone_name)


def fire_times(schedule, after: datetime, count: int) -> list[datetime]:
    """The next ``count`` instants (UTC) robfig fires the schedule at, strictly after ``after`` (aware): its
    ``Next`` repeated, as its scheduler does (cron.go ``run``). Fewer when robfig gives up, five calendar
    years on (spec.go:87-93). On the minute: the operators add the second they registered it at."""
    zone = go_zone(schedule.time_zone)
    t = int((after - _EPOCH).total_seconds())
    found = []
    for _ in range(count):
        t = go_next(schedule, t, zone)
        if t is None:
            break
        found.append(_EPOCH + timedelta(seconds=t))
    return found
