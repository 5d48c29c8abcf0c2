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
from dataclasses import dataclass, field, replace

from percona_mysql_k8s.core.pools import DATABASE_POOL, DATABASE_TAINT, MONITORING_POOL, POOL_LABEL, Taint
from percona_mysql_k8s.core.scheduling import NODE_WIDE_LABELS, PodPlacement, PoolNodes, kubernetes_effect, required_node_affinity

from ..config import Setting
from .values import MISSING, Malformed, NotKnown, as_list, as_map, describe, join, known

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


# A toleration of every taint: what an unknown toleration may turn out to be.
_ANY_TOLERATION = {"operator": "Exists"}


@dataclass(frozen=True)
class Placement:
    """A pod's placement as read from a resource at ``path``, judged by percona_mysql_k8s.core.scheduling.

    At preview a part may be unknown (another resource's output): the selection (nodeSelector and required
    node affinity) or some tolerations. A question that needs an unknown part raises its NotKnown, and only
    that one: whether the pod is pinned needs no toleration, and a pod that a known toleration already lets
    onto a tainted pool tolerates it whatever the unknown ones are (tolerations only ever widen where a pod
    may land)."""

    path: str
    pod: PodPlacement = field(default_factory=PodPlacement)
    unknown_selection: NotKnown | None = None
    unknown_tolerations: NotKnown | None = None

    def _selection(self) -> None:
        if self.unknown_selection is not None:
            error = self.unknown_selection
            raise NotKnown(error.path, error.sentinel, error.subject)

    def _undecided_tolerations(self) -> None:
        if self.unknown_tolerations is not None:
            error = self.unknown_tolerations
            raise NotKnown(error.path, error.sentinel, error.subject)

    @property
    def node_selector(self) -> Mapping[str, str]:
        self._selection()
        return self.pod.node_selector

    @property
    def tolerations(self) -> tuple[dict, ...]:
        self._undecided_tolerations()
        return tuple(self.pod.tolerations)

    def can_land_on(self, nodes: PoolNodes) -> bool:
        self._selection()
        if self.pod.can_land_on(nodes):
            return True
        if self.unknown_tolerations is not None and nodes.taints:
            widest = replace(self.pod, tolerations=(*self.pod.tolerations, _ANY_TOLERATION))
            if widest.can_land_on(nodes):
                self._undecided_tolerations()
        return False

    def selects(self, labels: Mapping[str, str]) -> bool:
        """Whether the pod is pinned to nodes carrying every one of ``labels`` (selector or required affinity)."""
        self._selection()
        return self.pod.requires(labels)

    def pinned(self) -> bool:
        """Whether the pod is pinned to some pool, by any label that is not node-wide (K4, B1)."""
        self._selection()
        return self.pod.pinned()

    def tolerates(self, taint: Taint) -> bool:
        if self.pod.tolerates(taint.as_k8s()):
            return True
        self._undecided_tolerations()
        return False

    def tolerates_a_dedicated_taint(self) -> bool:
        if self.pod.tolerates_a_dedicated_taint():
            return True
        self._undecided_tolerations()
        return False

    def describe(self) -> str:
        if self.unknown_selection is not None:
            selection = f"nodeSelector {self.unknown_selection.placeholder()}"
        else:
            selector = ", ".join(f"{key}={value}" for key, value in self.pod.node_selector.items()) or "none"
            terms = required_node_affinity(self.pod.affinity)
            affinity = f", {len(terms)} required node affinity term(s)" if terms else ""
            selection = f"nodeSelector {{{selector}}}{affinity}"
        count = self.unknown_tolerations.placeholder() if self.unknown_tolerations else str(len(self.pod.tolerations))
        return f"{selection}, {count} toleration(s)"


def _strings(mapping: dict, path: str) -> dict[str, str]:
    result = {}
    for key, value in mapping.items():
        known(value, join(path, key))
        if isinstance(value, bool) or not isinstance(value, str | int | float):
            raise Malformed(join(path, key), f"is {describe(value)}, not a label value")
        result[str(key)] = str(value)
    return result


def _fields_are_strings(item: dict, keys: tuple[str, ...], path: str) -> None:
    for key in keys:
        value = known(item.get(key), join(path, key))
        if value is not None and not isinstance(value, str):
            raise Malformed(join(path, key), f"is {describe(value)}, not a string")


def _selection(node_selector, affinity, path: str, affinity_path: str) -> tuple[dict[str, str], dict | None]:
    """The nodeSelector and the required node affinity (NotKnown when any of it is unknown at preview)."""
    selector = _strings(as_map(node_selector, join(path, "nodeSelector")), join(path, "nodeSelector"))
    affinity_map = as_map(affinity, affinity_path)
    node_affinity = as_map(affinity_map.get("nodeAffinity", MISSING), join(affinity_path, "nodeAffinity"))
    required_path = join(join(affinity_path, "nodeAffinity"), "requiredDuringSchedulingIgnoredDuringExecution")
    required = as_map(node_affinity.get("requiredDuringSchedulingIgnoredDuringExecution", MISSING), required_path)
    if not required:
        return selector, None
    terms = []
    for index, term in enumerate(as_list(required.get("nodeSelectorTerms", MISSING), join(required_path, "nodeSelectorTerms"))):
        term_path = f"{join(required_path, 'nodeSelectorTerms')}[{index}]"
        term = as_map(term, term_path)
        expressions = as_list(term.get("matchExpressions", MISSING), join(term_path, "matchExpressions"))
        for number, expression in enumerate(expressions):
            where = f"{join(term_path, 'matchExpressions')}[{number}]"
            if not isinstance(known(expression, where), dict):
                raise Malformed(where, f"is {describe(expression)}, not an expression")
            _fields_are_strings(expression, ("key", "operator"), where)
            for item_index, item in enumerate(as_list(expression.get("values", MISSING), join(where, "values"))):
                known(item, f"{join(where, 'values')}[{item_index}]")
                if isinstance(item, bool) or not isinstance(item, str | int | float):
                    raise Malformed(f"{join(where, 'values')}[{item_index}]", f"is {describe(item)}, not a label value")
        match_fields = known(term.get("matchFields"), join(term_path, "matchFields"))
        terms.append({"matchExpressions": expressions, "matchFields": match_fields or []})
    return selector, {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": terms}}}


def _tolerations(tolerations, path: str) -> tuple[tuple[dict, ...], NotKnown | None]:
    """The tolerations that are known, and the first unknown one's NotKnown (None when all are known)."""
    found, unknown = [], None
    for index, toleration in enumerate(as_list(tolerations, join(path, "tolerations"))):
        where = f"{join(path, 'tolerations')}[{index}]"
        try:
            if not isinstance(known(toleration, where), dict):
                raise Malformed(where, f"is {describe(toleration)}, not a toleration")
            _fields_are_strings(toleration, ("key", "operator", "value", "effect"), where)
        except NotKnown as error:
            unknown = unknown or error
            continue
        found.append(toleration)
    return tuple(found), unknown


def read_placement(node_selector, tolerations, affinity, path: str, affinity_path: str | None = None) -> Placement:
    """A pod's placement; a part unknown at preview is kept apart (NotKnown only for the questions it decides).
    The tolerations list itself unknown leaves every toleration unknown. ``affinity_path`` names ``affinity``
    (default ``<path>.affinity``; the operators' ``affinity.advanced``)."""
    unknown_selection = unknown_tolerations = None
    try:
        selector, required_affinity = _selection(node_selector, affinity, path, affinity_path or join(path, "affinity"))
    except NotKnown as error:
        selector, required_affinity, unknown_selection = {}, None, error
    try:
        toleration_list, unknown_tolerations = _tolerations(tolerations, path)
    except NotKnown as error:
        toleration_list, unknown_tolerations = (), error
    return Placement(path, PodPlacement(selector, required_affinity, toleration_list), unknown_selection, unknown_tolerations)


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
