"""Each enabled proxy's backend connections to one mysqld, read from a database view as the proxy reads its
configuration (``percona_mysql_k8s.core.proxy_limits``: the same readers and facts sizing writes with)."""

from __future__ import annotations

from dataclasses import dataclass

from percona_mysql_k8s.core.proxy_limits import (
    PROXYSQL_SHIPPED_SERVER_CONNECTIONS,
    ProxyLimits,
    haproxy_global_maxconn,
    proxysql_limits,
    router_configured_limits,
    shipped,
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


def _configuration(view: DatabaseView, component: Component) -> tuple[str | None, str]:
    rel = f"{component.rel}.configuration"
    return as_str(view.get(rel), view.path(rel)), view.path(rel)


def _haproxy(view: DatabaseView, component: Component) -> tuple[ProxyLimits | None, str]:
    text, where = _configuration(view, component)
    if not text:
        return shipped(HAPROXY), f"the operator's default haproxy-global.cfg (maxconn {shipped(HAPROXY).backend_limit})"
    try:
        maxconn = haproxy_global_maxconn(text)
    except ValueError as error:
        raise Malformed(where, f"is a configuration HAProxy refuses ({error})") from None
    if maxconn is None:
        return None, (
            f"{where} replaces the operator's global section and sets no global maxconn, so HAProxy "
            "derives its limit from the file-descriptor limit (about half of ulimit -n)"
        )
    return ProxyLimits(HAPROXY, maxconn, maxconn, {"maxconn": maxconn}), f"{where} (global maxconn {maxconn})"


def _proxysql(view: DatabaseView, component: Component) -> tuple[ProxyLimits, str]:
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
    limits = proxysql_limits(0, per_server)
    return limits, f"{where} per server, in the writer and the reader hostgroup"


def _router(view: DatabaseView, component: Component) -> tuple[ProxyLimits, str]:
    text, where = _configuration(view, component)
    try:
        limits = router_configured_limits(text)
    except ValueError as error:
        raise Malformed(where, f"is a configuration MySQL Router refuses ({error})") from None
    settings = limits.settings
    source = where if text else "the bootstrapped configuration"
    return limits, (
        f"{source} (max_total_connections {settings['max_total_connections']} + an idle pool of "
        f"max_idle_server_connections {settings['max_idle_server_connections']})"
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
            limits, source = _READERS[component.key](view, component)
            found.append(ProxyBackends(component, view.size(component.rel), limits, source))
        except NotKnown as error:
            found.append(error)
    return found
