"""The custom resource the ps-db chart (1.1.0, percona-helm-charts 3df2bb5) renders from its values: see
chart_render, which re-exports it."""

from __future__ import annotations

from typing import Any

from .chart_fields import Field, _get, _image, _resources, guarded, render
from .chart_pxc_db import _put
from .helm_template import interpolated, to_yaml, tpl_yaml, truthy
from .values import MISSING, Unknown, known

# ---- ps-db 1.1.0 ---------------------------------------------------------------------------------

PS_POD = [
    ("imagePullPolicy", "if", "print"),
    ("imagePullSecrets", "if", "yaml"),
    ("podDisruptionBudget", "if", "yaml"),
    ("topologySpreadConstraints", "if", "yaml"),
    ("priorityClassName", "if", "print"),
    ("annotations", "always", "yaml"),
    ("labels", "always", "yaml"),
    ("tolerations", "always", "yaml"),
    ("nodeSelector", "always", "yaml"),
    ("env", "if", "yaml"),
    ("envFrom", "if", "yaml"),
    ("startupProbe", "if", "yaml"),
    ("livenessProbe", "if", "yaml"),
    ("readinessProbe", "if", "yaml"),
    ("gracePeriod", "if", "print"),
    ("schedulerName", "if", "print"),
    ("containerSecurityContext", "if", "tpl"),
    ("podSecurityContext", "if", "tpl"),
    ("serviceAccountName", "if", "print"),
    ("runtimeClassName", "if", "print"),
]
AFFINITY, CONFIGURATION = ("affinity", "always", "yaml"), ("configuration", "if", "text-")
MYSQL_FIELDS = [
    ("clusterType", "if", "print"),
    ("autoRecovery", "if", "print"),
    ("vaultSecretName", "if", "print"),
    ("size", "if", "print"),
    ("sidecars", "if", "yaml"),
    ("sidecarVolumes", "if", "yaml"),
    ("sidecarPVCs", "if", "yaml"),
    AFFINITY,
    CONFIGURATION,
    *PS_POD,
]
PS_HAPROXY_FIELDS = [("size", "if", "print"), ("expose", "if", "tpl"), AFFINITY, CONFIGURATION, *PS_POD]
ROUTER_FIELDS = [("ports", "if", "yaml"), ("expose", "if", "tpl"), CONFIGURATION, *PS_POD]  # the chart writes no router affinity
ORCHESTRATOR_FIELDS = [("expose", "if", "tpl"), AFFINITY, *PS_POD]


def _ps_volume(volume: Any, host_path_type: bool) -> Any:
    if isinstance(volume, Unknown):
        return volume
    if not truthy(volume):
        return MISSING
    if truthy(_get(volume, "hostPath")):
        if host_path_type:  # mysql: hostPath.path and hostPath.type (default Directory)
            kind = _get(volume, "hostPath.type")
            return {
                "hostPath": {
                    "path": interpolated(_get(volume, "hostPath.path")),
                    "type": interpolated(kind) if truthy(kind) else "Directory",
                }
            }
        return {"hostPath": {"path": interpolated(_get(volume, "hostPath")), "type": "Directory"}}
    if truthy(_get(volume, "pvc")):
        return {"persistentVolumeClaim": to_yaml(_get(volume, "pvc"))}
    return {"emptyDir": {}}


def _ps_component(component: Any, fields: list[Field], where: str, host_path_type: bool = False) -> dict:
    component = component if isinstance(component, dict | Unknown) else {}
    out = render(component, fields, where)
    out["resources"] = _resources(component, where)
    volume = guarded(lambda: _ps_volume(_get(component, "volumeSpec"), host_path_type))
    if volume is not MISSING:
        out["volumeSpec"] = volume
    return out


def render_ps_db(values: dict, app_version: str, release: str = "release") -> dict:
    """``spec`` of the PerconaServerMySQL ps-db 1.1.0 renders (and ``metadata.finalizers``)."""
    spec: dict = {"crVersion": app_version}  # ps-db writes the chart's appVersion, whatever values.crVersion says
    spec.update(
        render(
            values,
            [
                ("enableVolumeExpansion", "if", "print"),
                ("unsafeFlags", "if", "yaml"),
                ("updateStrategy", "if", "print"),
                ("pause", "if", "print"),
                ("ignoreAnnotations", "if", "yaml"),
                ("ignoreLabels", "if", "yaml"),
            ],
            "values",
        )
    )
    mysql = _get(values, "mysql")
    spec["mysql"] = _ps_component(mysql, MYSQL_FIELDS, "values.mysql", host_path_type=True)
    _put(spec["mysql"], "image", lambda: _image(_get(mysql, "image")) if truthy(_get(mysql, "image")) else MISSING)
    _put(
        spec["mysql"],
        "expose",
        lambda: (
            tpl_yaml(_get(mysql, "expose"), "values.mysql.expose")
            if truthy(_get(mysql, "expose")) and "expose" in mysql
            else MISSING
        ),
    )
    primary = _get(mysql, "exposePrimary")
    _put(
        spec["mysql"],
        "exposePrimary",
        lambda: tpl_yaml(primary, "values.mysql.exposePrimary") if truthy(_get(primary, "enabled")) else {"enabled": False},
    )
    spec["proxy"] = {
        "haproxy": guarded(lambda: _ps_haproxy(_get(values, "proxy.haproxy"))),
        "router": guarded(lambda: _ps_router(values)),
    }
    spec["orchestrator"] = guarded(lambda: _ps_orchestrator(values))
    spec["pmm"] = guarded(lambda: _ps_pmm(_get(values, "pmm")))
    _put(spec, "toolkit", lambda: _ps_toolkit(_get(values, "toolkit")))
    spec["backup"] = guarded(lambda: _ps_backup(_get(values, "backup")))
    return {"spec": spec, "finalizers": to_yaml(_get(values, "finalizers"))}


def _ps_haproxy(haproxy: Any) -> dict:
    if not truthy(_get(haproxy, "enabled")):
        return {"enabled": False, "image": _image(_get(haproxy, "image")), "size": 0}
    return {
        "enabled": True,
        "image": _image(_get(haproxy, "image")),
        **_ps_component(haproxy, PS_HAPROXY_FIELDS, "values.proxy.haproxy"),
    }


def _ps_router(values: dict) -> dict:
    router = _get(values, "proxy.router")
    head = {"size": interpolated(_get(router, "size")), **render(router, [("gracePeriod", "if", "print")], "values.proxy.router")}
    # cluster.yaml: the router is rendered enabled only with router.enabled and a group-replication clusterType
    if not truthy(_get(router, "enabled")) or known(_get(values, "mysql.clusterType"), "values.mysql.clusterType") != (
        "group-replication"
    ):
        return {**head, "enabled": False, "image": _image(_get(router, "image"))}
    return {
        **head,
        "enabled": True,
        "image": _image(_get(router, "image")),
        **_ps_component(router, ROUTER_FIELDS, "values.proxy.router"),
    }


def _ps_toolkit(toolkit: Any) -> Any:
    if not truthy(toolkit):
        return MISSING
    out = {
        "image": _image(_get(toolkit, "image")),
        **render(toolkit, [("imagePullPolicy", "if", "print")], "values.toolkit"),
    }
    _put(out, "resources", lambda: _resources(toolkit, "values.toolkit") if truthy(_get(toolkit, "resources")) else MISSING)
    return out


def _ps_orchestrator(values: dict) -> dict:
    orchestrator = _get(values, "orchestrator")
    image = _image(_get(orchestrator, "image"))
    if (
        not truthy(_get(orchestrator, "enabled"))
        or known(_get(values, "mysql.clusterType"), "values.mysql.clusterType") != "async"
    ):
        return {"enabled": False, "image": image, "size": 0}
    out = {
        "enabled": True,
        "image": image,
        "size": interpolated(_get(orchestrator, "size")),
        **_ps_component(orchestrator, ORCHESTRATOR_FIELDS, "values.orchestrator"),
    }
    return out


def _ps_pmm(pmm: Any) -> dict:
    image = _image(_get(pmm, "image"))
    if not truthy(_get(pmm, "enabled")):
        return {"enabled": False, "image": image}
    out = {
        "enabled": True,
        "image": image,
        "serverHost": interpolated(_get(pmm, "serverHost")),
        **render(
            pmm,
            [
                ("mysqlParams", "if", "print"),
                ("imagePullPolicy", "if", "print"),
                ("readinessProbe", "if", "tpl"),
                ("livenessProbe", "if", "tpl"),
            ],
            "values.pmm",
        ),
    }
    out["resources"] = _resources(pmm if isinstance(pmm, dict) else {}, "values.pmm")
    return out


def _ps_backup(backup: Any) -> dict:
    out = {"image": _image(_get(backup, "image")), **render(backup, [("sourcePod", "if", "print")], "values.backup")}
    if not truthy(_get(backup, "enabled")):
        return {**out, "enabled": False}
    out.update(
        {
            "enabled": True,
            **render(
                backup,
                [
                    ("schedule", "if", "yaml"),
                    ("imagePullPolicy", "if", "print"),
                    ("imagePullSecrets", "if", "yaml"),
                    ("backoffLimit", "if", "print"),
                    ("serviceAccountName", "if", "print"),
                    ("containerSecurityContext", "if", "tpl"),
                    ("pitr", "if", "yaml"),
                ],
                "values.backup",
            ),
        }
    )
    _put(out, "resources", lambda: _resources(backup, "values.backup") if truthy(_get(backup, "resources")) else MISSING)
    out["storages"] = to_yaml(_get(backup, "storages"))
    return out
