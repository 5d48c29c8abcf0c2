"""NetworkPolicies that fence a database cluster (R6), as data: decided before any resource exists.

Two ingress policies, one per tier; egress is not restricted (so no DNS rule is needed):

* ``<cluster>-mysqld``: the database pods accept their own members (replication ports), their proxies
  (client and admin ports), the operator (all ports), the in-namespace PMM server (the pmm-client
  exporter range), the operator's backup/restore Jobs, and the binary log collector of point-in-time
  recovery (R2): PXC's ``pitr`` Deployment among the Jobs' peers, the PS binlog server on the MySQL
  port only. Nothing else, not even sysbench: the load
  generator goes through the proxy, like an application.
* ``<cluster>-proxy``: the proxies accept clients on their client ports (the database namespace, plus
  ``clientNamespaces``; only pods labelled ``clientPodLabels`` when given), the sysbench Job, the
  operator and PMM.

Pods are selected by the labels the operators themselves put on them (and select their StatefulSets
by), so a policy follows the pods across restarts and scaling:

* Database pods and proxies: :mod:`percona_mysql_k8s.core.operator_labels`.
* PXC operator 1.16+: backup Jobs carry ``LabelsCluster`` + ``percona.com/backup-type: xtrabackup``, restore Jobs
  ``LabelsCluster`` + ``percona.com/restore-job-name``, the binlog collector ``component: pitr``
  (percona-xtradb-cluster-operator ``pkg/naming/labels.go``).
* PS operator 1.2.0: backup Jobs part-of
  ``percona-server-backup``/component ``backup``, restore Jobs part-of ``percona-server-restore``/component
  ``restore`` (percona-server-mysql-operator v1.2.0 ``pkg/naming/kubernetes.go``, ``pkg/mysql/mysql.go``,
  ``api/v1/perconaservermysql*_types.go``, ``pkg/xtrabackup/xtrabackup.go``). The binlog server (PITR):
  ``cr.Labels("binlog-server", "pitr")`` = name ``binlog-server``, instance the cluster, part-of
  ``percona-server``, component ``pitr`` (``pkg/binlogserver/binlog_server.go`` ``MatchLabels``); it
  replicates from the primary's Service on 3306 (``pkg/binlogserver/config.go``: ``PrimaryServiceName``,
  ``Port: 3306``). The PITR restore Job (component ``pitr``, part-of ``percona-server-restore``) applies
  binary logs to its own mysqld on the restored volume (``pkg/pitr/pitr.go``): it needs no rule.
* The operators' own pods, from their Helm charts: ``app.kubernetes.io/name`` and ``instance`` both the
  chart name (pxc-operator 1.20.0 / ps-operator ``templates/deployment.yaml``; the release is named after the
  chart in :mod:`percona_mysql_k8s.database.operator`). When the stack installs the operator it runs in
  the database namespace (the one it watches). When it does not, the operator may run anywhere, installed
  by the chart or by the operator's own ``deploy/operator.yaml`` (``app.kubernetes.io/name``
  ``percona-xtradb-cluster-operator`` at PXC v1.19.0, ``percona-server-mysql-operator`` at PS v1.2.0): pods
  of either name, in any namespace, are let in.
* The PMM server: ``app.kubernetes.io/name: pmm``, ``component: pmm-server`` (pmm chart 1.8.1
  ``pmm.selectorLabels``, release ``pmm``).

Kubelet probes are not affected: "traffic to and from the node where a Pod is running is always
allowed" (kubernetes.io/docs/concepts/services-networking/network-policies/).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from percona_mysql_k8s.core.errors import InputError
from percona_mysql_k8s.core.memory import PXC
from percona_mysql_k8s.core.names import dns1123_label_problem, label_key_problem, label_value_problem
from percona_mysql_k8s.core.operator_labels import (
    PS_OPERATOR,
    PXC_OPERATOR,
    mysqld_pod_labels,
    proxy_pod_labels,
    pxc_cluster_labels,
)
from percona_mysql_k8s.core.sidecars import HAPROXY, PROXYSQL, ROUTER

from .spec import DatabaseSpec
from .versions import operator_for

API_VERSION = "networking.k8s.io/v1"
NAMESPACE_NAME_LABEL = "kubernetes.io/metadata.name"  # set by the API server on every namespace (1.22+)

# Ports, from the operators' sources (PXC: INTERFACES §2.4/§2.10; PS v1.2.0 pkg/mysql, pkg/haproxy, pkg/router).
MYSQL, MYSQLX, ADMIN = 3306, 33060, 33062
PXC_MEMBER_PORTS = (MYSQL, 4444, 4567, 4568, MYSQLX, ADMIN)  # 4444 SST, 4567 Galera, 4568 IST
GR_MEMBER_PORTS = (MYSQL, 33061, MYSQLX, ADMIN)  # 33061 XCom; 3306 also carries clone
PS_SIDECAR_PORT = 6450  # the PS backup sidecar's HTTP port, called by backup Jobs
PROXY_TO_MYSQLD_PORTS = (MYSQL, MYSQLX, ADMIN)
CLIENT_PORTS: Mapping[str, tuple[int, ...]] = MappingProxyType(
    {
        HAPROXY: (3306, 3307, 3309, MYSQLX),  # writer, replicas, proxy-protocol, X
        PROXYSQL: (3306,),
        ROUTER: (3306, 6446, 6447, 6448, 6449, MYSQLX),
    }
)
PROXYSQL_CLUSTER_PORT = 6032  # ProxySQL instances sync their configuration over the admin port
# pmm-client's exporters listen in this range (PMM "Network and firewall" ports: 42000-51999).
PMM_EXPORTER_PORTS = (42000, 51999)
PMM_SERVER_LABELS: Mapping[str, str] = MappingProxyType(
    {"app.kubernetes.io/name": "pmm", "app.kubernetes.io/component": "pmm-server"}
)
SYSBENCH_COMPONENT = "load-generator"  # the label the sysbench Job's pods carry (database/sysbench.py)


@dataclass(frozen=True)
class ClientAccess:
    """Who may reach the proxies besides the database namespace (R6)."""

    namespaces: tuple[str, ...] = ()
    pod_labels: Mapping[str, str] = field(default_factory=dict)


def client_access(namespaces: Sequence[object], pod_labels: Sequence[object]) -> ClientAccess:
    """``clientNamespaces`` and ``clientPodLabels`` (``key=value`` items) checked as the API server checks
    namespace names (RFC 1123 label, 63 characters) and label keys/values (prefix/name, 63 characters)."""
    checked: list[str] = []
    for item in namespaces:
        if dns1123_label_problem(item):
            raise InputError("clientNamespaces", f"{item!r} is not a namespace name (lower-case RFC 1123 label)", "R6")
        checked.append(item)
    labels: dict[str, str] = {}
    for item in pod_labels:
        key, sep, value = item.partition("=") if isinstance(item, str) else ("", "", "")
        if not sep or label_key_problem(key) or label_value_problem(value):
            raise InputError(
                "clientPodLabels", f"{item!r} is not a label selector item key=value (e.g. app.kubernetes.io/name=web)", "R6"
            )
        if key in labels:
            raise InputError("clientPodLabels", f"{key!r} is given twice", "R6")
        labels[key] = value
    return ClientAccess(tuple(dict.fromkeys(checked)), MappingProxyType(labels))


# ---- selectors ------------------------------------------------------------------------------------


def _pxc_labels(spec: DatabaseSpec) -> dict[str, str]:
    return pxc_cluster_labels(spec.name)


def _operator(spec: DatabaseSpec) -> str:
    return PXC_OPERATOR if spec.engine == PXC else PS_OPERATOR


def mysqld_selector(spec: DatabaseSpec) -> dict[str, str]:
    """The labels the operator selects its database StatefulSet's pods by."""
    return mysqld_pod_labels(_operator(spec), spec.name)


def proxy_selector(spec: DatabaseSpec) -> dict[str, str]:
    return proxy_pod_labels(_operator(spec), spec.name, spec.proxy)


BUNDLE_OPERATOR_NAMES: Mapping[str, str] = MappingProxyType(
    {PXC_OPERATOR: "percona-xtradb-cluster-operator", PS_OPERATOR: "percona-server-mysql-operator"}
)


def operator_selector(spec: DatabaseSpec) -> dict[str, str]:
    chart = operator_for(spec.engine).chart
    return {"app.kubernetes.io/name": chart, "app.kubernetes.io/instance": chart}


def operator_peer(spec: DatabaseSpec, *, installed_here: bool) -> dict[str, Any]:
    if installed_here:
        return {"podSelector": {"matchLabels": operator_selector(spec)}}
    names = [operator_for(spec.engine).chart, BUNDLE_OPERATOR_NAMES[_operator(spec)]]
    return {
        "namespaceSelector": {},
        "podSelector": {"matchExpressions": [{"key": "app.kubernetes.io/name", "operator": "In", "values": names}]},
    }


def job_peers(spec: DatabaseSpec) -> list[dict[str, Any]]:
    """The operator's backup, restore (and PXC binlog-collector) pods."""
    if spec.engine == PXC:
        cluster = _pxc_labels(spec)
        return [
            {"podSelector": {"matchLabels": {**cluster, "percona.com/backup-type": "xtrabackup"}}},
            {
                "podSelector": {
                    "matchLabels": cluster,
                    "matchExpressions": [{"key": "percona.com/restore-job-name", "operator": "Exists"}],
                }
            },
            {"podSelector": {"matchLabels": {**cluster, "app.kubernetes.io/component": "pitr"}}},
        ]
    operator = "percona-server-mysql-operator"
    return [
        {
            "podSelector": {
                "matchLabels": {
                    "app.kubernetes.io/managed-by": operator,
                    "app.kubernetes.io/part-of": part_of,
                    "app.kubernetes.io/component": component,
                }
            }
        }
        for part_of, component in (("percona-server-backup", "backup"), ("percona-server-restore", "restore"))
    ]


PS_BINLOG_SERVER = "binlog-server"  # PS v1.2.0 pkg/binlogserver AppName


def binlog_server_selector(spec: DatabaseSpec) -> dict[str, str]:
    """The PS binlog server's pods (PITR, R2): this cluster's only (``instance``)."""
    return {
        "app.kubernetes.io/managed-by": "percona-server-mysql-operator",
        "app.kubernetes.io/name": PS_BINLOG_SERVER,
        "app.kubernetes.io/instance": spec.name,
        "app.kubernetes.io/component": "pitr",
    }


def sysbench_selector(spec: DatabaseSpec) -> dict[str, str]:
    return {
        "app.kubernetes.io/name": "sysbench",
        "app.kubernetes.io/instance": spec.name,
        "app.kubernetes.io/component": SYSBENCH_COMPONENT,
    }


# ---- policies -------------------------------------------------------------------------------------


def _ports(ports: Sequence[int]) -> list[dict[str, Any]]:
    return [{"protocol": "TCP", "port": port} for port in ports]


def _pmm_rule() -> dict[str, Any]:
    first, last = PMM_EXPORTER_PORTS
    return {
        "from": [{"podSelector": {"matchLabels": dict(PMM_SERVER_LABELS)}}],
        "ports": [{"protocol": "TCP", "port": first, "endPort": last}],
    }


def _operator_rule(spec: DatabaseSpec, installed_here: bool) -> dict[str, Any]:
    return {"from": [operator_peer(spec, installed_here=installed_here)]}  # every port


def _client_peers(spec: DatabaseSpec, clients: ClientAccess) -> list[dict[str, Any]]:
    pods = {"matchLabels": dict(clients.pod_labels)} if clients.pod_labels else {}
    peers: list[dict[str, Any]] = [{"podSelector": pods}]  # the database namespace
    others = [ns for ns in clients.namespaces if ns != spec.namespace]
    if others:
        peers.append(
            {
                "namespaceSelector": {"matchExpressions": [{"key": NAMESPACE_NAME_LABEL, "operator": "In", "values": others}]},
                "podSelector": pods,
            }
        )
    if clients.pod_labels:
        peers.append({"podSelector": {"matchLabels": sysbench_selector(spec)}})
    return peers


def _policy(
    spec: DatabaseSpec, suffix: str, selector: Mapping[str, str], rules: list[dict[str, Any]], labels: Mapping[str, str]
) -> dict[str, Any]:
    return {
        "apiVersion": API_VERSION,
        "kind": "NetworkPolicy",
        "metadata": {"name": f"{spec.name}-{suffix}", "namespace": spec.namespace, "labels": dict(labels)},
        "spec": {"podSelector": {"matchLabels": dict(selector)}, "policyTypes": ["Ingress"], "ingress": rules},
    }


def network_policies(
    spec: DatabaseSpec,
    clients: ClientAccess,
    *,
    pmm_server: bool,
    operator_installed: bool = True,
    labels: Mapping[str, str] = MappingProxyType({}),
) -> list[dict[str, Any]]:
    """The two NetworkPolicies of the cluster (R6). ``pmm_server``: a PMM server runs in the database
    namespace and may reach the pmm-client exporters. ``operator_installed``: the stack installs the
    operator in the database namespace."""
    members = PXC_MEMBER_PORTS if spec.engine == PXC else GR_MEMBER_PORTS
    job_ports = members if spec.engine == PXC else (MYSQL, ADMIN, PS_SIDECAR_PORT)
    mysqld_rules: list[dict[str, Any]] = [
        {"from": [{"podSelector": {"matchLabels": mysqld_selector(spec)}}], "ports": _ports(members)},
        {"from": [{"podSelector": {"matchLabels": proxy_selector(spec)}}], "ports": _ports(PROXY_TO_MYSQLD_PORTS)},
        _operator_rule(spec, operator_installed),
        {"from": job_peers(spec), "ports": _ports(job_ports)},
    ]
    if spec.engine != PXC:  # PXC's collector is among the Jobs' peers (component pitr)
        mysqld_rules.append({"from": [{"podSelector": {"matchLabels": binlog_server_selector(spec)}}], "ports": _ports((MYSQL,))})
    proxy_rules: list[dict[str, Any]] = [
        {"from": _client_peers(spec, clients), "ports": _ports(CLIENT_PORTS[spec.proxy])},
        _operator_rule(spec, operator_installed),
    ]
    if spec.proxy == PROXYSQL:
        proxy_rules.append(
            {"from": [{"podSelector": {"matchLabels": proxy_selector(spec)}}], "ports": _ports((PROXYSQL_CLUSTER_PORT,))}
        )
    if pmm_server:
        mysqld_rules.append(_pmm_rule())
        proxy_rules.append(_pmm_rule())
    return [
        _policy(spec, "mysqld", mysqld_selector(spec), mysqld_rules, labels),
        _policy(spec, "proxy", proxy_selector(spec), proxy_rules, labels),
    ]
