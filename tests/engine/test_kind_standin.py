"""The kind stand-in itself (tests/engine/kind_standin.py), without a control plane: the Nodes it makes from the
config the kind stack pipes to `kind create cluster`, the kubeconfig `kind get kubeconfig` prints, and the
`docker info` the stack's program reads the host from. These run in the ordinary suite."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import kind_standin
import pytest
import yaml
from percona_mysql_k8s.clusters.kind_config import render_kind_config
from percona_mysql_k8s.core.kind_host import KindHost, worker_budget
from percona_mysql_k8s.core.pools import DATABASE_TAINT, POOL_LABEL
from percona_mysql_k8s.core.units import GIB, cpu_to_millicores, memory_to_bytes
from percona_mysql_k8s.plan.clusters import kind as kind_plan

KIND_BIN = Path(__file__).resolve().parent / "kind-bin"
HOST = KindHost(8000, 32 * GIB)


def _run(tool: str, *args: str, home: Path, stdin: str = "") -> subprocess.CompletedProcess:
    env = dict(
        os.environ,
        PATH=f"{KIND_BIN}:{os.environ['PATH']}",
        KIND_STANDIN_PYTHON=sys.executable,
        KIND_STANDIN_HOME=str(home),
        KIND_STANDIN_HOST_CPU="8",
        KIND_STANDIN_HOST_MEMORY="32Gi",
    )
    return subprocess.run([tool, *args], env=env, input=stdin, capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("database_workers", [1, 3])
def test_the_nodes_are_kinds_nodes_of_the_stacks_config(database_workers):
    config = yaml.safe_load(render_kind_config("kind-mysql", database_workers, 1))
    bodies = kind_standin.node_bodies("kind-mysql", config, HOST)
    names = [b["metadata"]["name"] for b in bodies]
    workers = ["kind-mysql-worker"] + [f"kind-mysql-worker{i}" for i in range(2, database_workers + 2)]
    assert names == ["kind-mysql-control-plane", *workers]
    taint = f"{DATABASE_TAINT.key}={DATABASE_TAINT.value}:{DATABASE_TAINT.effect}"
    budget = worker_budget(HOST, database_workers + 1)
    for body in bodies[1:]:
        pool = body["metadata"]["labels"][POOL_LABEL]
        taints = [f"{t['key']}={t['value']}:{t['effect']}" for t in body["spec"]["taints"]]
        assert taints == ([taint] if pool == "database" else []), body
        allocatable = body["status"]["allocatable"]
        assert cpu_to_millicores(allocatable["cpu"]) == budget.allocatable_cpu_millicores
        assert memory_to_bytes(allocatable["memory"]) == budget.allocatable_memory_bytes
    assert [b["metadata"]["labels"][POOL_LABEL] for b in bodies[1:]] == ["database"] * database_workers + ["monitoring"]
    control_plane = bodies[0]
    assert control_plane["spec"]["taints"] == [{"key": "node-role.kubernetes.io/control-plane", "effect": "NoSchedule"}]
    # the workers together never hold more than the host has left after itself and the control plane (K1)
    total = sum(memory_to_bytes(b["status"]["capacity"]["memory"]) for b in bodies[1:])
    assert total <= HOST.free_memory_bytes


def test_docker_info_is_read_by_the_program_as_dockers(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", f"{KIND_BIN}:{os.environ['PATH']}")
    monkeypatch.setenv("KIND_STANDIN_PYTHON", sys.executable)
    monkeypatch.setenv("KIND_STANDIN_HOST_CPU", "8")
    monkeypatch.setenv("KIND_STANDIN_HOST_MEMORY", "32Gi")
    assert kind_plan.host_resources() == (8000, 32 * GIB)  # the plan's reader of `docker info --format '{{json .}}'`
    assert _run("docker", "ps", home=tmp_path).returncode != 0  # nothing else is answered


def test_kind_get_kubeconfig_prints_kinds_names_with_the_control_planes_credentials(tmp_path):
    state = tmp_path / "kind-mysql"
    state.mkdir()
    own = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": "local", "cluster": {"server": "https://127.0.0.1:27443", "insecure-skip-tls-verify": True}}],
        "users": [{"name": "admin", "user": {"token": "t0ken"}}],
        "contexts": [{"name": "local", "context": {"cluster": "local", "user": "admin"}}],
        "current-context": "local",
    }
    (state / "kubeconfig").write_text(yaml.safe_dump(own))
    printed = yaml.safe_load(_run("kind", "get", "kubeconfig", "--name", "kind-mysql", home=tmp_path).stdout)
    assert printed["current-context"] == "kind-kind-mysql"
    assert printed["clusters"] == [{"cluster": own["clusters"][0]["cluster"], "name": "kind-kind-mysql"}]
    assert printed["users"] == [{"name": "kind-kind-mysql", "user": {"token": "t0ken"}}]
    assert _run("kind", "get", "clusters", home=tmp_path).stdout.split() == ["kind-mysql"]


def test_a_cluster_that_is_not_there(tmp_path):
    missing = _run("kind", "get", "kubeconfig", "--name", "nothing", home=tmp_path)
    assert missing.returncode == 1 and "could not locate any control plane nodes" in missing.stderr
    assert _run("kind", "delete", "cluster", "--name", "nothing", home=tmp_path).returncode == 0  # as kind: nothing to do
    wrong = _run("kind", "create", "cluster", "--config=-", "--name", "x", home=tmp_path, stdin="kind: Pod\n")
    assert wrong.returncode == 1 and "unknown kind config" in wrong.stderr
