"""The commands' one argument parser (core.command_line): spelled-out flags, bad words as UsageError, examples kept
as written, and the error line naming the flag a user typed."""

from __future__ import annotations

import pytest
from percona_mysql_k8s.core.command_line import Parser, UsageError, error_line
from percona_mysql_k8s.core.errors import InputError


def _parser() -> Parser:
    parser = Parser(prog="tool", description="A tool.", examples=("tool --cluster db1", "tool --cluster db2 --name x"))
    parser.add_argument("--cluster")
    parser.add_argument("--name")
    return parser


def test_an_abbreviated_flag_is_refused_not_guessed():
    with pytest.raises(UsageError, match="unrecognized arguments: --clu db1"):
        _parser().parse_args(["--clu", "db1"])
    assert _parser().parse_args(["--cluster", "db1"]).cluster == "db1"


def test_examples_stand_under_the_help_as_written(capsys):
    with pytest.raises(SystemExit) as exit_status:
        _parser().parse_args(["--help"])
    assert exit_status.value.code == 0
    # RawDescriptionHelpFormatter: the lines are not re-wrapped into one paragraph
    assert capsys.readouterr().out.endswith("\nExamples:\n  tool --cluster db1\n  tool --cluster db2 --name x\n")


def test_the_error_line_names_the_rule_and_the_flag_typed():
    assert error_line(InputError("size", "must be 3 or 5", "T1"), {"size": "--cluster-size"}) == (
        "error: T1: --cluster-size: must be 3 or 5"
    )
    # a key with no flag of its own: the flag argparse makes of it (dashes, not underscores)
    assert error_line(InputError("disk_iops", "must be positive"), {}) == "error: --disk-iops: must be positive"
