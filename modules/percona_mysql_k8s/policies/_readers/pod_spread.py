"""Where an operator's pods may go relative to each other: their labels, the anti-affinity and the topology spread
constraints the operator renders from a custom resource (rule K7), as the pack models them.

Read from the operators' source and compared with their renders by the operator tier
(tests/operators/render_compare.py, over the stacks, the upstream corpus and the variants):

* **labels.** PXC 1.20.0 pkg/pxc/statefulset.go ``StatefulSet``: the component's labels (pkg/naming/labels.go
  ``LabelsPXC``/``LabelsHAProxy``/``LabelsProxySQL``), then each of ``<component>.labels`` whose key they do not
  have. PS v1.2.0: ``util.SSMapMerge(cr.GlobalLabels(), <spec>.Labels, MatchLabels(cr))``, later maps winning
  (pkg/mysql, pkg/haproxy, pkg/orchestrator ``Labels``; pkg/router ``Labels`` takes the mysql spec's labels);
* **affinity.** ``affinity.advanced`` verbatim, else a required anti-affinity over the pods' selector labels
  (PXC ``PodAffinity``: ``app.Labels()``; PS ``GetAffinity(selector)``: ``MatchLabels``) on the key the operator
  settles on (operator_pods.anti_affinity_key);
* **topologySpreadConstraints.** PXC ``PodTopologySpreadConstraints``: each constraint with neither
  ``labelSelector`` nor ``matchLabelKeys`` gets the component's labels as its selector, ``maxSkew`` 0 becomes 1, an
  empty ``topologyKey`` the hostname, an empty ``whenUnsatisfiable`` ``ScheduleAnyway``. PS
  ``GetTopologySpreadConstraints(selector)``: only the selector is filled in (api/v1/perconaservermysql_types.go).

Then the zone arithmetic reads the rendered pod as kube-scheduler reads it (core.spread_fields, core.zones).
"""

from __future__ import annotations

from typing import Any

from percona_mysql_k8s.core.operator_labels import mysqld_pod_labels, proxy_pod_labels, ps_labels
from percona_mysql_k8s.core.spread_fields import FieldError, zone_placement
from percona_mysql_k8s.core.zones import ZonePlacement

from .database import Component, DatabaseView
from .operator_pods import HOSTNAME, advanced_affinity, anti_affinity_key
from .values import MISSING, Malformed, Pending, Unknown, Unrenderable, as_list, as_map, describe, join, known


def settled(value: Any, path: str) -> Any:
    """``value`` with nothing unknown at preview in it (NotKnown naming the first unknown part), as plain data."""
    if isinstance(value, Unrenderable):
        raise Malformed(path, f"cannot be judged as the chart renders it: {value.reason}")
    if isinstance(value, Unknown | Pending):
        known(value, path)
    if isinstance(value, dict):
        return {key: settled(item, join(path, key)) for key, item in value.items() if item is not MISSING}
    if isinstance(value, list):
        return [settled(item, f"{path}[{index}]") for index, item in enumerate(value)]
    return value


def _cluster_name(view: DatabaseView) -> str:
    name = view.name
    if isinstance(name, Pending):
        name.raise_error()
    return str(name)


def _user_labels(view: DatabaseView, rel: str) -> dict[str, str]:
    labels = settled(as_map(view.get(rel), view.path(rel)), view.path(rel))
    for key, value in labels.items():
        if not isinstance(value, str):
            raise Malformed(join(view.path(rel), key), f"is {describe(value)}, not a label value")
    return labels


def selector_labels(view: DatabaseView, component: Component) -> dict[str, str]:
    """The labels the operator selects the component's pods by (its StatefulSet's selector)."""
    name = _cluster_name(view)
    if component.key == "orchestrator":
        return ps_labels(name, "orchestrator", "orchestrator")
    if component.role == "mysqld":
        return mysqld_pod_labels(view.operator, name)
    return proxy_pod_labels(view.operator, name, component.key)


def pod_labels(view: DatabaseView, component: Component) -> dict[str, str]:
    """The labels of the component's pods as the operator writes them into its pod template."""
    own = selector_labels(view, component)
    if view.operator == "pxc":
        return {**_user_labels(view, f"{component.rel}.labels"), **own}
    spec = "mysql" if component.key == "router" else component.rel
    return {**_user_labels(view, "metadata.labels"), **_user_labels(view, f"{spec}.labels"), **own}


def rendered_affinity(view: DatabaseView, component: Component) -> dict[str, Any] | None:
    """The pod's ``affinity`` as the operator writes it (None: none)."""
    advanced = advanced_affinity(view, component)
    if advanced is not MISSING and advanced is not None:
        return settled(advanced, view.path(f"{component.rel}.affinity.advanced"))
    key = anti_affinity_key(view, component)
    if key is None:
        return None
    term = {"labelSelector": {"matchLabels": selector_labels(view, component)}, "topologyKey": key}
    return {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [term]}}


def rendered_spread(view: DatabaseView, component: Component) -> list[dict[str, Any]]:
    """The pod's ``topologySpreadConstraints`` as the operator writes them."""
    rel = f"{component.rel}.topologySpreadConstraints"
    path = view.path(rel)
    found = []
    for index, item in enumerate(as_list(component.raw.get("topologySpreadConstraints", MISSING), path)):
        constraint = settled(as_map(item, f"{path}[{index}]"), f"{path}[{index}]")
        if constraint.get("labelSelector") is None and constraint.get("matchLabelKeys") is None:
            constraint["labelSelector"] = {"matchLabels": selector_labels(view, component)}
        if view.operator == "pxc":
            constraint["maxSkew"] = constraint.get("maxSkew") or 1
            constraint["topologyKey"] = constraint.get("topologyKey") or HOSTNAME
            constraint["whenUnsatisfiable"] = constraint.get("whenUnsatisfiable") or "ScheduleAnyway"
        found.append(constraint)
    return found


def component_zone_placement(view: DatabaseView, component: Component) -> ZonePlacement:
    """The component's pods as kube-scheduler reads their placement (NotKnown while a part is unknown at preview,
    Malformed where a field cannot be read)."""
    spec = {"affinity": rendered_affinity(view, component), "topologySpreadConstraints": rendered_spread(view, component)}
    namespace = view.metadata.get("namespace")
    try:
        return zone_placement(spec, pod_labels(view, component), namespace if isinstance(namespace, str) else None)
    except FieldError as error:
        field = error.path.split(".", 1)
        where = f"{component.rel}.affinity.advanced" if field[0] == "affinity" else f"{component.rel}.{field[0]}"
        raise Malformed(view.path(where + (f".{field[1]}" if len(field) > 1 else "")), error.problem) from None
