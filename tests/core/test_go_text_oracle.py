"""core.go_text and core.go_version against Go itself: a small Go program (tests/core/go_text_oracle) calls
``time.ParseDuration``, ``strconv.Atoi`` and hashicorp/go-version v1.8.0's ``NewVersion`` and ``Compare`` (the
PXC operator's pin; PS's v1.9.0 has the same expression and comparison), the way the operators read a custom
resource's TLS durations, its async settings and its ``crVersion`` (rule C2). The answers must be the same: the
value, or the refusal in Go's own words.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from oracles import oracle_missing
from percona_mysql_k8s.core.go_print import PRINT_RANGES_TEXT, is_print
from percona_mysql_k8s.core.go_text import GoSyntaxError, go_atoi, go_duration_ns
from percona_mysql_k8s.core.go_version import MalformedVersion, parse_version

GO_ORACLE = Path(__file__).resolve().parent / "go_text_oracle"


@pytest.fixture(scope="module")
def go(tmp_path_factory):
    go = shutil.which("go")
    reason = f"the Go oracle needs Go and github.com/hashicorp/go-version v1.8.0 (cd {GO_ORACLE} && go mod download)"
    if go is None:
        oracle_missing(reason)
    binary = tmp_path_factory.mktemp("go-text") / "oracle"
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
        lines = "".join(json.dumps(request) + "\n" for request in requests)
        answer = subprocess.run([str(binary)], input=lines, capture_output=True, text=True, timeout=600, check=True)
        found = answer.stdout.split("\n")[:-1]
        assert len(found) == len(requests)
        return found

    return ask


def _ours(kind: str, text: str, other: str = "") -> str:
    try:
        if kind == "duration":
            return f"ok {go_duration_ns(text)}"
        if kind == "atoi":
            return f"ok {go_atoi(text)}"
        return f"ok {parse_version(text).compare(parse_version(other))}"
    except (GoSyntaxError, MalformedVersion) as error:
        return f"error {error}".replace("\n", "\\n").replace("\r", "\\r")


def _agree(go, kind: str, texts: list[str], other: str = "") -> None:
    answers = go([{"kind": kind, "text": text, "other": other} for text in texts])
    differing = [
        (text, mine, theirs) for text, theirs in zip(texts, answers, strict=True) if (mine := _ours(kind, text, other)) != theirs
    ]
    assert differing == []


# How people write durations: units, fractions, signs, days and weeks Go does not know, blanks, other scripts.
DURATIONS = [
    "2160h",
    "26280h",
    "1h",
    "59m59s",
    "0",
    "-0",
    "+0",
    "",
    "1",
    "90d",
    "1w",
    "1h30m",
    "1.5h",
    ".5h",
    "5.h",
    ".h",
    "1H",
    "1 h",
    " 1h",
    "1h ",
    "3600s",
    "1µs",
    "1μs",
    "1us",
    "1ns",
    "-1h",
    "+1h",
    "--1h",
    "1e3s",
    "1_000h",
    "9223372036854775807ns",
    "9223372036854775808ns",
    "-9223372036854775808ns",
    "2562047h47m16.854775807s",
    "2562048h",
    "0.000000001h",
    "1.0000000000000000000000001h",
    "1h\n",
    "1h\u00e9",
    '1"h',
    "1\\h",
    "1h2",
    "h",
]
UNITS = st.sampled_from(["ns", "us", "µs", "μs", "ms", "s", "m", "h", "d", "H", "", " ", "hh", "é"])
_number = st.from_regex(r"[0-9]{0,20}(\.[0-9]{0,22})?", fullmatch=True)
_part = st.tuples(_number, UNITS).map("".join)
DURATION_TEXT = st.tuples(st.sampled_from(["", "-", "+"]), st.lists(_part, max_size=3).map("".join)).map("".join)


def test_durations_are_read_as_go_reads_them(go):
    _agree(go, "duration", DURATIONS)


@settings(max_examples=300)
@given(st.lists(DURATION_TEXT | st.text(max_size=8), min_size=1, max_size=40))
@example(["1.5h", "90d"])
def test_any_duration_text_is_read_as_go_reads_it(go, texts):
    _agree(go, "duration", texts)


NUMBERS = [
    "0",
    "3",
    "-1",
    "+5",
    "0600",
    "",
    "+",
    "-",
    " 1",
    "1 ",
    "1.0",
    "1e3",
    "0x10",
    "1_000",
    "10s",
    "٣",
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775808",
    "-9223372036854775809",
    "1\n",
    "\U00031350",  # CJK Extension H: Unicode 15.0, printable to Go, unassigned to Python 3.11's unicodedata
    "\u2ffc",  # Unicode 15.1: printable to Python 3.13, not to Go's 15.0.0
    "\u00a0\u200b\ufeff\U000e0001",  # spaces and format characters Go escapes
]


@settings(max_examples=200)
@given(st.lists(st.from_regex(r"[+-]?[0-9]{0,21}", fullmatch=True) | st.text(max_size=6), min_size=1, max_size=40))
@example(NUMBERS)
def test_whole_numbers_are_read_as_atoi_reads_them(go, texts):
    _agree(go, "atoi", texts)


# crVersion as people write it: the operators' own, a v prefix, fewer or more segments, prereleases, metadata.
VERSIONS = [
    "1.20.0",
    "1.15.0",
    "1.14.9",
    "v1.15",
    "1.15",
    "1",
    "1.15.0-rc1",
    "1.15.0.0-rc1",
    "1.15.0+build.1",
    "1.15-beta",
    "1.15beta",
    "latest",
    "",
    "1.20.0\n",
    " 1.20.0",
    "1.20.0 ",
    "9.9.9",
    "01.015.0",
    "1.2.3.4.5",
    "1.15.0-0",
    "1.15.0-rc.1.2",
    "1.15.0--",
    "1.15.0-~",
    "99999999999999999999.0.0",
    "1..2",
    "1.2.",
    "v",
    "V1.2.3",
]
VERSION_TEXT = st.from_regex(r"v?[0-9]{1,3}(\.[0-9]{1,3}){0,4}(-?[0-9A-Za-z.~-]{0,8})?(\+[0-9A-Za-z.-]{0,6})?", fullmatch=True)


@pytest.mark.parametrize("other", ["1.15.0", "1.14.0", "1.20.0"])
def test_versions_are_read_and_compared_as_go_version_does(go, other):
    _agree(go, "version", VERSIONS, other)


@settings(max_examples=200)
@given(st.lists(VERSION_TEXT | st.text(max_size=10), min_size=1, max_size=40), st.sampled_from(["1.15.0", "1.15.0-rc1", "1.2"]))
def test_any_version_text_is_read_and_compared_as_go_version_does(go, texts, other):
    _agree(go, "version", texts, other)


def test_the_runes_left_unquoted_are_the_ones_go_leaves(go):
    """strconv.Quote's test, strconv.IsPrint, on every code point: Go's table, not the interpreter's Unicode."""
    [answer] = go([{"kind": "print-ranges", "text": "", "other": ""}])
    assert answer == "ok " + " ".join(PRINT_RANGES_TEXT.split())
    printable = set()
    for pair in answer[3:].split():
        start, end = (int(end, 16) for end in pair.split("-"))
        printable.update(range(start, end + 1))
    assert [code for code in range(0x110000) if is_print(chr(code)) != (code in printable)] == []
