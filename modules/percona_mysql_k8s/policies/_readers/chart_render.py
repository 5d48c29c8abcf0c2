"""The custom resource a pxc-db or ps-db chart renders from its values, as the pinned chart version does.

Transcribed from the charts' ``templates/cluster.yaml`` at percona-helm-charts 3df2bb5 (pxc-db 1.20.0,
ps-db 1.1.0; ../shared/reference/percona/charts). A key the template does not render is not in the result
(the policies give no verdict on it), and a component the template does not render for the topology is
absent or ``enabled: false`` exactly as the chart writes it. Each field is rendered the way the template
writes it (helm_template): ``{{ x }}`` printing, ``toYaml``, ``tpl`` and the ``if``/``hasKey`` around it.
tests/policies/test_chart_render.py compares this with ``helm template`` of the real archives.

A field is one of ``(key, condition, how)``: condition ``always`` (rendered whatever it holds), ``if``
(rendered when true to Go's templates) or ``has`` (when the key is present); how ``yaml`` (``toYaml``),
``print`` (``{{ x }}``), ``tpl`` (``tpl (toYaml x)``), ``text`` (``tpl x`` in a YAML block, pxc-db's way)
or ``text-`` (the same with ``{{-``, ps-db's way).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .helm_template import interpolated, to_yaml, tpl_text, tpl_yaml, truthy
from .values import MISSING, Unrenderable

Field = tuple[str, str, str]


def _render_field(out: dict, source: dict, key: str, condition: str, how: str, where: str) -> None:
    value = source.get(key, MISSING) if isinstance(source, dict) else MISSING
    if condition == "if" and not truthy(value):
        return
    if condition == "has" and value is MISSING:
        return
    path = f"{where}.{key}"
    if how == "yaml":
        out[key] = to_yaml(value)
    elif how == "print":
        out[key] = interpolated(value)
    elif how == "tpl":
        out[key] = tpl_yaml(value, path)
    elif isinstance(value, str):  # text: "key: |" then tpl of the string, as a YAML block
        out[key] = _block(tpl_text(value, path), path, leading_line=how == "text")
    else:
        out[key] = Unrenderable(f"{path} is not text, and the chart writes it as a block of text")


def _block(text: str | Unrenderable, path: str, leading_line: bool) -> str | Unrenderable:
    """A ``key: |`` block holding ``text`` indented by nindent. pxc-db writes ``    {{ tpl x $ | nindent 6 }}``:
    a line of four blanks opens the block, which YAML keeps as a first empty line; ps-db writes
    ``{{- tpl x $ | nindent 6 }}``, which opens none. YAML keeps one final newline (clip)."""
    if isinstance(text, Unrenderable):
        return text
    first = next((line for line in text.split("\n") if line.strip()), "")
    if first[:1] in (" ", "\t"):
        return Unrenderable(
            f"{path} starts with a blank: the chart's YAML block would take its indentation from it and end at the next line"
        )
    body = text.rstrip("\n")
    return ("\n" if leading_line else "") + body + "\n" if body else ""


def render(source: Any, fields: Iterable[Field], where: str) -> dict:
    out: dict = {}
    source = source if isinstance(source, dict) else {}
    for key, condition, how in fields:
        _render_field(out, source, key, condition, how, where)
    return out


def _get(values: Any, path: str) -> Any:
    for key in path.split("."):
        if not isinstance(values, dict):
            return MISSING
        values = values.get(key, MISSING)
    return values


def _image(image: Any) -> Any:
    """``{{ x.image.repository }}:{{ x.image.tag }}``."""
    return interpolated(_get(image, "repository"), (":",), _get(image, "tag"))


def _resources(component: dict, where: str, key: str = "resources") -> dict:
    """``resources: requests: tpl(toYaml), limits: tpl(toYaml)`` (nothing else of the block is rendered)."""
    block = component.get(key, MISSING)
    return {
        "requests": tpl_yaml(_get(block, "requests"), f"{where}.{key}.requests"),
        "limits": tpl_yaml(_get(block, "limits"), f"{where}.{key}.limits"),
    }


def _lifecycle(component: dict) -> dict | None:
    if "lifecycle" not in component:
        return None
    lifecycle = component["lifecycle"] if isinstance(component["lifecycle"], dict) else {}
    return {key: to_yaml(lifecycle[key]) for key in ("preStop", "postStart") if key in lifecycle}


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


def _pxc_volume(persistence: Any) -> dict:
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
    component = values.get(key) if isinstance(values.get(key), dict) else {}
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


def render_pxc_db(values: dict, app_version: str, release: str = "release") -> dict:
    """``spec`` of the PerconaXtraDBCluster pxc-db 1.20.0 renders (and ``metadata.finalizers``)."""
    spec: dict = {"crVersion": interpolated(_get(values, "crVersion") if truthy(_get(values, "crVersion")) else app_version)}
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
    if truthy(_get(values, "tls")):
        spec["tls"] = {
            "enabled": interpolated(_get(values, "tls.enabled")),
            **render(
                _get(values, "tls"),
                [("certValidityDuration", "has", "print"), ("caValidityDuration", "has", "print"), ("SANs", "has", "yaml")],
                "values.tls",
            ),
        }
    pxc = values.get("pxc") if isinstance(values.get("pxc"), dict) else {}
    spec["pxc"] = _pxc_component(values, "pxc", PXC_FIELDS, {"image": _image(pxc.get("image", MISSING))})
    spec["pxc"]["volumeSpec"] = _pxc_volume(pxc.get("persistence", MISSING))
    proxysql_on = truthy(_get(values, "proxysql.enabled"))
    if not truthy(_get(values, "haproxy.enabled")) or proxysql_on:
        spec["haproxy"] = {"enabled": False}
    else:
        spec["haproxy"] = {"enabled": True, **_pxc_component(values, "haproxy", HAPROXY_FIELDS, {})}
        spec["haproxy"]["volumeSpec"] = {"emptyDir": {}}
        if truthy(_get(values, "haproxy.healthCheck")):
            spec["haproxy"]["healthCheck"] = render(
                _get(values, "haproxy.healthCheck"),
                [(k, "if", "print") for k in ("interval", "rise", "fall")],
                "values.haproxy.healthCheck",
            )
    if not proxysql_on:
        spec["proxysql"] = {"enabled": False}
    else:
        spec["proxysql"] = {"enabled": True, **_pxc_component(values, "proxysql", PROXYSQL_FIELDS, {})}
        spec["proxysql"]["volumeSpec"] = _pxc_volume(_get(values, "proxysql.persistence"))
    spec["logcollector"] = _pxc_logcollector(values)
    spec["pmm"] = _pxc_pmm(values)
    if truthy(_get(values, "backup.enabled")):
        spec["backup"] = _pxc_backup(_get(values, "backup"), pxc_db_fullname(values, release))
    return {"spec": spec, "finalizers": to_yaml(_get(values, "finalizers"))}


def _pxc_logcollector(values: dict) -> dict:
    block = _get(values, "logcollector")
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
    block = _get(values, "pmm")
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
    pitr = _get(backup, "pitr")
    if not truthy(_get(pitr, "enabled")):
        out["pitr"] = {"enabled": False}
    else:
        out["pitr"] = {
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
        out["pitr"]["resources"] = _resources(pitr if isinstance(pitr, dict) else {}, "values.backup.pitr")
    out["storages"] = _pxc_storages(_get(backup, "storages"), fullname)
    out["schedule"] = to_yaml(_get(backup, "schedule"))
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
    component = component if isinstance(component, dict) else {}
    out = render(component, fields, where)
    out["resources"] = _resources(component, where)
    volume = _ps_volume(component.get("volumeSpec", MISSING), host_path_type)
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
    if truthy(_get(mysql, "image")):
        spec["mysql"]["image"] = _image(_get(mysql, "image"))
    if truthy(_get(mysql, "expose")) and "expose" in mysql:
        spec["mysql"]["expose"] = tpl_yaml(_get(mysql, "expose"), "values.mysql.expose")
    primary = _get(mysql, "exposePrimary")
    spec["mysql"]["exposePrimary"] = (
        tpl_yaml(primary, "values.mysql.exposePrimary") if truthy(_get(primary, "enabled")) else {"enabled": False}
    )
    haproxy = _get(values, "proxy.haproxy")
    if not truthy(_get(haproxy, "enabled")):
        rendered_haproxy = {"enabled": False, "image": _image(_get(haproxy, "image")), "size": 0}
    else:
        rendered_haproxy = {
            "enabled": True,
            "image": _image(_get(haproxy, "image")),
            **_ps_component(haproxy, PS_HAPROXY_FIELDS, "values.proxy.haproxy"),
        }
    router = _get(values, "proxy.router")
    group_replication = _get(mysql, "clusterType") == "group-replication"
    head = {"size": interpolated(_get(router, "size")), **render(router, [("gracePeriod", "if", "print")], "values.proxy.router")}
    if not truthy(_get(router, "enabled")) or not group_replication:
        rendered_router = {**head, "enabled": False, "image": _image(_get(router, "image"))}
    else:
        rendered_router = {
            **head,
            "enabled": True,
            "image": _image(_get(router, "image")),
            **_ps_component(router, ROUTER_FIELDS, "values.proxy.router"),
        }
    spec["proxy"] = {"haproxy": rendered_haproxy, "router": rendered_router}
    spec["orchestrator"] = _ps_orchestrator(values)
    spec["pmm"] = _ps_pmm(_get(values, "pmm"))
    toolkit = _get(values, "toolkit")
    if truthy(toolkit):
        spec["toolkit"] = {
            "image": _image(_get(toolkit, "image")),
            **render(toolkit, [("imagePullPolicy", "if", "print")], "values.toolkit"),
        }
        if truthy(_get(toolkit, "resources")):
            spec["toolkit"]["resources"] = _resources(toolkit, "values.toolkit")
    spec["backup"] = _ps_backup(_get(values, "backup"))
    return {"spec": spec, "finalizers": to_yaml(_get(values, "finalizers"))}


def _ps_orchestrator(values: dict) -> dict:
    orchestrator = _get(values, "orchestrator")
    image = _image(_get(orchestrator, "image"))
    if not truthy(_get(orchestrator, "enabled")) or _get(values, "mysql.clusterType") != "async":
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
    if truthy(_get(backup, "resources")):
        out["resources"] = _resources(backup, "values.backup")
    out["storages"] = to_yaml(_get(backup, "storages"))
    return out
