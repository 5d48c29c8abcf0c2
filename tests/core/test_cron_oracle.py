"""core.cron against robfig/cron v3.0.1 itself: a small Go program (tests/core/go_cron) built from the module
proxy calls ``ParseStandard`` as both operators do and ``SpecSchedule.Next`` as robfig's scheduler does.

For schedules written in other people's styles (names in any case, ranges, steps, ``?``, descriptors, zone
prefixes, odd whitespace, mistakes), the answers must be the same: accepted or refused, and the next fire
times, instant for instant, daylight-saving transitions included. The retention windows of zoned schedules
must equal the spans of robfig's own runs over the same horizon.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from oracles import oracle_missing
from percona_mysql_k8s.core.cron import CronError, longest_span_seconds, parse_schedule, retention_window_seconds
from percona_mysql_k8s.core.cron_zone import HORIZON, fire_times

GO_ORACLE = Path(__file__).resolve().parent / "go_cron"
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
RUNS = 6  # next fire times compared per schedule and start


@pytest.fixture(scope="module")
def robfig(tmp_path_factory):
    go = shutil.which("go")
    reason = f"the robfig/cron oracle needs Go and github.com/robfig/cron/v3 v3.0.1 (cd {GO_ORACLE} && go mod download)"
    if go is None:
        oracle_missing(reason)
    binary = tmp_path_factory.mktemp("go-cron") / "oracle"
    built = subprocess.run(
        [go, "build", "-o", str(binary), "."],
        cwd=GO_ORACLE,
        capture_output=True,
        text=True,
        env={**os.environ, "GOFLAGS": "-mod=mod", "GOPROXY": "off"},
        timeout=600,
    )
    if built.returncode != 0:
        oracle_missing(f"{reason}: {built.stderr.strip()[:200]}")

    def ask(requests: list[dict]) -> list[str]:
        answer = subprocess.run(
            [str(binary)],
            input="".join(json.dumps(r) + "\n" for r in requests),
            capture_output=True,
            text=True,
            timeout=600,
            check=True,
            env={**os.environ, "TZ": "UTC"},  # robfig's time.Local: the operator pod's zone, UTC
        ).stdout.split("\n")[:-1]  # not splitlines: an error message may quote a \x1c or \u2028 of the spec
        assert len(answer) == len(requests)
        return answer

    return ask


def _unix(moment: datetime) -> int:
    return int((moment - _EPOCH).total_seconds())


# --- schedules as people write them ---

_NAMES = {
    "month": ["jan", "FEB", "Mar", "aPr", "may", "JUN", "jul", "Aug", "sep", "OCT", "nov", "Dec", "sept", "janu"],
    "dow": ["sun", "MON", "Tue", "wED", "thu", "FRI", "sat", "FRİ", "sunday", "Mon."],
}
_BOUNDS = {"minute": (0, 59), "hour": (0, 23), "dom": (1, 31), "month": (1, 12), "dow": (0, 6)}


@st.composite
def _value(draw, kind: str) -> str:
    low, high = _BOUNDS[kind]
    if kind in _NAMES and draw(st.booleans()):
        return draw(st.sampled_from(_NAMES[kind]))
    # mostly in range, sometimes just outside, sometimes with a sign or leading zeros
    number = draw(st.one_of(st.integers(low, high), st.integers(low - 1, high + 1)))
    return draw(st.sampled_from(["{}", "+{}", "0{}"])).format(number) if number >= 0 else str(number)


@st.composite
def _range(draw, kind: str) -> str:
    shape = draw(st.sampled_from(["*", "?", "value", "a-b", "a-b/s", "*/s", "a/s", "?/s", "*-x"]))
    step = draw(st.integers(0, 13))
    if shape in ("*", "?"):
        return shape
    if shape == "value":
        return draw(_value(kind))
    if shape == "*-x":
        return f"*-{draw(_value(kind))}"
    if shape in ("*/s", "?/s"):
        return f"{shape[0]}/{step}"
    if shape == "a/s":
        return f"{draw(_value(kind))}/{step}"
    text = f"{draw(_value(kind))}-{draw(_value(kind))}"
    return text + (f"/{step}" if shape == "a-b/s" else "")


@st.composite
def _field(draw, kind: str) -> str:
    return ",".join(draw(st.lists(_range(kind), min_size=1, max_size=3)))


_SPACES = st.sampled_from([" ", " ", " ", "  ", "\t", " \t", "\u00a0", "\u3000", "\x1c"])
_ZONES = [
    "TZ=America/New_York ",
    "CRON_TZ=Europe/London ",
    "TZ=Europe/Paris ",
    "CRON_TZ=Australia/Lord_Howe ",
    "TZ=Asia/Tokyo ",
    "TZ=UTC ",
    "CRON_TZ=Local ",
    "TZ= ",
    "TZ=Mars/Olympus ",
    "TZ=Europe ",
    "TZ=../etc/passwd ",
    "TZ=europe/london ",
    "TZ=UTC\t",
]
_DESCRIPTORS = [
    "@daily",
    "@midnight",
    "@weekly",
    "@monthly",
    "@yearly",
    "@annually",
    "@hourly",
    "@Daily",
    "@every 1h",
    "@every x",
]


@st.composite
def schedules(draw) -> str:
    prefix = draw(st.sampled_from(["", "", ""] + _ZONES))
    if draw(st.integers(0, 5)) == 0:
        body = draw(st.sampled_from(_DESCRIPTORS))
    else:
        count = draw(st.sampled_from([5, 5, 5, 5, 4, 6]))
        kinds = ["minute", "hour", "dom", "month", "dow", "dow"][:count]
        fields = [draw(_field(kind)) for kind in kinds]
        body = fields[0]
        for field in fields[1:]:
            body += draw(_SPACES) + field
    lead = draw(st.sampled_from(["", "", "", " ", "\t"]))
    trail = draw(st.sampled_from(["", "", "", " ", "\n", "\u2003"]))
    return prefix + lead + body + trail


def _python(text: str):
    try:
        return parse_schedule(text), None
    except CronError as error:
        return None, error


_STARTS = [datetime(2026, 3, 7, 12, tzinfo=UTC), datetime(2026, 10, 24, 23, 59, 59, tzinfo=UTC), datetime(2096, 3, 1, tzinfo=UTC)]


@settings(max_examples=15)
@given(st.lists(schedules(), min_size=25, max_size=25))
@example(
    [
        "0 0 * * FRİ",  # Go's simple case mapping: İ lower-cases to i, so this is Friday
        "0 3 * * *",
        "@daily ",  # no trimming: the descriptor does not match
        "TZ=UTC",  # robfig slices spec[eq+1:-1] and panics
        "TZ=America/New_York 30 1 * * *",  # the repeated hour fires twice
        "CRON_TZ=Europe/London 30 1 * * 0",  # the skipped hour on the last Sunday of March
        "TZ=Australia/Lord_Howe */15 1-2 * * *",  # a 30-minute shift
        "0 0 29 2 *",  # 2096-02-29, then 2104: beyond robfig's five years
        ", * * * *",
        "0 0 */2 * MON",
        "5/20 * ? jan-MAR mon-fri",
        "0\t3 * *\n*",
        "TZ=UTC \u3000@daily\u2003",
        "TZ=Europe 0 0 * * *",
    ]
    + ["0 0 * * *"] * 11
)
def test_accepts_refuses_and_fires_as_robfig(robfig, texts):
    requests = [{"spec": t, "after": _unix(start), "count": RUNS} for t in texts for start in _STARTS]
    answers = iter(robfig(requests))
    for text in texts:
        schedule, error = _python(text)
        for start in _STARTS:
            go = next(answers)
            if go.startswith(("ERR", "PANIC")):
                assert error is not None and error.owner == "robfig", (text, go)
                continue
            if go == "EVERY":
                assert error is not None and error.owner == "operator", (text, go)
                continue
            assert go.startswith("OK"), (text, go)
            go_times = [int(t) for t in go.split()[1:]]
            if error is not None:
                # robfig accepted it; the operator cannot run it: robfig gives up (zero time) from some start
                assert error.owner == "operator", (text, go, error)
                continue
            if 0 in go_times:  # only for a schedule core.cron refused: every accepted one fires on
                pytest.fail(f"{text!r}: robfig stops firing after {start} but core.cron accepted it")
            ours = [_unix(t) for t in fire_times(schedule, start, RUNS)]
            assert ours == go_times, (text, start)
    for text in texts:  # a refusal for the operator must show in robfig's answers from one of the starts
        schedule, error = _python(text)
        if error is not None and error.owner == "operator":
            answers = robfig([{"spec": text, "after": _unix(start), "count": RUNS} for start in _STARTS])
            assert any(a == "EVERY" or "0" in a.split() for a in answers), (text, answers)


# --- retention windows of zoned schedules: robfig's own runs over the same horizon ---

_HORIZON = [_unix(datetime.combine(day, datetime.min.time(), UTC)) for day in HORIZON]
_ZONED = [
    ("TZ=America/New_York 30 1 * * *", 7),
    ("TZ=America/New_York 30 1 * * *", 2),
    ("CRON_TZ=Europe/London 30 1 * * 0", 2),
    ("TZ=Europe/Paris 30 2 * * *", 2),
    ("TZ=Europe/Paris 30 2 * * *", 8),
    ("TZ=Europe/Paris 0 * * * *", 169),
    ("CRON_TZ=Australia/Lord_Howe */15 1-2 * * *", 5),
    ("TZ=America/New_York 0 1 * 3,11 *", 30),
    ("TZ=Europe/London 0 0 1 * *", 3),
    ("TZ=Europe/Paris 15 2,3 * * 1-5", 11),
]


@pytest.mark.parametrize(("text", "keep"), _ZONED)
def test_zoned_windows_are_robfigs_runs(robfig, text, keep):
    schedule = parse_schedule(text)
    (answer,) = robfig([{"spec": text, "from": _HORIZON[0], "to": _HORIZON[1], "keep": keep}])
    low, high, _ = (int(v) for v in answer.split()[1:])
    assert retention_window_seconds(schedule, keep) == low
    assert longest_span_seconds(schedule, keep - 1) == high


@st.composite
def zoned_schedules(draw):
    zone = draw(st.sampled_from(["America/New_York", "Europe/London", "Australia/Lord_Howe", "America/Santiago"]))
    minutes = draw(st.lists(st.integers(0, 59), min_size=1, max_size=2, unique=True))
    hours = draw(st.lists(st.integers(0, 23), min_size=1, max_size=3, unique=True))
    days = draw(st.sampled_from(["* * *", "* * 0", "* * 1-5", "1,15 * *", "* 3,4,10,11 *", "*/3 * *"]))
    return f"TZ={zone} {','.join(map(str, minutes))} {','.join(map(str, hours))} {days}"


@settings(max_examples=12)
@given(zoned_schedules(), st.integers(2, 40))
def test_zoned_windows_agree_with_robfig(robfig, text, keep):
    schedule = parse_schedule(text)
    (answer,) = robfig([{"spec": text, "from": _HORIZON[0], "to": _HORIZON[1], "keep": keep}])
    low, high, _ = (int(v) for v in answer.split()[1:])
    assert (retention_window_seconds(schedule, keep), longest_span_seconds(schedule, keep - 1)) == (low, high)


def test_a_utc_window_is_never_longer_than_robfigs_century(robfig):
    # UTC windows are exact over the whole 400-year cycle: never longer than the century robfig runs here
    for text, keep in [("0 3 * * *", 8), ("0 0 1 * *", 2), ("0 1 * * 1-5", 6), ("0 0 29 * *", 2)]:
        (answer,) = robfig([{"spec": text, "from": _HORIZON[0], "to": _HORIZON[1], "keep": keep}])
        low = int(answer.split()[1])
        assert retention_window_seconds(parse_schedule(text), keep) <= low
        assert retention_window_seconds(parse_schedule(text), keep) == low or text == "0 0 29 * *"


def test_the_fire_times_reach_past_a_fall_back():
    runs = fire_times(parse_schedule("TZ=America/New_York 30 1 * * *"), datetime(2026, 10, 31, tzinfo=UTC), 4)
    assert [b - a for a, b in zip(runs, runs[1:], strict=False)] == [timedelta(days=1), timedelta(hours=1), timedelta(hours=24)]
