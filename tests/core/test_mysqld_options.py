"""my_getopt, typelib and Galera's parsing as ported, checked on their own and over the whole input domain.

Expected values follow from the C code cited in the modules (e.g. ``eval_num_suffix`` shifts by 10 bits per
suffix letter and ignores what follows the letter); the differential tests against a real server are in
test_mycnf_oracle.py, the table of syntaxes in tests/policies/test_option_file_table.py.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from percona_mysql_k8s.core import galera_options
from percona_mysql_k8s.core.mycnf import MyCnfError, OptionFile, effective_options, mysqld_options, read_files
from percona_mysql_k8s.core.mycnf_files import READ_BYTES, default_arguments, get_argument, reads
from percona_mysql_k8s.core.mysqld_catalog import BY_NAME, OPTIONS, TYPE_MAX
from percona_mysql_k8s.core.mysqld_options import Refused, eval_num_suffix, find_type, limit, prefixed_argument, set_value

CONSISTENCY = BY_NAME[
    "group_replication_consistency"
].choices  # EVENTUAL, BEFORE_ON_PRIMARY_FAILOVER, BEFORE, AFTER, BEFORE_AND_AFTER


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("AFTER", 4),
        ("after", 4),
        ("AFTER  ", 4),
        ("A", 4),
        ("even", 1),
        ("BEFORE", 3),  # exact beats the two longer names it prefixes
        ("BEFORE_", -1),
        ("B", -1),
        ("BEFORE_AND", 5),
        ("", 0),
        (" AFTER", 0),
        ("AFTERS", 0),
        ("3", 0),
        ("ÀFTER", 0),
    ],
)
def test_find_type_as_typelib_does(text, found):
    assert find_type(text, CONSISTENCY) == found


def test_find_type_without_prefixes_wants_the_whole_name():
    assert find_type("mysqld", ("MYSQLD", "SERVER"), no_prefix=True) == 1
    assert find_type("mysql", ("MYSQLD", "SERVER"), no_prefix=True) == 0  # a prefix is no match at all then
    assert find_type("client", ("MYSQLD", "SERVER"), no_prefix=True) == 0


@pytest.mark.parametrize(
    ("argument", "value"),
    [("3", "AFTER"), ("0", "EVENTUAL"), ("+4", "BEFORE_AND_AFTER"), ("-0", "EVENTUAL"), (" 2", "BEFORE"), ("a", "AFTER")],
)
def test_enum_takes_names_prefixes_and_decimal_indexes(argument, value):
    assert set_value(BY_NAME["group_replication_consistency"], argument).text == value


@pytest.mark.parametrize("argument", ["5", "-1", "1.0", "0x1", "B", "", "３"])
def test_enum_refuses_what_is_neither(argument):
    with pytest.raises(Refused):
        set_value(BY_NAME["group_replication_consistency"], argument)


_SUFFIXES = {"k": 10, "m": 20, "g": 30, "t": 40, "p": 50, "e": 60}


@given(
    st.integers(0, 2**40),
    st.sampled_from(sorted(_SUFFIXES) + [s.upper() for s in _SUFFIXES]),
    st.text(alphabet="ib B#x9", max_size=3),
)
def test_a_suffix_is_a_power_of_1024_and_what_follows_it_is_not_read(number, suffix, tail):
    shifted = number << _SUFFIXES[suffix.lower()]
    text = f"{number}{suffix}{tail}"
    if shifted > 2**63 - 1:
        with pytest.raises(Refused, match="out of range"):
            eval_num_suffix(text, True, "x")
    else:
        assert eval_num_suffix(text, True, "x") == shifted


@given(st.integers(0, 2**64 - 1))
def test_plain_numbers_read_as_themselves_or_are_refused_past_the_type(number):
    assert eval_num_suffix(str(number), False, "x") == number
    if number > 2**63 - 1:
        with pytest.raises(Refused):
            eval_num_suffix(str(number), True, "x")


@pytest.mark.parametrize("text", ["1.5G", "8 G", "x", "٣", "0x10", "1,000", " G"])
def test_other_characters_after_the_digits_are_refused(text):
    with pytest.raises(Refused, match="suffix"):
        eval_num_suffix(text, False, "max_connections")


def test_a_lone_suffix_letter_reads_as_zero():
    # strtoull finds no digits and returns 0 with the end at the letter: 0 << 30
    assert eval_num_suffix("G", False, "x") == 0


@given(st.integers(0, 2**64 - 1))
def test_limits_clamp_and_round_down_to_the_block(number):
    option = BY_NAME["join_buffer_size"]  # 128..ULONG_MAX, block 128
    value = int(limit(option, number).text)
    assert option.minimum <= value <= min(option.maximum, TYPE_MAX[option.kind])
    assert value % option.block == 0
    assert value == max(option.minimum, number // 128 * 128)


def test_an_unsigned_negative_takes_the_minimum_with_a_warning():
    value = set_value(BY_NAME["max_connections"], "-5")
    assert (value.text, "negative" in value.warning) == ("1", True)


@pytest.mark.parametrize(
    ("prefix", "value", "argument"),
    [
        ("skip", None, "0"),
        ("skip", "0", "1"),
        ("skip", "OFF", "0"),
        ("skip", "00", "0"),
        ("disable", "0", "1"),
        ("enable", None, "1"),
        ("enable", "0", "0"),
        ("enable", "OFF", "1"),
        ("enable", "", "1"),
        ("loose", "7", "7"),
        ("maximum", "7", "7"),
        (None, None, None),
    ],
)
def test_prefixes_turn_the_value_into_0_or_1(prefix, value, argument):
    assert prefixed_argument(prefix, value) == argument


@pytest.mark.parametrize(
    ("word", "value", "warned"),
    [
        ("ON", "ON", False),
        ("tRuE", "ON", False),
        ("1", "ON", False),
        ("off", "OFF", False),
        ("0", "OFF", False),
        ("yes", "OFF", True),
        ("", "OFF", True),
        ("2", "OFF", True),
    ],
)
def test_booleans(word, value, warned):
    result = set_value(BY_NAME["ssl"], word)
    assert (result.text, result.warning is not None) == (value, warned)


def test_every_catalogue_entry_is_consistent_and_cites_its_source():
    names = [name for option in OPTIONS for name in (option.name, *option.aliases)]
    assert len(names) == len(set(names))
    for option in OPTIONS:
        assert option.source and option.name == option.name.lower()
        assert option.kind in ("bool", "enum", "str", *TYPE_MAX)
        assert (option.kind == "enum") == bool(option.choices)
        if option.kind in TYPE_MAX:
            assert option.minimum <= (option.maximum or TYPE_MAX[option.kind]) <= TYPE_MAX[option.kind]


# ---- the reader as a whole --------------------------------------------------------------------------


@given(st.text(max_size=300), st.sampled_from(["pxc", "ps"]))
def test_any_text_is_read_or_refused_with_a_named_error(text, operator):
    try:
        effective_options(operator, text, None)
    except MyCnfError as error:
        assert " line " in str(error) or "must be" in str(error)


_lines = st.lists(
    st.one_of(
        st.sampled_from(["[mysqld]", "[server]", "[client]", "# c", "", "!x", "skip-ssl", "ssl=0", "loose-x=1"]),
        st.tuples(
            st.sampled_from(
                [
                    "max_connections",
                    "sort_buffer_size",
                    "group_replication_consistency",
                    "ssl",
                    "replica_parallel_workers",
                    "slave_parallel_workers",
                    "binlog_format",
                    "xfoo",
                ]
            ),
            st.text(alphabet="0123456789kKmMgGaAbBfFtT =#'\"", max_size=8),
        ).map("=".join),
    ),
    max_size=12,
)


@given(_lines)
def test_generated_option_files_never_crash(lines):
    try:
        mysqld_options("\n".join(lines) + "\n")
    except MyCnfError as error:
        assert "line" in str(error)


@given(
    st.lists(
        st.tuples(
            st.sampled_from(["replica_parallel_workers", "slave_parallel_workers", "slave-parallel-workers"]),
            st.integers(0, 1024),
        ),
        min_size=1,
        max_size=6,
    )
)
def test_an_alias_and_its_variable_are_one_setting_and_the_last_wins(assignments):
    text = "".join(f"{name}={value}\n" for name, value in assignments)
    assert mysqld_options(text)["replica_parallel_workers"] == str(assignments[-1][1])


@given(st.text(alphabet="ab=\n", max_size=20000))
def test_reads_are_fgets_pieces_of_at_most_4094_bytes(text):
    pieces = list(reads(text))
    assert "".join(piece for _, _, piece in pieces) == text
    assert all(len(piece) <= READ_BYTES for _, _, piece in pieces)
    assert all(
        piece.endswith("\n") or len(piece) == READ_BYTES or index == len(pieces) - 1 for index, (_, _, piece) in enumerate(pieces)
    )


@pytest.mark.parametrize(
    ("rest", "argument"),
    [
        (" /etc/a.cnf\n", "/etc/a.cnf"),
        ("   /etc/a.cnf  \r\n", "/etc/a.cnf"),
        (" /etc/a.cnf", "/etc/a.cn"),
        ("\n", None),
        (" x", None),
    ],
)
def test_include_arguments_lose_their_last_byte(rest, argument):
    assert get_argument(rest) == argument


def test_loose_forgives_an_unknown_name_not_a_bad_value():
    # my_handle_options returns setval's error whatever the prefix: mysqld stops (MariaDB goes on here)
    with pytest.raises(MyCnfError, match="line 1.*suffix"):
        mysqld_options("loose-max_connections=abc\n")
    # the prefix stripped last decides: skip-loose-x is loose-x, so the boolean is set, not negated
    assert mysqld_options("skip-loose-ssl\nloose-skip-performance-schema\n") == {"ssl": "ON", "performance_schema": "OFF"}


def test_plugin_aliases_answer_for_plugin_variables_only():
    assert mysqld_options("plugin-innodb-buffer-pool-size=1G\n") == {"innodb_buffer_pool_size": str(2**30)}
    with pytest.raises(MyCnfError, match="only plugin variables answer to plugin-"):
        mysqld_options("plugin-max-connections=10\n")
    # skip-plugin-max-connections might be one of mysqld's own skip_* options: no verdict, kept as written
    assert mysqld_options("skip-plugin-max-connections\n") == {"skip_plugin_max_connections": "ON"}


def test_an_include_directive_counts_its_depth_and_the_last_line_without_newline():
    files = [OptionFile("/a.cnf", "[mysqld]\n!include /b.cnf"), OptionFile("/b.cn", "[mysqld]\nmax_connections=7\n")]
    effective = read_files(files, ["mysqld"])
    assert effective.values()["max_connections"] == "7"  # "/b.cnf" at EOF is read as "/b.cn"
    looping = [OptionFile("/a.cnf", "[mysqld]\nmax_connections=1\n!include /a.cnf\n")]
    assert len(default_arguments(looping, ["mysqld"])[0]) == 11  # the file and 10 levels of includes of itself


# ---- Galera ------------------------------------------------------------------------------------------


@given(st.text(max_size=200))
def test_any_provider_string_is_parsed_or_refused(text):
    try:
        galera_options.parse(text)
    except galera_options.ProviderOptionError:
        pass


@pytest.mark.parametrize(
    ("text", "value"),
    [("100", 100), ("0x64", 100), ("0144", 100), ("1k", 1024), ("2G", 2 * 2**30), ("-1K", -1024), ("0", 0), ("1T", 2**40)],
)
def test_galera_integers(text, value):
    assert galera_options.integer("gcs.fc_limit", text) == value


@pytest.mark.parametrize("text", ["08", "1Ki", "1P", "", "1.5", "x", "8589934592G", "100 "])
def test_galera_refuses_these_integers(text):
    with pytest.raises(galera_options.ProviderOptionError):
        galera_options.integer("gcs.fc_limit", text)


def test_galera_escapes_and_separators():
    assert galera_options.parse(r"a.b=x\;y;c.d=1") == {"a.b": "x;y", "c.d": "1"}
    assert galera_options.parse(r"a.b=1;c.d=x\;y") == {"a.b": "1", "c.d": r"x\;y"}  # the tail keeps its escapes
    with pytest.raises(galera_options.ProviderOptionError, match="hangs"):
        galera_options.parse(r"\a.b=1;c=2")
