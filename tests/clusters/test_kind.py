"""kind under mocks: the create/delete commands, the config they pipe to kind, and the tool check."""

from __future__ import annotations

import subprocess

import pulumi_command
import pytest
import yaml
from percona_mysql_k8s.clusters import cluster_from_config, kind
from percona_mysql_k8s.core.allocatable import kind_node_budget
from percona_mysql_k8s.core.errors import InputError
from percona_mysql_k8s.core.pools import DATABASE_TAINT, POOL_LABEL
from pulumi.runtime import rpc
from stack_configs import HOST, KIND, KIND_KUBECONFIG, with_

COMMAND = "command:local:Command"


def deploy(mocked, values=KIND):
    return mocked.run(
        lambda: cluster_from_config(values, host=lambda: HOST),
        lambda target: {"kubeconfig": target.kubeconfig, "secret": target.kubeconfig.is_secret()},
    )


def test_resources(mocked):
    deploy(mocked)
    assert sorted(r.type for r in mocked.resources()) == sorted(
        ["percona-mysql:index:KindCluster", COMMAND, COMMAND, "pulumi:providers:kubernetes"]
    )


def test_create_and_delete_commands(mocked):
    deploy(mocked)
    cluster = mocked.one(COMMAND, "perf-kind")
    assert cluster.state["create"] == "kind create cluster --config=- --name perf --wait 5m"
    assert cluster.state["delete"] == "kind delete cluster --name perf"
    # a changed config or name replaces the cluster, deleting the old one first (kind names are unique)
    assert cluster.options["deleteBeforeReplace"] is True
    assert "*" in cluster.options["replaceOnChanges"]
    assert cluster.state["triggers"][0] == "perf"


def test_the_config_goes_to_kind_on_stdin(mocked):
    deploy(mocked, with_(KIND, clusterSize=5, kindNodeImage="kindest/node:v1.32.5", ephemeral=True))
    cluster = mocked.one(COMMAND, "perf-kind").state
    config = yaml.safe_load(cluster["stdin"])
    assert cluster["triggers"][1] == cluster["stdin"]
    assert config["kind"] == "Cluster" and config["apiVersion"] == "kind.x-k8s.io/v1alpha4"
    assert config["name"] == "perf"
    nodes = config["nodes"]
    assert [n["role"] for n in nodes] == ["control-plane"] + ["worker"] * 6
    assert {n["image"] for n in nodes} == {"kindest/node:v1.32.5"}
    database = [n for n in nodes if n.get("labels") == {POOL_LABEL: "database"}]
    monitoring = [n for n in nodes if n.get("labels") == {POOL_LABEL: "monitoring"}]
    assert len(database) == 5 and len(monitoring) == 1
    for node in database:
        (patch,) = node["kubeadmConfigPatches"]
        assert yaml.safe_load(patch)["nodeRegistration"]["taints"] == [DATABASE_TAINT.as_k8s()]
    assert "kubeadmConfigPatches" not in monitoring[0]


def test_kubeconfig_is_read_from_kind_after_create(mocked):
    target, values = deploy(mocked)
    cluster = mocked.one(COMMAND, "perf-kind")
    read = mocked.one(COMMAND, "perf-kubeconfig")
    assert read.state["create"] == "kind get kubeconfig --name perf"
    assert cluster.urn in read.dependencies
    assert read.state["triggers"] == ["perf-kind-id"]  # read again whenever the cluster is replaced
    assert read.options["additionalSecretOutputs"] == ["stdout"]
    assert values == {"kubeconfig": KIND_KUBECONFIG, "secret": True}
    provider = mocked.one("pulumi:providers:kubernetes")
    assert provider.state["kubeconfig"] == {rpc._special_sig_key: rpc._special_secret_sig, "value": KIND_KUBECONFIG}
    assert read.urn in provider.dependencies


def test_target(mocked):
    target, _ = deploy(mocked, with_(KIND, kindHostShare="0.25"))
    assert target.kind == "kind" and target.name == "perf"
    budget = kind_node_budget(*HOST, 0.25)
    assert target.database_pool.node == budget and target.monitoring_pool.node == budget
    assert target.database_pool.node_count == 3 and target.monitoring_pool.node_count == 1
    assert target.database_pool.taints == (DATABASE_TAINT,)
    (ready,) = target.ready  # the database layer's objects wait for the cluster, and go before it
    assert isinstance(ready, pulumi_command.local.Command)


# ---- the tools kind needs ---------------------------------------------------------------------------


def _machine(monkeypatch, *, kind_binary=True, docker_binary=True, docker_running=True):
    """Pretend the machine running Pulumi has (or lacks) kind and Docker, and that a real engine runs."""
    paths = {"kind": "/usr/local/bin/kind" if kind_binary else None, "docker": "/usr/bin/docker" if docker_binary else None}
    monkeypatch.setattr(kind.shutil, "which", paths.get)
    monkeypatch.setattr(
        kind.subprocess,
        "run",
        lambda *args, **kwargs: subprocess.CompletedProcess(args, 0 if docker_running else 1, "", "Cannot connect"),
    )
    monkeypatch.setattr(kind, "_commands_will_run", lambda: True)


@pytest.mark.parametrize(
    ("machine", "expected"),
    [
        ({"kind_binary": False}, ["install kind from https://kind.sigs.k8s.io/"]),
        ({"docker_binary": False}, ["install Docker from https://docs.docker.com/get-docker/"]),
        ({"docker_running": False}, ["start Docker"]),
        ({"kind_binary": False, "docker_binary": False}, ["install kind", "install Docker"]),
    ],
)
def test_missing_tools_are_named_before_anything_is_registered(mocked, monkeypatch, machine, expected):
    _machine(monkeypatch, **machine)
    with pytest.raises(InputError) as error:
        deploy(mocked)
    assert error.value.key == "target"
    message = str(error.value)
    assert message.startswith("target: the kind target")
    for text in expected:
        assert text in message
    assert mocked.resources() == []


def test_all_tools_present(mocked, monkeypatch):
    _machine(monkeypatch)
    assert kind.missing_kind_tools() == []
    deploy(mocked)
    assert len(mocked.of_type(COMMAND)) == 2


def test_docker_that_cannot_be_run(monkeypatch):
    monkeypatch.setattr(kind.shutil, "which", lambda name: f"/usr/bin/{name}")

    def fails(*args, **kwargs):
        raise subprocess.TimeoutExpired("docker info", 30)

    monkeypatch.setattr(kind.subprocess, "run", fails)
    (problem,) = kind.missing_kind_tools()
    assert "docker info" in problem


def test_mocks_need_no_tools(mocked):
    """Under mocks no command runs, so unit tests and offline previews need neither kind nor Docker."""
    assert kind._commands_will_run() is False
