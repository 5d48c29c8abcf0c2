"""``percona-mysql-grade``: grade a running cluster, rule by rule, against its sizing.

    percona-mysql-sizing --engine pxc --cpu 2 --memory 2560Mi --format json > sizing.json
    MYSQL_PWD=... percona-mysql-grade --sizing sizing.json --host 127.0.0.1 --port 3306 --user root

Exit status: 0 every graded rule holds, 1 a rule is breached, 2 bad input (one ``error:`` line naming it),
which includes a member that cannot be reached or read within ``--timeout``.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from percona_mysql_k8s.core.command_line import Parser, UsageError
from percona_mysql_k8s.core.errors import InputError, one_line
from percona_mysql_k8s.core.memory import PXC
from percona_mysql_k8s.core.rules import ThresholdError, resolve_thresholds
from percona_mysql_k8s.core.threshold_pairs import add_threshold_option, threshold_pairs

from . import live
from .checks import MemberReading, exit_status, grade
from .report import render
from .sizing_file import GradeInputError, read_sizing

WINDOW_RANGE = (1.0, 3600.0)  # seconds
TIMEOUT_RANGE = (1.0, 300.0)  # seconds for a connection or one query
DEFAULT_PASSWORD_ENV = "MYSQL_PWD"  # the variable MySQL's and MariaDB's own clients read


def _parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="percona-mysql-grade",
        description=__doc__.split("\n\n")[0],
        epilog="The password is never a flag: it is read from --password-file or the environment "
        f"variable named by --password-env (default {DEFAULT_PASSWORD_ENV}).",
    )
    parser.add_argument("--sizing", required=True, metavar="FILE", help="the member's sizing: percona-mysql-sizing --format json")
    parser.add_argument("--host", default="127.0.0.1", help="a member's address (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=live.DEFAULT_PORT, help=f"its SQL port (default {live.DEFAULT_PORT})")
    parser.add_argument("--user", required=True, help="an account that can read variables, status and performance_schema")
    parser.add_argument("--password-file", metavar="FILE", help="a file holding the password (one trailing newline is dropped)")
    parser.add_argument(
        "--password-env",
        default=DEFAULT_PASSWORD_ENV,
        metavar="NAME",
        help=f"the environment variable holding the password (default {DEFAULT_PASSWORD_ENV})",
    )
    parser.add_argument(
        "--peer",
        action="append",
        default=[],
        metavar="HOST:PORT",
        help="another member (repeat); default: the members the server lists "
        "(PXC wsrep_incoming_addresses, group replication replication_group_members)",
    )
    parser.add_argument(
        "--window",
        type=float,
        default=10.0,
        metavar="SECONDS",
        help=f"how long flow control is watched (default 10; {WINDOW_RANGE[0]:g}-{WINDOW_RANGE[1]:g})",
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=10.0,
        metavar="SECONDS",
        help=f"limit for connecting and for each query (default 10; {TIMEOUT_RANGE[0]:g}-{TIMEOUT_RANGE[1]:g})",
    )
    add_threshold_option(parser)
    return parser


def _arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    try:
        return _parser().parse_args(argv)
    except UsageError as error:  # the grader's own error line: ``error: usage: ...``
        raise GradeInputError("usage", str(error)) from None


def _in_range(name: str, value: float, bounds: tuple[float, float]) -> float:
    if not math.isfinite(value) or not bounds[0] <= value <= bounds[1]:
        raise GradeInputError(name, f"must be within {bounds[0]:g}..{bounds[1]:g} seconds, got {value:g}")
    return value


def _password(args: argparse.Namespace) -> str:
    if args.password_file:
        try:
            text = Path(args.password_file).read_text()
        except OSError as error:
            raise GradeInputError("--password-file", f"{args.password_file}: {error.strerror or error}") from None
        return text[:-1] if text.endswith("\n") else text
    if args.password_env not in os.environ:
        raise GradeInputError(
            "--password-env", f"the environment variable {args.password_env} is not set (set it, or give --password-file)"
        )
    return os.environ[args.password_env]


def _thresholds(sizing_overrides, pairs: Sequence[str]) -> dict[str, float]:
    """The sizing's own overrides, then --threshold NAME=VALUE, read and checked as sizing reads and checks them."""
    try:
        return resolve_thresholds({**sizing_overrides, **threshold_pairs(pairs)})
    except InputError as error:
        raise GradeInputError("--threshold", error.message) from None
    except (ThresholdError, KeyError, ValueError) as error:
        raise GradeInputError("--threshold", str(error).strip('"')) from None


def _check_engine(engine: str, address: live.Address, variables: dict[str, str]) -> None:
    if engine == PXC and variables.get("wsrep_on", "OFF").upper() not in ("ON", "1"):
        raise GradeInputError(
            "--sizing",
            f"the sizing is for PXC (Galera) but {address} runs no Galera provider (wsrep_on is "
            f"{variables.get('wsrep_on', 'absent')})",
        )
    if engine != PXC and "group_replication_group_name" not in variables:
        raise GradeInputError("--sizing", f"the sizing is for group replication but {address} has no group_replication plugin")


def _members(args, sizing, password: str) -> list[tuple[live.Session, dict[str, str], str]]:
    """(session, variables, version) of the member and of each distinct peer."""
    first = live.connect(live.Address(args.host, args.port), args.user, password, args.timeout, "--host")
    sessions = [first]
    try:
        variables = first.name_values("SHOW GLOBAL VARIABLES")
        _check_engine(sizing.engine, first.address, variables)
        status = first.name_values("SHOW GLOBAL STATUS")
        members = [(first, variables, first.version())]
        seen = {live.member_identity(status, variables)}
        if args.peer:
            peers, source = [live.parse_address(peer, "--peer") for peer in args.peer], "--peer"
        else:
            peers, source = live.discovered_peers(sizing.engine, status, first), "discovered peer (give --peer)"
        for peer in peers:
            if peer == first.address:
                continue
            session = live.connect(peer, args.user, password, args.timeout, source)
            sessions.append(session)
            peer_variables = session.name_values("SHOW GLOBAL VARIABLES")
            identity = live.member_identity(session.name_values("SHOW GLOBAL STATUS"), peer_variables)
            if identity not in seen:
                seen.add(identity)
                members.append((session, peer_variables, session.version()))
        return members
    except BaseException:
        for session in sessions:
            session.close()
        raise


def _read(args, sizing, password: str) -> list[MemberReading]:
    members = _members(args, sizing, password)
    try:
        before = [(time.monotonic(), session.name_values("SHOW GLOBAL STATUS")) for session, _, _ in members]
        time.sleep(args.window)
        readings = []
        for (session, variables, server), (started, status_before) in zip(members, before, strict=True):
            status_after = session.name_values("SHOW GLOBAL STATUS")
            window = time.monotonic() - started
            resident, note = live.resident(session, variables)
            online = live.online_group_members(session) if sizing.engine != PXC else None
            readings.append(
                MemberReading(
                    str(session.address), server, variables, status_before, status_after, window, resident, note, online
                )
            )
        return readings
    finally:
        for session, _, _ in members:
            session.close()


def main(argv: Sequence[str] | None = None) -> int:
    try:
        args = _arguments(argv)
        if not 1 <= args.port <= 65535:
            raise GradeInputError("--port", f"must be within 1..65535, got {args.port}")
        _in_range("--window", args.window, WINDOW_RANGE)
        _in_range("--timeout", args.timeout, TIMEOUT_RANGE)
        try:
            text = Path(args.sizing).read_text()
        except OSError as error:
            raise GradeInputError("--sizing", f"{args.sizing}: {error.strerror or error}") from None
        sizing = read_sizing(text, args.sizing)
        thresholds = _thresholds(sizing.thresholds, args.threshold)
        password = _password(args)
        readings = _read(args, sizing, password)
    except GradeInputError as error:
        print(one_line(str(error)), file=sys.stderr)  # whatever input it quotes back
        return 2
    findings = grade(sizing, readings, thresholds)
    names = ", ".join(f"{r.address} ({r.version})" for r in readings)
    print(
        f"percona-mysql-grade: {sizing.engine} sizing {args.sizing}; {len(readings)} member(s): {names}; "
        f"flow control watched for {args.window:g} s"
    )
    print(render(findings))
    return exit_status(findings)
