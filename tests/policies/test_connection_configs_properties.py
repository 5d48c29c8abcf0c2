"""Configurations in other people's styles never stop the connection policies (hypothesis).

mysqld option files, HAProxy global files, proxysql.cnf and Router extra config are drawn from pieces people
write (dashes and underscores, ``loose-`` prefixes, comments, other groups, ``mysqlx_max_connections``,
templates, quoting, named defaults, listen sections, a memory given only as a request or below the
operators' 12Mi floor) and run through derived-connections (M6), proxy-backend-connections (T5) and
memory-split (M1/M2). Each either judges the resource or reports what it cannot read; none "could not
evaluate" it. (A PS text naming ``max_connections`` without setting it once crashed derived-connections.)
"""

from __future__ import annotations

import copy

from harness import load_base, run_resource
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from percona_mysql_k8s.policies import derived_connections, memory_split, proxy_backend_connections

POLICIES = (derived_connections, proxy_backend_connections, memory_split)

MYSQLD_LINES = st.sampled_from(
    [
        "[mysqld]",
        "[server]",
        "[mysqld-8.4]",
        "[ mysqld ]",
        "[client]",
        "max_connections=300",
        "max-connections = 2000",
        "loose-max_connections=120",
        "loose_max_connections=4000",
        "maximum-max_connections=500",
        "# max_connections=100",
        "mysqlx_max_connections=50",
        "innodb_buffer_pool_size=2G",
        "innodb-buffer-pool-size=6442450944",
        "innodb_buffer_pool_size={{containerMemoryLimit * 3 / 4}}",
        "max_connections={{containerMemoryLimit / 12582880}}",
        "thread_handling=pool-of-threads",
        "thread_pool_max_threads=64",
        "sql_mode=STRICT_ALL_TABLES\\",
        "; a comment",
        "skip-name-resolve",
    ]
)
MEMORY = st.sampled_from(
    [
        {"requests": {"memory": "16Gi"}, "limits": {"memory": "16Gi"}},
        {"requests": {"memory": "4Gi"}},
        {"limits": {"memory": "2Gi"}},
        {"requests": {"memory": "10Mi"}, "limits": {"memory": "10Mi"}},
        {},
    ]
)
HAPROXY_LINES = st.sampled_from(
    [
        "global",
        "  maxconn 326",
        "  maxconn 0",
        "  maxconn 2k",
        '  maxconn "${MAXCONN}"',
        "  external-check",
        "  fd-hard-limit 2000",
        "defaults",
        "defaults sql",
        "defaults x from sql",
        "  maxconn 100",
        "  default-server maxconn 50 minconn 80",
        "  mode tcp",
        "frontend galera-in",
        "frontend mysql-primary-in from sql",
        "listen own",
        "  bind *:3306",
        "  bind *:3306-3308 maxconn 10",
        "  default_backend galera-nodes",
        "  default_backend mysql-primary",
        "  use_backend %[var(txn.b)]",
        "  server s 10.0.0.1:3306 maxconn 7",
        "  no option dontlognull",
        "  option external-check",
        "backend galera-nodes",
        "# a comment",
    ]
)
ROUTER_LINES = st.sampled_from(
    [
        "[DEFAULT]",
        "max_total_connections=200",
        "[routing:bootstrap_rw]",
        "[routing:mine]",
        "max_connections = 10",
        "protocol=x",
        "[connection_pool]",
        "max_idle_server_connections: 5",
        "; note",
    ]
)


def _text(lines) -> st.SearchStrategy:
    return st.one_of(st.none(), st.lists(lines, max_size=10).map(lambda chosen: "\n".join(chosen) + "\n"))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(["pxc", "ps-gr"]),
    _text(MYSQLD_LINES),
    MEMORY,
    st.sampled_from(["haproxy", "other"]),
    st.data(),
)
def test_no_configuration_the_operator_accepts_stops_a_connection_policy(base_name, mysqld, memory, proxy, data):
    base = load_base(base_name)
    props = copy.deepcopy(base["props"])
    spec = props["spec"]
    member = spec["pxc"] if base_name == "pxc" else spec["mysql"]
    member["configuration"] = mysqld
    member["resources"] = dict(memory, **{"requests": {**memory.get("requests", {}), "cpu": "4"}})
    if proxy == "haproxy":
        block = spec["haproxy"] if base_name == "pxc" else spec["proxy"]["haproxy"]
        block["configuration"] = data.draw(_text(HAPROXY_LINES), label="haproxy")
    elif base_name == "pxc":
        spec["haproxy"]["enabled"] = False
        spec["proxysql"] = {"enabled": True, "size": 3, "configuration": data.draw(_proxysql(), label="proxysql")}
    else:
        spec["proxy"]["haproxy"]["enabled"] = False
        spec["proxy"]["router"] = {"enabled": True, "size": 3, "configuration": data.draw(_text(ROUTER_LINES), label="router")}
    for module in POLICIES:
        outcome = run_resource(module.POLICY, base["type"], props)
        for message in outcome.messages:
            assert "could not evaluate" not in message, message


def _proxysql() -> st.SearchStrategy:
    values = st.sampled_from(["300", '"163"', "300.5", "true", "0", "2000000", '" 12 clients"', "300L"])
    return st.one_of(
        st.none(),
        values.map(lambda value: f"mysql_variables =\n{{\n\tMax_Connections = {value}\n}}\n"),
        st.just("mysql_variables = { threads = 2 "),
    )
