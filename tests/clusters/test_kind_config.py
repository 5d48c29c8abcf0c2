"""The generated kind config: control plane, database workers labeled and tainted (K4), a monitoring worker."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from percona_mysql_k8s.clusters.kind_config import KIND_API_VERSION, kind_config, main, render_kind_config
from percona_mysql_k8s.core.errors import InputError

REPOSITORY = Path(__file__).resolve().parents[2]
DATABASE_TAINT = {"key": "mysql.percona.com/pool", "value": "database", "effect": "NoSchedule"}


def taints_of(node: dict) -> list[dict]:
    taints = []
    for patch in node.get("kubeadmConfigPatches", []):
        document = yaml.safe_load(patch)
        assert document["kind"] == "JoinConfiguration"
        taints += document["nodeRegistration"]["taints"]
    return taints


def test_one_control_plane_a_database_worker_per_member_and_a_monitoring_worker():
    config = yaml.safe_load(render_kind_config("perf", 3, image="kindest/node:v1.33.1"))
    assert config["kind"] == "Cluster"
    assert config["apiVersion"] == KIND_API_VERSION == "kind.x-k8s.io/v1alpha4"
    assert config["name"] == "perf"
    roles = [node["role"] for node in config["nodes"]]
    assert roles == ["control-plane", "worker", "worker", "worker", "worker"]
    assert all(node["image"] == "kindest/node:v1.33.1" for node in config["nodes"])

    control_plane, *workers = config["nodes"]
    assert "labels" not in control_plane and taints_of(control_plane) == []
    database = [w for w in workers if w["labels"] == {"mysql.percona.com/pool": "database"}]
    monitoring = [w for w in workers if w["labels"] == {"mysql.percona.com/pool": "monitoring"}]
    assert len(database) == 3 and len(monitoring) == 1
    assert all(taints_of(worker) == [DATABASE_TAINT] for worker in database)
    assert taints_of(monitoring[0]) == []  # the monitoring pool is not tainted


def test_worker_counts_follow_the_arguments():
    config = kind_config("x", 5, monitoring_workers=2)
    labels = [node.get("labels", {}).get("mysql.percona.com/pool") for node in config["nodes"]]
    assert labels == [None] + ["database"] * 5 + ["monitoring"] * 2


@pytest.mark.parametrize(("database", "monitoring"), [(0, 1), (3, 0), (True, 1)])
def test_a_cluster_without_a_pool_is_refused(database, monitoring):
    with pytest.raises(InputError):
        kind_config("x", database, monitoring)


def test_the_command_prints_the_config(capsys):
    assert main(["--workers", "3", "--name", "x"]) == 0
    printed = capsys.readouterr().out
    assert yaml.safe_load(printed) == kind_config("x", 3)
    assert printed.startswith("# kind cluster x")


def test_the_command_refuses_zero_workers(capsys):
    assert main(["--workers", "0"]) == 2
    assert "database worker" in capsys.readouterr().err


def test_python_dash_m_works_without_pulumi():
    """Users who create kind clusters themselves run the module directly; it imports no Pulumi."""
    script = (
        "import runpy, sys; sys.argv = ['kind_config', '--workers', '3', '--name', 'x'];"
        "runpy.run_module('percona_mysql_k8s.clusters.kind_config', run_name='__main__')"
    )
    probe = (
        "import sys, percona_mysql_k8s.clusters.kind_config, percona_mysql_k8s.plan.clusters, percona_mysql_k8s.clusters;"
        "assert not [m for m in sys.modules if m.startswith('pulumi')], 'pulumi imported'"
    )
    result = subprocess.run([sys.executable, "-c", script], cwd=REPOSITORY, capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
    assert len(yaml.safe_load(result.stdout)["nodes"]) == 5
    purity = subprocess.run([sys.executable, "-c", probe], cwd=REPOSITORY, capture_output=True, text=True, check=False)
    assert purity.returncode == 0, purity.stderr


@pytest.mark.parametrize("argv", [["--work", "3"], ["--workers", "three"], ["--bogus"]])
def test_a_flag_it_cannot_read_is_one_error_line(argv, capsys):
    # core.command_line.Parser, as in every other command: no abbreviations, no usage block, exit status 2
    assert main(argv) == 2
    error = capsys.readouterr().err
    assert error.startswith("error: ") and error.count("\n") == 1
