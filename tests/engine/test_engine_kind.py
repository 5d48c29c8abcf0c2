"""The ``kind`` stack under the real Pulumi engine: ``pulumi up -s kind``, a second ``up`` that changes nothing, and
``pulumi destroy``, with the real PXC operator reconciling.

The stack is stacks/Pulumi.kind.yaml as shipped, in the project copy, with what a user of an air-gapped machine sets
(the charts as local archives, the operator's CRDs as a local file) and ``databaseAwait: reconciled`` (no mysqld runs
here: docs/engine.md). Its program runs ``kind create cluster``, ``kind get kubeconfig`` and ``kind delete cluster``
through pulumi-command, the real provider built from the engine kit. ``kind`` (and the ``docker info`` the program
asks first) is the stand-in of tests/engine/kind_standin.py, which replaces the Docker containers kind runs as nodes
by the engine tier's own control plane with kwok Nodes shaped like the nodes of the config the program pipes to it;
the sizing fits the stack to the machine that stand-in's Docker reports (8 CPUs, 32 GiB: the workstation
Pulumi.kind.yaml is written for). kind's own local-path provisioner is engine_volumes.LocalPathProvisioner, and the
operator's Deployment pod gets the real operator as a process (engine_operator.py).
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from conftest import REPOSITORY
from engine_cluster import scheduled_by_the_scheduler, wait_for
from engine_inventory import helm_releases
from engine_operator import DeploymentOperator
from engine_stack import DATABASE_AWAIT, air_gapped, fresh_stack, preview_steps, set_config, tear_down, up
from engine_volumes import LocalPathProvisioner
from kubernetes import client as k8s_client
from kubernetes import config as k8s_config
from operator_process import PXC

pytestmark = pytest.mark.engine

STACK = "kind"
NAME = "kind-mysql"  # stacks/Pulumi.kind.yaml: clusterName, the kind cluster's and the custom resource's name
NAMESPACE = "mysql"
KIND_BIN = Path(__file__).resolve().parent / "kind-bin"
HOST = {"KIND_STANDIN_HOST_CPU": "8", "KIND_STANDIN_HOST_MEMORY": "32Gi"}
PORTS = "23379,23380,27443,27450"  # the stand-in control plane's etcd, peer, API server and kwok ports


@pytest.fixture(scope="module")
def kind_home(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("kind")


def _cluster_kubeconfig(home: Path) -> Path | None:
    path = home / NAME / "kubeconfig"
    return path if path.is_file() else None


class _KindCore:
    """The kind cluster's CoreV1Api once `kind create cluster` has made it (None before and after)."""

    def __init__(self, home: Path):
        self.home = home
        self._core: k8s_client.CoreV1Api | None = None

    def __call__(self) -> k8s_client.CoreV1Api | None:
        path = _cluster_kubeconfig(self.home)
        if path is None:
            self._core = None
        elif self._core is None:
            self._core = k8s_client.CoreV1Api(k8s_config.new_client_from_config(str(path)))
        return self._core


@pytest.fixture(scope="module")
def kind_deployment(project, material, pxc_operator_binary, kind_home, tmp_path_factory):
    """The kind stack after its first `up`; destroyed whatever happens, then the stand-in's cluster is gone."""
    fresh_stack(project, STACK, STACK, REPOSITORY)
    set_config(project, STACK, {**air_gapped(material), "databaseAwait": DATABASE_AWAIT})
    project.extra_env = {
        "PATH": f"{KIND_BIN}:{os.environ['PATH']}",
        "KIND_STANDIN_HOME": str(kind_home),
        "KIND_STANDIN_PYTHON": sys.executable,
        "KIND_STANDIN_PORTS": PORTS,
        **HOST,
    }
    cluster = _KindCore(kind_home)
    operator = DeploymentOperator(
        PXC, pxc_operator_binary, lambda: _cluster_kubeconfig(kind_home), NAMESPACE, tmp_path_factory.mktemp("kind-operator")
    )
    volumes = LocalPathProvisioner(lambda: _cluster_kubeconfig(kind_home))
    problems: list[str] = []
    try:
        with volumes, operator:
            try:
                output = up(project, STACK, cluster)
                yield {"output": output, "cluster": cluster, "operator": operator, "volumes": volumes}
            finally:
                problems = tear_down(project, STACK)
    finally:
        print(f"\noperator: {operator.history}\nvolumes: {volumes.provisioned}")
        if (kind_home / NAME).exists():  # a failed destroy: stop the stand-in's control plane as `kind delete` does
            subprocess.run([str(KIND_BIN / "kind"), "delete", "cluster", "--name", NAME], env=project.env(), check=False)
            problems.append(f"the kind cluster {NAME} outlived the teardown")
        project.extra_env = {}
    assert not problems, "\n".join(problems)


def _expected_nodes(kind_config: str) -> dict[str, tuple[dict[str, str], list[str]]]:
    """Node name -> (labels, taints as key=value:effect) as kind and kubeadm make them from the config."""
    config = yaml.safe_load(kind_config)
    expected, workers = {}, 0
    for node in config["nodes"]:
        if node["role"] == "control-plane":
            expected[f"{NAME}-control-plane"] = ({}, ["node-role.kubernetes.io/control-plane=:NoSchedule"])
            continue
        workers += 1
        taints = [
            f"{t['key']}={t.get('value', '')}:{t['effect']}"
            for patch in node.get("kubeadmConfigPatches") or []
            for t in (yaml.safe_load(patch).get("nodeRegistration") or {}).get("taints") or []
        ]
        expected[f"{NAME}-worker{workers if workers > 1 else ''}"] = (node.get("labels") or {}, taints)
    return expected


def test_up_creates_the_kind_cluster_and_the_stack_on_it(kind_deployment, project):
    resources = project.resources(STACK)
    commands = [r for r in resources if r["type"] == "command:local:Command"]
    create = [r for r in commands if r["inputs"].get("create", "").startswith("kind create cluster --config=-")]
    assert len(commands) == 2 and len(create) == 1, [r["inputs"].get("create") for r in commands]
    core = kind_deployment["cluster"]()
    assert core is not None, "the kind cluster is not there after `up`"
    nodes = {n.metadata.name: n for n in core.list_node().items}
    expected = _expected_nodes(create[0]["inputs"]["stdin"])  # the config the program piped to `kind create`
    assert set(nodes) == set(expected), (sorted(nodes), sorted(expected))
    for name, (labels, taints) in expected.items():
        live = nodes[name]
        assert labels.items() <= (live.metadata.labels or {}).items(), (name, live.metadata.labels)
        assert sorted(f"{t.key}={t.value or ''}:{t.effect}" for t in live.spec.taints or []) == sorted(taints), name
    releases = helm_releases(core, NAMESPACE)
    assert {n: r["info"]["status"] for n, r in releases.items()} == {"pmm": "deployed", "pxc-operator": "deployed"}, releases
    print(f"\n{len(resources)} resources; nodes {sorted(nodes)}; releases {sorted(releases)}")


def test_the_real_operator_rendered_the_cluster_on_the_kind_nodes(kind_deployment):
    core = kind_deployment["cluster"]()
    custom = k8s_client.CustomObjectsApi(core.api_client)
    cr = custom.get_namespaced_custom_object("pxc.percona.com", "v1", NAMESPACE, "perconaxtradbclusters", NAME)
    assert cr["status"]["state"] == "initializing", cr.get("status")  # reconciled, and no mysqld to make it ready
    pools = {n.metadata.name: (n.metadata.labels or {}).get("mysql.percona.com/pool") for n in core.list_node().items}
    placed = {}
    for pod in core.list_namespaced_pod(NAMESPACE).items:
        component = (pod.metadata.labels or {}).get("app.kubernetes.io/component")
        pool = "database" if component in ("pxc", "haproxy") else "monitoring"
        assert pod.spec.node_name and pools[pod.spec.node_name] == pool, (pod.metadata.name, pod.spec.node_name)
        assert scheduled_by_the_scheduler(core, pod), pod.metadata.name
        placed[pod.metadata.name] = pod.spec.node_name
    assert f"{NAME}-pxc-0" in placed and f"{NAME}-haproxy-0" in placed, placed
    member = core.read_namespaced_pod(f"{NAME}-pxc-0", NAMESPACE)
    assert member.status.qos_class == "Guaranteed", member.status.qos_class
    claim = core.read_namespaced_persistent_volume_claim(f"datadir-{NAME}-pxc-0", NAMESPACE)
    assert claim.status.phase == "Bound" and claim.spec.storage_class_name == "standard"  # kind's default class
    operator = kind_deployment["operator"]
    assert not operator.errors(), "\n".join(operator.errors())
    print(f"\n{placed}; pxc-0 {member.status.qos_class}; volumes {kind_deployment['volumes'].provisioned}")


def test_a_second_up_changes_nothing(kind_deployment, project):
    steps, _ = preview_steps(project, STACK, "--diff")
    changing = [f"{s.op} {s.type} {s.name} {s.diffs}" for s in steps if s.op != "same"]
    assert not changing, changing
    output = up(project, STACK, kind_deployment["cluster"], "--expect-no-changes")
    assert "unchanged" in output


def _port_open(port: int) -> bool:
    with socket.socket() as probe:
        return probe.connect_ex(("127.0.0.1", port)) == 0


def test_destroy_removes_the_stack_and_the_kind_cluster(kind_deployment, project, kind_home):
    # The custom resource goes only once the real operator has removed its delete-pxc-pods-in-order finalizer;
    # then the releases, and `kind delete cluster` stops the stand-in's control plane.
    project.run("destroy", "--yes", "--skip-preview", stack=STACK, timeout=900)
    assert project.resources(STACK) == []
    assert not (kind_home / NAME).exists(), sorted(p.name for p in (kind_home / NAME).rglob("*"))[:20]
    open_ports = [port for port in map(int, PORTS.split(",")) if _port_open(port)]
    assert not open_ports, f"the kind cluster's control plane still listens on {open_ports}"
    operator = kind_deployment["operator"]
    wait_for("the operator process stops with its pod", lambda: operator.current is None, timeout=120)
    assert any("stopped" in line for line in operator.history), operator.history
