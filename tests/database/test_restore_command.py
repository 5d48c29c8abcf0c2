"""percona-mysql-restore: the printed objects validate against the restore CRDs; every bad input is one line."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import datetime
from pathlib import Path

import pytest
import yaml
from percona_mysql_k8s.cli import restore

from .test_backup_manifests import assert_valid_restore

BASE = ["--cluster", "db1", "--namespace", "mysql"]
MODULES = Path(__file__).resolve().parents[2] / "modules"


def _run(argv, capsys, api=None):
    code = restore.main(argv, api=api, now=datetime(2026, 11, 23, 12, 0, 0))
    out, err = capsys.readouterr()
    return code, out, err


class FakeApi:
    """The two CustomObjectsApi calls the command makes, recorded."""

    def __init__(self, items=(), fail=None):
        self.items, self.fail, self.created, self.listed = list(items), fail, [], []

    def list_namespaced_custom_object(self, group, version, namespace, plural, _request_timeout=None):
        self.listed.append((group, version, namespace, plural))
        if self.fail:
            raise self.fail
        return {"items": self.items}

    def create_namespaced_custom_object(self, group, version, namespace, plural, body, _request_timeout=None):
        if self.fail:
            raise self.fail
        self.created.append((group, version, namespace, plural, body))
        return body


class Refused(Exception):
    status, reason = 409, "Conflict"


def _backup(name, cluster="db1", state="Succeeded", completed="2026-11-23T03:04:05Z", field="pxcCluster"):
    return {"metadata": {"name": name}, "spec": {field: cluster}, "status": {"state": state, "completed": completed}}


@pytest.mark.parametrize("engine,kind", [("pxc", "pxc"), ("gr", "group-replication")])
@pytest.mark.parametrize("time", [None, "2026-11-23 10:15:00"])
def test_printed_objects_validate_against_the_restore_crds(engine, kind, time, capsys):
    argv = ["--engine", engine, *BASE, "--backup", "cron-db1-offsite-2026112303", "--name", "r1"]
    if time:
        argv += ["--time", time]
    code, out, err = _run(argv, capsys)
    assert (code, err) == (0, "")
    obj = yaml.safe_load(out)
    assert_valid_restore(obj, kind)
    assert obj["metadata"] == {"name": "r1", "namespace": "mysql"}
    assert obj["spec"]["backupName"] == "cron-db1-offsite-2026112303"
    assert ("pitr" in obj["spec"]) is bool(time)
    if time:
        assert obj["spec"]["pitr"]["date"] == time  # quoted in YAML: a string, not a YAML timestamp


def test_the_default_name_comes_from_the_point_in_time_or_now(capsys):
    _, out, _ = _run(["--engine", "pxc", *BASE, "--backup", "b1", "--time", "2026-11-23 10:15:00"], capsys)
    assert yaml.safe_load(out)["metadata"]["name"] == "db1-restore-20261123-101500"
    _, out, _ = _run(["--engine", "pxc", *BASE, "--backup", "b1"], capsys)
    assert yaml.safe_load(out)["metadata"]["name"] == "db1-restore-20261123-120000"


def test_a_point_in_time_without_backup_takes_the_latest_succeeded_one_before_it(capsys):
    api = FakeApi(
        [
            _backup("early", completed="2026-11-22T03:04:05Z"),
            _backup("chosen", completed="2026-11-23T03:04:05Z"),
            _backup("after", completed="2026-11-23T10:15:01Z"),  # one second too late
            _backup("failed", state="Failed", completed="2026-11-23T09:00:00Z"),
            _backup("other-cluster", cluster="db2", completed="2026-11-23T09:00:00Z"),
            _backup("running", state="Running", completed=None),
        ]
    )
    code, out, err = _run(["--engine", "pxc", *BASE, "--time", "2026-11-23 10:15:00"], capsys, api)
    assert code == 0
    assert yaml.safe_load(out)["spec"]["backupName"] == "chosen"
    assert "base backup: chosen" in err
    assert api.listed == [("pxc.percona.com", "v1", "mysql", "perconaxtradbclusterbackups")]


def test_ps_backups_are_matched_on_cluster_name(capsys):
    api = FakeApi([_backup("gr-full", field="clusterName"), _backup("pxc-shaped", field="pxcCluster")])
    code, out, _ = _run(["--engine", "gr", *BASE, "--time", "2026-11-23 10:15:00"], capsys, api)
    assert code == 0 and yaml.safe_load(out)["spec"]["backupName"] == "gr-full"
    assert api.listed[0][3] == "perconaservermysqlbackups"


def test_no_backup_before_the_time_is_one_line_naming_time(capsys):
    api = FakeApi([_backup("later", completed="2026-11-24T03:04:05Z")])
    code, out, err = _run(["--engine", "pxc", *BASE, "--time", "2026-11-23 10:15:00"], capsys, api)
    assert code == 2 and out == ""
    assert err.startswith("error: R2: --time: no succeeded backup") and err.count("\n") == 1


def test_apply_creates_the_object_in_the_cluster(capsys):
    api = FakeApi()
    code, out, err = _run(["--engine", "gr", *BASE, "--backup", "b1", "--name", "r1", "--apply"], capsys, api)
    assert code == 0 and out == ""
    ((group, version, namespace, plural, body),) = api.created
    assert (group, version, namespace, plural) == ("ps.percona.com", "v1", "mysql", "perconaservermysqlrestores")
    assert_valid_restore(body, "group-replication")
    assert "kubectl -n mysql get perconaservermysqlrestores r1 -w" in err


def test_a_refusal_by_the_api_server_is_one_line_exit_1(capsys):
    code, out, err = _run(["--engine", "pxc", *BASE, "--backup", "b1", "--apply"], capsys, FakeApi(fail=Refused()))
    assert code == 1 and out == ""
    assert err.startswith("error: creating PerconaXtraDBClusterRestore mysql/") and "409 Conflict" in err
    assert err.count("\n") == 1


@pytest.mark.parametrize(
    "argv,flag",
    [
        (["--cluster", "db1", "--namespace", "mysql", "--backup", "b1"], "--engine"),  # argparse: required
        (["--engine", "mongodb", *BASE, "--backup", "b1"], "--engine"),
        (["--engine", "pxc", *BASE], "--backup"),
        (["--engine", "pxc", *BASE, "--backup", "B_1"], "--backup"),
        (["--engine", "pxc", *BASE, "--backup", "b1", "--time", "23/11/2026 10:15"], "--time"),
        (["--engine", "pxc", *BASE, "--backup", "b1", "--time", "2026-02-30 10:15:00"], "--time"),
        (["--engine", "pxc", "--cluster", "DB1", "--namespace", "mysql", "--backup", "b1"], "--cluster"),
        (["--engine", "pxc", "--cluster", "db1", "--namespace", "my_sql", "--backup", "b1"], "--namespace"),
        (["--engine", "pxc", *BASE, "--backup", "b1", "--name", "-r1"], "--name"),
        (["--engine", "pxc", *BASE, "--backup", "b1", "--frobnicate"], "--frobnicate"),
        (["--engine", "pxc", *BASE, "--time", "2026-11-23 10:15:00", "--kubeconfig", "/nonexistent/kubeconfig"], "--kubeconfig"),
    ],
)
def test_bad_input_is_one_line_naming_the_flag_exit_2(argv, flag, capsys):
    code = restore.main(argv)
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert err.startswith("error: ") and flag in err and err.count("\n") == 1, err
    assert "Traceback" not in err


def test_the_module_and_the_console_script_run(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(MODULES)}
    result = subprocess.run(
        [sys.executable, "-m", "percona_mysql_k8s.cli.restore", "--engine", "gr", *BASE, "--backup", "b1"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert yaml.safe_load(result.stdout)["kind"] == "PerconaServerMySQLRestore"
    bad = subprocess.run(
        [sys.executable, "-m", "percona_mysql_k8s.cli.restore", "--engine", "gr", *BASE],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert bad.returncode == 2 and "Traceback" not in bad.stderr and bad.stderr.startswith("error: --backup")


@pytest.mark.parametrize(
    ("argv", "flag", "why"),
    [
        (["--namespace", "n" * 64], "--namespace", "at most 63"),  # a namespace is a DNS-1123 label
        (["--namespace", "my.space"], "--namespace", "DNS-1123 label"),
        (["--cluster", "a..b"], "--cluster", "DNS-1123 subdomain"),
        (["--cluster", "db1\n"], "--cluster", "DNS-1123 subdomain"),  # Go's $ is the end of the text
        (["--cluster", "c" * 240], "--name", "give --name"),  # the default name would pass 253 characters
        (["--time", "0001-01-01 00:00:00"], "--time", "1970"),
        (["--time", "2026-11-23 12:00:01"], "--time", "in the future"),
    ],
)
def test_names_and_times_are_checked_as_kubernetes_and_the_binary_logs_allow(argv, flag, why, capsys):
    args = {"--engine": "pxc", "--cluster": "db1", "--namespace": "mysql", "--backup": "cron-db1-offsite-2026112303"}
    args.update(dict(zip(argv[::2], argv[1::2], strict=True)))
    code, out, err = _run([item for pair in args.items() for item in pair], capsys)
    assert code == 2 and out == "" and len(err.splitlines()) == 1
    assert err.startswith("error: ") and flag in err and why in err, err


def test_the_newest_name_and_time_the_api_server_takes_pass(capsys):
    argv = ["--engine", "pxc", "--cluster", "c" * 229, "--namespace", "n" * 63, "--backup", "b1", "--time", "2026-11-23 12:00:00"]
    code, out, err = _run(argv, capsys)
    assert code == 0, err
    assert len(yaml.safe_load(out)["metadata"]["name"]) == 253
