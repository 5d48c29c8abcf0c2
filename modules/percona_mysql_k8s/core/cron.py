"""Backup schedules read exactly as the Percona operators read them (rule R3).

Both operators hand ``spec.backup.schedule[].schedule`` to robfig/cron v3 (v3.0.1) ``ParseStandard`` and
then set the schedule's seconds field, so they only run what that parser returns as a ``*cron.SpecSchedule``:

* PXC 1.20.0 (b3b0b10a7) pkg/controller/pxc/controller.go:190-199 ``AddFuncWithSeconds``:
  ``cron.ParseStandard(spec)`` then ``schedule.(*cron.SpecSchedule).Second = uint64(1 << time.Now().Second())``;
* PS v1.2.0 pkg/controller/ps/cron.go:35-41 ``addFuncWithSeconds``, the same two lines; its
  ``CheckNSetDefaults`` (api/v1/perconaservermysql_types.go:1109-1115) also calls ``ParseStandard`` first.

The text is handed over exactly as the custom resource holds it: no trimming (``"@daily "`` is refused).

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
from datetime import date, datetime, timedelta
from functools import cache, lru_cache
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from .cron_calendar import GREGORIAN_CYCLE_DAYS, longest_day_gap, run_days_of
from .cron_zone import has_transitions, zone_runs
from .go_text import ATOI, go_duration_valid

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
_GO_INT_MAX = 2**63 - 1


class CronError(ValueError):
    """A schedule the operators would refuse, or accept but never run properly.

    ``owner`` says whose answer it is: ``"robfig"`` when ``ParseStandard`` refuses the text, ``"operator"``
    when robfig accepts it but the operator cannot run it (``@every``, a schedule that never fires or whose
    runs are further apart than robfig looks ahead).
    """

    def __init__(self, message: str, owner: str = "robfig"):
        super().__init__(message)
        self.owner = owner


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
    if not ATOI.fullmatch(token) or abs(int(token)) > _GO_INT_MAX:
        raise CronError(f"failed to parse int from {token!r} in the {what} field")
    number = int(token)
    if number < 0:
        raise CronError(f"negative number ({number}) not allowed in the {what} field")
    return number


def go_lower(text: str) -> str:
    """Go's ``strings.ToLower``: each rune through ``unicode.ToLower``, Unicode's simple lower-case mapping.

    Python's ``str.lower`` applies the full mapping, which differs where a lower case is two characters: only
    U+0130 (İ), whose simple mapping is ``i`` (so Go reads ``FRİ`` as Friday) and whose full one is ``i̇``.
    """
    return "".join(ch.lower() if len(ch.lower()) == 1 else _GO_SIMPLE_LOWER.get(ch, ch) for ch in text)


# unicode.ToLower where str.lower gives more than one character (UnicodeData.txt's simple mapping)
_GO_SIMPLE_LOWER = {"\u0130": "i"}


def _parse_int_or_name(token: str, bounds: _Bounds) -> int:
    # parser.go:321-328: names first (strings.ToLower), then an integer.
    if bounds.names is not None and go_lower(token) in bounds.names:
        return bounds.names[go_lower(token)]
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
    if ".." in name or name[0] in "/\\":  # time.LoadLocation's own refusal (containsDotDot, a leading slash)
        raise CronError(f"provided bad location {name!r}: invalid location name")
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError) as error:  # OSError: a directory such as "Europe"
        raise CronError(f"provided bad location {name!r}: not a tz database zone") from error


def parse_schedule(text: str) -> CronSchedule:
    """Parse ``text`` as robfig/cron v3 ``ParseStandard`` does (parser.go:88-153); raise CronError otherwise."""
    if not isinstance(text, str):
        raise CronError(f"a schedule is a string, not {type(text).__name__}")
    return _parse_text(text)


@lru_cache(maxsize=1024)  # a text always reads the same; R1 and R3 read each custom resource's schedules
def _parse_text(text: str) -> CronSchedule:
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
            if not go_duration_valid(text[len("@every ") :]):  # parser.go:425-431: time.ParseDuration
                raise CronError(f"failed to parse duration {text}: time: invalid duration {text[7:]!r}")
            raise CronError(
                f"{original!r}: @every is refused: robfig returns a ConstantDelaySchedule for it, and both operators "
                "assert schedule.(*cron.SpecSchedule) to set its seconds (PXC controller.go:196, PS cron.go:40), "
                "which panics; write the interval as a cron expression",
                "operator",
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
        raise CronError(f"{original!r} never runs: no day, hour or minute matches it", "operator")
    if longest_day_gap(_day_pattern(schedule)) > _MAX_GAP_DAYS:
        raise CronError(
            f"{original!r} runs only on 29 February, so two runs can be 8 years apart (2096 to 2104); robfig stops "
            f"looking {ROBFIG_SEARCH_YEARS} years ahead (spec.go:87-93) and the operator would never run it again",
            "operator",
        )
    if has_transitions(zone):
        _check_zone_runs(schedule, original)
    return schedule


def _check_zone_runs(schedule: CronSchedule, original: str) -> None:
    """In a daylight-saving zone a change can skip a run robfig would otherwise fire (the minute loop crossing a
    30-minute change, core.cron_next): the runs it really fires must still come within its five-year search."""
    longest = zone_runs(schedule, schedule.time_zone).span(1, max)
    if longest is None or longest > _MAX_GAP_DAYS * 86400:
        raise CronError(
            f"{original!r}: its runs in {schedule.time_zone} can be more than {ROBFIG_SEARCH_YEARS} years apart, or "
            "never come (daylight-saving changes skip them); robfig stops looking that far ahead (spec.go:87-93)",
            "operator",
        )


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


def retention_window_seconds(schedule: CronSchedule, keep: int) -> float:
    """The guaranteed age of the oldest kept backup right after a run, with ``keep`` backups kept.

    Right after a run the ``keep`` newest backups are kept and the oldest is ``keep - 1`` gaps old; the
    guarantee is the shortest such span of the schedule's actual runs. In UTC and fixed-offset zones that is
    over one 400-year Gregorian cycle, which repeats exactly, so it holds for every date. In a zone whose
    offset changes it is over the runs robfig fires across core.cron_zone.HORIZON, in elapsed time: a
    fall-back's repeated hour fires twice (two backups an hour apart), a spring-forward's skipped hour not at
    all (core.cron_zone). ``math.inf`` when ``keep <= 0``: the operators then delete nothing.
    """
    if keep <= 0:
        return math.inf
    if keep == 1:
        return 0.0
    if has_transitions(schedule.time_zone):
        span = zone_runs(schedule, schedule.time_zone).span(keep - 1)
        return math.inf if span is None else float(span)  # more backups than the horizon's runs: all kept
    return float(_wall_window_minutes(schedule, keep) * 60)


def longest_span_seconds(schedule: CronSchedule, gaps: int) -> float:
    """The longest span of ``gaps`` consecutive gaps of the actual runs, in seconds (0 when gaps <= 0).

    Right before a run, ``keep`` kept backups reach back ``keep`` gaps: the binary logs a point-in-time
    restore may need reach back as far. Over the same calendar as retention_window_seconds.
    """
    if gaps <= 0:
        return 0.0
    if has_transitions(schedule.time_zone):
        span = zone_runs(schedule, schedule.time_zone).span(gaps, max)
        return math.inf if span is None else float(span)
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
