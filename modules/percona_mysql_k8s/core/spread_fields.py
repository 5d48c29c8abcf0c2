"""A pod's placement fields as kube-scheduler filters with them, read into a :class:`~.zones.ZonePlacement` (K7).

The one reader of ``affinity.podAntiAffinity`` and ``topologySpreadConstraints`` for the zone arithmetic: the policy
pack reads the pod an operator renders from a custom resource (policies/_readers/operator_pods.py), the operator tier
the pod template the real operator rendered, both through here. Read as the scheduler reads them (kubernetes v1.36.3):

* label selectors as ``metav1.LabelSelectorAsSelector`` builds them (apimachinery pkg/apis/meta/v1/helpers.go): a
  null selector selects nothing, an empty one everything, the rest as core.operator_labels.selector_matches reads it;
* a required anti-affinity term bounds the pods it selects among themselves (interpodaffinity/filtering.go: the
  pod's own terms and the existing pods' terms); a term with ``namespaces`` or a ``namespaceSelector`` is read as
  covering the pods' own namespace only when it names it;
* a topology spread constraint filters only as ``DoNotSchedule`` (podtopologyspread/common.go
  ``filterTopologySpreadConstraints``), counts the pods its selector selects (``matchLabelKeys`` adds the pod's own
  values to it, so it still selects the pod's siblings, unless a key is one each member has its own value of), and takes ``minDomains`` as 1 when unset. One whose selector
  does not select the pod itself bounds nothing about its siblings.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .operator_labels import selector_matches
from .zones import Spread, ZonePlacement

DO_NOT_SCHEDULE = "DoNotSchedule"
# Labels the StatefulSet controller gives each member its own value of (pkg/controller/statefulset
# stateful_set_utils.go initIdentity): a ``matchLabelKeys`` on one of them makes a constraint count one pod alone.
PER_POD_LABELS = frozenset({"statefulset.kubernetes.io/pod-name", "apps.kubernetes.io/pod-index"})


class FieldError(ValueError):
    """A placement field kube-scheduler could not read (the API server refuses such a pod); ``path`` names it."""

    def __init__(self, path: str, problem: str) -> None:
        super().__init__(f"{path} {problem}")
        self.path = path
        self.problem = problem


def selects(selector: Mapping[str, Any] | None, labels: Mapping[str, str], path: str = "labelSelector") -> bool:
    """Whether a label selector selects a pod with ``labels``: null selects nothing here (``LabelSelectorAsSelector``
    of nil is ``labels.Nothing()``), anything else as the core's one selector reader reads it."""
    if selector is None:
        return False
    if not isinstance(selector, Mapping):
        raise FieldError(path, "is not a label selector")
    return selector_matches(dict(selector), dict(labels))


def _covers_namespace(term: Mapping[str, Any], namespace: str | None) -> bool:
    namespaces = term.get("namespaces") or []
    if term.get("namespaceSelector") is not None or namespaces:
        return namespace is not None and namespace in namespaces
    return True  # neither: the pod's own namespace


def anti_affinity_keys(
    affinity: Mapping[str, Any] | None, labels: Mapping[str, str], namespace: str | None = None, path: str = "affinity"
) -> frozenset[str]:
    """The topology keys of the required pod anti-affinity terms that select the pod's own siblings."""
    anti = (affinity or {}).get("podAntiAffinity") or {}
    terms = anti.get("requiredDuringSchedulingIgnoredDuringExecution") or []
    where = f"{path}.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution"
    keys = set()
    for index, term in enumerate(terms):
        if not isinstance(term, Mapping):
            raise FieldError(f"{where}[{index}]", "is not a pod affinity term")
        key = term.get("topologyKey")
        if not isinstance(key, str) or not key:
            raise FieldError(f"{where}[{index}].topologyKey", "is not a topology key")
        if _covers_namespace(term, namespace) and selects(term.get("labelSelector"), labels, f"{where}[{index}].labelSelector"):
            keys.add(key)
    return frozenset(keys)


def _whole(value: Any, path: str, default: int | None = None) -> int:
    if value is None and default is not None:
        return default
    if isinstance(value, bool) or not isinstance(value, int | float) or int(value) != value or value < 1:
        raise FieldError(path, f"is {value!r}, not a whole number of at least 1")
    return int(value)


def spreads(constraints: list | None, labels: Mapping[str, str], path: str = "topologySpreadConstraints") -> tuple[Spread, ...]:
    """The ``DoNotSchedule`` constraints that count the pod's own siblings."""
    found = []
    for index, constraint in enumerate(constraints or []):
        where = f"{path}[{index}]"
        if not isinstance(constraint, Mapping):
            raise FieldError(where, "is not a topology spread constraint")
        if constraint.get("whenUnsatisfiable") != DO_NOT_SCHEDULE:
            continue  # ScheduleAnyway only scores nodes
        key = constraint.get("topologyKey")
        if not isinstance(key, str) or not key:
            raise FieldError(f"{where}.topologyKey", "is not a topology key")
        max_skew = _whole(constraint.get("maxSkew"), f"{where}.maxSkew")
        min_domains = _whole(constraint.get("minDomains"), f"{where}.minDomains", 1)
        per_pod = PER_POD_LABELS & set(constraint.get("matchLabelKeys") or [])
        if not per_pod and selects(constraint.get("labelSelector"), labels, f"{where}.labelSelector"):
            found.append(Spread(key, max_skew, min_domains))
    return tuple(found)


def zone_placement(pod_spec: Mapping[str, Any], labels: Mapping[str, str], namespace: str | None = None) -> ZonePlacement:
    """The pod's ``affinity`` and ``topologySpreadConstraints`` as the zone arithmetic reads them."""
    return ZonePlacement(
        anti_affinity_keys(pod_spec.get("affinity"), labels, namespace),
        spreads(pod_spec.get("topologySpreadConstraints"), labels),
    )
