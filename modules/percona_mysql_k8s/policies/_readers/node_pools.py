"""A cluster's own Nodes (``kubernetes:core/v1:Node`` objects, as ``kubectl get nodes -o yaml`` prints them or the
admission server's watch keeps them) as the pools the stack policies place pods on (K4, K5).

Each Node is read as the existing target reads it (percona_mysql_k8s.core.node_inventory.observe): its labels, its
taints without the node-condition ones, ``status.allocatable`` (the kubelet has already subtracted kube/system reserved
and the eviction threshold), and whether it takes new pods (not cordoned, ``Ready``). Nodes that take no new pods are
no pool: the scheduler places nothing there. The others are grouped as one pool when they carry the same taints and
the same labels but for the ones every node has a value of its own (hostname, zone, region): a cloud's node pool, a
kind cluster's workers. Within a group, the labels that differ are unknown to a selector (a pod that asks for one zone
may land on the group); the budget is the smallest node's (its CPU and its memory, as the existing target sizes from
the smallest node), DaemonSets left to the pack's ``daemonset_*`` settings and to the DaemonSets the stack declares:
a Node says nothing of the pods it runs.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, TypeVar

from percona_mysql_k8s.core.allocatable import DEFAULT_MAX_PODS, reported_node_budget
from percona_mysql_k8s.core.node_inventory import ObservedNode, observe
from percona_mysql_k8s.core.scheduling import INSTANCE_TYPE_LABEL, REGION_LABEL, ZONE_LABEL, PoolNodes

from .pools import NodePool

T = TypeVar("T")
NODE = "kubernetes:core/v1:Node"
HOSTNAME_LABEL = "kubernetes.io/hostname"
# Labels each node carries a value of its own for, whatever its pool (Kubernetes' well-known labels:
# https://kubernetes.io/docs/reference/labels-annotations-taints/).
PER_NODE_LABELS = frozenset(
    {
        HOSTNAME_LABEL,
        ZONE_LABEL,
        REGION_LABEL,
        "failure-domain.beta.kubernetes.io/zone",
        "failure-domain.beta.kubernetes.io/region",
        "topology.gke.io/zone",
    }
)


def _taint_key(node: ObservedNode) -> tuple:
    return tuple(sorted(tuple(sorted((str(k), str(v)) for k, v in taint.items())) for taint in node.taints))


def _group_key(node: ObservedNode) -> tuple:
    return (tuple(sorted((k, v) for k, v in node.labels.items() if k not in PER_NODE_LABELS)), _taint_key(node))


def node_pools(nodes: Iterable[tuple[T, Mapping[str, Any]]]) -> list[tuple[T, NodePool]]:
    """The pools ``(owner, Node object)`` pairs make, each with the owner of its first Node (who its findings go to),
    in the order their first Node comes. Nodes that take no new pods make none, and neither does a Node that cannot
    be read (the API server stores none such)."""
    groups: dict[tuple, list[ObservedNode]] = {}
    owners: dict[tuple, T] = {}
    for owner, node in nodes:
        try:
            observed = observe(node, ())
        except (ValueError, TypeError, AttributeError):  # a quantity that is none, a label map that is a list
            continue
        if observed.schedulable:
            key = _group_key(observed)
            groups.setdefault(key, []).append(observed)
            owners.setdefault(key, owner)
    return [(owners[key], _pool(members)) for key, members in groups.items()]


def _pool(members: list[ObservedNode]) -> NodePool:
    first = members[0]
    labels = {k: v for k, v in first.labels.items() if all(node.labels.get(k) == v for node in members)}
    varying = frozenset(key for node in members for key in node.labels if key not in labels)
    names = sorted(node.name for node in members)
    name = f"Nodes {', '.join(names[:3])}{f' (+{len(names) - 3})' if len(names) > 3 else ''}"
    cpu_node = min(members, key=lambda node: (node.allocatable_cpu_millicores, node.name))
    memory_node = min(members, key=lambda node: (node.allocatable_memory_bytes, node.name))
    budget = reported_node_budget(
        cpu_node.allocatable_cpu_millicores,
        memory_node.allocatable_memory_bytes,
        0,
        0,
        min(node.allocatable_pods for node in members) or DEFAULT_MAX_PODS,
        f"Nodes: allocatable of {cpu_node.name} (CPU) and {memory_node.name} (memory), the smallest of the pool as "
        "their kubelets report them",
    )
    return NodePool(
        NODE,
        name,
        "existing",
        labels.get(INSTANCE_TYPE_LABEL),
        PoolNodes(name, labels, tuple(dict(taint) for taint in first.taints), unknown_labels=varying),
        len(members),
        "metadata.labels",
        "spec.taints",
        "status.allocatable",
        budget,
    )
