"""Where a pod can run: node selectors, required node affinity and tolerations (K4, K5, B1).

The database pool is the pool with the label POOL_LABEL=DATABASE_POOL and the taint DATABASE_TAINT
(percona_mysql_k8s.core.pools); policies take both from their config, defaulting to those constants, so a
cluster that labels its pools differently can say so.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from percona_mysql_k8s.core.pools import DATABASE_POOL, DATABASE_TAINT, MONITORING_POOL, POOL_LABEL, Taint

from ..config import Setting
from .values import MISSING, Malformed, as_list, as_map, describe, join

TAINT_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")
POOL_SETTINGS = (
    Setting("database_pool_labels", "object", {POOL_LABEL: DATABASE_POOL},
            "Node labels that select the database pool (percona_mysql_k8s.core.pools).", {"type": "string"}),
    Setting("database_pool_taint", "string", f"{DATABASE_TAINT.key}={DATABASE_TAINT.value}:{DATABASE_TAINT.effect}",
            "The database pool's taint as key=value:Effect (percona_mysql_k8s.core.pools)."),
    Setting("monitoring_pool_labels", "object", {POOL_LABEL: MONITORING_POOL},
            "Node labels that select the monitoring pool (PMM server, load generators).", {"type": "string"}),
)


def parse_taint(text: str) -> Taint:
    key_value, _, effect = text.partition(":")
    key, _, value = key_value.partition("=")
    return Taint(key.strip(), value.strip(), (effect or "NoSchedule").strip())


def taint_text(taint: Taint) -> str:
    return f"{taint.key}={taint.value}:{taint.effect}"


@dataclass(frozen=True)
class Placement:
    path: str
    node_selector: Mapping[str, str] = field(default_factory=dict)
    tolerations: tuple[dict, ...] = ()
    required_terms: tuple[tuple[dict, ...], ...] = ()  # nodeSelectorTerms: OR of ANDs

    def matches(self, labels: Mapping[str, str]) -> bool:
        """Whether a node with ``labels`` satisfies the selector and the required node affinity."""
        if any(labels.get(key) != value for key, value in self.node_selector.items()):
            return False
        if not self.required_terms:
            return True
        return any(all(_expression_matches(expression, labels) for expression in term) for term in self.required_terms)

    def selects(self, labels: Mapping[str, str]) -> bool:
        """Whether the pod is pinned to nodes carrying every one of ``labels`` (selector or required affinity)."""
        if not labels:
            return False
        for key, value in labels.items():
            if self.node_selector.get(key) == value:
                continue
            if self.required_terms and all(any(_pins(e, key, value) for e in term) for term in self.required_terms):
                continue
            return False
        return True

    def tolerates(self, taint: Taint) -> bool:
        return tolerates(self.tolerations, taint)

    def describe(self) -> str:
        selector = ", ".join(f"{key}={value}" for key, value in self.node_selector.items()) or "none"
        return f"nodeSelector {{{selector}}}, {len(self.tolerations)} toleration(s)"


def _pins(expression: dict, key: str, value: str) -> bool:
    values = expression.get("values")
    return expression.get("key") == key and expression.get("operator") == "In" and isinstance(values, list) and values == [value]


def _expression_matches(expression: dict, labels: Mapping[str, str]) -> bool:
    key, operator = expression.get("key"), expression.get("operator")
    values = expression.get("values") or []
    if operator == "In":
        return labels.get(key) in values
    if operator == "NotIn":
        return labels.get(key) not in values
    if operator == "Exists":
        return key in labels
    if operator == "DoesNotExist":
        return key not in labels
    return True  # Gt/Lt on numeric labels: not used for pools; assume satisfiable


def tolerates(tolerations, taint: Taint) -> bool:
    """Kubernetes' toleration matching: Exists with no key tolerates every taint."""
    for toleration in tolerations:
        if not isinstance(toleration, dict):
            continue
        effect = toleration.get("effect") or ""
        if effect and effect != taint.effect:
            continue
        operator = toleration.get("operator") or "Equal"
        key = toleration.get("key") or ""
        if operator == "Exists" and (key == "" or key == taint.key):
            return True
        if operator == "Equal" and key == taint.key and (toleration.get("value") or "") == taint.value:
            return True
    return False


def _strings(mapping: dict, path: str) -> dict[str, str]:
    result = {}
    for key, value in mapping.items():
        if isinstance(value, bool) or not isinstance(value, str | int | float):
            raise Malformed(join(path, key), f"is {describe(value)}, not a label value")
        result[str(key)] = str(value)
    return result


def read_placement(node_selector, tolerations, affinity, path: str) -> Placement:
    selector = _strings(as_map(node_selector, join(path, "nodeSelector")), join(path, "nodeSelector"))
    toleration_list = tuple(as_list(tolerations, join(path, "tolerations")))
    for index, toleration in enumerate(toleration_list):
        if not isinstance(toleration, dict):
            raise Malformed(f"{join(path, 'tolerations')}[{index}]", f"is {describe(toleration)}, not a toleration")
    affinity_map = as_map(affinity, join(path, "affinity"))
    node_affinity = as_map(affinity_map.get("nodeAffinity", MISSING), join(path, "affinity.nodeAffinity"))
    required = as_map(node_affinity.get("requiredDuringSchedulingIgnoredDuringExecution", MISSING), path)
    terms = []
    for term in as_list(required.get("nodeSelectorTerms", MISSING), path):
        if isinstance(term, dict):
            terms.append(tuple(e for e in as_list(term.get("matchExpressions", MISSING), path) if isinstance(e, dict)))
    return Placement(path, selector, toleration_list, tuple(terms))


def pool_settings(ctx) -> tuple[dict[str, str], Taint, dict[str, str]]:
    database_labels = {str(k): str(v) for k, v in dict(ctx["database_pool_labels"]).items()}
    monitoring_labels = {str(k): str(v) for k, v in dict(ctx["monitoring_pool_labels"]).items()}
    return database_labels, parse_taint(str(ctx["database_pool_taint"])), monitoring_labels
