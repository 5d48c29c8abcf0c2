"""Helm releases and charts as policies see them: which chart, and its values over the chart defaults.

``kubernetes:helm.sh/v3:Release`` and ``kubernetes:helm.sh/v4:Chart`` carry the chart name in
``chart`` (``pxc-db``, ``percona/pxc-db``, ``oci://…/pxc-db``, a path or a ``.tgz`` URL) and the user's
values in ``values``. Helm merges those values over the chart's own ``values.yaml``, so a key that is
absent takes the chart default. The defaults below are the ones the rules depend on (enabled flags,
sizes, resources, images, finalizers), copied from the chart versions in INTERFACES §0 (pxc-db 1.20.0,
ps-db 1.1.0, pmm 1.8.1); they are chart interface facts, not rules.
"""

from __future__ import annotations

import re
from typing import Any

from .values import MISSING, Malformed, NotKnown, Unknown, as_list, as_map, as_str, at, deep_merge, join

HELM_TYPES = ("kubernetes:helm.sh/v3:Release", "kubernetes:helm.sh/v4:Chart")
PXC_DB, PS_DB, PMM = "pxc-db", "ps-db", "pmm"

CHART_DEFAULTS: dict[str, dict[str, Any]] = {
    PXC_DB: {
        "finalizers": ["percona.com/delete-pxc-pods-in-order"],
        "crVersion": "1.20.0",
        "tls": {"enabled": True},
        "pxc": {
            "size": 3,
            "image": {"repository": "percona/percona-xtradb-cluster", "tag": "8.4.8-8.1"},
            "resources": {"requests": {"memory": "1G", "cpu": "600m"}, "limits": {}},
            "affinity": {"antiAffinityTopologyKey": "kubernetes.io/hostname"},
            "readinessDelaySec": 15,
            "livenessDelaySec": 300,
            # the data volume (R7): values.yaml pxc.persistence
            "persistence": {"enabled": True, "accessMode": "ReadWriteOnce", "size": "8Gi"},
        },
        "haproxy": {
            "enabled": True,
            "size": 3,
            "image": "percona/haproxy:2.8.18-1",
            "resources": {"requests": {"memory": "1G", "cpu": "600m"}, "limits": {}},
            "sidecarResources": {"requests": {}, "limits": {}},
            "affinity": {"antiAffinityTopologyKey": "kubernetes.io/hostname"},
            "readinessDelaySec": 15,
            "livenessDelaySec": 300,
        },
        "proxysql": {
            "enabled": False,
            "size": 3,
            "image": "percona/proxysql2:2.7.3-1.3",
            "resources": {"requests": {"memory": "1G", "cpu": "600m"}, "limits": {}},
            "sidecarResources": {"requests": {}, "limits": {}},
            "affinity": {"antiAffinityTopologyKey": "kubernetes.io/hostname"},
        },
        "logcollector": {
            "enabled": True,
            "image": "percona/fluentbit:5.0.6-1",
            "resources": {"requests": {"memory": "100M", "cpu": "200m"}, "limits": {}},
        },
        "pmm": {
            "enabled": False,
            "image": {"repository": "percona/pmm-client", "tag": "3.8.0"},
            "serverHost": "monitoring-service",
            "resources": {"requests": {"memory": "150M", "cpu": "300m"}, "limits": {}},
        },
        # rendered as spec.backup only while enabled; pitr.enabled false renders pitr: {enabled: false}
        "backup": {"enabled": True, "pitr": {"enabled": False}, "storages": {}, "schedule": []},
    },
    PS_DB: {
        "finalizers": ["percona.com/delete-mysql-pods-in-order"],
        "crVersion": "1.1.0",
        "mysql": {
            "clusterType": "group-replication",
            "size": 3,
            "image": {"repository": "percona/percona-server", "tag": "8.4.8-8.1"},
            "resources": {"requests": {"memory": "2Gi"}, "limits": {"memory": "4Gi"}},
            "affinity": {"antiAffinityTopologyKey": "kubernetes.io/hostname"},
            "volumeSpec": {"pvc": {"resources": {"requests": {"storage": "3Gi"}}}},  # the data volume (R7)
        },
        "proxy": {
            "haproxy": {
                "enabled": True,
                "size": 3,
                "image": {"repository": "percona/haproxy", "tag": "2.8.18-1"},
                "resources": {"requests": {"memory": "1Gi", "cpu": "600m"}, "limits": {}},
                "affinity": {"antiAffinityTopologyKey": "kubernetes.io/hostname"},
            },
            "router": {
                "enabled": False,
                "size": 3,
                "image": {"repository": "percona/percona-mysql-router", "tag": "8.4.8"},
                "resources": {"requests": {"memory": "256M"}, "limits": {"memory": "256M"}},
                "affinity": {"antiAffinityTopologyKey": "kubernetes.io/hostname"},
            },
        },
        "orchestrator": {
            "enabled": False,
            "size": 3,
            "resources": {"requests": {"memory": "128M"}, "limits": {"memory": "256M"}},
        },
        "pmm": {
            "enabled": False,
            "image": {"repository": "percona/pmm-client", "tag": "3.7.0"},
            "serverHost": "monitoring-service",
            "resources": {"requests": {"memory": "150M", "cpu": "300m"}, "limits": {}},
        },
        "backup": {"enabled": True, "resources": {"requests": {}, "limits": {}}},
        "toolkit": {
            "image": {"repository": "percona/percona-toolkit", "tag": "3.7.1"},
            "resources": {"requests": {}, "limits": {}},
        },
    },
    PMM: {
        "image": {"repository": "percona/pmm-server", "tag": "3.8.1"},
        "pmmResources": {},
        "secret": {"name": "pmm-secret", "create": True, "pmm_password": ""},
        "service": {"name": "monitoring-service", "type": "NodePort"},
        "nodeSelector": {},
        "tolerations": [],
        "affinity": {},
    },
}

_VERSION_SUFFIX = re.compile(r"-v?\d+(\.\d+)*([-+][\w.]+)?$")


def chart_name(props: dict) -> str | None:
    """``pxc-db`` for ``percona/pxc-db``, ``oci://registry/percona/pxc-db``, ``./pxc-db-1.20.0.tgz``…; NotKnown
    when the chart is unknown at preview (which chart it is, and so which rules apply, is not known yet)."""
    try:
        chart = as_str(at(props, "chart"), "chart")
    except Malformed:
        return None
    if not chart:
        return None
    name = chart.rstrip("/").split("/")[-1].split("?")[0]
    if name.endswith(".tgz"):
        name = _VERSION_SUFFIX.sub("", name[: -len(".tgz")])
    return name.lower() or None


def is_helm(resource_type: str) -> bool:
    return resource_type in HELM_TYPES


def chart_values(props: dict, chart: str) -> dict:
    """User values merged over the chart defaults. Raises Malformed/NotKnown on unreadable values."""
    values = at(props, "values")
    if isinstance(values, Unknown):
        raise NotKnown("values", values.sentinel)
    values = as_map(values, "values")
    files = as_list(at(props, "valueYamlFiles"), "valueYamlFiles")
    if files:
        raise ValuesFromFiles()
    name_unknowns(values, "values")
    return deep_merge(CHART_DEFAULTS.get(chart, {}), values) if values is not MISSING else dict(CHART_DEFAULTS.get(chart, {}))


def name_unknowns(value: Any, path: str) -> None:
    """Give every value unknown at preview below ``value`` its own path as origin: the chart renders it
    elsewhere (chart_render), and a rule that cannot judge it names the value the user set."""
    if isinstance(value, Unknown):
        value.origin = value.origin or path
    elif isinstance(value, dict):
        for key, item in value.items():
            name_unknowns(item, join(path, str(key)))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            name_unknowns(item, f"{path}[{index}]")


class ValuesFromFiles(Exception):
    """Values come from ``valueYamlFiles`` the pack cannot read: the checks do not apply."""

    reason = "the chart's values come from valueYamlFiles, which a policy pack cannot read; pass them as `values`"


def chart_version(props: dict) -> str | Unknown | None:
    """The chart version asked for; unknown (named ``version``) when it is unknown at preview."""
    try:
        return as_str(at(props, "version"), "version")
    except Malformed:
        return None
    except NotKnown as error:
        return Unknown(error.sentinel, error.path)
