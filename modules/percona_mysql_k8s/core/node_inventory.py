"""A cluster's Nodes as the scheduler sees them, read from the API's own JSON (rules K1, K4, K5).

The existing-cluster target sizes from what the target cluster reports, not from what config claims:

* a node's budget is ``status.allocatable`` (the kubelet has already subtracted kube/system reserved and
  the eviction threshold) minus the requests of the DaemonSet and static pods running on it (K1);
* a pod's request is what the scheduler counts: the larger of the sum of its containers' requests and
  its largest init container's request, plus ``spec.overhead``
  (https://kubernetes.io/docs/concepts/workloads/pods/init-containers/#resource-sharing-within-containers,
  https://kubernetes.io/docs/concepts/scheduling-eviction/pod-overhead/);
* a node takes new pods only when it is not cordoned (``spec.unschedulable``) and its ``Ready``
  condition is ``True`` (the node lifecycle controller taints it ``node.kubernetes.io/not-ready`` or
  ``unreachable`` otherwise);
* a pool is the set of nodes a pod with the pool's nodeSelector and tolerations can land on
  (:mod:`.scheduling`), so the budget is its *smallest* node and its size the number of such nodes.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .errors import InputError
from .scheduling import BLOCKING_EFFECTS, matches_node_selector, tolerates
from .units import cpu_to_millicores, format_cpu, format_memory, memory_to_bytes

# Terminated pods hold no resources: the scheduler ignores them.
_TERMINATED_PHASES = ("Succeeded", "Failed")
# Taints the node lifecycle controller puts on a node for a condition (taint-nodes-by-condition): they
# say the node cannot take pods now, not that it belongs to another pool.
# https://kubernetes.io/docs/reference/labels-annotations-taints/ (node.kubernetes.io/*)
CONDITION_TAINT_PREFIX = "node.kubernetes.io/"


@dataclass(frozen=True)
class ObservedNode:
    name: str
    labels: Mapping[str, str]
    taints: tuple[Mapping[str, str], ...]
    allocatable_cpu_millicores: int
    allocatable_memory_bytes: int
    daemonset_cpu_millicores: int
    daemonset_memory_bytes: int
    allocatable_pods: int
    schedulable: bool
    why_not_schedulable: str = ""

    @property
    def usable_cpu_millicores(self) -> int:
        return self.allocatable_cpu_millicores - self.daemonset_cpu_millicores

    @property
    def usable_memory_bytes(self) -> int:
        return self.allocatable_memory_bytes - self.daemonset_memory_bytes


def _quantity(value: Any, parse, default: int = 0) -> int:
    if value in (None, ""):
        return default
    return parse(value)


def pod_requests(pod: Mapping[str, Any]) -> tuple[int, int]:
    """(CPU millicores, memory bytes) the scheduler reserves for ``pod``."""
    spec = pod.get("spec") or {}

    def requests(container: Mapping[str, Any]) -> tuple[int, int]:
        wanted = (container.get("resources") or {}).get("requests") or {}
        return _quantity(wanted.get("cpu"), cpu_to_millicores), _quantity(wanted.get("memory"), memory_to_bytes)

    containers = [requests(container) for container in spec.get("containers") or []]
    init = [requests(container) for container in spec.get("initContainers") or []]
    overhead = spec.get("overhead") or {}
    cpu = max(sum(c for c, _ in containers), max((c for c, _ in init), default=0))
    memory = max(sum(m for _, m in containers), max((m for _, m in init), default=0))
    return (cpu + _quantity(overhead.get("cpu"), cpu_to_millicores), memory + _quantity(overhead.get("memory"), memory_to_bytes))


def is_per_node_pod(pod: Mapping[str, Any]) -> bool:
    """A pod every node of a pool runs whatever we deploy: a DaemonSet's, or a static pod's mirror
    (owned by its Node, annotated ``kubernetes.io/config.mirror``; GKE runs kube-proxy this way)."""
    metadata = pod.get("metadata") or {}
    owners = metadata.get("ownerReferences") or []
    mirror = "kubernetes.io/config.mirror" in (metadata.get("annotations") or {})
    return mirror or any(owner.get("kind") in ("DaemonSet", "Node") for owner in owners)


def observe(node: Mapping[str, Any], pods: Iterable[Mapping[str, Any]]) -> ObservedNode:
    """One Node object (as ``kubectl get node -o json`` prints it) and the pods bound to it."""
    metadata = node.get("metadata") or {}
    spec = node.get("spec") or {}
    status = node.get("status") or {}
    name = str(metadata.get("name") or "")
    allocatable = status.get("allocatable") or status.get("capacity") or {}
    daemonset_cpu = daemonset_memory = 0
    for pod in pods:
        if (pod.get("spec") or {}).get("nodeName") != name:
            continue
        if (pod.get("status") or {}).get("phase") in _TERMINATED_PHASES or not is_per_node_pod(pod):
            continue
        cpu, memory = pod_requests(pod)
        daemonset_cpu += cpu
        daemonset_memory += memory
    ready = next((c.get("status") for c in status.get("conditions") or [] if c.get("type") == "Ready"), None)
    taints = tuple(dict(taint) for taint in spec.get("taints") or [])
    condition_taints = [
        str(t.get("key"))
        for t in taints
        if str(t.get("key", "")).startswith(CONDITION_TAINT_PREFIX) and t.get("effect") in BLOCKING_EFFECTS
    ]
    why = ""
    if spec.get("unschedulable"):
        why = "cordoned (spec.unschedulable)"
    elif ready != "True":
        why = f"not Ready (Ready={ready or 'absent'})"
    elif condition_taints:
        why = f"tainted {', '.join(condition_taints)} by its conditions"
    return ObservedNode(
        name=name,
        labels={str(k): str(v) for k, v in (metadata.get("labels") or {}).items()},
        taints=tuple(t for t in taints if not str(t.get("key", "")).startswith(CONDITION_TAINT_PREFIX)),
        allocatable_cpu_millicores=_quantity(allocatable.get("cpu"), cpu_to_millicores),
        allocatable_memory_bytes=_quantity(allocatable.get("memory"), memory_to_bytes),
        daemonset_cpu_millicores=daemonset_cpu,
        daemonset_memory_bytes=daemonset_memory,
        allocatable_pods=int(str(allocatable.get("pods") or 0)),
        schedulable=not why,
        why_not_schedulable=why,
    )


def observe_all(nodes: Iterable[Mapping[str, Any]], pods: Iterable[Mapping[str, Any]]) -> tuple[ObservedNode, ...]:
    pods = list(pods)
    return tuple(observe(node, pods) for node in nodes)


@dataclass(frozen=True)
class ObservedPool:
    """The nodes one pool's pods can land on, and the smallest of them (what sizing may assume)."""

    nodes: tuple[ObservedNode, ...]
    skipped: tuple[ObservedNode, ...]  # selected by the labels but cordoned or not Ready

    @property
    def count(self) -> int:
        return len(self.nodes)

    @property
    def allocatable_cpu_millicores(self) -> int:
        return min(node.allocatable_cpu_millicores for node in self.nodes)

    @property
    def allocatable_memory_bytes(self) -> int:
        return min(node.allocatable_memory_bytes for node in self.nodes)

    def smallest_cpu(self) -> ObservedNode:
        return min(self.nodes, key=lambda node: (node.usable_cpu_millicores, node.name))

    def smallest_memory(self) -> ObservedNode:
        return min(self.nodes, key=lambda node: (node.usable_memory_bytes, node.name))

    def common_blocking_taints(self) -> tuple[Mapping[str, str], ...]:
        """Taints every node of the pool carries (what pods placed on the pool must tolerate)."""
        first, *rest = self.nodes
        return tuple(
            taint
            for taint in first.taints
            if taint.get("effect") in BLOCKING_EFFECTS and all(taint in node.taints for node in rest)
        )

    def describe(self) -> str:
        smallest = self.smallest_memory()
        return (
            f"{self.count} node(s), smallest {smallest.name}: allocatable "
            f"{format_cpu(smallest.allocatable_cpu_millicores)} CPU / {format_memory(smallest.allocatable_memory_bytes)}, "
            f"DaemonSets {format_cpu(smallest.daemonset_cpu_millicores)} / {format_memory(smallest.daemonset_memory_bytes)}"
        )


def select_pool(
    nodes: Sequence[ObservedNode],
    selector: Mapping[str, str],
    tolerations: Sequence[Mapping[str, Any]],
    *,
    key: str,
) -> ObservedPool:
    """The nodes matching ``selector`` whose taints ``tolerations`` tolerate (K4); errors name ``key``."""
    labelled = [node for node in nodes if matches_node_selector(selector, node.labels)]
    wanted = ",".join(f"{k}={v}" for k, v in selector.items())
    if not labelled:
        seen = sorted({f"{k}={v}" for node in nodes for k, v in node.labels.items() if k in selector})
        hint = f" (values seen for those keys: {', '.join(seen)})" if seen else ""
        raise InputError(
            key, f"no node of the cluster carries {wanted}{hint}: {len(nodes)} node(s) read, none in this pool", rule="K4"
        )
    ready = [node for node in labelled if node.schedulable]
    skipped = tuple(node for node in labelled if not node.schedulable)
    if not ready:
        reasons = "; ".join(f"{node.name}: {node.why_not_schedulable}" for node in skipped)
        raise InputError(key, f"every node carrying {wanted} refuses new pods ({reasons})", rule="K5")
    repelled = [node for node in ready if not tolerates(tolerations, node.taints)]
    if repelled:
        node = repelled[0]
        taints = ", ".join(
            f"{t.get('key')}={t.get('value', '')}:{t.get('effect')}" for t in node.taints if t.get("effect") in BLOCKING_EFFECTS
        )
        raise InputError(
            key,
            f"node {node.name} carries {wanted} but also the taint {taints}, which the pool's pods "
            "do not tolerate: they would stay Pending there (set the pool's taint to match)",
            rule="K4",
        )
    return ObservedPool(tuple(ready), skipped)
