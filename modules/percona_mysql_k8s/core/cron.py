"""Backup schedules read exactly as the Percona operators read them (rule R3).

Both operators hand ``spec.backup.schedule[].schedule`` to robfig/cron v3 (v3.0.1) ``ParseStandard`` and
then set the schedule's seconds field, so they only run what that parser returns as a ``*cron.SpecSchedule``:

* PXC v1.19.0 pkg/controller/pxc/controller.go:191-197 ``AddFuncWithSeconds``: ``cron.ParseStandard(spec)``
  then ``schedule.(*cron.SpecSchedule).Second = uint64(1 << time.Now().Second())``;
* PS v1.2.0 pkg/controller/ps/cron.go:35-41, the same two lines.

So this module reads a schedule the way robfig/cron v3.0.1 parser.go reads it (line numbers below are that
file's and spec.go's), refuses what the operators cannot run (``@every``: its ``ConstantDelaySchedule`` fails
the type assertion and the operator panics; a schedule that never fires), and answers the one question rule
R3 asks: with ``keep`` backups kept, how old is the oldest one right after a run, at the worst point of the
calendar? Pure; no Pulumi.
"""

from __future__ import annotations

import math
import operator
import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from functools import cache
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from .cron_calendar import GREGORIAN_CYCLE_DAYS, longest_day_gap, run_days_of

MINUTES_PER_DAY = 24 * 60

# robfig/cron spec.go:21-49, the field bounds and names (names matched lower-cased, parser.go:323).
_MONTH_NAMES = {n: i for i, n in enumerate("jan feb mar apr may jun jul aug sep oct nov dec".split(), start=1)}
_DOW_NAMES = {n: i for i, n in enumerate("sun mon tue wed thu fri sat".split())}


@dataclass(frozen=True)
class _Bounds:
    name: str
    low: int
    high: int
    names: dict[str, int] | None = None


_MINUTE = _Bounds("minute", 0, 59)
_HOUR = _Bounds("hour", 0, 23)
_DOM = _Bounds("day of month", 1, 31)
_MONTH = _Bounds("month", 1, 12, _MONTH_NAMES)
_DOW = _Bounds("day of week", 0, 6, _DOW_NAMES)

# parser.go:366-422: the descriptors, as (minute, hour, day of month, month, day of week) fields.
_DESCRIPTORS = {
    "@yearly": "0 0 1 1 *",
    "@annually": "0 0 1 1 *",
    "@monthly": "0 0 1 * *",
    "@weekly": "0 0 * * 0",
    "@daily": "0 0 * * *",
    "@midnight": "0 0 * * *",
    "@hourly": "0 * * * *",
}
# robfig gives up looking for the next run five calendar years ahead (spec.go:87-93) and the entry is
# then never run again; a schedule whose runs can be further apart than this is refused.
ROBFIG_SEARCH_YEARS = 5
_MAX_GAP_DAYS = ROBFIG_SEARCH_YEARS * 365

# Go's strings.Fields splits on unicode.IsSpace: these ASCII/Latin-1 characters plus categories Zs/Zl/Zp.
# Python's str.split also splits on \x1c-\x1f, which Go does not, hence this explicit pattern.
_GO_SPACE = re.compile(r"[\t\n\v\f\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+")
_GO_SPACE_EDGES = re.compile(rf"^{_GO_SPACE.pattern}|{_GO_SPACE.pattern}$")
# strconv.Atoi (base 10): an optional sign, then ASCII digits only.
_ATOI = re.compile(r"[+-]?[0-9]+")
_GO_INT_MAX = 2**63 - 1


class CronError(ValueError):
    """A schedule the operators would refuse, or accept but never run properly."""


@dataclass(frozen=True)
class CronSchedule:
    """A parsed schedule: the sets of values each field allows (robfig's bit sets, spec.go:7-12).

    ``dom_star``/``dow_star`` record robfig's star bit (parser.go:262-266, 297-299): a ``*`` or ``?`` range
    without a step above 1. When either day field has it, a day must match both fields; otherwise either
    (spec.go:179-188). ``time_zone`` is the ``TZ=``/``CRON_TZ=`` name, ``""`` when absent: robfig then uses
    ``time.Local``, the operator pod's zone, which is UTC unless the operator's Deployment sets ``TZ``.
    """

    text: str
    minutes: tuple[int, ...]
    hours: tuple[int, ...]
    days_of_month: frozenset[int]
    months: frozenset[int]
    days_of_week: frozenset[int]  # 0 = Sunday, as Go's time.Weekday
    dom_star: bool
    dow_star: bool
    time_zone: str = ""

    def day_matches(self, day: date) -> bool:
        """spec.go:179-188 ``dayMatches``, plus the month test of spec.go:97."""
        if day.month not in self.months:
            return False
        dom = day.day in self.days_of_month
        dow = (day.weekday() + 1) % 7 in self.days_of_week
        if self.dom_star or self.dow_star:
            return dom and dow
        return dom or dow

    def matches(self, moment: datetime) -> bool:
        """Whether the schedule fires in this wall-clock minute (seconds ignored: the operators fix them)."""
        return self.day_matches(moment.date()) and moment.hour in self.hours and moment.minute in self.minutes

    @property
    def minutes_of_day(self) -> tuple[int, ...]:
        """The wall-clock times of day a run starts, in minutes after midnight, ascending."""
        return tuple(h * 60 + m for h in self.hours for m in self.minutes)


def _split_fields(text: str) -> list[str]:
    return [f for f in _GO_SPACE.split(text) if f]


def _parse_int(token: str, what: str) -> int:
    # parser.go:331-340 mustParseInt: strconv.Atoi, then "negative number not allowed".
    if not _ATOI.fullmatch(token) or abs(int(token)) > _GO_INT_MAX:
        raise CronError(f"failed to parse int from {token!r} in the {what} field")
    number = int(token)
    if number < 0:
        raise CronError(f"negative number ({number}) not allowed in the {what} field")
    return number


def _parse_int_or_name(token: str, bounds: _Bounds) -> int:
    # parser.go:321-328: names first (lower-cased), then an integer.
    if bounds.names is not None and token.lower() in bounds.names:
        return bounds.names[token.lower()]
    return _parse_int(token, bounds.name)


def _parse_range(expr: str, bounds: _Bounds) -> tuple[set[int], bool]:
    """parser.go:252-318 ``getRange``: the values of one comma-separated range and whether it sets the star bit."""
    range_and_step = expr.split("/")
    low_and_high = range_and_step[0].split("-")
    single = len(low_and_high) == 1
    star = False
    if low_and_high[0] in ("*", "?"):
        # parser.go:262-265: whatever follows a leading * or ? before the slash is ignored ("*-5" is "*")
        start, end, star = bounds.low, bounds.high, True
    else:
        start = _parse_int_or_name(low_and_high[0], bounds)
        if len(low_and_high) == 1:
            end = start
        elif len(low_and_high) == 2:
            end = _parse_int_or_name(low_and_high[1], bounds)
        else:
            raise CronError(f"too many hyphens in {expr!r} ({bounds.name} field)")
    if len(range_and_step) == 1:
        step = 1
    elif len(range_and_step) == 2:
        step = _parse_int(range_and_step[1], bounds.name)
        if single:  # parser.go:293-296: "N/step" means "N-max/step"
            end = bounds.high
        if step > 1:  # parser.go:297-299: a stepped star no longer counts as a star
            star = False
    else:
        raise CronError(f"too many slashes in {expr!r} ({bounds.name} field)")
    # parser.go:304-315, in robfig's order
    if start < bounds.low:
        raise CronError(f"beginning of range ({start}) below minimum ({bounds.low}): {expr!r} ({bounds.name} field)")
    if end > bounds.high:
        raise CronError(f"end of range ({end}) above maximum ({bounds.high}): {expr!r} ({bounds.name} field)")
    if start > end:
        raise CronError(f"beginning of range ({start}) beyond end of range ({end}): {expr!r} ({bounds.name} field)")
    if step == 0:
        raise CronError(f"step of range should be a positive number: {expr!r} ({bounds.name} field)")
    return set(range(start, end + 1, step)), star


def _parse_field(field: str, bounds: _Bounds) -> tuple[set[int], bool]:
    # parser.go:236-247 getField: strings.FieldsFunc on ',' drops empty pieces ("1,,2" is "1,2").
    values: set[int] = set()
    star = False
    for expr in (part for part in field.split(",") if part):
        more, more_star = _parse_range(expr, bounds)
        values |= more
        star = star or more_star
    return values, star


def _check_zone(name: str) -> None:
    # Go's time.LoadLocation: "" and "UTC" are UTC, "Local" is the process's zone, anything else an IANA
    # name from the tz database (the same database zoneinfo reads).
    if name in ("", "UTC", "Local"):
        return
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError) as error:
        raise CronError(f"provided bad location {name!r}: not a tz database zone") from error


def parse_schedule(text: str) -> CronSchedule:
    """Parse ``text`` as robfig/cron v3 ``ParseStandard`` does (parser.go:88-153); raise CronError otherwise."""
    if not isinstance(text, str):
        raise CronError(f"a schedule is a string, not {type(text).__name__}")
    original = text
    if len(text) == 0:
        raise CronError("empty spec string")
    zone = ""
    if text.startswith(("TZ=", "CRON_TZ=")):  # parser.go:95-103
        space = text.find(" ")
        if space < 0:
            # spec[eq+1 : -1] panics in Go: the operator would crash on this schedule
            raise CronError(f"{original!r}: a TZ= prefix must be followed by a space and the schedule")
        zone = text[text.index("=") + 1 : space]
        _check_zone(zone)
        text = _GO_SPACE_EDGES.sub("", text[space:])  # strings.TrimSpace
    if text.startswith("@"):  # parser.go:106-111, 365-433: descriptors match exactly
        if text.startswith("@every "):
            raise CronError(
                f"{original!r}: @every is refused: robfig returns a ConstantDelaySchedule for it, and both operators "
                "assert schedule.(*cron.SpecSchedule) to set its seconds (PXC controller.go:196, PS cron.go:40), "
                "which panics; write the interval as a cron expression"
            )
        if text not in _DESCRIPTORS:
            raise CronError(f"unrecognized descriptor: {text!r}")
        text = _DESCRIPTORS[text]
    fields = _split_fields(text)
    if len(fields) != 5:  # parser.go:185-188 with ParseStandard's five fields
        raise CronError(f"expected exactly 5 fields, found {len(fields)}: {original!r}")
    minutes, _ = _parse_field(fields[0], _MINUTE)
    hours, _ = _parse_field(fields[1], _HOUR)
    doms, dom_star = _parse_field(fields[2], _DOM)
    months, _ = _parse_field(fields[3], _MONTH)
    dows, dow_star = _parse_field(fields[4], _DOW)
    schedule = CronSchedule(
        text=original,
        minutes=tuple(sorted(minutes)),
        hours=tuple(sorted(hours)),
        days_of_month=frozenset(doms),
        months=frozenset(months),
        days_of_week=frozenset(dows),
        dom_star=dom_star,
        dow_star=dow_star,
        time_zone=zone,
    )
    if not schedule.minutes or not schedule.hours or not _run_days(schedule):
        # e.g. "0 0 30 2 *" or a field of bare commas: robfig's Next returns the zero time and the entry never runs
        raise CronError(f"{original!r} never runs: no day, hour or minute matches it")
    if longest_day_gap(_day_pattern(schedule)) > _MAX_GAP_DAYS:
        raise CronError(
            f"{original!r} runs only on 29 February, so two runs can be 8 years apart (2096 to 2104); robfig stops "
            f"looking {ROBFIG_SEARCH_YEARS} years ahead (spec.go:87-93) and the operator would never run it again"
        )
    return schedule


def _day_pattern(schedule: CronSchedule) -> tuple[frozenset[int], frozenset[int], frozenset[int], bool]:
    return schedule.months, schedule.days_of_month, schedule.days_of_week, schedule.dom_star or schedule.dow_star


def _run_days(schedule: CronSchedule) -> tuple[int, ...]:
    """Indices (days after CYCLE_START) of the days of one cycle on which the schedule runs."""
    return run_days_of(_day_pattern(schedule))


def iter_runs(schedule: CronSchedule, after: datetime) -> Iterator[datetime]:
    """The schedule's run minutes strictly after ``after``, as naive wall-clock times in its zone.

    The operators add a fixed second to each run (the second they registered the schedule), so runs are
    given on the minute; a run in the minute of ``after`` itself is not yielded.
    """
    start = after.replace(second=0, microsecond=0, tzinfo=None)
    day = start.date()
    times = schedule.minutes_of_day
    while True:
        if schedule.day_matches(day):
            midnight = datetime(day.year, day.month, day.day)
            for minute in times:
                moment = midnight + timedelta(minutes=minute)
                if moment > start:
                    yield moment
        day += timedelta(days=1)


def next_runs(schedule: CronSchedule, after: datetime, count: int) -> list[datetime]:
    """The next ``count`` runs after ``after`` (see iter_runs)."""
    runs = iter_runs(schedule, after)
    return [next(runs) for _ in range(count)]


@cache
def _day_span(pattern: tuple, step: int, longest: bool = False) -> int:
    """min (max if ``longest``) over i of days[i + step] - days[i], the run days repeated every cycle, exact."""
    days = run_days_of(pattern)
    count = len(days)
    whole, rest = divmod(step, count)
    base = whole * GREGORIAN_CYCLE_DAYS
    if count == GREGORIAN_CYCLE_DAYS or rest == 0:  # every day, or whole cycles: every start spans the same
        return base + rest
    pick = max if longest else min
    # starts i < count - rest end in the same cycle, the others in the next one
    head = pick(map(operator.sub, days[rest:], days))
    tail = pick(map(operator.sub, days[:rest], days[count - rest :])) + GREGORIAN_CYCLE_DAYS
    return base + pick(head, tail)


def _wall_window_minutes(schedule: CronSchedule, keep: int, longest: bool = False) -> int:
    """Shortest wall-clock span, in minutes, of ``keep`` consecutive runs ((keep - 1) gaps), exact.

    Runs are every (run day, time of day) pair in order. A window starting at time index ``a`` of some run
    day ends ``(a + keep - 1) // n`` run days later at time index ``(a + keep - 1) % n`` (n times a day), so
    its span is a day span that depends only on that day step plus a fixed time-of-day difference: the
    minimum is taken per ``a`` over the (at most two) day steps, each exact over the periodic calendar.
    """
    gaps = keep - 1
    times = schedule.minutes_of_day
    pattern = _day_pattern(schedule)
    per_day = len(times)
    spans = []
    for a, start in enumerate(times):
        step, b = divmod(a + gaps, per_day)
        spans.append(_day_span(pattern, step, longest) * MINUTES_PER_DAY + times[b] - start)
    return max(spans) if longest else min(spans)


@cache
def _offset_changes(zone: str) -> tuple[int, int]:
    """(UTC offset swing in minutes, fewest days between two fall-backs) of a tz database zone.

    Sampled daily over 1970-2100: every rule the zone has had or announced. (0, 0) for a fixed offset.
    """
    tz = ZoneInfo(zone)
    offsets = []
    fallbacks = []
    moment = datetime(1970, 1, 1, 12, tzinfo=UTC)
    end = datetime(2100, 1, 1, tzinfo=UTC)
    while moment < end:
        offset = int(moment.astimezone(tz).utcoffset().total_seconds() // 60)
        if offsets and offset < offsets[-1]:
            fallbacks.append(moment)
        offsets.append(offset)
        moment += timedelta(days=1)
    if len(set(offsets)) == 1:
        return 0, 0
    spacing = (
        min((b - a).days for a, b in zip(fallbacks, fallbacks[1:], strict=False)) if len(fallbacks) > 1 else GREGORIAN_CYCLE_DAYS
    )
    # the daily sample can misplace a change by up to a day each side
    return max(offsets) - min(offsets), max(spacing - 2, 1)


@cache
def _repeated_wall_clock(zone: str) -> frozenset[tuple[int, int]]:
    """The wall-clock intervals a fall-back of ``zone`` repeats, as (first minute of the day, minutes), over
    1970-2100: the local times from just after the change up to where the clock stood before it."""
    tz = ZoneInfo(zone)

    def offset(moment: datetime) -> int:
        return int(moment.astimezone(tz).utcoffset().total_seconds() // 60)

    repeated = set()
    moment = datetime(1970, 1, 1, 12, tzinfo=UTC)
    end = datetime(2100, 1, 1, tzinfo=UTC)
    while moment < end:
        later = moment + timedelta(days=1)
        if offset(later) < offset(moment):
            before, after = moment, later  # the change is in (before, after]: bisect to the minute
            while after - before > timedelta(minutes=1):
                middle = before + (after - before) / 2
                before, after = (middle, after) if offset(middle) == offset(before) else (before, middle)
            local = after.astimezone(tz)
            repeated.add((local.hour * 60 + local.minute, offset(before) - offset(after)))
        moment = later
    return frozenset(repeated)


def _max_repeated_runs(schedule: CronSchedule, zone: str) -> int:
    """The most runs one fall-back of ``zone`` can repeat: the schedule's times of day inside a repeated
    wall-clock interval (any day of the schedule: conservative on the date)."""
    times = schedule.minutes_of_day
    return max(
        (sum(1 for t in times if (t - start) % MINUTES_PER_DAY < length) for start, length in _repeated_wall_clock(zone)),
        default=0,
    )


def retention_window_seconds(schedule: CronSchedule, keep: int) -> float:
    """The guaranteed age of the oldest kept backup right after a run, with ``keep`` backups kept.

    Right after a run the ``keep`` newest backups are kept and the oldest is ``keep - 1`` gaps old; the
    guarantee is the shortest such span anywhere on the calendar (over one 400-year Gregorian cycle, which
    repeats exactly, so this is exact for every date). ``math.inf`` when ``keep <= 0``: the operators then
    delete nothing.

    In a zone whose UTC offset changes (daylight saving time) the span is elapsed time: it is the
    wall-clock span less the offset change over it, at most the zone's offset swing; and a fall-back
    repeats the zone's wall-clock interval before the change, whose runs robfig runs twice (spec.go:138-160
    steps in elapsed hours and minutes, so the repeated hour matches again; a run outside that interval, e.g.
    04:30 in Europe/Paris, is never repeated). So there ``keep`` consecutive runs hold
    at least ``keep - repeated × fall-backs`` distinct wall-clock runs, for every fall-back the window can
    contain, and the span is that wall-clock window less the swing. Conservative there; exact in
    UTC and fixed-offset zones.
    """
    if keep <= 0:
        return math.inf
    if keep == 1:
        return 0.0
    zone = schedule.time_zone
    swing, fallback_spacing = (0, 0) if zone in ("", "UTC", "Local") else _offset_changes(zone)
    if swing == 0:
        return float(_wall_window_minutes(schedule, keep) * 60)
    repeated = _max_repeated_runs(schedule, zone)
    fallbacks = 1
    while True:
        distinct = keep - repeated * fallbacks
        if distinct <= 1:
            return 0.0
        window = _wall_window_minutes(schedule, distinct) - swing
        # a span of `window` minutes holds at most window // spacing + 1 fall-backs
        needed = window // (fallback_spacing * MINUTES_PER_DAY) + 1
        if needed <= fallbacks:
            return float(max(window, 0) * 60)
        fallbacks = needed


def longest_span_seconds(schedule: CronSchedule, gaps: int) -> float:
    """The longest span of ``gaps`` consecutive gaps anywhere on the calendar, in seconds (0 when gaps <= 0).

    Right before a run, ``keep`` kept backups reach back ``keep`` gaps: the binary logs a point-in-time
    restore may need reach back as far. Exact in UTC and fixed-offset zones; in a daylight-saving zone this
    is the wall-clock span, which elapsed time can exceed by the offset swing and a run skipped at a
    spring-forward (an estimate there).
    """
    if gaps <= 0:
        return 0.0
    return float(_wall_window_minutes(schedule, gaps + 1, longest=True) * 60)


def keep_for(schedule: CronSchedule, days: float) -> int:
    """The smallest ``keep`` whose retention window is at least ``days`` days (1 when days <= 0).

    The window grows with ``keep`` (property-tested), so this searches: from the keep the schedule's mean
    run rate suggests, galloping to bracket the answer, then bisecting; a handful of window evaluations
    even for ``* * * * *`` and months of retention.
    """
    if not math.isfinite(days):
        raise CronError(f"a retention of {days} days cannot be covered by a finite number of backups")
    target = days * 86400
    if target <= 0:
        return 1

    def covers(keep: int) -> bool:
        return retention_window_seconds(schedule, keep) >= target

    runs_per_cycle = len(_run_days(schedule)) * len(schedule.minutes_of_day)
    mean_gap_seconds = GREGORIAN_CYCLE_DAYS * 86400 / runs_per_cycle
    guess = max(2, math.ceil(target / mean_gap_seconds) + 1)
    # bracket: covers(high) and not covers(low), with low >= 1 (a single backup covers no time)
    stride = 1
    if covers(guess):
        high, low = guess, guess - 1
        while low > 1 and covers(low):
            high, low = low, max(1, low - stride)
            stride *= 2
    else:
        low, high = guess, guess + 1
        while not covers(high):
            low, high = high, high + stride
            stride *= 2
    while high - low > 1:
        middle = (low + high) // 2
        if covers(middle):
            high = middle
        else:
            low = middle
    return high
