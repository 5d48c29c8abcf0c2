"""The proxies' own connection limits, written from the sizing's numbers (M6, T5): both ends agree.

Each proxy pod gets ``SizingResult.proxy_limits`` (``percona_mysql_k8s.core.proxy_limits``): the settings that let
it open at most its share of mysqld's ``max_connections``, which is that share times the proxy pods plus mysqld's
own users (``percona_mysql_k8s.core.connections``). The settings are written where each operator reads them:

* HAProxy: ``maxconn`` in the ``global`` section. ``spec.haproxy.configuration`` (PXC) and
  ``spec.proxy.haproxy.configuration`` (PS) *replace* the operator's default global file (PXC operator
  build/haproxy-entrypoint.sh: ``-f /etc/haproxy-custom/haproxy-global.cfg`` instead of
  ``/opt/percona/haproxy-global.cfg``; PS operator v1.2.0 build/haproxy-entrypoint.sh: ``haproxy.cfg`` in
  the same way), and HAProxy refuses a second ``maxconn``; so the operator's whole default
  (core.haproxy_operator, byte for byte) is rendered with our value.
* ProxySQL: ``mysql_variables.max_connections``. ``spec.proxysql.configuration`` replaces
  /etc/proxysql/proxysql.cnf (PXC operator build/proxysql-entrypoint.sh copies the custom file over the
  default, then substitutes the ``admin:admin`` / ``monitor`` / ``admin`` placeholders with the users'
  Secret passwords), so the operator's default v1.19.0 build/proxysql.cnf is rendered with our value,
  placeholders included (they are not passwords: the entrypoint replaces them before ProxySQL starts). Its
  per-server ``max_connections`` is the custom resource's ``spec.proxysql.scheduler.maxConnections``
  (``manifests.proxysql_scheduler``), which only the scheduler reads.
* MySQL Router: ``max_total_connections`` in ``[DEFAULT]`` (Router 8.0.27+) and ``max_idle_server_connections``
  in ``[connection_pool]``. ``spec.proxy.router.configuration`` is passed with ``--extra-config`` on top of the
  bootstrapped file (PS operator v1.2.0 build/router-entrypoint.sh), and Router merges it option by option
  (router/src/harness/src/config_parser.cc, ``Config::update``), so only the overrides are written.
"""

from __future__ import annotations

from percona_mysql_k8s.core.errors import InputError
from percona_mysql_k8s.core.haproxy_operator import PS_HAPROXY_GLOBAL, PXC_HAPROXY_GLOBAL
from percona_mysql_k8s.core.memory import PXC
from percona_mysql_k8s.core.proxy_limits import ProxyLimits
from percona_mysql_k8s.core.sidecars import HAPROXY, PROXYSQL, ROUTER

PXC_PROXYSQL_CNF = """datadir="/var/lib/proxysql"

admin_variables =
{
	admin_credentials="admin:admin"
	mysql_ifaces="0.0.0.0:6032"
	refresh_interval=2000
	restapi_enabled=true
	restapi_port=6070

	cluster_username="admin"
	cluster_password="admin"
	checksum_admin_variables=false
	checksum_ldap_variables=false
	checksum_mysql_variables=false
	cluster_check_interval_ms=200
	cluster_check_status_frequency=100
	cluster_mysql_query_rules_save_to_disk=true
	cluster_mysql_servers_save_to_disk=true
	cluster_mysql_users_save_to_disk=true
	cluster_proxysql_servers_save_to_disk=true
	cluster_mysql_query_rules_diffs_before_sync=1
	cluster_mysql_servers_diffs_before_sync=1
	cluster_mysql_users_diffs_before_sync=1
	cluster_proxysql_servers_diffs_before_sync=1
}

mysql_variables=
{
	monitor_password="monitor"
	monitor_galera_healthcheck_interval=1000
	threads=2
	max_connections=2048
	default_query_delay=0
	default_query_timeout=10000
	poll_timeout=2000
	interfaces="0.0.0.0:3306"
	default_schema="information_schema"
	stacksize=1048576
	connect_timeout_server=10000
	monitor_history=60000
	monitor_connect_interval=20000
	monitor_ping_interval=10000
	ping_timeout_server=200
	commands_stats=true
	sessions_sort=true
	have_ssl=false
	ssl_p2s_ca=""
	ssl_p2s_cert=""
	ssl_p2s_key=""
	ssl_p2s_cipher="ECDHE-RSA-AES128-GCM-SHA256"
	default_authentication_plugin="caching_sha2_password"
}
"""

_SHIPPED = {  # the default's own line -> the line we write
    "haproxy": ("      maxconn 2048\n", "      maxconn {limit}\n"),
    "proxysql": ("\tmax_connections=2048\n", "\tmax_connections={limit}\n"),
}


def _with_limit(default: str, proxy: str, limit: int) -> str:
    shipped, ours = _SHIPPED[proxy]
    return default.replace(shipped, ours.format(limit=limit), 1)


def _positive(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise InputError("connections", f"a proxy's {name} must be a whole number >= 1, got {value!r}", "M6")
    return value


def proxy_configuration(engine: str, proxy: str, limits: ProxyLimits) -> str:
    """The ``configuration`` string of the proxy block: the operator's default with the limits' settings."""
    if proxy != limits.proxy:
        raise InputError("proxy", f"limits for {limits.proxy} given for {proxy}", "T2")
    if proxy == HAPROXY:
        maxconn = _positive("maxconn", limits.settings["maxconn"])
        return _with_limit(PXC_HAPROXY_GLOBAL if engine == PXC else PS_HAPROXY_GLOBAL, "haproxy", maxconn)
    if proxy == PROXYSQL:
        return _with_limit(PXC_PROXYSQL_CNF, "proxysql", _positive("max_connections", limits.settings["mysql-max_connections"]))
    if proxy == ROUTER:
        max_total = _positive("max_total_connections", limits.settings["max_total_connections"])
        pool = limits.settings["max_idle_server_connections"]
        if isinstance(pool, bool) or not isinstance(pool, int) or pool < 0:
            raise InputError("connections", f"Router's idle pool must be a whole number >= 0, got {pool!r}", "M6")
        return f"[DEFAULT]\nmax_total_connections={max_total}\n\n[connection_pool]\nmax_idle_server_connections={pool}\n"
    raise InputError("proxy", f"unknown proxy {proxy!r}", "T2")
