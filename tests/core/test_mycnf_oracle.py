"""Differential fuzzing of the option-file reader against a real mysqld option parser.

The oracle is Debian's mariadb-server 10.11 (``apt-get install -y mariadb-server``): ``my_print_defaults``
is my_default (lines, groups, comments, quotes, escapes, the 4094-byte read, ``!include``) and
``mariadbd --help --verbose`` prints every variable after my_getopt (prefixes, booleans, enums, number
suffixes, limits). Generated files go to both; the project's reader must give the same arguments and
values, or refuse exactly where the oracle refuses.

MariaDB's option code descends from MySQL's but differs. Where it does, the reader follows MySQL 8's
source (the operators run Percona Server / PXC 8.x) and the generators below keep out of the difference:

1. Names: MariaDB accepts unambiguous prefixes and any case (``Max_Connections``, ``max_connection``);
   MySQL 8 compares exactly (my_getopt.cc ``findopt``, WL#6978). Only exact lower-case names are generated.
2. An empty value for a number or an enum: MariaDB takes 0 (``binlog_format=`` is MIXED); MySQL 8 stops
   (setval's ``EE_OPTION_WITH_EMPTY_VALUE``). Not generated.
3. A negative value for an unsigned number: MariaDB stops; MySQL 8 takes the minimum (``getopt_ull``
   ``is_negative_num``). Not generated.
4. Limits: each variable's minimum, maximum and block size differ between the servers (``sort_buffer_size``
   starts at 1024 in MariaDB, at 32K in MySQL). They are measured from mariadbd first and the reader runs
   with them (``_calibrated``): what is compared is the reading, not the limits. ``max_connections`` is
   left out: after my_getopt both servers lower it to what the open-files limit allows
   (``adjust_max_connections``), which depends on the machine; its reading is checked in
   test_the_measured_readings.
5. ``maximum-``: a plugin variable's maximum is the variable itself in both (``maximum-innodb_buffer_pool_size=
   256M`` sets it), but MySQL 8 also lowers a session variable's global value to the cap (``getopt_ull``)
   and MariaDB does not. Not generated.
6. Groups: mariadbd also reads [mariadb], [mariadbd], [galera], [client-server]; only [mysqld] and groups
   neither reads ([client]) are generated.
7. A number whose suffix shift loses bits (``16E``): MariaDB wraps it; MySQL 8 stops (``eval_num_suffix``
   compares the bits before and after the shift). Not generated.
8. ``loose-`` before a value mysqld cannot read (``loose-max_connections=0x``): MariaDB logs the error and
   goes on; MySQL 8 stops (``my_handle_options`` returns setval's error whatever the prefix). Such
   examples are discarded when mariadbd says it could not set the value but did not stop.
9. A plugin option mysqld cannot set (``loose-innodb_buffer_pool_size`` without a value): MariaDB's
   ``--help`` disables the plugin and goes on; MySQL 8 stops, InnoDB being mandatory (and MariaDB would
   stop too at a real start, its default engine gone). Counted as a refusal.
10. Semi-sync and group replication variables are plugins in MySQL and built in (or absent) in MariaDB:
   their reading is tested against MySQL's source in test_option_file_table.py, not here.
"""

from __future__ import annotations

import dataclasses
import re
import shutil
import subprocess
from pathlib import Path
from unittest import mock

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from oracles import oracle_missing
from percona_mysql_k8s.core import mysqld_catalog
from percona_mysql_k8s.core.mycnf import MyCnfError, OptionFile, read_files
from percona_mysql_k8s.core.mycnf_files import default_arguments

MARIADBD = shutil.which("mariadbd") or "/usr/sbin/mariadbd"
PRINT_DEFAULTS = shutil.which("my_print_defaults") or "/usr/bin/my_print_defaults"
pytestmark = pytest.mark.mariadb


@pytest.fixture(autouse=True)
def _the_oracle_is_installed():
    if not (Path(MARIADBD).exists() and Path(PRINT_DEFAULTS).exists()):
        oracle_missing(
            "the oracle is absent: apt-get install -y mariadb-server (Debian 12: mariadbd and "
            "my_print_defaults 10.11; scripts/galera.sh install)"
        )


FUZZ = settings(
    max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)

NUMBERS = (
    "sort_buffer_size",
    "join_buffer_size",
    "read_rnd_buffer_size",
    "tmp_table_size",
    "max_heap_table_size",
    "net_buffer_length",
    "innodb_buffer_pool_size",
)
BOOLEANS = ("innodb_adaptive_hash_index", "log_bin_trust_function_creators", "performance_schema")
ENUMS = ("binlog_format",)


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "oracle.cnf"
    path.write_bytes(text.encode("utf-8", "surrogateescape"))
    return path


def print_defaults(tmp_path: Path, text: str) -> list[str] | None:
    """my_print_defaults' arguments for [mysqld], or None when it refuses the file."""
    done = subprocess.run(
        [PRINT_DEFAULTS, f"--defaults-file={_write(tmp_path, text)}", "mysqld"], capture_output=True, timeout=30
    )
    if done.returncode:
        return None
    return done.stdout.decode("utf-8", "surrogateescape").split("\n")[:-1]


def mariadbd_values(tmp_path: Path, text: str, names) -> dict[str, str] | None:
    """The value mariadbd keeps for each of ``names`` (TRUE/FALSE for booleans), None when it refuses."""
    done = subprocess.run(
        [MARIADBD, f"--defaults-file={_write(tmp_path, text)}", "--help", "--verbose", "--user=mysql"],
        capture_output=True,
        timeout=60,
    )
    if done.returncode:
        return None
    if b"Parsing options for plugin" in done.stderr:
        return None  # difference 9
    if b"Error while setting value" in done.stderr:
        assume(False)  # difference 8: MariaDB's loose- leniency over a value it could not set
    output = done.stdout.decode("utf-8", "surrogateescape")
    values = {}
    for name in names:
        match = re.search(rf"^{re.escape(name.replace('_', '-'))} +(\S*)$", output, re.MULTILINE)
        assert match, f"mariadbd --help --verbose printed no {name}"
        values[name] = match.group(1)
    return values


# ---- 1. my_default: lines, groups, comments, quotes, escapes, long lines ---------------------------------

_value_chars = st.sampled_from(
    list("abcXYZ019 \t#;='\"\\.-_\x00") + ["é", "à", "\u00a0", "ʠ", "\\s", "\\t", "\\\\", "\\q", '\\"', "\\'"]
)
_values = st.lists(_value_chars, max_size=12).map("".join)
_names = st.sampled_from(["xa", "xb", "x-c", "x_d", "loose-xe", "skip-xf", " xg", "xh "])
_option_lines = st.tuples(_names, st.sampled_from(["=", " = ", "= ", " ="]), _values).map("".join)
_bare_lines = _names
_headers = st.sampled_from(["[mysqld]", "[MySQLd]", "[mysqld]  ", "[ mysqld]", "[client]", "[mysqld] trailing", "[mysqld"])
_others = st.sampled_from(
    [
        "",
        "   ",
        "# comment",
        "; comment",
        "  # indented",
        "!include /nonexistent/x.cnf",
        "!includedir /nonexistent/dir",
        "! include /nonexistent/y.cnf",
        "!includedir",
        "!include",
        "!nonsense",
        "\r",
    ]
)
_long = st.integers(4080, 4110).map(lambda n: "xl=" + "v" * (n - 3) + "tail=2")
_lines = st.one_of(_option_lines, _bare_lines, _headers, _others, _long)
_files = st.tuples(st.sampled_from(["[mysqld]\n", "", "xz=1\n"]), st.lists(_lines, max_size=10), st.sampled_from(["\n", ""])).map(
    lambda parts: parts[0] + "\n".join(parts[1]) + parts[2]
)


@pytest.mark.mariadb
@FUZZ
@given(text=_files)
def test_my_default_reads_lines_as_my_print_defaults_does(tmp_path, text):
    expected = print_defaults(tmp_path, text)
    try:
        arguments, undecided = default_arguments([OptionFile(str(tmp_path / "oracle.cnf"), text)], ["mysqld"])
    except MyCnfError:
        assert expected is None, f"the reader refuses what my_print_defaults reads: {text!r}"
        return
    # A missing !include is skipped by mysqld (same arguments); a missing !includedir stops it. The reader,
    # not given those files, reports both as undecidable, which the pack turns into an error.
    if expected is None and any(item.reason.startswith("!includedir") for item in undecided):
        return
    assert expected is not None, f"my_print_defaults refuses what the reader reads: {text!r}"
    assert [argument.option() for argument in arguments] == expected


# ---- 2. my_getopt: prefixes, booleans, enums, suffixes --------------------------------------------------


def _calibrated(tmp_path: Path) -> dict[str, mysqld_catalog.Option]:
    """The number options with mariadbd's own limits, measured: 0 gives the minimum, ULLONG_MAX the maximum
    (or a refusal: a signed type, then LLONG_MAX), and 2^k-1 just below the maximum the block size."""
    lowest = mariadbd_values(tmp_path, "[mysqld]\n" + "".join(f"{name}=0\n" for name in NUMBERS), NUMBERS)
    options = {}
    for name in NUMBERS:
        top = mariadbd_values(tmp_path, f"[mysqld]\n{name}={2**64 - 1}\n", [name])
        kind = "ull" if top is not None else "ll"
        top = top or mariadbd_values(tmp_path, f"[mysqld]\n{name}={2**63 - 1}\n", [name])
        maximum = int(top[name])
        power = 1 << min(40, maximum.bit_length() - 1)
        block = power - int(mariadbd_values(tmp_path, f"[mysqld]\n{name}={power - 1}\n", [name])[name])
        options[name] = dataclasses.replace(
            mysqld_catalog.BY_NAME[name],
            kind=kind,
            minimum=int(lowest[name]),
            maximum=maximum,
            block=block if 0 < block < power else 1,
        )
    return options


@pytest.fixture(scope="module")
def calibrated(tmp_path_factory):
    return _calibrated(tmp_path_factory.mktemp("calibrate"))


_prefixes = st.sampled_from(["", "", "skip-", "disable-", "enable-", "loose-", "loose-skip-", "skip-loose-", "skip-enable-"])
_SHIFTS = {"K": 10, "k": 10, "M": 20, "G": 30, "g": 30, "T": 40, "Gi": 30, "GB": 30, "mb": 20, "P": 50, "E": 60}
_number_values = st.one_of(
    st.tuples(st.integers(0, 2**40), st.sampled_from(["", *_SHIFTS, " ", "x", ".5"]))
    .filter(lambda pair: pair[0] << _SHIFTS.get(pair[1], 0) < 2**63)  # difference 7
    .map(lambda pair: f"{pair[0]}{pair[1]}"),
    st.sampled_from(["0", "G", "k", "1e3", "+5", "010", "0x10", "99999999999999999999", "٣", "1 000", "'5'"]),
)
_bool_values = st.sampled_from(["ON", "off", "True", "FALSE", "1", "0", "yes", "no", "", "2", "enable", "oN"])
_enum_values = st.sampled_from(
    ["ROW", "row", "ro", "r", "M", "mixed", "S", "0", "1", "2", "3", "-0", "+2", "x", "ROWS", "'ROW '"]
)


def _assignment(names, values):
    # "plugin-" answers for plugin variables only (InnoDB's here). Elsewhere it names no option, which the
    # reader proves only without skip-/disable- in front (mysqld has skip_* options of its own, not all
    # catalogued): that case is in tests/core/test_mysqld_options.py.
    spelled = st.tuples(st.sampled_from(["", "", "plugin-"]), st.sampled_from(names), st.sampled_from(["_", "-"])).map(
        lambda parts: (parts[0] if parts[1].startswith("innodb_") else "") + parts[1].replace("_", parts[2])
    )
    return st.tuples(_prefixes, spelled, st.sampled_from(["", "="]), values).map(
        lambda parts: f"{parts[0]}{parts[1]}" if parts[2] == "" and parts[0] else f"{parts[0]}{parts[1]}={parts[3]}"
    )


_assignments = st.lists(
    st.one_of(_assignment(NUMBERS, _number_values), _assignment(BOOLEANS, _bool_values), _assignment(ENUMS, _enum_values)),
    min_size=1,
    max_size=6,
)


@pytest.mark.mariadb
@FUZZ
@given(lines=_assignments)
def test_my_getopt_values_match_mariadbd(tmp_path, calibrated, lines):
    text = "[mysqld]\n" + "\n".join(lines) + "\n"
    names = NUMBERS + BOOLEANS + ENUMS
    expected = mariadbd_values(tmp_path, text, names)
    with mock.patch.dict(mysqld_catalog.BY_NAME, calibrated):
        try:
            effective = read_files([OptionFile("oracle.cnf", text)], ["mysqld"])
        except MyCnfError as error:
            assert expected is None, f"the reader refuses ({error}) what mariadbd reads: {text!r}"
            return
    assert expected is not None, f"mariadbd refuses what the reader reads: {text!r}"
    for name, setting in effective.settings.items():
        if name in names:
            shown = {"ON": "TRUE", "OFF": "FALSE"}.get(setting.value, setting.value) if name in BOOLEANS else setting.value
            assert shown == expected[name], (name, text)


@pytest.mark.mariadb
@pytest.mark.parametrize(
    ("line", "name", "value"),
    [
        ("skip-innodb_adaptive_hash_index=0", "innodb_adaptive_hash_index", "TRUE"),  # the measurements
        ("enable-log_bin_trust_function_creators=OFF", "log_bin_trust_function_creators", "TRUE"),
        ("innodb_buffer_pool_size=8Gi", "innodb_buffer_pool_size", "8589934592"),
        ("max_connections=1K", "max_connections", "1024"),
        ("binlog_format=ro", "binlog_format", "ROW"),
    ],
)
def test_the_measured_readings(tmp_path, line, name, value):
    assert mariadbd_values(tmp_path, f"[mysqld]\n{line}\n", [name]) == {name: value}
    setting = read_files([OptionFile("oracle.cnf", f"[mysqld]\n{line}\n")], ["mysqld"]).settings[name]
    assert {"ON": "TRUE", "OFF": "FALSE"}.get(setting.value, setting.value) == value
