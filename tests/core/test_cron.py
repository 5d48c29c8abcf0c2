"""Backup schedules as the operators read them (robfig/cron v3.0.1 ParseStandard) and the R3 window."""

from __future__ import annotations

import math
from datetime import date, datetime, timedelta

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from percona_mysql_k8s.core.cron import (
    GREGORIAN_CYCLE_DAYS,
    CronError,
    keep_for,
    longest_span_seconds,
    next_runs,
    parse_schedule,
    retention_window_seconds,
)

DAY = 86400


def _minutes(text: str) -> tuple[int, ...]:
    return parse_schedule(f"{text} * * * *").minutes


# --- the parser, with robfig's own cases (parser_test.go TestRange/TestField, minute bounds 0-59) ---


@pytest.mark.parametrize(
    ("field", "expected"),
    [
        ("5", (5,)),
        ("5-5", (5,)),
        ("5-7", (5, 6, 7)),
        ("5-6/2", (5,)),  # robfig: {"5-6/2", 0, 7, 1 << 5}
        ("5-7/2", (5, 7)),
        ("5-7/1", (5, 6, 7)),
        ("1,5-7/2,3", (1, 3, 5, 7)),  # TestField
        ("50/5", (50, 55)),  # "N/step" means "N-max/step" (parser.go:293-296)
        ("*/20", (0, 20, 40)),
        ("*-5", tuple(range(60))),  # parser.go:262: after a leading * the rest of the range is ignored
        ("1,,2", (1, 2)),  # strings.FieldsFunc drops the empty piece
        ("+5", (5,)),  # strconv.Atoi accepts a sign
    ],
)
def test_fields_read_as_robfig_reads_them(field, expected):
    assert _minutes(field) == expected


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("5--5 * * * *", "too many hyphens"),
        ("* * * jan-x *", "failed to parse int"),
        ("*/-12 * * * *", "negative number"),
        ("*//2 * * * *", "too many slashes"),
        ("0 0 0 * *", "below minimum"),  # day of month starts at 1
        ("0 24 * * *", "above maximum"),
        ("0 0 * * 7", "above maximum"),  # robfig's day of week is 0-6: 7 is not Sunday
        ("5-3 * * * *", "beyond end of range"),
        ("*/0 * * * *", "positive number"),
        ("0x1 * * * *", "failed to parse int"),
        ("1_0 * * * *", "failed to parse int"),  # Python's int() would take it, Atoi does not
        ("* * * *", "expected exactly 5 fields"),
        ("0 * * * * *", "expected exactly 5 fields"),  # ParseStandard has no seconds field
        ("", "empty spec string"),
        ("@unrecognized", "unrecognized descriptor"),
        ("@daily ", "unrecognized descriptor"),  # descriptors match exactly (parser.go:366)
        ("TZ=Mars/Olympus 0 0 * * *", "bad location"),
        ("TZ=UTC", "followed by a space"),  # Go would slice spec[eq+1:-1] and panic
        ("0 0 30 2 *", "never runs"),
        (", * * * *", "never runs"),
        ("0 0 29 2 *", "29 February"),  # 2096-02-29 to 2104-02-29 exceeds robfig's five-year search
    ],
)
def test_refuses_what_the_operators_refuse_or_never_run(text, message):
    with pytest.raises(CronError, match=message):
        parse_schedule(text)


def test_every_is_refused_because_the_operators_would_panic():
    with pytest.raises(CronError, match=r"SpecSchedule.*panics"):
        parse_schedule("@every 24h")


@pytest.mark.parametrize(
    ("descriptor", "expansion"),
    [
        ("@yearly", "0 0 1 1 *"),
        ("@annually", "0 0 1 1 *"),
        ("@monthly", "0 0 1 * *"),
        ("@weekly", "0 0 * * 0"),
        ("@daily", "0 0 * * *"),
        ("@midnight", "0 0 * * *"),
        ("@hourly", "0 * * * *"),
    ],
)
def test_descriptors_are_their_spec_schedules(descriptor, expansion):
    parsed, expanded = parse_schedule(descriptor), parse_schedule(expansion)
    fields = ("minutes", "hours", "days_of_month", "months", "days_of_week", "dom_star", "dow_star")
    assert [getattr(parsed, f) for f in fields] == [getattr(expanded, f) for f in fields]


def test_time_zone_prefixes_and_names():
    # robfig's TestParseSchedule: "CRON_TZ=UTC  5 * * * *" (two spaces) and "TZ=Asia/Tokyo @midnight"
    assert parse_schedule("CRON_TZ=UTC  5 * * * *").minutes == (5,)
    tokyo = parse_schedule("TZ=Asia/Tokyo @midnight")
    assert (tokyo.time_zone, tokyo.hours, tokyo.minutes) == ("Asia/Tokyo", (0,), (0,))
    # names are case-insensitive (parser.go:323 lower-cases)
    named = parse_schedule("0 3 * Jan-MAR mon-fri")
    assert named.months == frozenset({1, 2, 3}) and named.days_of_week == frozenset({1, 2, 3, 4, 5})
    # after the prefix robfig trims with strings.TrimSpace: Unicode spaces too, so the descriptor matches
    assert parse_schedule("TZ=UTC \u3000@daily\u2003").hours == (0,)
    # Go's strings.Fields splits on tabs and newlines too
    assert parse_schedule("0\t3 * *\n*").hours == (3,)


def test_day_of_month_and_day_of_week_or_unless_one_is_a_star():
    # spec.go:179-188. 2026-06-01 is a Monday; 2026-06-08 a Monday; 2026-06-02 a Tuesday.
    either = parse_schedule("0 0 1 * MON")  # neither field a star: the 1st OR a Monday
    assert either.day_matches(date(2026, 6, 8)) and either.day_matches(date(2026, 7, 1))
    assert not either.day_matches(date(2026, 6, 2))
    mondays = parse_schedule("0 0 * * MON")  # day of month is a star: Mondays only
    assert mondays.day_matches(date(2026, 6, 8)) and not mondays.day_matches(date(2026, 7, 1))
    # "*/1" keeps the star bit (only a step above 1 clears it, parser.go:297), "*/2" does not
    assert not parse_schedule("0 0 */1 * MON").day_matches(date(2026, 7, 1))  # Wednesday 1 July: AND
    assert parse_schedule("0 0 */2 * MON").day_matches(date(2026, 7, 1))  # odd day: OR
    # "?" is a star too (parser.go:262)
    assert not parse_schedule("0 0 ? * MON").day_matches(date(2026, 7, 1))


def test_next_runs_examples():
    # 2026-06-05 is a Friday: the next weekday runs at 01:00 are Mon 8, Tue 9, Wed 10
    runs = next_runs(parse_schedule("0 1 * * 1-5"), datetime(2026, 6, 5, 1, 0), 3)
    assert runs == [datetime(2026, 6, 8, 1), datetime(2026, 6, 9, 1), datetime(2026, 6, 10, 1)]


# --- the R3 window, examples derived by hand ---


@pytest.mark.parametrize(
    ("text", "keep", "days"),
    [
        ("0 3 * * *", 7, 6),  # daily: 7 kept backups span 6 gaps of a day
        ("0 3 * * *", 8, 7),
        ("@weekly", 2, 7),
        ("0 */6 * * *", 5, 1),  # 4 gaps of 6 hours
        ("0 0 1 * *", 2, 28),  # 1 Feb -> 1 Mar of a common year
        ("0 0 1 * *", 3, 59),  # 1 Jan -> 1 Mar of a common year (31 + 28)
        ("0 0 31 * *", 2, 31),  # 31 Jul -> 31 Aug, the only adjacent 31s
        ("0 0 31 * *", 7, 304),  # 31 Jul, Aug, Oct, Dec, Jan, Mar -> 31 May: 365 - 61
        ("0 1 * * 1-5", 5, 4),  # Monday -> Friday
        ("0 1 * * 1-5", 6, 7),  # any 6 weekday runs straddle one weekend: 5 + 2 days
        ("0 0 29 2 1", 2, 1),  # 29 Feb OR a February Monday: Monday 28 Feb 2028 -> Tuesday 29 Feb 2028
    ],
)
def test_window_examples(text, keep, days):
    assert retention_window_seconds(parse_schedule(text), keep) == days * DAY


def test_window_edges():
    daily = parse_schedule("@daily")
    assert retention_window_seconds(daily, 0) == math.inf  # keep 0: the operators delete nothing
    assert retention_window_seconds(daily, -3) == math.inf
    assert retention_window_seconds(daily, 1) == 0  # the only kept backup was just taken
    # 10000 daily backups span 9999 days, across leap and century years alike
    assert retention_window_seconds(daily, 10000) == 9999 * DAY
    # a whole cycle of daily runs plus one spans exactly the cycle
    assert retention_window_seconds(daily, GREGORIAN_CYCLE_DAYS + 1) == GREGORIAN_CYCLE_DAYS * DAY


def test_keep_for_examples():
    assert keep_for(parse_schedule("0 3 * * *"), 7) == 8  # 7 gaps of a day
    assert keep_for(parse_schedule("@weekly"), 7) == 2
    assert keep_for(parse_schedule("@weekly"), 7.5) == 3
    assert keep_for(parse_schedule("0 */6 * * *"), 7) == 29  # 28 gaps of 6 hours
    assert keep_for(parse_schedule("* * * * *"), 30) == 30 * 1440 + 1
    assert keep_for(parse_schedule("0 0 1 * *"), 30) == 3  # one gap can be 28 days, two are >= 59
    assert keep_for(parse_schedule("@daily"), 0) == 1
    with pytest.raises(CronError):
        keep_for(parse_schedule("@daily"), math.inf)


def test_daylight_saving_time_is_counted_from_the_actual_runs():
    # New York, 01:30 daily. On 2026-11-01 01:30 runs twice (EDT, then EST an hour later: robfig steps in
    # elapsed minutes), so 7 runs span Oct 27 01:30 EDT -> Nov 1 01:30 EST at the shortest: 5 days + 1 hour
    # elapsed (the window holds the repeated run). No bound below it: the schedule keeps exactly that.
    new_york = parse_schedule("TZ=America/New_York 30 1 * * *")
    assert retention_window_seconds(new_york, 7) == 5 * DAY + 3600
    # a spring-forward makes a 23-hour day: 7 runs across it span 6 days - 1 hour, which is longer
    assert retention_window_seconds(new_york, 7) < 6 * DAY - 3600
    # a zone without changes over the horizon (Japan dropped daylight saving in 1951) is the UTC computation
    assert retention_window_seconds(parse_schedule("CRON_TZ=Asia/Tokyo 30 1 * * *"), 7) == 6 * DAY


def test_only_runs_inside_a_repeated_hour_are_repeated():
    # Europe/Paris falls back 03:00 CEST -> 02:00 CET: only runs between 02:00 and 03:00 wall clock run twice.
    # 04:30 never does: the two shortest-spaced daily backups are the 23 hours across a spring-forward.
    assert retention_window_seconds(parse_schedule("TZ=Europe/Paris 30 4 * * *"), 2) == DAY - 3600
    # 02:30 is repeated on the fall-back day: the second run an hour after the first
    assert retention_window_seconds(parse_schedule("TZ=Europe/Paris 30 2 * * *"), 2) == 3600
    # and skipped on the spring-forward day: the longest gap is Saturday 02:30 -> Monday 02:30 less the hour
    assert longest_span_seconds(parse_schedule("TZ=Europe/Paris 30 2 * * *"), 1) == 2 * DAY - 3600


@pytest.mark.parametrize(
    ("text", "gaps", "days"),
    [
        ("0 3 * * *", 7, 7),
        ("0 0 1 * *", 1, 31),  # the longest month
        ("0 0 31 * *", 1, 61),  # 31 Aug -> 31 Oct (no 31 September)
        ("0 1 * * 1-5", 1, 3),  # Friday -> Monday
        ("0 1 * * 1-5", 5, 7),
        ("@daily", 0, 0),
    ],
)
def test_longest_span_examples(text, gaps, days):
    assert longest_span_seconds(parse_schedule(text), gaps) == days * DAY


# --- properties ---

_VALUE = {"minute": (0, 59), "hour": (0, 23), "dom": (1, 31), "month": (1, 12), "dow": (0, 6)}


@st.composite
def _field(draw, kind: str, allow_star: bool = True) -> str:
    low, high = _VALUE[kind]
    choice = draw(st.sampled_from(["star", "list", "range", "step"] if allow_star else ["list", "range"]))
    if choice == "star":
        return "*"
    if choice == "step":
        return f"*/{draw(st.integers(2, max(2, (high - low) // 2)))}"
    if choice == "range":
        start = draw(st.integers(low, high))
        return f"{start}-{draw(st.integers(start, high))}"
    return ",".join(str(v) for v in draw(st.lists(st.integers(low, high), min_size=1, max_size=3)))


@st.composite
def sparse_schedules(draw):
    """Schedules with few runs a day (so a brute-force cycle is affordable) and any day pattern."""
    minute = ",".join(str(v) for v in draw(st.lists(st.integers(0, 59), min_size=1, max_size=2, unique=True)))
    hour = ",".join(str(v) for v in draw(st.lists(st.integers(0, 23), min_size=1, max_size=2, unique=True)))
    text = f"{minute} {hour} {draw(_field('dom'))} {draw(_field('month'))} {draw(_field('dow'))}"
    try:
        return parse_schedule(text)
    except CronError:
        assume(False)


@st.composite
def schedules(draw):
    text = " ".join(draw(_field(kind)) for kind in ("minute", "hour", "dom", "month", "dow"))
    try:
        return parse_schedule(text)
    except CronError:
        assume(False)


def _brute_force_window(schedule, keep: int, pick=min) -> float:
    """Every run (minute) over one 400-year cycle plus enough spill, from day_matches alone; min over starts."""
    first = date(2001, 1, 1)
    runs = []
    offset = 0
    start_runs = None
    while True:
        day = first + timedelta(days=offset)
        if offset == GREGORIAN_CYCLE_DAYS:
            start_runs = len(runs)  # windows start in the first cycle only
        if schedule.day_matches(day):
            runs.extend(offset * 1440 + h * 60 + m for h in schedule.hours for m in schedule.minutes)
        offset += 1
        if start_runs is not None and len(runs) >= start_runs + keep:
            break
    return 60.0 * pick(runs[i + keep - 1] - runs[i] for i in range(start_runs))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(sparse_schedules(), st.integers(2, 9))
def test_window_agrees_with_brute_force_over_a_whole_cycle(schedule, keep):
    assert retention_window_seconds(schedule, keep) == _brute_force_window(schedule, keep)
    # the longest span of keep - 1 gaps, the same way
    assert longest_span_seconds(schedule, keep - 1) == _brute_force_window(schedule, keep, pick=max)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(schedules(), st.integers(1, 400), st.integers(1, 400))
def test_window_grows_with_keep(schedule, keep, more):
    assert retention_window_seconds(schedule, keep) <= retention_window_seconds(schedule, keep + more)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(schedules(), st.floats(0.01, 60))
def test_keep_for_is_the_smallest_covering_keep(schedule, days):
    keep = keep_for(schedule, days)
    assert retention_window_seconds(schedule, keep) >= days * DAY
    assert retention_window_seconds(schedule, keep - 1) < days * DAY


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(
    st.builds(
        lambda m, h, dow: parse_schedule(f"{m} {h} * * {dow}"),
        _field("minute"),
        _field("hour"),
        _field("dow"),
    ),
    st.datetimes(min_value=datetime(2001, 1, 1), max_value=datetime(2390, 1, 1)),
)
def test_next_runs_agree_with_minute_by_minute_enumeration(schedule, after):
    # every day of week pattern here runs at least weekly, so three runs lie within four weeks of minutes
    expected = []
    moment = after.replace(second=0, microsecond=0)
    while len(expected) < 3:
        moment += timedelta(minutes=1)
        if schedule.matches(moment):
            expected.append(moment)
    assert next_runs(schedule, after, 3) == expected
