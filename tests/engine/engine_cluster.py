"""The control plane of the engine tier as the stack sees it: kwok-managed Nodes in two pools, and the stand-ins.

What runs (scripts/engine.sh): etcd, kube-apiserver, kube-controller-manager, the real kube-scheduler, and kwok,
which manages every Node and moves the pods the scheduler placed to Running/Ready (Job pods to Succeeded) without
running a container. What does not run, and what stands in for it here (each says what it assumes):

* the node lifecycle controller (the tool starts kube-controller-manager without it): :func:`create_pool_nodes`
  lifts the ``node.kubernetes.io/not-ready`` taint once kwok has made the Node Ready, as that controller would;
* a volume provisioner (a bare control plane has no StorageClass): :func:`pmm_volume` is the PersistentVolume a
  provisioner would create for PMM's claim, bound to that claim;
* the Percona operator (its Deployment is scheduled and "runs" under kwok, but no operator process exists):
  :class:`OperatorStandIn` writes what the operator writes that Pulumi waits on, ``status.state: ready`` (the
  ``pulumi.com/waitFor`` annotation of the custom resource), and, when the custom resource is deleted, removes the
  operator's own pods-in-order finalizer, which the operator removes once it has deleted the cluster's pods (no
  pod of the cluster exists here: nothing created them).

:class:`SchedulingWatch` watches every pod while Pulumi runs: a pod the scheduler cannot place (it fits no Node)
fails the run at once with the scheduler's own message, instead of Pulumi waiting out a Helm timeout.
"""

from __future__ import annotations

import datetime
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from kubernetes import client as k8s_client
from kubernetes.client.rest import ApiException

POOL_LABEL = "mysql.percona.com/pool"
NOT_READY = "node.kubernetes.io/not-ready"
PERCONA_KINDS = (("pxc.percona.com", "v1", "perconaxtradbclusters"), ("ps.percona.com", "v1alpha1", "perconaservermysqls"))
OPERATOR_FINALIZERS = ("percona.com/delete-pxc-pods-in-order", "percona.com/delete-mysql-pods-in-order")


@dataclass(frozen=True)
class PoolNode:
    name: str
    pool: str
    cpu: str
    memory: str
    tainted: bool  # the database pool's taint (stacks/Pulumi.existing.yaml: databasePoolTaint)

    def body(self) -> dict[str, Any]:
        taints = [{"key": POOL_LABEL, "value": self.pool, "effect": "NoSchedule"}] if self.tainted else []
        resources = {"cpu": self.cpu, "memory": self.memory, "pods": "110"}
        return {
            "metadata": {
                "name": self.name,
                "labels": {POOL_LABEL: self.pool, "kubernetes.io/hostname": self.name, "type": "kwok"},
            },
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
    """Create the Nodes; kwok (--manage-all-nodes) initializes them Ready keeping their allocatable; then the
    not-ready taint the API server's admission put on them is lifted, as the node lifecycle controller does."""
    nodes = list(nodes)
    for node in nodes:
        core.create_node(node.body())
    for node in nodes:
        live = wait_for(f"kwok makes Node {node.name} Ready", lambda name=node.name: _ready_node(core, name))
        assert live.status.allocatable["memory"] == node.memory, (
            f"kwok replaced {node.name}'s allocatable: {live.status.allocatable}"
        )
        kept = [t.to_dict() for t in live.spec.taints or [] if t.key != NOT_READY]
        core.patch_node(node.name, {"spec": {"taints": kept or None}})


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


# ---------------------------------------------------------------------------------------------------------
# stand-ins


def pmm_volume(core: k8s_client.CoreV1Api, name: str, namespace: str, claim: str, size: str) -> None:
    """The PersistentVolume a provisioner would create for PMM's claim (stand-in: no provisioner runs here).

    Assumes the claim asks for ReadWriteOnce and at most ``size`` with no storage class (the pmm chart's
    ``storage.storageClassName: ""`` and no default StorageClass), as the stack's PMM values make it. Pre-bound to
    the claim, as a provisioner binds what it created; a hostPath nobody mounts (kwok runs no container)."""
    core.create_persistent_volume(
        {
            "metadata": {"name": name, "labels": {"engine-tier/stand-in": "pmm-volume"}},
            "spec": {
                "capacity": {"storage": size},
                "accessModes": ["ReadWriteOnce"],
                "persistentVolumeReclaimPolicy": "Retain",
                "storageClassName": "",
                "claimRef": {"namespace": namespace, "name": claim},
                "hostPath": {"path": f"/var/lib/engine-tier/{name}"},
            },
        }
    )


class OperatorStandIn:
    """Does, for the Percona custom resources in ``namespace``, the two things of the operator Pulumi depends on.

    Assumes: the operator reports a cluster it has brought up as ``status.state: ready`` (both operators write
    "ready", INTERFACES §7.4; the stack's ``pulumi.com/waitFor`` waits for exactly that) and removes its
    pods-in-order finalizer from a deleted cluster once the cluster's pods are gone (here there are none).
    """

    def __init__(self, api: k8s_client.ApiClient, namespace: str, interval: float = 0.5):
        self.custom = k8s_client.CustomObjectsApi(api)
        self.namespace = namespace
        self.interval = interval
        self.actions: list[str] = []
        self.errors: list[str] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="operator-stand-in", daemon=True)

    def __enter__(self) -> OperatorStandIn:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join(timeout=10)

    def _run(self) -> None:
        while not self._stop.is_set():
            for group, version, plural in PERCONA_KINDS:
                try:
                    self._tend(group, version, plural)
                except ApiException as error:
                    if error.status not in (404, 409):  # 404: no such CRD (yet) or gone; 409: changed meanwhile
                        self.errors.append(f"{plural}: {error.status} {error.reason}")
            self._stop.wait(self.interval)

    def _tend(self, group: str, version: str, plural: str) -> None:
        items = self.custom.list_namespaced_custom_object(group, version, self.namespace, plural)["items"]
        for item in items:
            meta = item["metadata"]
            if meta.get("deletionTimestamp"):
                owned = [f for f in meta.get("finalizers") or [] if f in OPERATOR_FINALIZERS]
                if owned:
                    keep = [f for f in meta["finalizers"] if f not in OPERATOR_FINALIZERS]
                    self.custom.patch_namespaced_custom_object(
                        group,
                        version,
                        self.namespace,
                        plural,
                        meta["name"],
                        {"metadata": {"finalizers": keep or None, "resourceVersion": meta["resourceVersion"]}},
                    )
                    self.actions.append(f"removed {owned} from deleted {plural}/{meta['name']}")
            elif (item.get("status") or {}).get("state") != "ready":
                self.custom.patch_namespaced_custom_object_status(
                    group, version, self.namespace, plural, meta["name"], {"status": {"state": "ready"}}
                )
                self.actions.append(f"status.state=ready on {plural}/{meta['name']} (generation {meta.get('generation')})")


@dataclass
class Unschedulable:
    pod: str
    message: str


@dataclass
class SchedulingWatch:
    """Every pod in the cluster the scheduler could not place, with the scheduler's message."""

    core: k8s_client.CoreV1Api
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
        found = []
        for pod in self.core.list_pod_for_all_namespaces(_request_timeout=20).items:
            for condition in pod.status.conditions or []:
                if condition.type == "PodScheduled" and condition.status == "False" and condition.reason == "Unschedulable":
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
