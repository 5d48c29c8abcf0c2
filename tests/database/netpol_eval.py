"""A NetworkPolicy evaluator with the API's ingress semantics, to test policies by the flows they allow.

From the networking.k8s.io/v1 reference: a pod selected by no Ingress policy accepts everything; once
selected, a connection is allowed when some rule of some selecting policy matches both its source
(``from`` absent or empty = any source; a peer with only ``podSelector`` = pods of the policy's
namespace; with ``namespaceSelector`` = pods of the matching namespaces) and its port (``ports`` absent =
every port; ``endPort`` makes a range).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Pod:
    namespace: str
    labels: Mapping[str, str] = field(default_factory=dict)


def selects(selector: Mapping | None, labels: Mapping[str, str]) -> bool:
    selector = selector or {}
    if any(labels.get(key) != value for key, value in (selector.get("matchLabels") or {}).items()):
        return False
    for expression in selector.get("matchExpressions") or []:
        key, operator, values = expression["key"], expression["operator"], expression.get("values") or []
        ok = {
            "In": key in labels and labels[key] in values,
            "NotIn": key not in labels or labels[key] not in values,
            "Exists": key in labels,
            "DoesNotExist": key not in labels,
        }[operator]
        if not ok:
            return False
    return True


def _peer(peer: Mapping, source: Pod, policy_namespace: str) -> bool:
    if "namespaceSelector" in peer:
        if not selects(peer["namespaceSelector"], {"kubernetes.io/metadata.name": source.namespace}):
            return False
    elif source.namespace != policy_namespace:
        return False
    return selects(peer.get("podSelector"), source.labels) if "podSelector" in peer else True


def _port(ports: Sequence[Mapping] | None, port: int) -> bool:
    if not ports:
        return True
    return any(p.get("protocol", "TCP") == "TCP" and p["port"] <= port <= p.get("endPort", p["port"]) for p in ports)


def allowed(policies: Sequence[Mapping], source: Pod, destination: Pod, port: int) -> bool:
    selecting = [
        p
        for p in policies
        if p["metadata"]["namespace"] == destination.namespace
        and "Ingress" in p["spec"].get("policyTypes", ["Ingress"])
        and selects(p["spec"]["podSelector"], destination.labels)
    ]
    if not selecting:
        return True
    return any(
        (not rule.get("from") or any(_peer(peer, source, p["metadata"]["namespace"]) for peer in rule["from"]))
        and _port(rule.get("ports"), port)
        for p in selecting
        for rule in p["spec"].get("ingress") or []
    )
