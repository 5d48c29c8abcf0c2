"""Which nodes a pod can land on, decided as kube-scheduler decides it (rules K4, K5, B1).

One reader for placement, used by the components, the existing-cluster target and the policy pack:

* ``nodeSelector``: every key must be present on the node with exactly that value.
* required node affinity (``requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms``): the
  terms are ORed, the expressions of one term ANDed; an empty term list matches nothing; operators
  ``In``, ``NotIn``, ``Exists``, ``DoesNotExist``, ``Gt``, ``Lt`` (``NotIn``/``DoesNotExist`` also
  match a node without the key).
* taints with effect ``NoSchedule`` or ``NoExecute`` repel a pod unless one of its tolerations
  tolerates them (``PreferNoSchedule`` never blocks). A toleration with an empty key and ``Exists``
  tolerates everything; an empty effect matches every effect; ``Exists`` ignores the value;
  ``Equal`` (the default operator) compares it.

Sources: Kubernetes "Assigning Pods to Nodes" and "Taints and Tolerations"
(https://kubernetes.io/docs/concepts/scheduling-eviction/assign-pod-node/,
https://kubernetes.io/docs/concepts/scheduling-eviction/taint-and-toleration/) and
``k8s.io/component-helpers/scheduling/corev1`` (``MatchNodeSelectorTerms``, ``ToleratesTaint``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

BLOCKING_EFFECTS = ("NoSchedule", "NoExecute")


def matches_node_selector(
    selector: Mapping[str, Any] | None, node_labels: Mapping[str, Any], unknown: frozenset[str] = frozenset()
) -> bool:
    """``nodeSelector``: every pair present on the node (an empty selector matches every node). A key in
    ``unknown`` (a label the node has with a value not known here) may match."""
    return all(
        key in unknown or (key in node_labels and str(node_labels[key]) == str(value)) for key, value in (selector or {}).items()
    )


def _integer(value: Any) -> int | None:
    try:
        return int(str(value))
    except ValueError:
        return None


def _expression_matches(
    expression: Mapping[str, Any], node_labels: Mapping[str, Any], unknown: frozenset[str] = frozenset()
) -> bool:
    key = expression.get("key")
    operator = expression.get("operator")
    if key in unknown and operator in ("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"):
        return True  # the node's value is not known here: it may match
    values = [str(value) for value in (expression.get("values") or [])]
    present = key in node_labels
    label = str(node_labels.get(key)) if present else None
    if operator == "In":
        return present and label in values
    if operator == "NotIn":
        return not present or label not in values
    if operator == "Exists":
        return present
    if operator == "DoesNotExist":
        return not present
    if operator in ("Gt", "Lt") and present and len(values) == 1:
        ours, theirs = _integer(label), _integer(values[0])
        if ours is None or theirs is None:
            return False
        return ours > theirs if operator == "Gt" else ours < theirs
    return False  # an unknown operator is invalid: the API server rejects the pod, it never schedules


def _term_matches(term: Mapping[str, Any], node_labels: Mapping[str, Any], unknown: frozenset[str] = frozenset()) -> bool:
    expressions = term.get("matchExpressions") or []
    fields = term.get("matchFields") or []
    if not expressions and not fields:
        return False  # a null or empty term selects no objects
    # matchFields select on metadata.name only; a pool description carries no node name, so such a
    # term is judged on its label expressions alone (conservatively: a field never excludes).
    return all(_expression_matches(expression, node_labels, unknown) for expression in expressions)


def required_node_affinity(affinity: Mapping[str, Any] | None) -> list[Mapping[str, Any]] | None:
    """The ``nodeSelectorTerms`` a pod requires, or None when it requires none."""
    node_affinity = (affinity or {}).get("nodeAffinity") or {}
    required = node_affinity.get("requiredDuringSchedulingIgnoredDuringExecution")
    if not required:
        return None
    return list(required.get("nodeSelectorTerms") or [])


def matches_node_affinity(
    affinity: Mapping[str, Any] | None, node_labels: Mapping[str, Any], unknown: frozenset[str] = frozenset()
) -> bool:
    """Required node affinity: terms ORed (no requirement matches every node)."""
    terms = required_node_affinity(affinity)
    if terms is None:
        return True
    return any(_term_matches(term, node_labels, unknown) for term in terms)


def toleration_tolerates(toleration: Mapping[str, Any], taint: Mapping[str, Any]) -> bool:
    """One toleration against one taint (``ToleratesTaint``)."""
    effect = toleration.get("effect") or ""
    if effect and effect != taint.get("effect"):
        return False
    key = toleration.get("key") or ""
    operator = toleration.get("operator") or "Equal"
    if key and key != taint.get("key"):
        return False
    if operator == "Exists":
        return True  # an empty key with Exists tolerates every taint; a key with Exists ignores the value
    if operator == "Equal":
        return key != "" and str(toleration.get("value") or "") == str(taint.get("value") or "")
    return False


def tolerates(tolerations: Iterable[Mapping[str, Any]] | None, taints: Iterable[Mapping[str, Any]]) -> bool:
    """Every blocking taint of the node tolerated by at least one toleration."""
    tolerations = list(tolerations or [])
    return all(
        any(toleration_tolerates(toleration, taint) for toleration in tolerations)
        for taint in taints
        if taint.get("effect") in BLOCKING_EFFECTS
    )


def can_schedule(
    *,
    node_selector: Mapping[str, Any] | None,
    affinity: Mapping[str, Any] | None,
    tolerations: Iterable[Mapping[str, Any]] | None,
    node_labels: Mapping[str, Any],
    node_taints: Iterable[Mapping[str, Any]],
    unknown_labels: frozenset[str] = frozenset(),
) -> bool:
    """A pod's placement against one node (or one pool's node template): labels and taints."""
    return (
        matches_node_selector(node_selector, node_labels, unknown_labels)
        and matches_node_affinity(affinity, node_labels, unknown_labels)
        and tolerates(tolerations, node_taints)
    )


# Taints Kubernetes itself puts on a node for its condition (node lifecycle controller, kubelet, cloud
# controller manager): https://kubernetes.io/docs/reference/labels-annotations-taints/. Every pod gets
# tolerations of not-ready and unreachable (NoExecute, 300 s) from the DefaultTolerationSeconds admission
# plugin (kubernetes plugin/pkg/admission/defaulttolerationseconds), and DaemonSet pods more: such a
# toleration matches no pool's own taint, so it never keeps a pool for a pod.
NODE_CONDITION_TAINT_KEYS = frozenset(
    {
        "node.kubernetes.io/not-ready",
        "node.kubernetes.io/unreachable",
        "node.kubernetes.io/memory-pressure",
        "node.kubernetes.io/disk-pressure",
        "node.kubernetes.io/pid-pressure",
        "node.kubernetes.io/network-unavailable",
        "node.kubernetes.io/unschedulable",
        "node.kubernetes.io/out-of-service",
        "node.cloudprovider.kubernetes.io/uninitialized",
    }
)


# ---- taint effects as the clouds spell them ---------------------------------------------------------

# The GKE API (NodeConfig.taints[].effect) and the EKS API (Taint.effect) spell the effects in upper
# snake case; the kubelet registers the node with Kubernetes' spelling. Sources:
# https://cloud.google.com/kubernetes-engine/docs/reference/rest/v1/NodeConfig#NodeTaint and
# https://docs.aws.amazon.com/eks/latest/APIReference/API_Taint.html
CLOUD_EFFECTS = {"NO_SCHEDULE": "NoSchedule", "PREFER_NO_SCHEDULE": "PreferNoSchedule", "NO_EXECUTE": "NoExecute"}
KUBERNETES_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")


def kubernetes_effect(effect: str) -> str | None:
    """``NO_SCHEDULE`` or ``NoSchedule`` as ``NoSchedule``; None for anything else (not a taint effect)."""
    if effect in KUBERNETES_EFFECTS:
        return effect
    return CLOUD_EFFECTS.get(effect)


def cloud_effect(effect: str) -> str:
    """Kubernetes' ``NoSchedule`` as the cloud APIs' ``NO_SCHEDULE``."""
    return {value: key for key, value in CLOUD_EFFECTS.items()}[effect]


# ---- what a pool's nodes carry: the labels the provider adds itself ---------------------------------

OS_LABEL, ARCH_LABEL = "kubernetes.io/os", "kubernetes.io/arch"
INSTANCE_TYPE_LABEL = "node.kubernetes.io/instance-type"
ZONE_LABEL, REGION_LABEL = "topology.kubernetes.io/zone", "topology.kubernetes.io/region"
GKE_NODEPOOL_LABEL = "cloud.google.com/gke-nodepool"
GKE_MACHINE_FAMILY_LABEL = "cloud.google.com/machine-family"
GKE_SPOT_LABEL, GKE_PREEMPTIBLE_LABEL = "cloud.google.com/gke-spot", "cloud.google.com/gke-preemptible"
EKS_NODEGROUP_LABEL = "eks.amazonaws.com/nodegroup"
EKS_CAPACITY_TYPE_LABEL = "eks.amazonaws.com/capacityType"

# Labels every node carries whatever its pool (the kubelet's os/arch, the cloud's topology and machine
# type): a selector on them alone does not pin a pod to a pool (K4). Kubernetes' well-known labels:
# https://kubernetes.io/docs/reference/labels-annotations-taints/
NODE_WIDE_LABELS = frozenset(
    {
        OS_LABEL,
        ARCH_LABEL,
        "beta.kubernetes.io/os",
        "beta.kubernetes.io/arch",
        INSTANCE_TYPE_LABEL,
        "beta.kubernetes.io/instance-type",
        ZONE_LABEL,
        REGION_LABEL,
        "failure-domain.beta.kubernetes.io/zone",
        "failure-domain.beta.kubernetes.io/region",
    }
)

# Arm machine families: GKE's Tau T2A, C4A and N4A (https://cloud.google.com/compute/docs/instances/arm-on-compute);
# on EC2 the Graviton families carry a "g" after the generation digit (m6g, c7gn, r8g;
# https://aws.amazon.com/ec2/graviton/).
_GKE_ARM_FAMILIES = ("t2a", "c4a", "n4a")
_EC2_ARM = re.compile(r"^[a-z]+\d+g[a-z]*\.")
_GKE_ZONE = re.compile(r"^([a-z]+-[a-z]+\d+)-[a-z]$")
_GKE_REGION = re.compile(r"^[a-z]+-[a-z]+\d+$")


@dataclass(frozen=True)
class PoolNodes:
    """What every node of one pool carries, as the scheduler sees it: labels (the pool's own and the
    ones its provider adds) and taints in Kubernetes' spelling."""

    name: str
    labels: Mapping[str, str]
    taints: tuple[Mapping[str, str], ...] = ()
    # Labels the nodes carry with values not known here (a pool described only by its own labels: its
    # nodes' os, arch, zone...); a requirement on them may match.
    unknown_labels: frozenset[str] = frozenset()

    @property
    def dedicated(self) -> bool:
        """Whether a taint keeps pods that do not tolerate it away (K4)."""
        return any(taint.get("effect") in BLOCKING_EFFECTS for taint in self.taints)

    def carries(self, labels: Mapping[str, str]) -> bool:
        return bool(labels) and matches_node_selector(labels, self.labels)

    def carries_taint(self, taint: Mapping[str, str]) -> bool:
        return any(
            all(str(ours.get(k) or "") == str(taint.get(k) or "") for k in ("key", "value", "effect")) for ours in self.taints
        )


def _taints(taints: Iterable[Mapping[str, Any]]) -> tuple[dict[str, str], ...]:
    result = []
    for taint in taints:
        effect = kubernetes_effect(str(taint.get("effect") or "NoSchedule"))
        if effect is None:
            raise ValueError(f"taint effect {taint.get('effect')!r} is not one of {', '.join(KUBERNETES_EFFECTS)}")
        result.append({"key": str(taint.get("key") or ""), "value": str(taint.get("value") or ""), "effect": effect})
    return tuple(result)


def _zone_labels(location: str, node_locations: Iterable[str]) -> dict[str, str]:
    """Zone and region labels when the pool's nodes all share them (a pool across zones has no one zone)."""
    zones = sorted(set(node_locations)) or ([location] if _GKE_ZONE.match(location) else [])
    labels = {}
    if len(zones) == 1:
        labels[ZONE_LABEL] = zones[0]
    regions = {match.group(1) for zone in zones if (match := _GKE_ZONE.match(zone))}
    if not zones and _GKE_REGION.match(location):
        regions = {location}
    if len(regions) == 1:
        labels[REGION_LABEL] = regions.pop()
    return labels


def gke_pool_nodes(
    *,
    name: str | None,
    machine_type: str | None,
    labels: Mapping[str, str],
    taints: Iterable[Mapping[str, Any]] = (),
    location: str = "",
    node_locations: Iterable[str] = (),
    spot: bool = False,
    preemptible: bool = False,
) -> PoolNodes:
    """A GKE node pool's nodes: its ``nodeConfig.labels`` and the labels GKE adds.

    GKE labels every node with its pool's name (``cloud.google.com/gke-nodepool``), its machine family
    (``cloud.google.com/machine-family``), ``cloud.google.com/gke-spot``/``gke-preemptible`` on Spot and
    preemptible pools, and Kubernetes' instance-type, zone/region, os and arch labels. Sources: "About
    node pools" and "Isolate your workloads in dedicated node pools"
    (https://cloud.google.com/kubernetes-engine/docs/concepts/node-pools,
    https://cloud.google.com/kubernetes-engine/docs/how-to/isolate-workloads-dedicated-nodes),
    "Spot VMs" (https://cloud.google.com/kubernetes-engine/docs/concepts/spot-vms). A pool without a
    known name (Pulumi auto-names it with a random suffix) gets no nodepool label: a selector on it then
    matches nothing here.
    """
    added: dict[str, str] = {OS_LABEL: "linux"}
    if name:
        added[GKE_NODEPOOL_LABEL] = name
    if machine_type:
        family = machine_type.split("-", 1)[0]
        added[INSTANCE_TYPE_LABEL] = machine_type
        added[GKE_MACHINE_FAMILY_LABEL] = family
        added[ARCH_LABEL] = "arm64" if family in _GKE_ARM_FAMILIES else "amd64"
    added.update(_zone_labels(location or "", node_locations))
    if spot:
        added[GKE_SPOT_LABEL] = "true"
    if preemptible:
        added[GKE_PREEMPTIBLE_LABEL] = "true"
    return PoolNodes(name or "", {**added, **{str(k): str(v) for k, v in labels.items()}}, _taints(taints))


def eks_pool_nodes(
    *,
    name: str | None,
    instance_types: Iterable[str],
    labels: Mapping[str, str],
    taints: Iterable[Mapping[str, Any]] = (),
    capacity_type: str | None = None,
    ami_type: str | None = None,
) -> PoolNodes:
    """An EKS managed node group's nodes: its ``labels`` and the labels EKS adds.

    EKS labels managed nodes with ``eks.amazonaws.com/nodegroup`` (the group's name),
    ``eks.amazonaws.com/capacityType`` (``ON_DEMAND`` unless ``SPOT``/``CAPACITY_BLOCK``) and
    ``eks.amazonaws.com/nodegroup-image`` (the AMI, unknown here), plus Kubernetes' instance-type, os and
    arch labels. Source: "Simplify node lifecycle with managed node groups"
    (https://docs.aws.amazon.com/eks/latest/userguide/managed-node-groups.html) and the Nodegroup API
    (https://docs.aws.amazon.com/eks/latest/APIReference/API_Nodegroup.html).
    """
    types = [str(t) for t in instance_types]
    windows = bool(ami_type) and str(ami_type).upper().startswith("WINDOWS")
    added: dict[str, str] = {
        OS_LABEL: "windows" if windows else "linux",
        EKS_CAPACITY_TYPE_LABEL: str(capacity_type or "ON_DEMAND"),
    }
    if name:
        added[EKS_NODEGROUP_LABEL] = name
    if len(types) == 1:  # a group of several instance types has nodes of each: no one value
        added[INSTANCE_TYPE_LABEL] = types[0]
    if ami_type:
        added[ARCH_LABEL] = "arm64" if "ARM_64" in str(ami_type).upper() else "amd64"
    elif types:
        arches = {"arm64" if _EC2_ARM.match(t) else "amd64" for t in types}
        if len(arches) == 1:
            added[ARCH_LABEL] = arches.pop()
    return PoolNodes(name or "", {**added, **{str(k): str(v) for k, v in labels.items()}}, _taints(taints))


CONTROL_PLANE_LABEL = "node-role.kubernetes.io/control-plane"
CONTROL_PLANE_TAINT = {"key": CONTROL_PLANE_LABEL, "value": "", "effect": "NoSchedule"}


def kind_config_pools(nodes: Iterable[tuple[str, Mapping[str, str], Iterable[Mapping[str, Any]]]]) -> list[tuple[PoolNodes, int]]:
    """The pools of a kind cluster: its ``(role, labels, taints)`` nodes grouped by what they carry, with
    how many nodes each group has.

    kind passes a node's ``labels`` to the kubelet's ``--node-labels`` and the kubeadm
    ``nodeRegistration.taints`` of its config patches to the node; the kubelet adds os/arch
    (https://kind.sigs.k8s.io/docs/user/configuration/#extra-labels). kubeadm labels and taints the
    control plane ``node-role.kubernetes.io/control-plane`` (NoSchedule); kind removes that taint only
    in a cluster without workers (https://kubernetes.io/docs/reference/setup-tools/kubeadm/implementation-details/).
    """
    nodes = list(nodes)
    has_workers = any(role == "worker" for role, _, _ in nodes)
    groups: dict[tuple, tuple[PoolNodes, int]] = {}
    for role, labels, taints in nodes:
        own = {OS_LABEL: "linux", **{str(k): str(v) for k, v in labels.items()}}
        node_taints = list(_taints(taints))
        if role == "control-plane":
            own[CONTROL_PLANE_LABEL] = ""
            if has_workers and not node_taints:
                node_taints.append(dict(CONTROL_PLANE_TAINT))
        key = (role, tuple(sorted(own.items())), tuple(tuple(sorted(t.items())) for t in node_taints))
        if key in groups:
            groups[key] = (groups[key][0], groups[key][1] + 1)
        else:
            name = f"{role}-{len(groups)}"
            groups[key] = (PoolNodes(name, own, tuple(node_taints)), 1)
    return list(groups.values())


# ---- a pod's placement, read once -------------------------------------------------------------------


def _pins(expression: Mapping[str, Any]) -> bool:
    """An expression that only nodes of some pools satisfy: In/Exists on a label that is not node-wide."""
    return expression.get("key") not in NODE_WIDE_LABELS and expression.get("operator") in ("In", "Exists")


def _requires_pair(term: Mapping[str, Any], key: str, value: str) -> bool:
    """A term (expressions ANDed) that only nodes with ``key=value`` satisfy: ``In`` over that one value."""
    return any(
        e.get("key") == key and e.get("operator") == "In" and {str(v) for v in e.get("values") or []} == {value}
        for e in term.get("matchExpressions") or []
    )


@dataclass(frozen=True)
class PodPlacement:
    """A pod's nodeSelector, affinity and tolerations, judged as kube-scheduler judges them."""

    node_selector: Mapping[str, str] = field(default_factory=dict)
    affinity: Mapping[str, Any] | None = None
    tolerations: tuple[Mapping[str, Any], ...] = ()

    def can_land_on(self, nodes: PoolNodes) -> bool:
        return can_schedule(
            node_selector=self.node_selector,
            affinity=self.affinity,
            tolerations=self.tolerations,
            node_labels=nodes.labels,
            node_taints=nodes.taints,
            unknown_labels=nodes.unknown_labels,
        )

    def tolerates(self, taint: Mapping[str, Any]) -> bool:
        return any(toleration_tolerates(toleration, taint) for toleration in self.tolerations)

    def tolerates_a_dedicated_taint(self) -> bool:
        """Whether some toleration can tolerate a pool's own NoSchedule or NoExecute taint: not one of the node
        condition taints every pod tolerates by default (NODE_CONDITION_TAINT_KEYS)."""
        return any(
            (t.get("effect") or "") in ("", *BLOCKING_EFFECTS)
            and (
                (t.get("key") and t.get("key") not in NODE_CONDITION_TAINT_KEYS)
                or (not t.get("key") and t.get("operator") == "Exists")
            )
            for t in self.tolerations
        )

    def pinned(self) -> bool:
        """Whether every node the pod may use carries some pool's own label: a nodeSelector or every
        required affinity term asks for one (In/Exists on a label that is not node-wide, K4)."""
        if any(key not in NODE_WIDE_LABELS for key in self.node_selector):
            return True
        terms = required_node_affinity(self.affinity)
        return bool(terms) and all(any(_pins(e) for e in term.get("matchExpressions") or []) for term in terms)

    def requires(self, labels: Mapping[str, str]) -> bool:
        """Whether the pod can only land on nodes carrying every one of ``labels``."""
        if not labels:
            return False
        terms = required_node_affinity(self.affinity) or []
        return all(
            str(self.node_selector.get(key)) == str(value)
            if key in self.node_selector
            else bool(terms) and all(_requires_pair(term, key, str(value)) for term in terms)
            for key, value in labels.items()
        )

    def as_pod_spec(self) -> dict[str, Any]:
        """``nodeSelector`` (+ ``tolerations``, ``affinity`` when set) for a pod spec or an operator's CR.
        No ``tolerations`` key when there are none: the API server drops an empty list, and Pulumi would
        then see a difference that is not there."""
        spec: dict[str, Any] = {"nodeSelector": dict(self.node_selector)}
        if self.tolerations:
            spec["tolerations"] = [dict(t) for t in self.tolerations]
        if self.affinity:
            spec["affinity"] = dict(self.affinity)
        return spec
