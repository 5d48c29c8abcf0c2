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

from collections.abc import Iterable, Mapping
from typing import Any

BLOCKING_EFFECTS = ("NoSchedule", "NoExecute")


def matches_node_selector(selector: Mapping[str, Any] | None, node_labels: Mapping[str, Any]) -> bool:
    """``nodeSelector``: every pair present on the node (an empty selector matches every node)."""
    return all(key in node_labels and str(node_labels[key]) == str(value) for key, value in (selector or {}).items())


def _integer(value: Any) -> int | None:
    try:
        return int(str(value))
    except ValueError:
        return None


def _expression_matches(expression: Mapping[str, Any], node_labels: Mapping[str, Any]) -> bool:
    key = expression.get("key")
    operator = expression.get("operator")
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


def _term_matches(term: Mapping[str, Any], node_labels: Mapping[str, Any]) -> bool:
    expressions = term.get("matchExpressions") or []
    fields = term.get("matchFields") or []
    if not expressions and not fields:
        return False  # a null or empty term selects no objects
    # matchFields select on metadata.name only; a pool description carries no node name, so such a
    # term is judged on its label expressions alone (conservatively: a field never excludes).
    return all(_expression_matches(expression, node_labels) for expression in expressions)


def required_node_affinity(affinity: Mapping[str, Any] | None) -> list[Mapping[str, Any]] | None:
    """The ``nodeSelectorTerms`` a pod requires, or None when it requires none."""
    node_affinity = (affinity or {}).get("nodeAffinity") or {}
    required = node_affinity.get("requiredDuringSchedulingIgnoredDuringExecution")
    if not required:
        return None
    return list(required.get("nodeSelectorTerms") or [])


def matches_node_affinity(affinity: Mapping[str, Any] | None, node_labels: Mapping[str, Any]) -> bool:
    """Required node affinity: terms ORed (no requirement matches every node)."""
    terms = required_node_affinity(affinity)
    if terms is None:
        return True
    return any(_term_matches(term, node_labels) for term in terms)


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
) -> bool:
    """A pod's placement against one node (or one pool's node template): labels and taints."""
    return (
        matches_node_selector(node_selector, node_labels)
        and matches_node_affinity(affinity, node_labels)
        and tolerates(tolerations, node_taints)
    )
