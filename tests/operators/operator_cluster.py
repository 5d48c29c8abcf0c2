"""The operator tier's cluster: Nodes shaped like a stack's pools, volumes, and what stands in for what cannot run.

What runs (scripts/operators.sh run-tier, through scripts/engine.sh up): etcd, kube-apiserver, kube-controller-manager,
the real kube-scheduler, kwok as the kubelet (pods Running but never Ready: a Ready database pod makes the operators
dial mysqld or exec into it, which nothing here can answer), and the real operators (tests/operator_process.py).
What stands in, each saying what it assumes:

* the node lifecycle controller (not started): :func:`create_nodes` lifts the ``node.kubernetes.io/not-ready`` taint
  once kwok has made a Node Ready, as that controller would;
* a volume provisioner (no StorageClass exists): :func:`provide_volumes` creates, for every claim, the
  PersistentVolume a provisioner would, of exactly the claim's size (the PXC operator stops reconciling a cluster
  whose volume is larger than it asked: "requested storage ... is less than actual storage") and pre-bound to it;
* the StatefulSet controller's progress past member 0 (:func:`stand_in_members`): both operators' StatefulSets are
  ``OrderedReady``, so the controller creates member ``i+1`` only once member ``i`` is Ready, which it never is
  here. The tier creates those members' claims and pods as the controller would (its own function), and the real
  kube-scheduler places them; nothing writes a pod's or a custom resource's status.
"""

from __future__ import annotations

import copy
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from kubernetes import client as k8s_client
from kubernetes.client.rest import ApiException

NOT_READY = "node.kubernetes.io/not-ready"
POOL_LABEL = "mysql.percona.com/pool"  # percona_mysql_k8s.core.pools.POOL_LABEL
THIRD_POOL = "general"  # the untainted pool neither the database nor the monitoring pods belong on
TIER_LABEL = "operator-tier/case"
ZONE = "topology.kubernetes.io/zone"  # percona_mysql_k8s.core.zones.ZONE_KEY


def wait_for(what: str, check: Callable[[], Any], timeout: float = 60.0, interval: float = 0.5) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise TimeoutError(f"{what}: not after {timeout:.0f} s")
        time.sleep(interval)


# ---------------------------------------------------------------------------------------------------------
# Nodes


@dataclass(frozen=True)
class TierNode:
    name: str
    pool: str  # database | monitoring | general
    labels: Mapping[str, str]
    taints: tuple[Mapping[str, str], ...]
    cpu_millicores: int
    memory_bytes: int
    max_pods: int

    def body(self, case: str) -> dict[str, Any]:
        allocatable = {"cpu": f"{self.cpu_millicores}m", "memory": str(self.memory_bytes), "pods": str(self.max_pods)}
        return {
            "metadata": {
                "name": self.name,
                "labels": {**self.labels, "kubernetes.io/hostname": self.name, "type": "kwok", TIER_LABEL: case},
            },
            "spec": {"taints": [dict(t) for t in self.taints]},
            "status": {"capacity": allocatable, "allocatable": allocatable},
        }


def pool_nodes(case: str, settings) -> list[TierNode]:
    """The Nodes of a stack's two pools as its sizing assumes them (labels, taints and the allocatable of
    ``PoolShape.node``: the machine catalog's K1 model, or kind's share of the host), plus a third, untainted
    pool (a database node's size, labelled ``mysql.percona.com/pool: general``) where a pod that is not pinned to
    its pool could land."""
    nodes = []
    for role, pool in (("database", settings.cluster.database_pool), ("monitoring", settings.cluster.monitoring_pool)):
        allocatable = pool.node.allocatable
        labels = dict(pool.nodes().labels)
        taints = tuple(taint.as_k8s() for taint in pool.taints)
        zones = database_zones(pool) if role == "database" else [None] * pool.node_count
        for index in range(pool.node_count):
            nodes.append(
                TierNode(
                    f"{case}-{role[:3]}-{index}",
                    role,
                    {**labels, **({ZONE: zones[index]} if zones[index] else {})},
                    taints,
                    allocatable.cpu_millicores,
                    allocatable.memory_bytes,
                    allocatable.max_pods,
                )
            )
    database = nodes[0]
    nodes.append(
        TierNode(
            f"{case}-gen-0",
            THIRD_POOL,
            {"kubernetes.io/os": "linux", POOL_LABEL: THIRD_POOL},
            (),
            database.cpu_millicores,
            database.memory_bytes,
            database.max_pods,
        )
    )
    return nodes


def database_zones(pool) -> list[str | None]:
    """The zone label of each database Node, as the stack's plan lays the pool out (``PoolShape.zones``: GKE's
    nodes per zone, the existing cluster's declared zones); an EKS node group spreads over its three subnets' zones
    (the plan leaves that to the component); kind's nodes carry none."""
    layout = pool.zones
    if layout is not None and not layout.labelled:
        return [None] * pool.node_count
    counts = layout.nodes if layout is not None else tuple(pool.node_count // 3 + (i < pool.node_count % 3) for i in range(3))
    return [f"zone-{'abcdefgh'[zone]}" for zone, count in enumerate(counts) for _ in range(count)][: pool.node_count]


def create_nodes(core: k8s_client.CoreV1Api, nodes: Iterable[TierNode], case: str) -> None:
    """Create the Nodes; kwok (--manage-all-nodes) makes them Ready keeping their allocatable; then the not-ready
    taint admission put on them is lifted, as the node lifecycle controller does once a Node is Ready."""
    nodes = list(nodes)
    for node in nodes:
        core.create_node(node.body(case))
    for node in nodes:
        live = wait_for(f"kwok makes Node {node.name} Ready", lambda name=node.name: _ready(core, name))
        assert live.status.allocatable["memory"] == str(node.memory_bytes), f"kwok replaced {node.name}'s allocatable"
        kept = [t.to_dict() for t in live.spec.taints or [] if t.key != NOT_READY]
        core.patch_node(node.name, {"spec": {"taints": kept or None}})


def _ready(core: k8s_client.CoreV1Api, name: str):
    node = core.read_node(name)
    return node if any(c.type == "Ready" and c.status == "True" for c in node.status.conditions or []) else None


def cordon(core: k8s_client.CoreV1Api, names: Iterable[str]) -> None:
    """Keep the next stack's pods off these Nodes (``spec.unschedulable``, as ``kubectl cordon``); their pods stay."""
    for name in names:
        core.patch_node(name, {"spec": {"unschedulable": True}})


# ---------------------------------------------------------------------------------------------------------
# volumes


def provide_volumes(core: k8s_client.CoreV1Api, namespace: str) -> list[str]:
    """A PersistentVolume for every claim in ``namespace`` that has none: exactly the claim's size, its access
    modes and storage class, pre-bound to it (``claimRef``), as a provisioner does; a hostPath nobody mounts."""
    made = []
    for claim in core.list_namespaced_persistent_volume_claim(namespace).items:
        if claim.spec.volume_name:
            continue
        name = f"pv-{claim.metadata.uid}"
        body = {
            "metadata": {"name": name, "labels": {"operator-tier/stand-in": "provisioner"}},
            "spec": {
                "capacity": {"storage": claim.spec.resources.requests["storage"]},
                "accessModes": list(claim.spec.access_modes),
                "persistentVolumeReclaimPolicy": "Delete",
                "storageClassName": claim.spec.storage_class_name or "",
                "claimRef": {"namespace": namespace, "name": claim.metadata.name, "uid": claim.metadata.uid},
                "hostPath": {"path": f"/var/lib/operator-tier/{name}"},
            },
        }
        try:
            core.create_persistent_volume(body)
            made.append(name)
        except ApiException as error:
            if error.status != 409:
                raise
    return made


# ---------------------------------------------------------------------------------------------------------
# the StatefulSet controller's members past the first


def member_pod(sts: k8s_client.V1StatefulSet, ordinal: int, api: k8s_client.ApiClient) -> dict[str, Any]:
    """The pod the StatefulSet controller makes for ``ordinal`` (kubernetes pkg/controller/statefulset/
    stateful_set_utils.go: newVersionedStatefulSetPod, initIdentity, updateStorage): the template with the
    member's name, its identity labels and hostname, the claims ``<template>-<set>-<ordinal>`` in place of the
    templates' volumes, owned by the set."""
    name = f"{sts.metadata.name}-{ordinal}"
    template = api.sanitize_for_serialization(sts.spec.template)
    metadata = template.get("metadata") or {}
    spec = copy.deepcopy(template["spec"])
    labels = {
        **(metadata.get("labels") or {}),
        "statefulset.kubernetes.io/pod-name": name,
        "apps.kubernetes.io/pod-index": str(ordinal),
        "controller-revision-hash": sts.status.update_revision or sts.status.current_revision or "",
    }
    spec["hostname"] = name
    spec["subdomain"] = sts.spec.service_name
    claims = {t.metadata.name: f"{t.metadata.name}-{name}" for t in sts.spec.volume_claim_templates or []}
    volumes = [v for v in spec.get("volumes") or [] if v["name"] not in claims]
    volumes += [{"name": template_name, "persistentVolumeClaim": {"claimName": claim}} for template_name, claim in claims.items()]
    spec["volumes"] = volumes
    owner = {
        "apiVersion": "apps/v1",
        "kind": "StatefulSet",
        "name": sts.metadata.name,
        "uid": sts.metadata.uid,
        "controller": True,
        "blockOwnerDeletion": True,
    }
    return {
        "metadata": {
            "name": name,
            "namespace": sts.metadata.namespace,
            "labels": labels,
            "annotations": metadata.get("annotations") or {},
            "ownerReferences": [owner],
        },
        "spec": spec,
    }


def member_claims(sts: k8s_client.V1StatefulSet, ordinal: int, api: k8s_client.ApiClient) -> list[dict[str, Any]]:
    """The claims the controller makes for ``ordinal`` before its pod (stateful_set_utils.go getPersistentVolumeClaims:
    the template, named ``<template>-<set>-<ordinal>``, labelled with the set's selector)."""
    claims = []
    selector = sts.spec.selector.match_labels or {}
    for template in sts.spec.volume_claim_templates or []:
        body = api.sanitize_for_serialization(template)
        body.pop("status", None)
        metadata = body.setdefault("metadata", {})
        metadata["name"] = f"{template.metadata.name}-{sts.metadata.name}-{ordinal}"
        metadata["namespace"] = sts.metadata.namespace
        metadata["labels"] = {**(metadata.get("labels") or {}), **selector}
        claims.append(body)
    return claims


def stand_in_members(core: k8s_client.CoreV1Api, api: k8s_client.ApiClient, sts: k8s_client.V1StatefulSet) -> list[str]:
    """Members 1..replicas-1 the StatefulSet controller would create once the ones before were Ready."""
    made = []
    for ordinal in range(1, sts.spec.replicas or 0):
        for claim in member_claims(sts, ordinal, api):
            _create(lambda body=claim: core.create_namespaced_persistent_volume_claim(sts.metadata.namespace, body))
        pod = member_pod(sts, ordinal, api)
        if _create(lambda body=pod: core.create_namespaced_pod(sts.metadata.namespace, body)):
            made.append(pod["metadata"]["name"])
    return made


def _create(call: Callable[[], Any]) -> bool:
    try:
        call()
        return True
    except ApiException as error:
        if error.status == 409:
            return False
        raise
