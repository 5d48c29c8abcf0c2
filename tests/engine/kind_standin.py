"""A stand-in for kind and the Docker engine under it, for the kind stack under the real Pulumi engine.

The kind stack's program runs, through pulumi-command, ``kind create cluster --config=- --name N --wait 5m`` (the
config of percona_mysql_k8s.clusters.kind_config on stdin), ``kind get kubeconfig --name N`` and ``kind delete
cluster --name N``, and asks ``docker info`` whether Docker runs and how large the machine is as Docker sees it (its
NCPU and MemTotal size the kind nodes, kindHostShare: auto). tests/engine/kind-bin/ puts this module on PATH as
``kind`` and ``docker``. What it replaces is the Docker containers kind runs as nodes (each a kubelet, containerd,
kindnet, local-path-provisioner); everything else the stack touches is real:

* ``kind create cluster`` starts the engine tier's control plane (scripts/engine.sh up: etcd, kube-apiserver,
  kube-controller-manager, kube-scheduler, kwok as every node's kubelet) on its own ports and state
  (``$KIND_STANDIN_HOME/<name>``), and makes one kwok Node per node of the config, named as kind names them
  (``<name>-control-plane``, ``<name>-worker``, ``<name>-worker2``, ...), with the config's ``labels``, the taints of
  its kubeadm ``JoinConfiguration`` / ``InitConfiguration`` patches (``nodeRegistration.taints``), the control
  plane's own label and taint (kubeadm's ``node-role.kubernetes.io/control-plane``), and kind's default StorageClass
  ``standard`` (rancher.io/local-path, WaitForFirstConsumer; tests/engine/engine_volumes.py provisions it);
* ``kind get kubeconfig`` prints that control plane's kubeconfig as kind names it (cluster, user and context
  ``kind-<name>``, server ``https://127.0.0.1:<port>``); its credentials are the control plane's own (a token, and
  ``insecure-skip-tls-verify``: the API server's certificate is self-signed), where kind's are a client certificate
  and the cluster's CA;
* ``kind delete cluster`` stops that control plane (scripts/engine.sh down) and removes its state;
* ``docker info`` answers as a Docker engine on the machine the test declares (``KIND_STANDIN_HOST_CPU``,
  ``KIND_STANDIN_HOST_MEMORY``); any other docker command fails.

Assumes: each kind node's allocatable is what the stack's sizing assumes a kind node gets, the host model of
percona_mysql_k8s.core.kind_host (the host less its own share and the control plane's, split between the workers,
less each worker's node agents), where a real kind kubelet reports the whole host: the scheduler then refuses a pod
the model has no room for. It does not write ~/.kube/config (kind does); nothing here pulls an image.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml
from engine_cluster import create_pool_nodes_bodies
from kubernetes import client as k8s_client
from kubernetes import config as k8s_config
from percona_mysql_k8s.core.kind_host import CONTROL_PLANE, KindHost, worker_budget
from percona_mysql_k8s.core.units import cpu_to_millicores, memory_to_bytes

REPOSITORY = Path(__file__).resolve().parents[2]
ENGINE = REPOSITORY / "scripts" / "engine.sh"
CONTROL_PLANE_ROLE = "node-role.kubernetes.io/control-plane"
# scripts/engine.sh's ports for this control plane: etcd, etcd peer, kube-apiserver, kwok's kubelet endpoint
DEFAULT_PORTS = "23379,23380,27443,27450"


def fail(message: str) -> None:
    print(f"ERROR: {message}", file=sys.stderr)
    raise SystemExit(1)


def home(name: str) -> Path:
    root = os.environ.get("KIND_STANDIN_HOME")
    if not root:
        fail("KIND_STANDIN_HOME is not set: the kind stand-in keeps each cluster's control plane under it")
    return Path(root) / name


def host() -> KindHost:
    cpu, memory = os.environ.get("KIND_STANDIN_HOST_CPU"), os.environ.get("KIND_STANDIN_HOST_MEMORY")
    if not cpu or not memory:
        fail("KIND_STANDIN_HOST_CPU and KIND_STANDIN_HOST_MEMORY name the machine the stand-in's Docker reports")
    return KindHost(cpu_to_millicores(cpu), memory_to_bytes(memory), source="the kind stand-in's host")


def engine(command: str, state: Path) -> None:
    ports = os.environ.get("KIND_STANDIN_PORTS", DEFAULT_PORTS).split(",")
    env = dict(
        os.environ,
        ENGINE_TIER_HOME=str(state),
        **dict(
            zip(("ENGINE_ETCD_PORT", "ENGINE_ETCD_PEER_PORT", "ENGINE_APISERVER_PORT", "ENGINE_KWOK_PORT"), ports, strict=True)
        ),
    )
    state.mkdir(parents=True, exist_ok=True)
    # Never the caller's pipes, and a session of their own: the daemons outlive this command, as kind's node
    # containers belong to the Docker engine, not to whoever ran `kind` (pulumi-command's provider is killed with its
    # process group when the engine shuts it down, and everything it started in that group with it).
    with (state / f"engine-{command}.log").open("a") as log:
        done = subprocess.run(
            ["bash", str(ENGINE), command],
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
    if done.returncode != 0:
        fail(f"scripts/engine.sh {command} failed (exit {done.returncode}); see {state}/engine-{command}.log")


# ---------------------------------------------------------------------------------------------------------
# the nodes of a kind config


def _taints(node: dict[str, Any], kind: str) -> list[dict[str, str]]:
    """The taints of the node's kubeadm patches of ``kind`` (JoinConfiguration for workers)."""
    taints = []
    for patch in node.get("kubeadmConfigPatches") or []:
        document = yaml.safe_load(patch) or {}
        if document.get("kind") == kind:
            taints += (document.get("nodeRegistration") or {}).get("taints") or []
    return taints


def node_bodies(name: str, config: dict[str, Any], machine: KindHost) -> list[dict[str, Any]]:
    """One Node per node of ``config``, named, labelled and tainted as kind and kubeadm make them."""
    nodes = config.get("nodes") or [{"role": "control-plane"}]
    workers = [n for n in nodes if n.get("role") == "worker"]
    budget = worker_budget(machine, len(workers)) if workers else None
    bodies, count = [], 0
    for node in nodes:
        role = node.get("role", "control-plane")
        if role == "control-plane":
            node_name = f"{name}-control-plane"
            labels = {CONTROL_PLANE_ROLE: "", "node.kubernetes.io/exclude-from-external-load-balancers": ""}
            # kubeadm init taints the control plane; kind lifts it only when there is no worker
            taints = _taints(node, "InitConfiguration") + (
                [{"key": CONTROL_PLANE_ROLE, "effect": "NoSchedule"}] if workers else []
            )
            cpu, memory = CONTROL_PLANE.cpu_millicores, CONTROL_PLANE.memory_bytes
            capacity = (cpu, memory)
        else:
            count += 1
            node_name = f"{name}-worker{count if count > 1 else ''}"
            labels, taints = {}, _taints(node, "JoinConfiguration")
            cpu, memory = budget.allocatable_cpu_millicores, budget.allocatable_memory_bytes
            capacity = (budget.capacity_cpu_millicores, budget.capacity_memory_bytes)
        labels |= {str(k): str(v) for k, v in (node.get("labels") or {}).items()}
        labels |= {"kubernetes.io/hostname": node_name, "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64"}
        bodies.append(
            {
                "metadata": {"name": node_name, "labels": labels},
                "spec": {"taints": taints},
                "status": {
                    "capacity": {"cpu": f"{capacity[0]}m", "memory": str(capacity[1]), "pods": "110"},
                    "allocatable": {"cpu": f"{cpu}m", "memory": str(memory), "pods": "110"},
                },
            }
        )
    return bodies


STANDARD = {  # kind's default StorageClass (its local-path-provisioner manifest)
    "metadata": {"name": "standard", "annotations": {"storageclass.kubernetes.io/is-default-class": "true"}},
    "provisioner": "rancher.io/local-path",
    "reclaimPolicy": "Delete",
    "volumeBindingMode": "WaitForFirstConsumer",
}


# ---------------------------------------------------------------------------------------------------------
# commands


def create(name: str, config_path: str | None) -> None:
    state = home(name)
    if (state / "kubeconfig").exists():
        fail(f'failed to create cluster: node(s) already exist for a cluster with the name "{name}"')
    if config_path is None:  # kind's default: one control-plane node
        text = "kind: Cluster\napiVersion: kind.x-k8s.io/v1alpha4\n"
    else:
        text = sys.stdin.read() if config_path == "-" else Path(config_path).read_text()
    config = yaml.safe_load(text) or {}
    if config.get("kind") != "Cluster" or config.get("apiVersion") != "kind.x-k8s.io/v1alpha4":
        fail(f"unknown kind config: kind {config.get('kind')!r}, apiVersion {config.get('apiVersion')!r}")
    bodies = node_bodies(name, config, host())
    print(f'Creating cluster "{name}" ... (kind stand-in: kwok nodes on a loopback control plane)', file=sys.stderr)
    state.mkdir(parents=True, exist_ok=True)
    (state / "kind-config.yaml").write_text(text)
    engine("up", state)
    api = k8s_config.new_client_from_config(str(state / "kubeconfig"))
    create_pool_nodes_bodies(k8s_client.CoreV1Api(api), bodies)
    k8s_client.StorageV1Api(api).create_storage_class(STANDARD)
    for body in bodies:
        taints = ", ".join(f"{t['key']}={t.get('value', '')}:{t['effect']}" for t in body["spec"]["taints"]) or "no taint"
        print(f" ✓ node {body['metadata']['name']}: allocatable {body['status']['allocatable']}, {taints}", file=sys.stderr)
    print(f'Set kubectl context to "kind-{name}" (not written: `kind get kubeconfig --name {name}`)', file=sys.stderr)


def kubeconfig(name: str) -> None:
    path = home(name) / "kubeconfig"
    if not path.exists():
        fail(f"could not locate any control plane nodes for cluster named '{name}'")
    own = yaml.safe_load(path.read_text())
    cluster, user = own["clusters"][0]["cluster"], own["users"][0]["user"]
    context = f"kind-{name}"
    printed = {
        "apiVersion": "v1",
        "clusters": [{"cluster": cluster, "name": context}],
        "contexts": [{"context": {"cluster": context, "user": context}, "name": context}],
        "current-context": context,
        "kind": "Config",
        "preferences": {},
        "users": [{"name": context, "user": user}],
    }
    sys.stdout.write(yaml.safe_dump(printed, sort_keys=False))


def delete(name: str) -> None:
    state = home(name)
    print(f'Deleting cluster "{name}" ...', file=sys.stderr)
    if state.exists():
        engine("down", state)
        logs = state.with_name(f"{name}.logs")  # kept for a post-mortem: the cluster's own state goes, as with kind
        logs.mkdir(exist_ok=True)
        for log in [*state.glob("*.log"), *state.glob("control-plane/*.log")]:
            shutil.copy2(log, logs / log.name)
        shutil.rmtree(state)


def docker(args: list[str]) -> None:
    if not args or args[0] != "info":
        fail(f"docker stand-in: only `docker info` is answered, not `docker {' '.join(args)}`")
    machine = host()
    info = {"NCPU": machine.cpu_millicores // 1000, "MemTotal": machine.memory_bytes, "OperatingSystem": "kind stand-in"}
    print(json.dumps(info) if "--format" in args else "\n".join(f" {k}: {v}" for k, v in info.items()))


def main(argv: list[str]) -> None:
    if argv[:1] == ["docker"]:
        return docker(argv[1:])
    parser = argparse.ArgumentParser(prog="kind (stand-in: tests/engine/kind_standin.py)")
    parser.add_argument("verb", choices=["create", "get", "delete"])
    parser.add_argument("noun", choices=["cluster", "kubeconfig", "clusters"])
    parser.add_argument("--name", default="kind")
    parser.add_argument("--config", default=None)
    parser.add_argument("--wait", default="0s")  # create returns once every Node is Ready: nothing more to wait for
    args = parser.parse_args(argv[1:])
    if (args.verb, args.noun) == ("create", "cluster"):
        create(args.name, args.config)
    elif (args.verb, args.noun) == ("get", "kubeconfig"):
        kubeconfig(args.name)
    elif (args.verb, args.noun) == ("get", "clusters"):
        root = Path(os.environ.get("KIND_STANDIN_HOME", "/nonexistent"))
        print("\n".join(sorted(p.name for p in root.glob("*") if (p / "kubeconfig").exists())))
    elif (args.verb, args.noun) == ("delete", "cluster"):
        delete(args.name)
    else:
        fail(f"kind stand-in: `kind {args.verb} {args.noun}` is not something the kind stack runs")


if __name__ == "__main__":
    main(sys.argv[1:])
