"""The grader's inputs: the sizing file, the MariaDB translation, /proc, the report and every bad input as one line."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys

import pytest
from grade_readings import reading
from hypothesis import example, given, settings
from hypothesis import strategies as st
from percona_mysql_k8s.core.errors import InputError
from percona_mysql_k8s.core.mycnf import normalize_key
from percona_mysql_k8s.core.rules import resolve_thresholds
from percona_mysql_k8s.core.sizing import SizingInput, size
from percona_mysql_k8s.core.units import MIB
from percona_mysql_k8s.grade import checks, proc
from percona_mysql_k8s.grade.cli import main
from percona_mysql_k8s.grade.dialect import MARIADB, MARIADB_RENAMED, MARIADB_SKIPPED, MYSQL, flavour_of, translate
from percona_mysql_k8s.grade.live import Address, parse_address
from percona_mysql_k8s.grade.report import render, summary
from percona_mysql_k8s.grade.sizing_file import GradeInputError, read_sizing

# ---- the sizing file -------------------------------------------------------------------------------------


def test_the_sizing_commands_json_reads_back(sizing, sizing_text):
    document = json.loads(sizing_text)
    assert sizing.engine == "pxc" and sizing.cluster_size == 3
    assert sizing.model_peak_bytes == document["memory_model"]["peak_bytes"]
    assert sizing.rules["innodb_buffer_pool_size"] == ("M1", "M2")
    assert sizing.apply_rate_tps == 200.0 and sizing.max_connections == document["connections"]["max_connections"]


@pytest.mark.parametrize(
    "change, key",
    [
        (lambda d: d.pop("memory_model"), "memory_model.terms"),
        (lambda d: d["input"].update(engine="galera"), "input.engine"),
        (lambda d: d["input"].update(cluster_size=0), "input.cluster_size"),
        (lambda d: d["memory_model"].update(peak_bytes="1G"), "memory_model.peak_bytes"),
        (lambda d: d["mysqld"].update(max_connections=[1]), "mysqld.max_connections"),
        (lambda d: d.update(rules={"x": "M1"}), "rules"),
        (lambda d: d["flow_control"].update(apply_rate_tps=float("nan")), "flow_control.apply_rate_tps"),
        (lambda d: d["connections"].pop("max_connections"), "connections.max_connections"),
    ],
)
def test_a_bad_sizing_file_names_the_key(sizing_text, change, key):
    document = json.loads(sizing_text)
    change(document)
    with pytest.raises(GradeInputError) as caught:
        read_sizing(json.dumps(document), "s.json")
    assert caught.value.input_name == "--sizing" and f"'{key}'" in str(caught.value) and "s.json" in str(caught.value)


def test_not_json_says_how_to_write_the_file():
    with pytest.raises(GradeInputError, match=r"not JSON .*percona-mysql-sizing"):
        read_sizing("[mysqld]\ninnodb_buffer_pool_size=1G\n", "my.cnf")


# ---- MariaDB's names -------------------------------------------------------------------------------------


def test_mariadb_gets_every_key_applied_renamed_or_skipped_with_a_reason(sizing):
    translation = translate(sizing.mysqld, MARIADB)
    assert translation.options["wsrep_slave_threads"] == sizing.mysqld["wsrep_applier_threads"]
    assert translation.options["innodb_log_file_size"] == sizing.mysqld["innodb_redo_log_capacity"]
    assert "wsrep_applier_threads" not in translation.options
    assert {skip.key for skip in translation.skipped} == set(MARIADB_SKIPPED) & set(sizing.mysqld)
    assert translation.live_name("temptable_max_ram") is None
    assert translation.live_name("loose-wsrep-applier-threads") == "wsrep_slave_threads"
    # MySQL keeps every name as sized
    mysql = translate(sizing.mysqld, MYSQL)
    assert mysql.options == {k: v for k, v in sizing.mysqld.items()} and not mysql.skipped and not mysql.renamed


@settings(max_examples=40, deadline=None)
@given(
    cpu=st.integers(1500, 64_000), memory_mib=st.integers(2048, 256 * 1024), engine=st.sampled_from(["pxc", "group-replication"])
)
def test_no_sized_key_is_lost_on_mariadb(cpu, memory_mib, engine):
    try:
        result = size(SizingInput(engine=engine, cpu_millicores=cpu, memory_bytes=memory_mib * MIB))
    except InputError:  # a budget the sizing refuses (its own tests cover that) has nothing to translate
        return
    translation = translate(result.mysqld, MARIADB)
    accounted = set(translation.options) | set(translation.renamed) | {s.key for s in translation.skipped}
    assert {normalize_key(k) for k in result.mysqld} <= accounted
    assert set(translation.renamed.values()) <= set(translation.options)
    assert not set(MARIADB_RENAMED) & set(translation.options)


def test_flavour_and_unknown_flavour():
    assert flavour_of("10.11.19-MariaDB-0+deb12u1") == MARIADB and flavour_of("8.0.36-28.1") == MYSQL
    with pytest.raises(ValueError, match="flavour"):
        translate({}, "postgres")


# ---- /proc -----------------------------------------------------------------------------------------------


def test_status_and_listening_tables_parse():
    assert proc.status_bytes("Name:\tmariadbd\nVmHWM:\t 1024 kB\nVmRSS:\t   512 kB\nThreads:\t22\n") == {
        "VmHWM": 1 << 20,
        "VmRSS": 1 << 19,
    }
    table = (
        "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"
        "   0: 0100007F:0CEA 00000000:0000 0A 00000000:00000000 00:00000000 00000000   102        0 4242 1\n"
        "   1: 0100007F:0CEA 0100007F:9C40 01 00000000:00000000 00:00000000 00000000   102        0 4343 1\n"
    )
    assert proc.listening_inodes(table, 3306) == {4242}  # 0x0CEA = 3306, only the LISTEN row
    assert proc.listening_inodes(table, 3307) == set()


def test_local_resident_reads_this_process_only_when_it_owns_the_port(tmp_path):
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    port = listener.getsockname()[1]
    try:
        pid_file = tmp_path / "mysqld.pid"
        pid_file.write_text(f"{os.getpid()}\n")
        found, note = proc.local_resident(str(pid_file), port)
        assert found is not None and note == "" and found.peak_bytes >= found.current_bytes > 0
        other = socket.socket()
        other.bind(("127.0.0.1", 0))
        free_port = other.getsockname()[1]
        other.close()
        found, note = proc.local_resident(str(pid_file), free_port)
        assert found is None and "does not listen on port" in note  # kubectl port-forward's case
    finally:
        listener.close()
    assert proc.local_resident(str(tmp_path / "absent.pid"), port)[0] is None


# ---- addresses, report -----------------------------------------------------------------------------------

LONGEST_HOST_NAME = ".".join(["a" * 63, "b" * 63, "c" * 63, "d" * 61])  # 253 characters, the DNS limit


@pytest.mark.parametrize(
    "text, address",
    [
        ("db", Address("db", 3306)),
        ("db:3307", Address("db", 3307)),
        ("[::1]:3308", Address("::1", 3308)),
        ("[fe80::1]", Address("fe80::1", 3306)),
        ("::1", Address("::1", 3306)),
        ("10.0.0.1:3306", Address("10.0.0.1", 3306)),
        ("[fe80::1%eth0]:3306", Address("fe80::1%eth0", 3306)),  # a zone, as getaddrinfo takes it
        (
            "cluster1-pxc-0.cluster1-pxc.mysql.svc.cluster.local",
            Address("cluster1-pxc-0.cluster1-pxc.mysql.svc.cluster.local", 3306),
        ),
        ("DB.Example.com.:3307", Address("DB.Example.com.", 3307)),  # any case, the root dot
        ("_mysql.db", Address("_mysql.db", 3306)),
        (LONGEST_HOST_NAME, Address(LONGEST_HOST_NAME, 3306)),
    ],
)
def test_addresses(text, address):
    assert parse_address(text, "--peer") == address


@pytest.mark.parametrize(
    "text",
    [
        "db:",
        "db:port",
        "db:70000",
        ":3306",
        "[::1]x",
        "a:b:c",
        "[ 0",  # no closing bracket (found by the property test below)
        "[::1",
        "[db]:3306",  # brackets hold an IPv6 address only
        "[10.0.0.1]",
        "::%]",  # ipaddress takes any zone text; an interface name has no bracket (found by a longer run)
        "[fe80::1%e th0]:3306",
        "fe80::1%" + "e" * 16,  # longer than an interface name
        "a b:3306",
        "db\t:3306",
        "user@db:3306",
        "-db",
        "db-",
        "db..example",
        "a" * 64 + ".example",  # a label over 63 characters
        LONGEST_HOST_NAME + "e",  # 254 characters
        "dé.example",
    ],
)
def test_bad_addresses_name_the_input(text):
    with pytest.raises(GradeInputError) as caught:
        parse_address(text, "--peer")
    assert caught.value.input_name == "--peer"


def test_the_report_goes_rule_by_rule_in_catalogue_order(sizing):
    findings = checks.grade(
        sizing, [reading(sizing, after={"wsrep_flow_control_paused_ns": "9000000000"})], resolve_thresholds({})
    )
    text = render(findings)
    headers = [line for line in text.splitlines() if line and not line.startswith(" ")]
    assert headers[0].startswith("M1 ") and headers[-1].startswith("summary: ")
    assert headers.index(next(h for h in headers if h.startswith("G1 "))) < headers.index(
        next(h for h in headers if h.startswith("G3 "))
    )
    assert "sized values no rule covers (reported, never a breach)" in headers
    assert summary(findings).startswith("summary: ") and "1 breached (G3)" in summary(findings)


# ---- the command: bad input is one line and exit 2 -------------------------------------------------------


def _free_port() -> int:
    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()
    return port


@pytest.mark.parametrize(
    "args, env, message",
    [
        (["--user", "u"], {}, "error: usage: "),
        # input quoted back stays on the one line, its line break escaped
        (["--sizing", "{sizing}", "--user", "u", "a\nb"], {"MYSQL_PWD": "x"}, "error: usage: unrecognized arguments: a\\nb"),
        (["--sizing", "{missing}\nb", "--user", "u"], {"MYSQL_PWD": "x"}, "error: --sizing: {missing}\\nb: "),
        (["--sizing", "{sizing}", "--user", "u", "--window", "0"], {"MYSQL_PWD": "x"}, "error: --window: must be within 1..3600"),
        (["--sizing", "{sizing}", "--user", "u", "--port", "0"], {"MYSQL_PWD": "x"}, "error: --port: must be within 1..65535"),
        (["--sizing", "{sizing}", "--user", "u", "--timeout", "inf"], {"MYSQL_PWD": "x"}, "error: --timeout: "),
        (["--sizing", "{missing}", "--user", "u"], {"MYSQL_PWD": "x"}, "error: --sizing: "),
        (["--sizing", "{sizing}", "--user", "u"], {}, "error: --password-env: the environment variable MYSQL_PWD is not set"),
        (["--sizing", "{sizing}", "--user", "u", "--password-env", "DB_PASSWORD"], {"MYSQL_PWD": "x"}, "DB_PASSWORD is not set"),
        (["--sizing", "{sizing}", "--user", "u", "--password-file", "{missing}"], {}, "error: --password-file: "),
        (["--sizing", "{sizing}", "--user", "u", "--threshold", "max_fc_limit"], {"MYSQL_PWD": "x"}, "error: --threshold: "),
        (["--sizing", "{sizing}", "--user", "u", "--threshold", "no_such=1"], {"MYSQL_PWD": "x"}, "unknown threshold 'no_such'"),
        # read as the sizing command reads them (core/threshold_pairs): ASCII numbers only, finite
        (
            ["--sizing", "{sizing}", "--user", "u", "--threshold", "max_fc_limit=\u0661\u066b\u0665"],
            {"MYSQL_PWD": "x"},
            "error: --threshold: max_fc_limit: ",
        ),
        (["--sizing", "{sizing}", "--user", "u", "--threshold", "max_fc_limit=nan"], {"MYSQL_PWD": "x"}, "is not a number"),
        (
            ["--sizing", "{sizing}", "--user", "u", "--threshold", "max_flow_control_paused_fraction=2"],
            {"MYSQL_PWD": "x"},
            "max_flow_control_paused_fraction",
        ),
        (
            ["--sizing", "{sizing}", "--user", "u", "--port", "{port}", "--timeout", "2"],
            {"MYSQL_PWD": "x"},
            "error: --host: 127.0.0.1:{port}: cannot connect as 'u'",
        ),
    ],
)
def test_bad_input_is_one_error_line_and_exit_2(tmp_path, sizing_text, monkeypatch, capsys, args, env, message):
    sizing_file = tmp_path / "sizing.json"
    sizing_file.write_text(sizing_text)
    port = _free_port()
    values = {"sizing": str(sizing_file), "missing": str(tmp_path / "absent"), "port": str(port)}
    monkeypatch.delenv("MYSQL_PWD", raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert main([arg.format(**values) for arg in args]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: ") and message.format(**values) in err[0], err


def test_the_password_is_never_a_flag():
    result = subprocess.run(
        [sys.executable, "-m", "percona_mysql_k8s.grade", "--help"], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0 and "--password-file" in result.stdout and "--password-env" in result.stdout
    assert "--password " not in result.stdout and "--password=" not in result.stdout
    # no flag takes a password, and no abbreviation stands in for --password-file
    assert main(["--sizing", "x", "--user", "u", "--password", "secret"]) == 2
    assert main(["--sizing", "x", "--user", "u", "--password-f", "secret"]) == 2


# ---- any input: a result or the one error, never a traceback ----------------------------------------------

_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=8),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(
    document=st.fixed_dictionaries(
        {},
        optional={
            "input": st.fixed_dictionaries(
                {},
                optional={
                    "engine": st.sampled_from(["pxc", "group-replication", "x"]) | _JSON,
                    "cluster_size": _JSON,
                    "thresholds": _JSON,
                },
            ),
            "mysqld": _JSON,
            "rules": _JSON,
            "memory_model": _JSON,
            "flow_control": _JSON,
            "connections": _JSON,
        },
    )
    | _JSON
)
def test_any_sizing_document_reads_or_names_what_is_wrong(document):
    try:
        read_sizing(json.dumps(document), "s.json")
    except GradeInputError as error:
        assert error.input_name == "--sizing" and str(error).startswith("error: --sizing: s.json")


@settings(max_examples=300, deadline=None)
@given(text=st.text(max_size=40))
@example(text="::%]")
@example(text="[ 0")  # an unclosed bracket read " 0" as the host, which printed back as "0"
@example(text="0:\u00b2")  # a superscript two: str.isdigit() says yes, int() refuses it (found by this test)
def test_any_address_parses_or_names_the_input(text):
    try:
        address = parse_address(text, "--peer")
    except GradeInputError as error:
        assert error.input_name == "--peer"
    else:  # what was read prints back as an address that reads the same
        assert address.host and 1 <= address.port <= 65535
        assert parse_address(str(address), "--peer") == address
