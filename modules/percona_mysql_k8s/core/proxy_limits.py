"""The proxies' connection limits (M6, T5): what one proxy pod accepts from clients and opens to mysqld.

One number at both ends: sizing gives every proxy pod a *share* of mysqld's ``max_connections`` (what is left
after mysqld's own users, divided by the pods), and writes each proxy's settings so that the backend connections
one pod can open to one mysqld never exceed that share. The policy pack reads the same settings back from any
custom resource with the readers below and checks the same sum (T5). Per proxy:

* HAProxy (TCP mode): every client session is one backend connection. The global ``maxconn`` bounds the
  sessions of the process (a connection beyond it waits in the listen backlog), each frontend's ``maxconn`` its
  own, each server's ``maxconn`` the connections to it; core.haproxy_bound takes the flow through all of them
  to the most exposed member, with HAProxy's inheritance and defaults (core.haproxy_proxies). Shipped:
  ``maxconn 2048`` in both operators' ``build/haproxy-global.cfg`` (PXC operator 1.20.0, PS operator v1.2.0).
  With a custom ``configuration`` that bounds nothing, HAProxy derives the global maxconn from the descriptor
  limit the entrypoint raises to 1048576: no bound.
* ProxySQL: client sessions share a pool of backend connections, at most ``max_connections`` per server and
  hostgroup (``mysql_servers.max_connections``, column default 1000: include/MySQL_HostGroups_Manager.h
  ``MYHGM_MYSQL_SERVERS``); a query finding none free waits for one (up to ``mysql-connect_timeout_server_max``).
  A session holds at most one backend connection per hostgroup, so the clients' limit
  (``mysql-max_connections``) bounds them too: two per client. The writer is in the writer hostgroup (11) and, as writers are readers
  (``WRITERS_ARE_READERS='yes'``, build/proxysql-entrypoint.sh; ``scheduler.writerIsAlsoReader``), in the reader
  hostgroup (10): two rows. proxysql-admin inserts the servers with ``MAX_CONNECTIONS="1000"`` from the image's
  build/proxysql-admin.cnf, which a custom resource cannot change; with ``spec.proxysql.scheduler.enabled`` the
  operator's percona-scheduler-admin inserts every server into the writer and the reader hostgroup (and their
  two configuration hostgroups, which no query reaches) with ``[setup] maxConnections`` (``add_servers_to_proxysql``,
  percona/proxysql-admin-tool 84f51a6), which the operator fills from ``scheduler.maxConnections`` (CRD default
  1000). The clients' limit is ``mysql_variables.max_connections`` (shipped 2048, build/proxysql.cnf).
* MySQL Router: ``[DEFAULT] max_total_connections`` bounds client connections (default 512); beyond it Router
  answers error 1040 itself (router/src/routing/src/mysql_routing.cc, mysql/mysql-server). Each client holds at
  most one connection to a destination, and ``[connection_pool] max_idle_server_connections`` more may sit idle
  in the pool; the bootstrap writes 64 (``kDefaultMaxIdleServerConnectionsBootstrap``,
  router/src/connection_pool/include/mysqlrouter/connection_pool.h). The operator passes the custom
  ``configuration`` with ``--extra-config`` (PS operator v1.2.0 build/router-entrypoint.sh), which Router merges
  into the bootstrapped file option by option (``Config::read``/``Config::update``,
  router/src/harness/src/config_parser.cc).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from . import libconfig
from .haproxy_bound import Bound
from .sidecars import HAPROXY, PROXYSQL, ROUTER

HAPROXY_SHIPPED_MAXCONN = 2048
PROXYSQL_SHIPPED_CLIENTS = 2048
PROXYSQL_DEFAULT_CLIENTS = 10000  # lib/MySQL_Thread.cpp: variables.max_connections=10*1000
PROXYSQL_MAX_CLIENTS = 1000000  # VariablesPointers_int["max_connections"]: 1 .. 1000*1000
PROXYSQL_SHIPPED_SERVER_CONNECTIONS = 1000
PROXYSQL_HOSTGROUPS_PER_SERVER = 2
ROUTER_SHIPPED_MAX_TOTAL = 512
ROUTER_BOOTSTRAP_IDLE_POOL = 64
# The routes Router 8.4's bootstrap writes (percona/percona-mysql-router 8.4 in the PS operator v1.2.0 cr.yaml).
ROUTER_BOOTSTRAP_CLASSIC_ROUTES = ("bootstrap_rw", "bootstrap_ro", "bootstrap_rw_split")
ROUTER_X_ROUTES = frozenset({"routing:bootstrap_x_rw", "routing:bootstrap_x_ro"})
# Router's idle pool takes at most this share of a pod's share of mysqld's connections.
ROUTER_POOL_SHARE = 4


@dataclass(frozen=True)
class ProxyLimits:
    """One proxy pod's limits: clients it accepts, backend connections it can open to one mysqld, and the settings
    that make them (name -> value, as the proxy's configuration spells them)."""

    proxy: str
    client_limit: int
    backend_limit: int
    settings: Mapping[str, int] = field(default_factory=dict)


def shipped(proxy: str) -> ProxyLimits:
    """The limits of a proxy pod as the operators ship it."""
    if proxy == HAPROXY:
        return ProxyLimits(HAPROXY, HAPROXY_SHIPPED_MAXCONN, HAPROXY_SHIPPED_MAXCONN, {"maxconn": HAPROXY_SHIPPED_MAXCONN})
    if proxy == PROXYSQL:
        return proxysql_limits(PROXYSQL_SHIPPED_CLIENTS, PROXYSQL_SHIPPED_SERVER_CONNECTIONS)
    if proxy == ROUTER:
        return router_limits(ROUTER_SHIPPED_MAX_TOTAL, ROUTER_BOOTSTRAP_IDLE_POOL)
    raise ValueError(f"unknown proxy {proxy!r}")


def proxysql_limits(clients: int, per_server: int) -> ProxyLimits:
    """A session holds at most one backend connection per hostgroup (MySQL_Session's ``mybes``), so one pod opens
    to a server at most its rows' ``max_connections`` and at most two per client (writer and reader hostgroup)."""
    backend = PROXYSQL_HOSTGROUPS_PER_SERVER * min(per_server, clients)
    return ProxyLimits(
        PROXYSQL,
        clients,
        backend,
        {"mysql-max_connections": clients, "scheduler.maxConnections": per_server},
    )


def router_limits(max_total: int, idle_pool: int, routes: int | None = None) -> ProxyLimits:
    """``routes``: what the classic routes' own ``max_connections`` admit together (None: one of them is unlimited)."""
    clients = max_total if routes is None else min(max_total, routes)
    return ProxyLimits(
        ROUTER, clients, clients + idle_pool, {"max_total_connections": max_total, "max_idle_server_connections": idle_pool}
    )


def limits_for_share(proxy: str, share: int) -> ProxyLimits:
    """The settings that let one pod open at most ``share`` backend connections to one mysqld (``share`` >= 1)."""
    share = max(1, share)
    if proxy == HAPROXY:
        return ProxyLimits(HAPROXY, share, share, {"maxconn": share})
    if proxy == PROXYSQL:
        # Clients beyond the backend rows queue inside ProxySQL: the clients' limit is the whole share. A share
        # below two still opens one per hostgroup (fewest_connections keeps sizing from asking for it).
        return proxysql_limits(share, max(1, share // PROXYSQL_HOSTGROUPS_PER_SERVER))
    if proxy == ROUTER:
        pool = min(ROUTER_BOOTSTRAP_IDLE_POOL, share // ROUTER_POOL_SHARE)
        return router_limits(share - pool, pool)
    raise ValueError(f"unknown proxy {proxy!r}")


# --------------------------------------------------------------------------------------------------
# readers: each format as its proxy reads it


def haproxy_limits(bound: Bound) -> ProxyLimits:
    """One HAProxy pod's limits from the bound its files impose (core.haproxy_bound): the global maxconn bounds its
    clients, the flow to the most exposed member its backend connections."""
    return ProxyLimits(HAPROXY, bound.global_maxconn, bound.connections, {"maxconn": bound.global_maxconn})


def proxysql_clients(text: str | None) -> int:
    """ProxySQL's ``mysql-max_connections`` from the custom proxysql.cnf (the operator's default file sets 2048).

    sysown/proxysql 5cc418b lib/ProxySQL_Config.cpp ``Read_Global_Variables_from_configfile`` stores each setting of
    the ``mysql_variables`` group as text (a bool as true/false, an integer in decimal, a string as written, any other
    type as empty); lib/MySQL_Thread.cpp ``set_variable`` lower-cases the name and takes ``atoi`` of the text only
    within ``max_connections``'s range 1..1000000, else the default ``variables.max_connections=10*1000`` stays.
    ValueError when libconfig cannot read the file (ProxySQL exits at start).
    """
    if not text:
        return PROXYSQL_SHIPPED_CLIENTS
    try:
        root = libconfig.parse(text)
    except libconfig.LibconfigError as error:
        raise ValueError(f"ProxySQL cannot read it (libconfig: {error}); it exits at start") from None
    clients = PROXYSQL_DEFAULT_CLIENTS
    group = root.settings.get("mysql_variables")
    for name, setting in group.settings.items() if isinstance(group, libconfig.Group) else ():
        if name.lower() != "max_connections" or not isinstance(setting, libconfig.Scalar):
            continue
        if setting.kind == "bool":
            written = "true" if setting.value else "false"
        elif setting.kind in ("int", "int64", "string"):
            written = str(setting.value)
        else:
            written = ""
        value = _c_atoi(written)
        if 1 <= value <= PROXYSQL_MAX_CLIENTS:
            clients = value
    return clients


def _c_atoi(text: str) -> int:
    match = re.match(r"[ \t\n\v\f\r]*([+-]?[0-9]+)", text)
    return int(match.group(1)) if match else 0


def router_options(text: str) -> dict[str, dict[str, str]]:
    """A MySQL Router configuration file as its harness reads one (router/src/harness/src/config_parser.cc,
    ``Config::do_read_stream``): blank lines and lines starting with ``#`` or ``;`` skipped, section names
    lower-cased (``[name:key]`` keeps the key), options split at the first ``:`` or ``=``, names lower-cased;
    a section or an option given twice in one file is an error. Returns section -> option -> value."""
    sections: dict[str, dict[str, str]] = {}
    current: dict[str, str] | None = None
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line[0] in "#;":
            continue
        if line[0] == "[":
            if line[-1] != "]":
                raise ValueError(f"line {number}: malformed section header {line!r}")
            name = line[1:-1].lower()
            if not name:
                raise ValueError(f"line {number}: a section name may not be empty")
            if name in sections and name != "default":
                raise ValueError(f"line {number}: section [{name}] given twice")
            current = sections.setdefault(name, {})
            continue
        if current is None:
            raise ValueError(f"line {number}: option line before the first section")
        cut = min((i for i in (line.find(":"), line.find("=")) if i >= 0), default=-1)
        if cut < 0:
            raise ValueError(f"line {number}: malformed option line {line!r}")
        option, value = line[:cut].strip().lower(), line[cut + 1 :].strip()
        if option in current:
            raise ValueError(f"line {number}: option {option!r} already defined")
        current[option] = value
    return sections


def _router_count(sections: Mapping[str, Mapping[str, str]], section: str, option: str, default: int) -> int:
    value = sections.get(section, {}).get(option)
    if value is None:
        return default
    if not value.isascii() or not value.isdigit():
        raise ValueError(f"[{section}] {option}={value!r} is not a whole number Router accepts")
    return int(value)


def router_configured_limits(text: str | None) -> ProxyLimits:
    """Router's limits after the operator merges ``configuration`` into the bootstrapped file.

    Every classic route may reach the same member (the ro route falls back to the primary): their per-route
    ``max_connections`` (router/src/routing/include/mysqlrouter/routing.h ``kDefaultMaxConnections{0}``, "0 == no
    limit per route"; the bootstrap writes none) bound the clients together when each route sets one; the X
    protocol routes reach mysqlx's port, which ``max_connections`` does not count."""
    sections = router_options(text or "")
    max_total = _router_count(sections, "default", "max_total_connections", ROUTER_SHIPPED_MAX_TOTAL)
    pool = _router_count(sections, "connection_pool", "max_idle_server_connections", ROUTER_BOOTSTRAP_IDLE_POOL)
    classic = {f"routing:{name}" for name in ROUTER_BOOTSTRAP_CLASSIC_ROUTES}
    classic |= {name for name, options in sections.items() if name.startswith("routing:") and name not in ROUTER_X_ROUTES}
    classic = {name for name in classic if sections.get(name, {}).get("protocol", "classic").lower() != "x"}
    caps = [_router_count(sections, name, "max_connections", 0) for name in sorted(classic)]
    return router_limits(max_total, pool, None if 0 in caps else sum(caps))
