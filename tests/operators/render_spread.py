"""The pack's model of where an operator's pods go relative to each other, compared with the real render (K7).

Beside render_compare's fields (containers, QoS, nodeSelector, tolerations, the generated anti-affinity's key), four
more, from policies/_readers/pod_spread.py against the StatefulSet's pod template: the pod template's labels, the
whole ``affinity`` (the generated term's label selector included), the ``topologySpreadConstraints`` with the
operator's defaults filled in, and the zone arithmetic's reading of both sides (core.spread_fields), which must be
the same placement.
"""

from __future__ import annotations

from typing import Any

from percona_mysql_k8s.core.spread_fields import zone_placement
from percona_mysql_k8s.policies._readers.database import database_view
from percona_mysql_k8s.policies._readers.operator_pods import PodModel
from percona_mysql_k8s.policies._readers.pod_spread import (
    component_zone_placement,
    pod_labels,
    rendered_affinity,
    rendered_spread,
)
from render_compare import PodComparison


def _clean(value: Any) -> Any:
    if isinstance(value, dict):
        cleaned = {key: _clean(item) for key, item in value.items()}
        return {key: item for key, item in cleaned.items() if item not in (None, {}, [])}
    if isinstance(value, list):
        return [_clean(item) for item in value]
    return value


def compare_spread(cr: dict[str, Any], model: PodModel, template: dict[str, Any], statefulset: str) -> PodComparison:
    """The pod template's labels, affinity and spread constraints against the pack's model of them."""
    result = PodComparison(statefulset)
    view = database_view(f"kubernetes:{cr['apiVersion']}:{cr['kind']}", cr, cr["metadata"]["name"])
    component = model.component
    labels = (template.get("metadata") or {}).get("labels") or {}
    spec = template.get("spec") or {}
    result.check("pod template labels", pod_labels(view, component), labels)
    result.check("affinity (whole)", _clean(rendered_affinity(view, component) or {}), _clean(spec.get("affinity") or {}))
    result.check(
        "topologySpreadConstraints",
        _clean(rendered_spread(view, component)),
        _clean(spec.get("topologySpreadConstraints") or []),
    )
    result.check(
        "zone placement as kube-scheduler reads it (K7)",
        component_zone_placement(view, component),
        zone_placement(spec, labels, cr["metadata"].get("namespace")),
    )
    return result
