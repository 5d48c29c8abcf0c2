"""The pack's model of what an operator renders, compared field by field with what the real operator rendered.

The pack's side is ``percona_mysql_k8s.policies._readers.operator_pods`` over the custom resource as registered
(``database_view``): the pod types, each one's containers and init containers with their requests and limits, the
pod's QoS class, its nodeSelector, tolerations and affinity; and ``memory.operator_auto_config``, the options the operator
auto-tunes into its ConfigMap (the buffer pool and max_connections the memory model then runs with). The operator's side is read back from the cluster: each
StatefulSet's pod template as the operator wrote it, and the QoS class the API server gave its first pod. Quantities on
both sides go through the core's one quantity reader (percona_mysql_k8s.core.units).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from percona_mysql_k8s.core.mycnf import parse
from percona_mysql_k8s.core.units import Schema, cpu_to_millicores, memory_to_bytes
from percona_mysql_k8s.policies._readers.database import database_view
from percona_mysql_k8s.policies._readers.memory import operator_auto_config
from percona_mysql_k8s.policies._readers.operator_pods import PodModel, pod_models
from percona_mysql_k8s.policies._readers.values import MISSING, Malformed, plain

# The StatefulSet of each pod type (PXC pkg/pxc/app/statefulset: <cluster>-pxc|haproxy|proxysql; PS pkg/mysql,
# pkg/orchestrator, pkg/haproxy, pkg/router: <cluster>-mysql|orc|haproxy|router).
STATEFULSET_SUFFIX = {
    "pxc": "pxc",
    "haproxy": "haproxy",
    "proxysql": "proxysql",
    "mysql": "mysql",
    "orchestrator": "orc",
    "router": "router",
}
# PS: HAProxy and Router wait for mysql-0 to be Ready, which it never is here (docs/operators.md); HAProxy does not
# wait on a paused cluster (pkg/controller/ps/controller.go reconcileHAProxy: ``!firstMySQLPodReady && !cr.Spec.Pause``),
# which the exact comparison of the rendered set found (e2e recreate/03-pause).
NOT_RENDERED_HERE = {("ps", "haproxy"), ("ps", "router")}
RENDERED_WHEN_PAUSED = {("ps", "haproxy")}


def amounts(resources: dict[str, Any] | None, schema: Schema = Schema.BUILTIN) -> tuple[int | None, ...]:
    """(cpu request, cpu limit, memory request, memory limit) of a ``resources`` block."""
    resources = resources or {}
    requests, limits = resources.get("requests") or {}, resources.get("limits") or {}

    def read(block: dict[str, Any], name: str, parse) -> int | None:
        return parse(block[name], schema) if block.get(name) is not None else None

    return (
        read(requests, "cpu", cpu_to_millicores),
        read(limits, "cpu", cpu_to_millicores),
        read(requests, "memory", memory_to_bytes),
        read(limits, "memory", memory_to_bytes),
    )


def _model_amounts(container) -> tuple[int | None, ...]:
    r = container.resources()
    return (r.cpu_request, r.cpu_limit, r.memory_request, r.memory_limit)


def _clean(value: Any) -> Any:
    """An object as the API server returns it, for comparing: empty and null fields left out."""
    if isinstance(value, dict):
        cleaned = {key: _clean(item) for key, item in value.items()}
        return {key: item for key, item in cleaned.items() if item not in (None, {}, [])}
    if isinstance(value, list):
        return [_clean(item) for item in value]
    return value


@dataclass
class PodComparison:
    statefulset: str
    differences: list[str] = field(default_factory=list)
    compared: list[str] = field(default_factory=list)

    def check(self, what: str, pack: Any, operator: Any) -> None:
        self.compared.append(what)
        if pack != operator:
            self.differences.append(f"{self.statefulset}: {what}: the pack says {pack!r}, the operator rendered {operator!r}")


def compare_pod(model: PodModel, template: dict[str, Any], qos_class: str | None, statefulset: str) -> PodComparison:
    result = PodComparison(statefulset)
    spec = template.get("spec") or {}
    for kind, modeled, rendered in (
        ("container", model.containers, spec.get("containers") or []),
        ("init container", model.init_containers, spec.get("initContainers") or []),
    ):
        result.check(f"{kind}s", sorted(c.name for c in modeled), sorted(c["name"] for c in rendered))
        by_name = {c["name"]: c for c in rendered}
        for container in modeled:
            if container.name in by_name:
                result.check(
                    f"{kind} {container.name} requests/limits (cpu m, cpu m, memory B, memory B)",
                    _model_amounts(container),
                    amounts(by_name[container.name].get("resources")),
                )
    if qos_class is not None:
        result.check("QoS class of its pod", model.qos_class(), qos_class)
    result.check("nodeSelector", {k: str(v) for k, v in model.placement.node_selector.items()}, spec.get("nodeSelector") or {})
    result.check("tolerations", _clean([dict(t) for t in model.placement.tolerations]), _clean(spec.get("tolerations") or []))
    affinity = _clean(spec.get("affinity") or {})
    if model.advanced_affinity is not MISSING and model.advanced_affinity is not None:
        result.check("affinity (advanced, verbatim)", _clean(plain(model.advanced_affinity)), affinity)
    else:
        labels = (template.get("metadata") or {}).get("labels") or {}
        terms = ((affinity.get("podAntiAffinity") or {}).get("requiredDuringSchedulingIgnoredDuringExecution")) or []
        own = [
            t["topologyKey"]
            for t in terms
            if set(((t.get("labelSelector") or {}).get("matchLabels") or {}).items()) <= set(labels.items())
        ]
        rendered_key = own[0] if len(own) == 1 and len(terms) == 1 and set(affinity) == {"podAntiAffinity"} else affinity or None
        result.check("required anti-affinity over its own labels (topology key)", model.anti_affinity_key, rendered_key)
    return result


def auto_config_name(cr: dict[str, Any]) -> tuple[str, str]:
    """(ConfigMap, key) of the operator's auto-tuning: PXC ``auto-<cluster>-pxc`` ``auto-config.cnf``
    (pkg/pxc/app/config/configmap.go NewAutoTuneConfigMap); PS ``auto-<cluster>-mysql`` ``my.cnf``."""
    name = cr["metadata"]["name"]
    if cr["kind"] == "PerconaXtraDBCluster":
        return f"auto-{name}-pxc", "auto-config.cnf"
    return f"auto-{name}-mysql", "my.cnf"


def expected_auto_config(cr: dict[str, Any]) -> dict[str, str]:
    """The pack's model of that ConfigMap (memory.operator_auto_config, core.operator_autotune): the keys the operator
    writes for the mysqld container's memory. Where it refuses (AutotuneRefused: the reconcile stops) it writes none.
    The PS operator also writes ``super_read_only=0`` and ``read_only=0`` for a single member without the orchestrator
    (pkg/controller/ps/controller.go reconcileMySQLAutoConfig, setWriteMode): no decision of the pack, added here so
    the comparison covers the whole file."""
    view = database_view(f"kubernetes:{cr['apiVersion']}:{cr['kind']}", cr, cr["metadata"]["name"])
    try:
        written = dict(operator_auto_config(view).written)
    except Malformed:
        return {}
    if view.operator == "ps" and view.size(view.mysqld_rel) == 1 and not view.flag("orchestrator.enabled"):
        written = {"super_read_only": "0", "read_only": "0", **written}
    return written


def rendered_auto_config(text: str | None) -> dict[str, str]:
    """The ConfigMap's ``[mysqld]`` options (PS writes them without a header: they are appended to node.cnf's
    ``[mysqld]``), keys as mysqld names them."""
    return parse(text or "", default_section="mysqld").get("mysqld", {})


def model_for(cr: dict[str, Any]) -> tuple[str, list[PodModel]]:
    """The pack's view of a custom resource as the engine sends it, and its pod models."""
    group_version = cr["apiVersion"]
    token = f"kubernetes:{group_version}:{cr['kind']}"
    view = database_view(token, cr, cr["metadata"]["name"])
    return view.operator, pod_models(view)


def expected_statefulsets(cr: dict[str, Any]) -> dict[str, PodModel]:
    """The StatefulSets the pack expects the operator to render here, each with its pod model."""
    operator, models = model_for(cr)
    name = cr["metadata"]["name"]
    paused = (cr.get("spec") or {}).get("pause") is True
    return {
        f"{name}-{STATEFULSET_SUFFIX[model.component.key]}": model
        for model in models
        if (operator, model.component.key) not in NOT_RENDERED_HERE
        or (paused and (operator, model.component.key) in RENDERED_WHEN_PAUSED)
    }
