"""Each enabled proxy's backend connections to one mysqld, read from a database view as the proxy reads its
configuration (``percona_mysql_k8s.core.proxy_limits``: the same readers and facts sizing writes with)."""

from __future__ import annotations

from dataclasses import dataclass

from percona_mysql_k8s.core.haproxy_bound import HAProxyConfigError, operator_pod_bound
from percona_mysql_k8s.core.haproxy_operator import PS_HAPROXY_GLOBAL, PXC_HAPROXY_GLOBAL
from percona_mysql_k8s.core.proxy_limits import (
    PROXYSQL_SHIPPED_SERVER_CONNECTIONS,
    ProxyLimits,
    haproxy_limits,
    proxysql_clients,
    proxysql_limits,
    router_configured_limits,
)
from percona_mysql_k8s.core.sidecars import HAPROXY, PROXYSQL, ROUTER

from .database import Component, DatabaseView
from .values import Malformed, NotKnown, as_bool, as_int, as_map, as_str


@dataclass(frozen=True)
class ProxyBackends:
    """One enabled proxy: its pods, the limits one pod has (None: nothing bounds them) and where they come from."""

    component: Component
    pods: int | None
    limits: ProxyLimits | None
    source: str
    refused: str | None = None  # the custom configuration the proxy ignores, and why
    custom: bool = False  # the limits come from the custom configuration (not the operator's default or bootstrap)
    configuration: str = ""  # where the configuration is set (spec.haproxy.configuration, values...)


def _configuration(view: DatabaseView, component: Component) -> tuple[str | None, str]:
    rel = f"{component.rel}.configuration"
    return as_str(view.get(rel), view.path(rel)), view.path(rel)


def _haproxy(view: DatabaseView, component: Component) -> tuple[ProxyLimits | None, str, str | None]:
    """The bound one pod's files impose: the custom global file, or the operator's default when ``haproxy -c``
    refuses it (the entrypoint then ignores it), each with the backends the operator's script writes."""
    text, where = _configuration(view, component)
    # the members' host names only tell the servers apart: a fixed name, never the resource's (a '#' or a blank in
    # it would change how HAProxy splits the server lines)
    cluster, size = "cluster", view.size(view.mysqld_rel) or 3
    only_readers = view.operator == "pxc" and view.flag("haproxy.exposeReplicas.onlyReaders")
    refused = None
    if text:
        try:
            bound, source = operator_pod_bound(view.operator, text, cluster, size, only_readers), where
        except HAProxyConfigError as error:
            refused = f"{where} is a configuration haproxy -c refuses ({error}), so the entrypoint ignores it"
            text = None
    if not text:
        default = PXC_HAPROXY_GLOBAL if view.operator == "pxc" else PS_HAPROXY_GLOBAL
        bound = operator_pod_bound(view.operator, default, cluster, size, only_readers)
        source = "the operator's default haproxy-global.cfg"
    unseen = (
        f"; values from the environment count as unset ({', '.join(bound.from_environment)})" if bound.from_environment else ""
    )
    if bound.derived and bound.connections >= bound.global_maxconn:
        return (
            None,
            (
                f"{source} bounds no session: no global, frontend or server maxconn limits them, so HAProxy derives "
                f"maxconn from the descriptor limit (about {bound.global_maxconn}){unseen}"
            ),
            refused,
        )
    return haproxy_limits(bound), f"{source}: {bound.limited_by}{unseen}", refused


def _proxysql(view: DatabaseView, component: Component) -> tuple[ProxyLimits, str, str | None]:
    rel = f"{component.rel}.scheduler"
    scheduler = as_map(view.get(rel), view.path(rel))
    if as_bool(scheduler.get("enabled"), view.path(f"{rel}.enabled"), False):
        per_server = as_int(scheduler.get("maxConnections"), view.path(f"{rel}.maxConnections"))
        per_server = PROXYSQL_SHIPPED_SERVER_CONNECTIONS if per_server is None else per_server
        if per_server < 1:
            raise Malformed(view.path(f"{rel}.maxConnections"), f"is {per_server}, not a connection count")
        where = f"{view.path(rel)}.maxConnections {per_server}"
    else:
        per_server = PROXYSQL_SHIPPED_SERVER_CONNECTIONS
        where = (
            f"proxysql-admin's MAX_CONNECTIONS {per_server} ({view.path(rel)} is not enabled, and the image's "
            "proxysql-admin.cnf fixes it)"
        )
    text, cnf = _configuration(view, component)
    try:
        clients = proxysql_clients(text)
    except ValueError as error:
        raise Malformed(cnf, f"is a configuration ProxySQL refuses ({error})") from None
    limits = proxysql_limits(clients, per_server)
    where = f"{where} per server, in the writer and the reader hostgroup"
    if clients < per_server:
        where += f", and mysql_variables.max_connections {clients} clients ({cnf}), each holding at most one per hostgroup"
    return limits, where, None


def _router(view: DatabaseView, component: Component) -> tuple[ProxyLimits, str, str | None]:
    text, where = _configuration(view, component)
    try:
        limits = router_configured_limits(text)
    except ValueError as error:
        raise Malformed(where, f"is a configuration MySQL Router refuses ({error})") from None
    settings = limits.settings
    source = where if text else "the bootstrapped configuration"
    return (
        limits,
        (
            f"{source} (max_total_connections {settings['max_total_connections']} + an idle pool of "
            f"max_idle_server_connections {settings['max_idle_server_connections']})"
        ),
        None,
    )


_READERS = {HAPROXY: _haproxy, PROXYSQL: _proxysql, ROUTER: _router}


def proxy_backends(view: DatabaseView) -> list[ProxyBackends | NotKnown]:
    """Every enabled proxy with its pod count and one pod's backend limit; a proxy whose being enabled, size or
    configuration is unknown at preview is its NotKnown (the others are judged)."""
    found: list[ProxyBackends | NotKnown] = []
    for component in view.enabled_proxies():
        try:
            if component.undecided() is not None:
                raise component.undecided()
            limits, source, refused = _READERS[component.key](view, component)
            text, where = _configuration(view, component)
            custom = bool(text) and refused is None
            found.append(ProxyBackends(component, view.size(component.rel), limits, source, refused, custom, where))
        except NotKnown as error:
            found.append(error)
    return found
