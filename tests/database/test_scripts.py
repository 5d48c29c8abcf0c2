"""The Jobs' shell scripts, run here with fake sysbench, mysql, curl and kubectl on PATH.

The images are not available offline; what is checked is the script logic: the order of calls, the
CSV the ladder produces from real sysbench output, the patch the PMM token Job sends, and that no
password reaches a command line.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import textwrap
from pathlib import Path

import pytest
from percona_mysql_k8s.core import benchmark
from percona_mysql_k8s.core.units import GIB
from percona_mysql_k8s.plan.database import scripts

pytestmark = pytest.mark.skipif(
    not (shutil.which("bash") and shutil.which("awk") and shutil.which("jq")),
    reason="needs bash, awk and jq to run the Job scripts",
)

PASSWORD = "Sb0secret0PW"
ROOT = "R00tsecretPW"

SYSBENCH_OUTPUT = """\
sysbench 1.1.0 (using bundled LuaJIT 2.1.0-beta3)

Running the test with following options:
Number of threads: {t}
Report intermediate results every 1 second(s)

Threads started!

[ 1s ] thds: {t} tps: 100.00 qps: 2000.00 (r/w/o: 1400.00/400.00/200.00) lat (ms,95%): 12.52 err/s: 0.00 reconn/s: 0.00
[ 2s ] thds: {t} tps: 110.50 qps: 2210.00 (r/w/o: 1547.00/442.00/221.00) lat (ms,95%): 11.87 err/s: 1.00 reconn/s: 0.00
Latency histogram (values are in milliseconds)
       value  ------------- distribution ------------- count
      10.000 |**********                               10

SQL statistics:
    queries performed:
        read:                            2947
        write:                           842
        other:                           421
        total:                           4210
    transactions:                        210    (105.{t} per sec.)
    queries:                             4210   (2105.00 per sec.)
    ignored errors:                      1      (0.50 per sec.)
    reconnects:                          0      (0.00 per sec.)

General statistics:
    total time:                          2.0008s
    total number of events:              210

Latency (ms):
         min:                                    3.12
         avg:                                    9.50
         max:                                   30.01
         95th percentile:                       12.{t}
         sum:                                 1995.00
"""


def _fake(bin_dir: Path, name: str, body: str) -> None:
    path = bin_dir / name
    path.write_text("#!/usr/bin/env python3\n" + textwrap.dedent(body))
    path.chmod(0o755)


@pytest.fixture
def sandbox(tmp_path):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "calls.jsonl"
    env = {
        "PATH": f"{bin_dir}:{os.environ['PATH']}",
        "TMPDIR": str(tmp_path),
        "CALLS": str(log),
        "MYSQL_HOST": "db1-haproxy.mysql.svc",
        "MYSQL_PORT": "3306",
        "SYSBENCH_PASSWORD": PASSWORD,
        "ROOT_PASSWORD": ROOT,
    }
    plan = benchmark.plan(
        buffer_pool_bytes=GIB,
        load="light-oltp",
        max_connections=500,
        volume_bytes=50 * GIB,
        threads=[1, 8],
        duration_seconds=2,
        warmup_seconds=3,
    )
    env.update(scripts.sysbench_env(plan))
    env["RESULTS_DIR"] = str(tmp_path / "results")
    common = """
        import json, os, sys
        stdin = "" if sys.stdin.isatty() else sys.stdin.read()
        with open(os.environ["CALLS"], "a") as log:
            log.write(json.dumps({"argv": sys.argv, "stdin": stdin}) + "\\n")
    """
    _fake(bin_dir, "mysql", common)
    _fake(
        bin_dir,
        "sysbench",
        common
        + """
        threads = next((a.split("=", 1)[1] for a in sys.argv if a.startswith("--threads=")), "1")
        if sys.argv[-1] == "run":
            print(open(os.environ["SAMPLE"]).read().format(t=threads))
    """,
    )
    sample = tmp_path / "sample.txt"
    sample.write_text(SYSBENCH_OUTPUT)
    env["SAMPLE"] = str(sample)
    return tmp_path, bin_dir, env, log


def _run(script: str, env: dict) -> subprocess.CompletedProcess:
    result = subprocess.run(["bash", "-c", script], env=env, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr + result.stdout
    return result


def _calls(log: Path) -> list[dict]:
    return [json.loads(line) for line in log.read_text().splitlines()]


def test_ladder_turns_sysbench_output_into_csv(sandbox):
    tmp_path, _, env, log = sandbox
    _run(scripts.LADDER, env)
    summary = (tmp_path / "results" / "summary.csv").read_text().splitlines()
    assert summary == [scripts.SUMMARY_HEADER, "1,105.1,2105.00,12.1,0.50,0.00", "8,105.8,2105.00,12.8,0.50,0.00"]
    intervals = (tmp_path / "results" / "intervals-8.csv").read_text().splitlines()
    assert intervals == [scripts.INTERVAL_HEADER, "8,1,100.00,2000.00,12.52,0.00,0.00", "8,2,110.50,2210.00,11.87,1.00,0.00"]
    runs = [c["argv"] for c in _calls(log) if c["argv"][-1] == "run"]
    assert len(runs) == 2
    for argv in runs:
        for flag in scripts.B3_RUN_FLAGS:
            assert flag in argv
        assert f"--warmup-time={env['STEP_WARMUP_SECONDS']}" in argv
        assert "--time=2" in argv and not any(a.startswith("--rate") for a in argv)


def test_ladder_passes_the_rate_when_set(sandbox):
    _, _, env, log = sandbox
    _run(scripts.LADDER, {**env, "RATE": "500"})
    assert all("--rate=500" in c["argv"] for c in _calls(log) if c["argv"][-1] == "run")


def test_no_password_on_any_command_line(sandbox):
    tmp_path, _, env, log = sandbox
    for script in (scripts.SCHEMA, scripts.PREPARE, scripts.WARMUP, scripts.LADDER, scripts.CLEANUP):
        _run(script, env)
    calls = _calls(log)
    assert calls
    for call in calls:
        assert PASSWORD not in " ".join(call["argv"]) and ROOT not in " ".join(call["argv"])
    config = (tmp_path / "sysbench.cfg").read_text()
    assert f"mysql-password={PASSWORD}" in config and "mysql-ssl=VERIFY_CA" in config
    assert oct((tmp_path / "root.cnf").stat().st_mode & 0o777) == "0o600"


def test_user_setup_creates_the_user_as_root_then_checks_it_through_the_proxy(sandbox):
    _, _, env, log = sandbox
    _run(scripts.USER_SETUP, env)
    calls = _calls(log)
    sql = next(c["stdin"] for c in calls if "CREATE USER" in c["stdin"])
    assert "CREATE USER IF NOT EXISTS 'sbtest'@'%'" in sql and f"IDENTIFIED BY '{PASSWORD}'" in sql
    assert "GRANT ALL PRIVILEGES ON `sbtest`.* TO 'sbtest'@'%'" in sql
    assert any(a.endswith("root.cnf") for a in calls[0]["argv"])
    assert any(a.endswith("sbtest.cnf") for a in calls[-1]["argv"])


def test_the_benchmark_pods_scripts_log_in_as_the_benchmark_user_only(sandbox):
    """No root in the benchmark pod: its schema check and its cleanup connect as sbtest, and with no
    ROOT_PASSWORD in the env no root option file is even written."""
    _, _, env, log = sandbox
    env = {k: v for k, v in env.items() if k != "ROOT_PASSWORD"}
    _run(scripts.SCHEMA, env)
    _run(scripts.CLEANUP, env)
    mysql = [c for c in _calls(log) if Path(c["argv"][0]).name == "mysql"]
    assert mysql and all(any(a.endswith("sbtest.cnf") for a in c["argv"]) for c in mysql)
    assert not (Path(env["TMPDIR"]) / "root.cnf").exists()
    assert "DROP DATABASE IF EXISTS `sbtest`" in mysql[-1]["argv"][-1] and "DROP USER" not in scripts.CLEANUP


def test_prepare_and_warmup_use_the_b4_data_size(sandbox):
    _, _, env, log = sandbox
    _run(scripts.PREPARE, env)
    _run(scripts.WARMUP, env)
    commands = [c["argv"][-1] for c in _calls(log)]
    assert commands == ["cleanup", "prepare", "prewarm", "run"]
    warmup = _calls(log)[-1]["argv"]
    assert all(flag in warmup for flag in scripts.B3_RUN_FLAGS)
    # the data set on every command line: sysbench resets an oltp script's options from a config file to their
    # defaults (1 table of 10,000 rows; src/sysbench.c parse_test_arguments, issue 498), so the file holds none
    data_set = [f"--tables={env['TABLES']}", f"--table-size={env['TABLE_SIZE']}"]
    assert all(flag in call["argv"] for call in _calls(log) for flag in data_set)
    config = (Path(env["TMPDIR"]) / "sysbench.cfg").read_text()
    assert "tables=" not in config and "table-size=" not in config


def test_pmm_token_job_patches_only_the_token_key(sandbox):
    tmp_path, bin_dir, _, log = sandbox
    _fake(
        bin_dir,
        "curl",
        """
        import json, os, sys
        args = sys.argv[1:]
        url = next(a for a in args if a.startswith("https://"))
        with open(os.environ["CALLS"], "a") as log:
            log.write(json.dumps({"argv": sys.argv, "stdin": ""}) + "\\n")
        if "-w" in args:
            print("200", end="")
        elif url.endswith("/graph/api/serviceaccounts"):
            print(json.dumps({"id": 7, "uid": "abc", "name": "x"}))
        elif url.endswith("/graph/api/serviceaccounts/7/tokens"):
            print(json.dumps({"id": 3, "name": "t", "key": "glsa_secret_token"}))
        else:
            sys.exit(22)
    """,
    )
    _fake(
        bin_dir,
        "kubectl",
        """
        import json, os, sys
        args = sys.argv[1:]
        patch = ""
        if "--patch-file" in args:
            patch = open(args[args.index("--patch-file") + 1]).read()
        with open(os.environ["CALLS"], "a") as log:
            log.write(json.dumps({"argv": sys.argv, "stdin": patch}) + "\\n")
    """,
    )
    env = {
        "PATH": f"{bin_dir}:{os.environ['PATH']}",
        "TMPDIR": str(tmp_path),
        "CALLS": str(log),
        "PMM_URL": "https://monitoring-service.mysql.svc",
        "PMM_ADMIN_PASSWORD": "AdminPW1",
        "CREDENTIALS_NAME": "db1-secrets",
        "CLUSTER_NAMESPACE": "mysql",
        "SERVICE_ACCOUNT": "pmm-mysql-db1",
        "CREDENTIALS_FIELD": "pmmservertoken",
    }
    result = subprocess.run(["sh", "-c", scripts.PMM_TOKEN], env=env, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    calls = _calls(log)
    patch = next(c for c in calls if "patch" in c["argv"])
    assert patch["argv"][1:5] == ["patch", "secret", "db1-secrets", "-n"]
    body = json.loads(patch["stdin"])
    assert body == {"data": {"pmmservertoken": base64.b64encode(b"glsa_secret_token").decode()}}
    for call in calls:
        assert "glsa_secret_token" not in " ".join(call["argv"])
    created = next(c for c in calls if any(a.endswith("/graph/api/serviceaccounts") for a in c["argv"]))
    assert '"role":"Admin"' in " ".join(created["argv"])


def test_publish_writes_the_results_configmap(sandbox):
    tmp_path, bin_dir, env, log = sandbox
    results = tmp_path / "results"
    results.mkdir()
    (results / "summary.csv").write_text(scripts.SUMMARY_HEADER + "\n1,1,1,1,0,0\n")
    (results / "intervals-1.csv").write_text(scripts.INTERVAL_HEADER + "\n")
    (results / "done").write_text("0\n")  # the ladder's exit status
    _fake(
        bin_dir,
        "kubectl",
        """
        import json, os, sys
        stdin = "" if sys.stdin.isatty() else sys.stdin.read()
        with open(os.environ["CALLS"], "a") as log:
            log.write(json.dumps({"argv": sys.argv, "stdin": stdin}) + "\\n")
        if "create" in sys.argv:
            print("kind: ConfigMap")
    """,
    )
    run_env = {**env, "CONFIGMAP": "db1-sysbench-results", "NAMESPACE": "mysql", "RUN_ID": "abc"}
    result = subprocess.run(["sh", "-c", scripts.PUBLISH], env=run_env, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    create, apply = _calls(log)
    assert "--from-file=summary.csv=" + str(results / "summary.csv") in create["argv"]
    assert "--from-file=intervals-1.csv=" + str(results / "intervals-1.csv") in create["argv"]
    assert apply["argv"][1:3] == ["apply", "--server-side"] and apply["stdin"].startswith("kind: ConfigMap")
    assert "--from-literal=status=complete" in create["argv"]


def test_ladder_always_leaves_its_exit_status_for_the_publisher(sandbox):
    tmp_path, bin_dir, env, _ = sandbox
    _run(scripts.LADDER, env)
    assert (tmp_path / "results" / "done").read_text().strip() == "0"
    _fake(bin_dir, "sysbench", "import sys\nsys.exit(3)\n")
    result = subprocess.run(["bash", "-c", scripts.LADDER], env=env, capture_output=True, text=True, timeout=60)
    assert result.returncode != 0
    assert (tmp_path / "results" / "done").read_text().strip() != "0"


def test_clients_verify_the_server_certificate_against_the_operators_ca(sandbox):
    """Issue 11: sysbench and the mysql client verify the chain (VERIFY_CA) with the CA file the Job mounts."""
    tmp_path, _, env, _ = sandbox
    _run(scripts.SCHEMA, env)
    config = (tmp_path / "sysbench.cfg").read_text().splitlines()
    assert "mysql-ssl=VERIFY_CA" in config and f"mysql-ssl-ca={scripts.CA_FILE}" in config
    for option_file in ("sbtest.cnf", "root.cnf"):
        lines = (tmp_path / option_file).read_text().splitlines()
        assert "ssl-mode=VERIFY_CA" in lines and f"ssl-ca={scripts.CA_FILE}" in lines, option_file
