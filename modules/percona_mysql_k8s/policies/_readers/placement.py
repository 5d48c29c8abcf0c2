"""Where a pod can run: node selectors, required node affinity and tolerations (K4, K5, B1).

Read once here (with the offending path named on bad input) and judged by
:mod:`percona_mysql_k8s.core.scheduling`, the reader the components place their pods with: the checks of one
resource judge it against the configured pools (:func:`configured_pools`) with the same matcher the stack
checks use against the pools a stack declares (required terms ORed, expressions ANDed, In/Exists over
several pools, the node-condition tolerations every pod has matching no pool's taint). Against a
stack's pools, the database pool is the pool the database pods can land on; with no pools in sight it
is recognised by the configured labels and taint, defaulting to POOL_LABEL=DATABASE_POOL and
DATABASE_TAINT (percona_mysql_k8s.core.pools).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from percona_mysql_k8s.core.pools import DATABASE_POOL, DATABASE_TAINT, MONITORING_POOL, POOL_LABEL, Taint
from percona_mysql_k8s.core.scheduling import NODE_WIDE_LABELS, PodPlacement, PoolNodes, kubernetes_effect, required_node_affinity

from ..config import Setting
from .values import MISSING, Malformed, as_list, as_map, describe, join

POOL_SETTINGS = (
    Setting(
        "database_pool_labels",
        "object",
        {POOL_LABEL: DATABASE_POOL},
        "Node labels that select the database pool (percona_mysql_k8s.core.pools).",
        {"type": "string"},
    ),
    Setting(
        "database_pool_taint",
        "string",
        f"{DATABASE_TAINT.key}={DATABASE_TAINT.value}:{DATABASE_TAINT.effect}",
        "The database pool's taint as key=value:Effect (percona_mysql_k8s.core.pools).",
    ),
    Setting(
        "monitoring_pool_labels",
        "object",
        {POOL_LABEL: MONITORING_POOL},
        "Node labels that select the monitoring pool (PMM server, load generators).",
        {"type": "string"},
    ),
)


def parse_taint(text: str) -> Taint:
    key_value, _, effect = text.partition(":")
    key, _, value = key_value.partition("=")
    effect = (effect or "NoSchedule").strip()
    return Taint(key.strip(), value.strip(), kubernetes_effect(effect) or effect)  # NO_SCHEDULE as the clouds spell it


def taint_text(taint: Taint) -> str:
    return f"{taint.key}={taint.value}:{taint.effect}"


@dataclass(frozen=True)
class Placement:
    """A pod's placement as read from a resource at ``path``, judged by percona_mysql_k8s.core.scheduling."""

    path: str
    pod: PodPlacement = field(default_factory=PodPlacement)

    @property
    def node_selector(self) -> Mapping[str, str]:
        return self.pod.node_selector

    @property
    def tolerations(self) -> tuple[dict, ...]:
        return tuple(self.pod.tolerations)

    def can_land_on(self, nodes: PoolNodes) -> bool:
        return self.pod.can_land_on(nodes)

    def selects(self, labels: Mapping[str, str]) -> bool:
        """Whether the pod is pinned to nodes carrying every one of ``labels`` (selector or required affinity)."""
        return self.pod.requires(labels)

    def pinned(self) -> bool:
        """Whether the pod is pinned to some pool, by any label that is not node-wide (K4, B1)."""
        return self.pod.pinned()

    def tolerates(self, taint: Taint) -> bool:
        return self.pod.tolerates(taint.as_k8s())

    def describe(self) -> str:
        selector = ", ".join(f"{key}={value}" for key, value in self.node_selector.items()) or "none"
        terms = required_node_affinity(self.pod.affinity)
        affinity = f", {len(terms)} required node affinity term(s)" if terms else ""
        return f"nodeSelector {{{selector}}}{affinity}, {len(self.pod.tolerations)} toleration(s)"


def _strings(mapping: dict, path: str) -> dict[str, str]:
    result = {}
    for key, value in mapping.items():
        if isinstance(value, bool) or not isinstance(value, str | int | float):
            raise Malformed(join(path, key), f"is {describe(value)}, not a label value")
        result[str(key)] = str(value)
    return result


def _fields_are_strings(item: dict, keys: tuple[str, ...], path: str) -> None:
    for key in keys:
        value = item.get(key)
        if value is not None and not isinstance(value, str):
            raise Malformed(join(path, key), f"is {describe(value)}, not a string")


def read_placement(node_selector, tolerations, affinity, path: str) -> Placement:
    selector = _strings(as_map(node_selector, join(path, "nodeSelector")), join(path, "nodeSelector"))
    toleration_list = tuple(as_list(tolerations, join(path, "tolerations")))
    for index, toleration in enumerate(toleration_list):
        where = f"{join(path, 'tolerations')}[{index}]"
        if not isinstance(toleration, dict):
            raise Malformed(where, f"is {describe(toleration)}, not a toleration")
        _fields_are_strings(toleration, ("key", "operator", "value", "effect"), where)
    affinity_path = join(path, "affinity")
    affinity_map = as_map(affinity, affinity_path)
    node_affinity = as_map(affinity_map.get("nodeAffinity", MISSING), join(affinity_path, "nodeAffinity"))
    required_path = join(join(affinity_path, "nodeAffinity"), "requiredDuringSchedulingIgnoredDuringExecution")
    required = as_map(node_affinity.get("requiredDuringSchedulingIgnoredDuringExecution", MISSING), required_path)
    required_affinity = None
    if required:
        terms = []
        for index, term in enumerate(
            as_list(required.get("nodeSelectorTerms", MISSING), join(required_path, "nodeSelectorTerms"))
        ):
            term_path = f"{join(required_path, 'nodeSelectorTerms')}[{index}]"
            term = as_map(term, term_path)
            expressions = as_list(term.get("matchExpressions", MISSING), join(term_path, "matchExpressions"))
            for number, expression in enumerate(expressions):
                where = f"{join(term_path, 'matchExpressions')}[{number}]"
                if not isinstance(expression, dict):
                    raise Malformed(where, f"is {describe(expression)}, not an expression")
                _fields_are_strings(expression, ("key", "operator"), where)
                for item_index, item in enumerate(as_list(expression.get("values", MISSING), join(where, "values"))):
                    if isinstance(item, bool) or not isinstance(item, str | int | float):
                        raise Malformed(f"{join(where, 'values')}[{item_index}]", f"is {describe(item)}, not a label value")
            terms.append({"matchExpressions": expressions, "matchFields": term.get("matchFields") or []})
        required_affinity = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": terms}}}
    return Placement(path, PodPlacement(selector, required_affinity, toleration_list))


def configured_pools(db_labels: Mapping[str, str], taint: Taint, mon_labels: Mapping[str, str]) -> tuple[PoolNodes, PoolNodes]:
    """The database and monitoring pools as the configuration describes them (their own labels, the database
    taint), for the checks that see one resource and no pools: judged by the same matcher as real pools,
    with the node-wide labels (os, arch, zone...) unknown, so a requirement on them may match."""
    database = PoolNodes("the database pool", dict(db_labels), (taint.as_k8s(),), NODE_WIDE_LABELS)
    monitoring = PoolNodes("the monitoring pool", dict(mon_labels), (), NODE_WIDE_LABELS)
    return database, monitoring


def labels_text(labels: Mapping[str, str]) -> str:
    """Labels as a message writes a nodeSelector: ``{key: value, ...}``."""
    return "{" + ", ".join(f"{key}: {value}" for key, value in labels.items()) + "}"


CAN_RUN_ON_DATABASE_POOL = "can run on the database pool"
PINNED_TO_NO_POOL = "is pinned to no pool"


@dataclass(frozen=True)
class OffPool:
    """Why a pod that belongs on the monitoring pool is not kept off the database pool; reads as the reason."""

    reason: str  # CAN_RUN_ON_DATABASE_POOL or PINNED_TO_NO_POOL

    @property
    def on_database_pool(self) -> bool:
        """It can run on the database pool (rather than only being pinned to no pool)."""
        return self.reason == CAN_RUN_ON_DATABASE_POOL

    def __str__(self) -> str:
        return self.reason


def off_the_monitoring_pool(
    placement: Placement, db_labels: Mapping[str, str], taint: Taint, mon_labels: Mapping[str, str]
) -> OffPool | None:
    """Why a pod that belongs on the monitoring pool (the PMM server, a load generator) is not kept off the
    configured database pool: it can run there (selects it or tolerates its taint), or it is pinned to no pool
    at all; None when it is kept off."""
    database_pool, _ = configured_pools(db_labels, taint, mon_labels)
    if placement.can_land_on(database_pool) or placement.tolerates(taint):
        return OffPool(CAN_RUN_ON_DATABASE_POOL)
    return None if placement.pinned() else OffPool(PINNED_TO_NO_POOL)


def pool_settings(ctx) -> tuple[dict[str, str], Taint, dict[str, str]]:
    database_labels = {str(k): str(v) for k, v in dict(ctx["database_pool_labels"]).items()}
    monitoring_labels = {str(k): str(v) for k, v in dict(ctx["monitoring_pool_labels"]).items()}
    return database_labels, parse_taint(str(ctx["database_pool_taint"])), monitoring_labels
