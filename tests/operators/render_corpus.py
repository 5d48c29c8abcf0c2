"""The differential corpus: custom resources the pack's model of the operators is compared on, one real render each.

Three sources, every item its own cluster in a namespace of its source (all watched by the one operator process):

* **upstream**: the operators' own ``deploy/cr.yaml`` (from the source the binaries were built from) and every
  custom resource of ``upstream-corpus.json`` (the Percona projects' deploy examples and e2e CRs, reference
  material: scripts/fetch-reference.sh). Renamed ``u<n>`` (an e2e CR's placeholder ``crVersion`` 9.9.9 becomes the
  operator's own version, as the e2e scripts substitute it); the validation-hook CRs written to be refused are left
  out (the operator refuses them, so there is no render to compare);
* **variants**: the stacks' own custom resources (``gke`` with PXC, ``eks`` with group replication, from the stack
  program) changed in one place each (and the zone tests' grid of placements, zone_scenarios.zone_grid), the ways a user's CR differs: sidecars without limits or without resources,
  the log collector off or without resources, PMM off, ProxySQL instead of HAProxy, an init container budget,
  async replication with the orchestrator and pt-heartbeat, and other spellings of placement (advanced affinity,
  other topology keys, ``none`` and its misspellings, a toleration of every taint). A variant's pods select a pool no
  Node carries (``mysql.percona.com/pool: differential``), so they never take a stack's Nodes;
* the **stack cases** themselves (test_operator_stacks.py compares their renders the same way).

Where PMM is on, the item's Secret carries a PMM 3 token (the operators build pmm-client only then: docs/operators.md).
"""

from __future__ import annotations

import base64
import copy
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from operator_inputs import GROUP_REPLICATION, PXC, StackCase, custom_resource, wire

CORPUS_ITEM = "upstream-corpus.json"
NAMESPACES = {
    ("pxc", "upstream"): "dx-pxc-upstream",
    ("ps", "upstream"): "dx-ps-upstream",
    ("pxc", "variants"): "dx-pxc-variants",
    ("ps", "variants"): "dx-ps-variants",
}
OPERATOR_VERSION = {"pxc": "1.20.0", "ps": "1.2.0"}
# Written to be refused (e2e-tests/validation-hook: an invalid version, no storage, a name too long, both proxies).
REFUSED = ("pxc-op:e2e-tests/validation-hook/",)
NOWHERE = {"mysql.percona.com/pool": "differential"}  # a pool no Node of the tier carries


@dataclass(frozen=True)
class CorpusItem:
    id: str
    operator: str  # pxc | ps
    source: str  # upstream | variants
    body: dict[str, Any]  # the custom resource, named and namespaced for the tier
    secret: dict[str, Any] | None  # its spec.secretsName Secret when the tier provides one (PMM on)

    @property
    def namespace(self) -> str:
        return self.body["metadata"]["namespace"]

    @property
    def name(self) -> str:
        return self.body["metadata"]["name"]


def _pmm_secret(body: dict[str, Any]) -> dict[str, Any] | None:
    """The Secret ``spec.secretsName`` names, holding a PMM 3 token, when PMM is on: the rest the operator generates."""
    spec = body["spec"]
    if not (spec.get("pmm") or {}).get("enabled"):
        return None
    name = spec.get("secretsName") or f"{body['metadata']['name']}-secrets"
    spec["secretsName"] = name
    token = base64.b64encode(f"differential-{body['metadata']['name']}".encode()).decode()
    return {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {"name": name, "namespace": body["metadata"]["namespace"]},
        "data": {"pmmservertoken": token},
    }


def _item(item_id: str, operator: str, source: str, name: str, body: dict[str, Any]) -> CorpusItem:
    # null props are values the corpus could not know (e2e script expressions): the provider sends none of them
    body = wire(copy.deepcopy(body))
    metadata = body.setdefault("metadata", {})
    metadata.update(name=name, namespace=NAMESPACES[(operator, source)])
    metadata.pop("finalizers", None)  # deletion only; the render does not read them
    spec = body.setdefault("spec", {})
    if spec.get("crVersion") == "9.9.9":  # the e2e scripts' placeholder for the operator's version
        spec["crVersion"] = OPERATOR_VERSION[operator]
    if spec.get("secretsName") and (spec.get("pmm") or {}).get("enabled"):
        spec["secretsName"] = f"{name}-secrets"  # one Secret per item: a PMM token must not leak into another
    return CorpusItem(item_id, operator, source, body, _pmm_secret(body))


def upstream_items(sources: dict[str, Path], corpus: Path | None) -> list[CorpusItem]:
    items = []
    for operator in ("pxc", "ps"):
        body = yaml.safe_load((sources[operator] / "deploy" / "cr.yaml").read_text())
        items.append(_item(f"{operator}-operator source deploy/cr.yaml", operator, "upstream", f"u{operator}", body))
    if corpus is not None:
        entries = json.loads(corpus.read_text())["entries"]
        for index, entry in enumerate(entries):
            operator = {"pxc-op": "pxc", "ps-op": "ps"}.get(entry["repo"])
            if operator is None or "apiVersion" not in entry["props"] or entry["id"].startswith(REFUSED):
                continue
            items.append(_item(entry["id"], operator, "upstream", f"u{index:03d}", entry["props"]))
    return items


# ---------------------------------------------------------------------------------------------------------
# variants of the stacks' own custom resources


def _component(spec: dict[str, Any], key: str) -> dict[str, Any]:
    if key in ("haproxy", "router") and "proxy" in spec:
        return spec["proxy"][key]
    return spec[key]


def _pinned_nowhere(spec: dict[str, Any]) -> None:
    for key in ("pxc", "haproxy", "proxysql", "mysql", "orchestrator"):
        if key in spec and isinstance(spec[key], dict):
            spec[key]["nodeSelector"] = dict(NOWHERE)
    for key in ("haproxy", "router"):
        if isinstance((spec.get("proxy") or {}).get(key), dict):
            spec["proxy"][key]["nodeSelector"] = dict(NOWHERE)


def _set(path: str, value: Any) -> Callable[[dict], None]:
    def change(spec: dict) -> None:
        *parents, last = path.split(".")
        node = spec
        for part in parents:
            node = node.setdefault(part, {})
        node[last] = copy.deepcopy(value)

    return change


def _drop(path: str) -> Callable[[dict], None]:
    def change(spec: dict) -> None:
        *parents, last = path.split(".")
        node = spec
        for part in parents:
            node = node[part]
        node.pop(last, None)

    return change


SIDECAR = {"name": "extra", "image": "busybox:1.37", "command": ["sleep", "infinity"]}
REQUESTS_ONLY = {"requests": {"cpu": "100m", "memory": "64Mi"}}
EXACT = {"requests": {"cpu": "150m", "memory": "96Mi"}, "limits": {"cpu": "150m", "memory": "96Mi"}}
NODE_AFFINITY = {
    "nodeAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [
                {"matchExpressions": [{"key": "mysql.percona.com/pool", "operator": "In", "values": ["differential"]}]}
            ]
        }
    }
}
EVERY_TAINT = [{"operator": "Exists"}]
ZONE = "topology.kubernetes.io/zone"
ZONE_SPREAD = {"maxSkew": 1, "topologyKey": ZONE, "whenUnsatisfiable": "DoNotSchedule", "minDomains": 3}
UNFILLED_SPREAD = {"maxSkew": 0, "topologyKey": "", "whenUnsatisfiable": ""}  # PXC fills in 1, the hostname, ScheduleAnyway
OWN_SELECTOR_SPREAD = {
    **ZONE_SPREAD,
    "labelSelector": {"matchExpressions": [{"key": "app.kubernetes.io/component", "operator": "In", "values": ["haproxy"]}]},
}
# a user's label beside the operator's, and one the operator's own overrides (PXC) or overrides (PS: later maps win)
USER_LABELS = {"team": "db", "app.kubernetes.io/component": "mine"}

# (id, the stack case whose CR it changes, extra stack config for that CR, the changes)
PXC_VARIANTS: list[tuple[str, dict[str, Any], list[Callable[[dict], None]]]] = [
    ("as the stack renders it", {}, []),
    ("log collector off", {}, [_set("logcollector.enabled", False)]),
    ("log collector without resources", {}, [_drop("logcollector.resources")]),
    ("PMM off", {}, [_set("pmm.enabled", False)]),
    ("ProxySQL instead of HAProxy", {"proxy": "proxysql"}, []),
    ("ProxySQL without its scheduler", {"proxy": "proxysql"}, [_set("proxysql.scheduler", {"enabled": False})]),
    ("a sidecar without limits", {}, [_set("pxc.sidecars", [{**SIDECAR, "resources": REQUESTS_ONLY}])]),
    ("a sidecar without resources", {}, [_set("haproxy.sidecars", [SIDECAR])]),
    ("monitor sidecar without resources", {}, [_drop("haproxy.sidecarResources")]),
    ("init container budget", {}, [_set("initContainer.resources", EXACT)]),
    ("init container requests only", {}, [_set("initContainer.resources", REQUESTS_ONLY)]),
    ("mysqld requests only", {}, [_set("pxc.resources", REQUESTS_ONLY)]),
    ("advanced affinity", {}, [_set("pxc.affinity", {"advanced": NODE_AFFINITY})]),
    ("zone anti-affinity", {}, [_set("pxc.affinity", {"antiAffinityTopologyKey": "topology.kubernetes.io/zone"})]),
    (
        "anti-affinity none",
        {},
        [
            _set("pxc.affinity", {"antiAffinityTopologyKey": "none"}),
            _set("haproxy.affinity", {"antiAffinityTopologyKey": "None"}),
        ],
    ),
    ("anti-affinity on an unknown key", {}, [_set("pxc.affinity", {"antiAffinityTopologyKey": "example.com/rack"})]),
    ("no affinity block", {}, [_drop("pxc.affinity"), _drop("haproxy.affinity")]),
    ("tolerates every taint", {}, [_set("pxc.tolerations", EVERY_TAINT)]),
    # K7: the spread constraints as the operator fills them in, and labels of the user's beside the operator's
    ("topology spread left to the operator's defaults", {}, [_set("pxc.topologySpreadConstraints", [UNFILLED_SPREAD])]),
    ("topology spread with its own selector", {}, [_set("haproxy.topologySpreadConstraints", [OWN_SELECTOR_SPREAD])]),
    ("pod labels of the user's", {}, [_set("pxc.labels", USER_LABELS)]),
]
PS_VARIANTS: list[tuple[str, dict[str, Any], list[Callable[[dict], None]]]] = [
    ("as the stack renders it", {}, []),
    ("PMM off", {}, [_set("pmm.enabled", False)]),
    ("backups on: the xtrabackup sidecar", {}, [_set("backup.enabled", True), _set("backup.resources", EXACT)]),
    ("a sidecar without limits", {}, [_set("mysql.sidecars", [{**SIDECAR, "resources": REQUESTS_ONLY}])]),
    (
        "two sidecars of one name",
        {},
        [_set("mysql.sidecars", [{**SIDECAR, "resources": EXACT}, {**SIDECAR, "resources": REQUESTS_ONLY}])],
    ),
    ("init container budget", {}, [_set("initContainer.resources", EXACT)]),
    (
        "mysql init container budget",
        {},
        [_set("initContainer.resources", EXACT), _set("mysql.initContainer", {"resources": REQUESTS_ONLY})],
    ),
    (
        "async with the orchestrator and pt-heartbeat",
        {},
        [
            _set("mysql.clusterType", "async"),
            _set("orchestrator.enabled", True),
            _set("orchestrator.resources", EXACT),
            _set("toolkit", {"image": "percona/percona-toolkit:3.7.0", "resources": EXACT}),
        ],
    ),
    (
        "async, pt-heartbeat without resources",
        {},
        [
            _set("mysql.clusterType", "async"),
            _set("orchestrator.enabled", True),
            _set("orchestrator.resources", EXACT),
            _set("toolkit", {"image": "percona/percona-toolkit:3.7.0"}),
        ],
    ),
    ("advanced affinity", {}, [_set("mysql.affinity", {"advanced": NODE_AFFINITY})]),
    ("zone anti-affinity", {}, [_set("mysql.affinity", {"antiAffinityTopologyKey": "topology.kubernetes.io/zone"})]),
    ("anti-affinity None", {}, [_set("mysql.affinity", {"antiAffinityTopologyKey": "None"})]),
    ("tolerates every taint", {}, [_set("mysql.tolerations", EVERY_TAINT)]),
    ("topology spread over the zones", {}, [_set("mysql.topologySpreadConstraints", [ZONE_SPREAD])]),
    (
        "pod labels of the user's and the cluster's",
        {},
        [_set("mysql.labels", USER_LABELS), _set("metadata", {"labels": {"env": "production", "team": "web"}})],
    ),
]
VARIANT_BASES = {"pxc": StackCase("gke", PXC), "ps": StackCase("eks", GROUP_REPLICATION)}


def _stack_cr(case: StackCase, extra: dict[str, Any]) -> dict[str, Any]:
    return custom_resource(case.objects(extra))


def variant_items() -> list[CorpusItem]:
    items = []
    for operator, variants in (("pxc", PXC_VARIANTS), ("ps", PS_VARIANTS)):
        case = VARIANT_BASES[operator]
        for index, (label, extra, changes) in enumerate(variants):
            body = _stack_cr(case, extra)
            spec = body["spec"]
            _pinned_nowhere(spec)
            for change in changes:
                change(spec)
            items.append(_item(f"{case.id} CR: {label}", operator, "variants", f"v{operator}{index:02d}", body))
    return items + zone_items()


def zone_items() -> list[CorpusItem]:
    """The zone tests' grid (zone_scenarios.zone_grid): the stacks' custom resources changed in their placement only,
    rendered here with the other variants and compared the same way; test_operator_zones places their pods."""
    from zone_scenarios import zone_grid

    items = []
    for entry in zone_grid():
        body = _stack_cr(VARIANT_BASES[entry.operator], {})
        spec = body["spec"]
        _pinned_nowhere(spec)
        for path, value in entry.changes.items():
            (_drop(path) if value is None else _set(path, value))(spec)
        items.append(
            _item(f"{VARIANT_BASES[entry.operator].id} CR: zones, {entry.label}", entry.operator, "variants", entry.name, body)
        )
    return items


def corpus(sources: dict[str, Path], upstream: Path | None) -> list[CorpusItem]:
    return upstream_items(sources, upstream) + variant_items()


def corpus_namespaces(sources: dict[str, Path]) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {"pxc": [], "ps": []}
    for (operator, _), namespace in NAMESPACES.items():
        found[operator].append(namespace)
    return found
