"""The custom resource the pxc-db chart (1.20.0, percona-helm-charts 3df2bb5) renders from its values: see
chart_render, which re-exports it."""

from __future__ import annotations

from typing import Any

from .chart_fields import Field, _get, _image, _lifecycle, _resources, guarded, render
from .helm_template import interpolated, to_yaml, truthy
from .values import MISSING, Unknown, known

# ---- pxc-db 1.20.0 ------------------------------------------------------------------------------

PXC_POD = [  # what pxc, haproxy and proxysql have in common
    ("imagePullPolicy", "if", "print"),
    ("imagePullSecrets", "if", "yaml"),
    ("schedulerName", "if", "print"),
    ("configuration", "if", "text"),
    ("priorityClassName", "if", "print"),
    ("annotations", "always", "yaml"),
    ("labels", "always", "yaml"),
    ("runtimeClassName", "if", "print"),
    ("envVarsSecret", "if", "print"),
    ("sidecars", "always", "yaml"),
    ("sidecarVolumes", "always", "yaml"),
    ("sidecarPVCs", "always", "yaml"),
    ("extraPVCs", "if", "yaml"),
    ("nodeSelector", "always", "yaml"),
    ("topologySpreadConstraints", "if", "yaml"),
    ("affinity", "always", "yaml"),
    ("tolerations", "always", "yaml"),
    ("podDisruptionBudget", "always", "yaml"),
    ("gracePeriod", "always", "print"),
    ("containerSecurityContext", "if", "tpl"),
    ("podSecurityContext", "if", "tpl"),
    ("serviceAccountName", "if", "print"),
]
PXC_FIELDS = [
    ("size", "always", "print"),
    ("autoRecovery", "always", "print"),
    ("readinessDelaySec", "always", "print"),
    ("livenessDelaySec", "always", "print"),
    ("expose", "if", "tpl"),
    ("replicationChannels", "if", "tpl"),
    ("mysqlAllocator", "if", "print"),
    ("readinessProbes", "always", "tpl"),
    ("livenessProbes", "always", "tpl"),
    ("sstRetryCount", "if", "print"),
    *PXC_POD,
]
HAPROXY_FIELDS = [
    ("size", "always", "print"),
    ("image", "always", "print"),
    ("exposePrimary", "if", "tpl"),
    ("exposeReplicas", "if", "tpl"),
    ("readinessDelaySec", "if", "print"),
    ("livenessDelaySec", "if", "print"),
    ("readinessProbes", "always", "tpl"),
    ("livenessProbes", "always", "tpl"),
    *PXC_POD,
]
PROXYSQL_FIELDS = [
    ("size", "always", "print"),
    ("image", "always", "print"),
    ("scheduler", "if", "yaml"),
    ("expose", "if", "tpl"),
    *PXC_POD,
]


def _pxc_volume(persistence: Any) -> dict | Unknown:
    if isinstance(persistence, Unknown):
        return persistence
    persistence = persistence if isinstance(persistence, dict) else {}
    if not truthy(persistence.get("enabled", MISSING)):
        return {"emptyDir": {}}
    if "hostPath" in persistence:
        return {"hostPath": {"path": interpolated(persistence["hostPath"]), "type": "Directory"}}
    claim: dict = {}
    storage_class = persistence.get("storageClass", MISSING)
    if truthy(storage_class):
        claim["storageClassName"] = "" if storage_class == "-" else interpolated(storage_class)
    claim["accessModes"] = [interpolated(persistence.get("accessMode", MISSING))]
    if truthy(persistence.get("dataSource", MISSING)):
        claim["dataSource"] = to_yaml(persistence["dataSource"])
    claim["resources"] = {"requests": {"storage": interpolated(persistence.get("size", MISSING))}}
    return {"persistentVolumeClaim": claim}


def _pxc_component(values: dict, key: str, fields: list[Field], extra: dict) -> dict:
    component = values.get(key)
    component = component if isinstance(component, dict | Unknown) else {}
    out = {**extra, **render(component, fields, f"values.{key}")}
    out["resources"] = _resources(component, f"values.{key}")
    out["sidecarResources"] = _resources(component, f"values.{key}", "sidecarResources")
    lifecycle = _lifecycle(component)
    if lifecycle is not None:
        out["lifecycle"] = lifecycle
    return out


def pxc_db_fullname(values: dict, release: str) -> str:
    """``pxc-database.fullname``: fullnameOverride, or the release name (with the chart's name unless it holds
    it), cut to 21 characters without a trailing '-'."""
    override = _get(values, "fullnameOverride")
    if truthy(override):
        return str(override)[:21].rstrip("-")
    name = _get(values, "nameOverride")
    name = str(name) if truthy(name) else "pxc-db"
    return (release if name in release else f"{release}-{name}")[:21].rstrip("-")


def _put(out: dict, key: str, build) -> None:
    """``out[key]`` as ``build`` renders it (MISSING: the template writes no such key), unknown where a condition
    of the template is (chart_fields.guarded)."""
    value = guarded(build)
    if value is not MISSING:
        out[key] = value


def render_pxc_db(values: dict, app_version: str | Unknown, release: str = "release") -> dict:
    """``spec`` of the PerconaXtraDBCluster pxc-db 1.20.0 renders (and ``metadata.finalizers``)."""
    spec: dict = {}
    _put(
        spec,
        "crVersion",
        lambda: interpolated(_get(values, "crVersion") if truthy(_get(values, "crVersion")) else app_version),
    )
    spec.update(
        render(
            values,
            [
                ("enableVolumeExpansion", "always", "print"),
                ("ignoreAnnotations", "if", "yaml"),
                ("ignoreLabels", "if", "yaml"),
                ("enableCRValidationWebhook", "always", "print"),
                ("pause", "always", "print"),
                ("unsafeFlags", "if", "yaml"),
                ("updateStrategy", "always", "print"),
                ("users", "if", "yaml"),
            ],
            "values",
        )
    )
    _put(
        spec,
        "tls",
        lambda: (
            {
                "enabled": interpolated(_get(values, "tls.enabled")),
                **render(
                    _get(values, "tls"),
                    [("certValidityDuration", "has", "print"), ("caValidityDuration", "has", "print"), ("SANs", "has", "yaml")],
                    "values.tls",
                ),
            }
            if truthy(_get(values, "tls"))
            else MISSING
        ),
    )
    spec["pxc"] = _pxc_component(values, "pxc", PXC_FIELDS, {"image": _image(_get(values, "pxc.image"))})
    spec["pxc"]["volumeSpec"] = _pxc_volume(_get(values, "pxc.persistence"))
    _put(spec, "haproxy", lambda: _pxc_haproxy(values))
    _put(spec, "proxysql", lambda: _pxc_proxysql(values))
    _put(spec, "logcollector", lambda: _pxc_logcollector(values))
    _put(spec, "pmm", lambda: _pxc_pmm(values))
    _put(
        spec,
        "backup",
        lambda: (
            _pxc_backup(_get(values, "backup"), pxc_db_fullname(values, release))
            if truthy(_get(values, "backup.enabled"))
            else MISSING
        ),
    )
    return {"spec": spec, "finalizers": to_yaml(_get(values, "finalizers"))}


def _pxc_haproxy(values: dict) -> dict:
    # cluster.yaml ``if or (not .Values.haproxy.enabled) .Values.proxysql.enabled``: ``or`` stops at the first
    # true operand, so HAProxy is off whatever an unknown proxysql.enabled is once haproxy.enabled is false
    if not truthy(_get(values, "haproxy.enabled")) or truthy(_get(values, "proxysql.enabled")):
        return {"enabled": False}
    haproxy = {"enabled": True, **_pxc_component(values, "haproxy", HAPROXY_FIELDS, {})}
    haproxy["volumeSpec"] = {"emptyDir": {}}
    _put(
        haproxy,
        "healthCheck",
        lambda: (
            render(
                _get(values, "haproxy.healthCheck"),
                [(k, "if", "print") for k in ("interval", "rise", "fall")],
                "values.haproxy.healthCheck",
            )
            if truthy(_get(values, "haproxy.healthCheck"))
            else MISSING
        ),
    )
    return haproxy


def _pxc_proxysql(values: dict) -> dict:
    if not truthy(_get(values, "proxysql.enabled")):
        return {"enabled": False}
    proxysql = {"enabled": True, **_pxc_component(values, "proxysql", PROXYSQL_FIELDS, {})}
    proxysql["volumeSpec"] = _pxc_volume(_get(values, "proxysql.persistence"))
    return proxysql


def _pxc_logcollector(values: dict) -> dict:
    block = known(_get(values, "logcollector"), "values.logcollector")
    if not truthy(_get(block, "enabled")):
        return {"enabled": False}
    out = {
        "enabled": True,
        **render(
            block,
            [
                ("image", "always", "print"),
                ("imagePullPolicy", "if", "print"),
                ("imagePullSecrets", "if", "yaml"),
                ("configuration", "if", "text"),
                ("containerSecurityContext", "if", "tpl"),
            ],
            "values.logcollector",
        ),
    }
    out["resources"] = _resources(block if isinstance(block, dict) else {}, "values.logcollector")
    return out


def _pxc_pmm(values: dict) -> dict:
    block = known(_get(values, "pmm"), "values.pmm")
    if not truthy(_get(block, "enabled")):
        return {"enabled": False}
    out = {
        "enabled": True,
        "image": _image(_get(block, "image")),
        **render(
            block,
            [
                ("imagePullPolicy", "if", "print"),
                ("containerSecurityContext", "if", "tpl"),
                ("imagePullSecrets", "if", "yaml"),
                ("serverHost", "always", "print"),
                ("serverUser", "always", "print"),
                ("pxcParams", "if", "print"),
                ("customClusterName", "if", "print"),
                ("proxysqlParams", "if", "print"),
                ("readinessProbes", "always", "tpl"),
                ("livenessProbes", "always", "tpl"),
            ],
            "values.pmm",
        ),
    }
    out["resources"] = _resources(block if isinstance(block, dict) else {}, "values.pmm")
    return out


def _pxc_backup(backup: Any, fullname: str) -> dict:
    out = render(
        backup,
        [
            ("allowParallel", "has", "print"),
            ("backoffLimit", "if", "print"),
            ("ttlSecondsAfterFinished", "if", "print"),
            ("activeDeadlineSeconds", "if", "print"),
            ("startingDeadlineSeconds", "if", "print"),
            ("runningDeadlineSeconds", "if", "print"),
            ("suspendedDeadlineSeconds", "if", "print"),
            ("serviceAccountName", "if", "print"),
            ("imagePullPolicy", "if", "print"),
            ("imagePullSecrets", "if", "yaml"),
        ],
        "values.backup",
    )
    out["image"] = _image(_get(backup, "image"))
    _put(out, "pitr", lambda: _pxc_pitr(_get(backup, "pitr")))
    out["storages"] = _pxc_storages(_get(backup, "storages"), fullname)
    out["schedule"] = to_yaml(_get(backup, "schedule"))
    return out


def _pxc_pitr(pitr: Any) -> dict:
    if not truthy(_get(pitr, "enabled")):
        return {"enabled": False}
    out = {
        "enabled": True,
        **render(
            pitr,
            [
                ("storageName", "always", "print"),
                ("timeBetweenUploads", "always", "print"),
                ("timeoutSeconds", "always", "print"),
            ],
            "values.backup.pitr",
        ),
    }
    out["resources"] = _resources(pitr if isinstance(pitr, dict) else {}, "values.backup.pitr")
    return out


def _pxc_storages(storages: Any, fullname: str) -> Any:
    """``pxc-database.storages``: S3 keys in values move to a chart-made Secret (credentialsSecret)."""
    if not isinstance(storages, dict):
        return to_yaml(storages)
    out = {}
    for name, storage in storages.items():
        storage = to_yaml(storage)
        s3 = storage.get("s3") if isinstance(storage, dict) else None
        if (
            isinstance(storage, dict)
            and storage.get("type") == "s3"
            and isinstance(s3, dict)
            and "credentialsAccessKey" in s3
            and "credentialsSecretKey" in s3
        ):
            s3 = {k: v for k, v in s3.items() if k not in ("credentialsAccessKey", "credentialsSecretKey")}
            storage = {**storage, "s3": {**s3, "credentialsSecret": f"{fullname}-s3-{name}"}}
        out[name] = storage
    return out
