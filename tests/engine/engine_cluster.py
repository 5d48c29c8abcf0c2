"""The control plane of the engine tier as the stack sees it: kwok-managed Nodes in two pools and one outside them,
and the stand-ins.

What runs (scripts/engine.sh): etcd, kube-apiserver, kube-controller-manager, the real kube-scheduler, and kwok,
which manages every Node and moves the pods the scheduler placed to Running/Ready (Job pods to Succeeded; the
operators' database and proxy pods to Running, unready: no mysqld answers their probes) without running a container.
The real PXC operator runs as a process for its Deployment's pod (engine_operator.py). What does not run, and what
stands in for it here (each says what it assumes):

* the node lifecycle controller (the tool starts kube-controller-manager without it): :func:`create_pool_nodes`
  lifts the ``node.kubernetes.io/not-ready`` taint once kwok has made the Node Ready, as that controller would;
* a volume provisioner (a bare control plane has no StorageClass): engine_volumes.py.

:class:`SchedulingWatch` watches every pod while Pulumi runs: a pod the scheduler cannot place (it fits no Node)
fails the run at once with the scheduler's own message, instead of Pulumi waiting out a Helm timeout.
"""

from __future__ import annotations

import datetime
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from kubernetes import client as k8s_client
from kubernetes.client.rest import ApiException
from percona_mysql_k8s.core.units import memory_to_bytes

POOL_LABEL = "mysql.percona.com/pool"
NOT_READY = "node.kubernetes.io/not-ready"


@dataclass(frozen=True)
class PoolNode:
    name: str
    pool: str | None  # None: a Node of no pool (no pool label)
    cpu: str
    memory: str
    tainted: bool  # the database pool's taint (stacks/Pulumi.existing.yaml: databasePoolTaint)
    zone: str | None = None  # topology.kubernetes.io/zone, as a cloud's nodes carry it (K7 reads it)

    def body(self) -> dict[str, Any]:
        taints = [{"key": POOL_LABEL, "value": self.pool, "effect": "NoSchedule"}] if self.tainted else []
        resources = {"cpu": self.cpu, "memory": self.memory, "pods": "110"}
        labels = {"kubernetes.io/hostname": self.name, "type": "kwok"} | ({POOL_LABEL: self.pool} if self.pool else {})
        labels |= {"topology.kubernetes.io/zone": self.zone} if self.zone else {}
        return {
            "metadata": {"name": self.name, "labels": labels},
            "spec": {"taints": taints},
            "status": {"capacity": resources, "allocatable": resources},
        }


def wait_for(what: str, check, timeout: float = 60.0, interval: float = 0.5):
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise TimeoutError(f"{what}: not after {timeout:.0f} s")
        time.sleep(interval)


def _ready_node(core: k8s_client.CoreV1Api, name: str) -> k8s_client.V1Node | None:
    node = core.read_node(name)
    return node if any(c.type == "Ready" and c.status == "True" for c in (node.status.conditions or [])) else None


def create_pool_nodes(core: k8s_client.CoreV1Api, nodes: Iterable[PoolNode]) -> None:
    create_pool_nodes_bodies(core, [node.body() for node in nodes])


def create_pool_nodes_bodies(core: k8s_client.CoreV1Api, bodies: list[dict[str, Any]]) -> None:
    """Create the Nodes; kwok (--manage-all-nodes) initializes them Ready keeping their allocatable; then the
    not-ready taint the API server's admission put on them is lifted, as the node lifecycle controller does."""
    for body in bodies:
        core.create_node(body)
    for body in bodies:
        name, given = body["metadata"]["name"], body["status"]["allocatable"]["memory"]
        live = wait_for(f"kwok makes Node {name} Ready", lambda name=name: _ready_node(core, name))
        assert memory_to_bytes(live.status.allocatable["memory"]) == memory_to_bytes(given), (
            f"kwok replaced {name}'s allocatable: {live.status.allocatable}"
        )
        kept = [t.to_dict() for t in live.spec.taints or [] if t.key != NOT_READY]
        core.patch_node(name, {"spec": {"taints": kept or None}})


def set_allocatable(core: k8s_client.CoreV1Api, names: Iterable[str], cpu: str, memory: str) -> None:
    """What a node replaced by a larger machine type reports (its kubelet writes capacity and allocatable)."""
    for name in names:
        resources = {"cpu": cpu, "memory": memory, "pods": "110"}
        core.patch_node_status(name, {"status": {"capacity": resources, "allocatable": resources}})


def delete_nodes(core: k8s_client.CoreV1Api, names: Iterable[str]) -> None:
    for name in names:
        try:
            core.delete_node(name)
        except ApiException as error:
            if error.status != 404:
                raise


@dataclass
class Unschedulable:
    pod: str
    message: str


# The scheduler's message for a pod whose claim the volume binder has not bound yet: it retries once the claim binds
# (a volume made a moment later), so that is no verdict on where the pod fits.
UNBOUND_CLAIM = "unbound immediate PersistentVolumeClaims"
# a client, or a callable returning one once the cluster exists (None before)
CoreSource = k8s_client.CoreV1Api | Callable[[], k8s_client.CoreV1Api | None]


@dataclass
class SchedulingWatch:
    """Every pod in the cluster the scheduler could not place, with the scheduler's message. ``core`` may be a callable
    returning the client once the cluster exists (the kind stack makes its cluster during ``pulumi up``)."""

    core: CoreSource
    interval: float = 1.0
    failures: list[Unschedulable] = field(default_factory=list)

    def __post_init__(self):
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="scheduling-watch", daemon=True)

    def __enter__(self) -> SchedulingWatch:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join(timeout=10)

    def check(self) -> list[Unschedulable]:
        core = self.core() if callable(self.core) else self.core
        if core is None:
            return []
        found = []
        for pod in core.list_pod_for_all_namespaces(_request_timeout=20).items:
            for condition in pod.status.conditions or []:
                if (
                    condition.type == "PodScheduled"
                    and condition.status == "False"
                    and condition.reason == "Unschedulable"
                    and UNBOUND_CLAIM not in (condition.message or "")
                ):
                    found.append(Unschedulable(f"{pod.metadata.namespace}/{pod.metadata.name}", condition.message or ""))
        return found

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                for failure in self.check():
                    if failure.pod not in {f.pod for f in self.failures}:
                        self.failures.append(failure)
            except Exception:  # noqa: BLE001 - a missed poll is retried; the API server's own errors show elsewhere
                pass
            self._stop.wait(self.interval)


def scheduled_by_the_scheduler(core: k8s_client.CoreV1Api, pod: k8s_client.V1Pod) -> bool:
    """The pod's Scheduled event comes from the real scheduler (default-scheduler), not from a nodeName set by hand."""
    events = core.list_namespaced_event(
        pod.metadata.namespace, field_selector=f"involvedObject.uid={pod.metadata.uid},reason=Scheduled"
    ).items
    return any(
        (e.source and e.source.component == "default-scheduler") or e.reporting_component == "default-scheduler" for e in events
    )


def now() -> str:
    return datetime.datetime.now(datetime.UTC).strftime("%H:%M:%S")
