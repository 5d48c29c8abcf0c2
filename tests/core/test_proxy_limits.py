"""The proxies' limits (core/proxy_limits.py): what sizing writes, read back as each proxy reads its configuration."""

import pytest
from hypothesis import given
from hypothesis import strategies as st
from percona_mysql_k8s.core.haproxy_bound import member_hosts, operator_backends, operator_pod_bound, pod_bound
from percona_mysql_k8s.core.haproxy_config import HAProxyConfigError
from percona_mysql_k8s.core.haproxy_operator import MEMBERS_FOR_A_BOUND
from percona_mysql_k8s.core.haproxy_proxies import read
from percona_mysql_k8s.core.proxy_limits import (
    limits_for_share,
    proxysql_clients,
    proxysql_limits,
    router_configured_limits,
    router_options,
    shipped,
)
from percona_mysql_k8s.plan.database.proxy_config import proxy_configuration


def test_the_operators_shipped_limits():
    # HAProxy maxconn 2048 (both operators' haproxy-global.cfg); ProxySQL: proxysql-admin's 1000 per server in the
    # writer and the reader hostgroup, 2048 clients; Router: 512 clients and the bootstrap's idle pool of 64
    assert (shipped("haproxy").client_limit, shipped("haproxy").backend_limit) == (2048, 2048)
    assert (shipped("proxysql").client_limit, shipped("proxysql").backend_limit) == (2048, 2000)
    assert (shipped("router").client_limit, shipped("router").backend_limit) == (512, 576)


def test_a_share_by_hand():
    assert limits_for_share("haproxy", 326).settings == {"maxconn": 326}
    assert limits_for_share("proxysql", 326).settings == {"mysql-max_connections": 326, "scheduler.maxConnections": 163}
    # Router: an idle pool of a quarter of the share, at most the bootstrap's 64
    assert limits_for_share("router", 326).settings == {"max_total_connections": 262, "max_idle_server_connections": 64}
    assert limits_for_share("router", 100).settings == {"max_total_connections": 75, "max_idle_server_connections": 25}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("global\n  maxconn 326\n", 326),
        ("    global\n\tlog stdout format raw local0\n\tmaxconn\t326\t# per pod\n", 326),  # tabs, a comment
        ('global\n  maxconn "326"\n', 326),  # quotes group a word
        ("global\n  maxconn +326\n", 326),  # strtol takes a sign
        ('global\n  maxconn " 326"\n', 326),  # and leading blanks
        ("global\n  maxconn 300\n  maxconn 99999\n", 300),  # a second one is an alert: the first stays
        ("global\n  maxconn 0\n  maxconn 500\n", 500),  # 0 is "not set": the next one is taken
        ("defaults\n  maxconn 100\nfrontend x\n  maxconn 50\nglobal\n  maxconn 326\n", 326),  # only global counts
        ("global\n  log stdout\nfrontend x\n  maxconn 50\n", 0),  # none in global
        ("global\n  # maxconn 326\n", 0),  # commented out
        ("global\n  log 'a # b' local0\n  maxconn 7\n", 7),  # a quoted '#' is no comment
        ('global\n  maxconn "${MAXCONN}"\n', 0),  # the environment's: not seen, counts as unset
    ],
)
def test_haproxy_reads_its_global_maxconn(text, expected):
    assert read([text + _LISTENER]).global_maxconn == expected


_LISTENER = "\nfrontend listener\n  bind :3306\n"


@pytest.mark.parametrize(
    "text",
    [
        "global\n  maxconn 326k\n",  # strtol with trailing characters: HAProxy 2.8 refuses it
        "global\n  maxconn\n",  # no value
        "global\n  maxconn 1 2\n",  # too many
        "global\n  maxconn ３２６\n",  # non-ASCII digits are no digits to HAProxy
        "global\n  log 'unterminated\n",
        "global\n  no maxconn 5\n",  # 'no' only before options, log and a few others
        "frontend x 0.0.0.0:3306\n",  # 1.x style address: "please use the 'bind' keyword"
        "frontend x\n  bind :3306\n  default_backend missing\n",
        "frontend x\n  bind :3306\n  maxconn 5 6\n",
        "frontend x\n  bind :3306\n  server s 127.0.0.1:3306\n",  # a server in a frontend
        "backend b\n  server s 127.0.0.1:3306\n",  # no listener: haproxy -c exits 2
        "frontend x from nowhere\n  bind :3306\n",
    ],
)
def test_haproxy_refuses(text):
    with pytest.raises(HAProxyConfigError):
        read([text if "bind" in text or "backend" in text else text + _LISTENER])


def test_haproxy_26_reads_global_maxconn_with_atol():
    # Debian's 2.6 (the oracle) took atol where 2.8 refuses trailing characters
    assert read(["global\n  maxconn 326k\n" + _LISTENER], version="2.6").global_maxconn == 326


def test_router_reads_as_its_harness_does():
    text = (
        "; a comment\n# another\n[DEFAULT]\nMax_Total_Connections = 245\n\n[Connection_Pool]\nmax_idle_server_connections: 81\n"
    )
    assert router_options(text) == {
        "default": {"max_total_connections": "245"},
        "connection_pool": {"max_idle_server_connections": "81"},
    }
    limits = router_configured_limits(text)
    assert (limits.client_limit, limits.backend_limit) == (245, 326)
    # unset: Router's default 512 and the bootstrap's pool of 64
    assert router_configured_limits(None).backend_limit == 576
    assert router_configured_limits("[routing:rw]\nmax_connections=10\n").backend_limit == 576


@pytest.mark.parametrize(
    "text",
    [
        "[DEFAULT]\nmax_total_connections=1\nmax_total_connections=2\n",  # already defined
        "[logger]\nlevel=INFO\n[logger]\n",  # a section twice in one file
        "[DEFAULT\nx=1\n",  # malformed header
        "x=1\n",  # option before any section
        "[DEFAULT]\nmax_total_connections\n",  # no separator
        "[DEFAULT]\nmax_total_connections=5k\n",  # not a count
    ],
)
def test_router_refuses(text):
    with pytest.raises(ValueError):
        router_configured_limits(text)


MINIMUM_SHARE = {"haproxy": 1, "proxysql": 2, "router": 1}


@given(st.sampled_from(sorted(MINIMUM_SHARE)), st.integers(1, 100_000))
def test_a_pod_never_opens_more_than_its_share_and_wastes_at_most_one(proxy, share):
    limits = limits_for_share(proxy, share)
    if share >= MINIMUM_SHARE[proxy]:
        assert share - 1 <= limits.backend_limit <= share
    assert limits.client_limit >= 1


@given(
    st.sampled_from([("pxc", "haproxy"), ("group-replication", "haproxy"), ("group-replication", "router")]),
    st.integers(1, 100_000),
)
def test_what_sizing_writes_is_what_the_proxy_reads(engine_proxy, share):
    engine, proxy = engine_proxy
    limits = limits_for_share(proxy, share)
    text = proxy_configuration(engine, proxy, limits)
    if proxy == "haproxy":
        # the operator's whole default with our maxconn, beside the backends its script writes: the global maxconn
        # binds, the frontends (which default to it) and the servers (no maxconn) do not
        hosts = member_hosts("pxc" if engine == "pxc" else "ps", "shop", 3)
        bound = pod_bound([text, operator_backends("pxc" if engine == "pxc" else "ps", hosts)], hosts)
        assert (bound.connections, bound.global_maxconn, bound.derived) == (limits.backend_limit, share, False)
    else:
        assert router_configured_limits(text) == limits


@pytest.mark.parametrize(
    ("text", "clients"),
    [
        (None, 2048),  # the operator's proxysql.cnf
        ("mysql_variables = { threads = 2 }\n", 10000),  # a file without it: ProxySQL's own default
        ('mysql_variables = { MAX_CONNECTIONS = "300" }\n', 300),  # names lower-cased, a string's text
        ("mysql_variables = { max_connections = 300L }\n", 300),  # a 64-bit integer
        ('mysql_variables = { max_connections = " 300 clients" }\n', 300),  # atoi: leading blanks, trailing text
        ("mysql_variables = { max_connections = 300.0 }\n", 10000),  # a float is stored as empty text: refused
        ("mysql_variables = { max_connections = 0 }\n", 10000),  # below the range 1..1000000
        ("mysql_variables = { max_connections = 2000000 }\n", 10000),  # above it
        ("mysql_variables = { max_connections = true }\n", 10000),  # 'true': atoi 0
        ("admin_variables = { max_connections = 5 }\n", 10000),  # another group
    ],
)
def test_proxysql_reads_its_clients_limit(text, clients):
    assert proxysql_clients(text) == clients


def test_proxysql_clients_bound_the_backend_connections():
    # two hostgroups per server: at most two per client, at most each row's max_connections
    assert proxysql_limits(163, 1000).backend_limit == 326
    assert proxysql_limits(2048, 1000).backend_limit == 2000
    with pytest.raises(ValueError):
        proxysql_clients("mysql_variables = { max_connections = 5 ")


def test_router_routes_bound_their_clients_when_each_sets_a_limit():
    # every classic route at its own max_connections: 100 + 100 + 50 clients, beside the bootstrap's pool of 64
    text = "[routing:bootstrap_rw]\nmax_connections=100\n[routing:bootstrap_ro]\nmax_connections=100\n"
    assert router_configured_limits(text).backend_limit == 576  # rw_split still unlimited: max_total 512 binds
    text += "[routing:bootstrap_rw_split]\nmax_connections=50\n"
    assert router_configured_limits(text).backend_limit == 250 + 64
    # an X route's limit counts nothing against max_connections; a custom classic route without one lifts the bound
    assert router_configured_limits(text + "[routing:bootstrap_x_rw]\nmax_connections=1\n").backend_limit == 314
    assert router_configured_limits(text + "[routing:mine]\ndestinations=a:3306\n").backend_limit == 576
    assert router_configured_limits(text + "[routing:mine]\nprotocol=x\n").backend_limit == 314


def test_bind_maxconn_bounds_each_listener_of_the_line():
    # listener.c bind_parse_maxconn: per listener; a port range makes one listener per port, a comma list one per
    # address: 3 x 10 + 2 x 5 under the frontend's 100
    text = (
        "global\n  maxconn 1000\nfrontend f\n  maxconn 100\n  bind :3306-3308 maxconn 10\n  bind 10.0.0.1:3306,10.0.0.2:3306 maxconn 5\n"
        "  default_backend b\nbackend b\n  server m 10.0.0.9:3306\n"
    )
    config = read([text])
    assert config.frontend_limit(config.frontends["f"]) == 40
    # one bind line without maxconn leaves only the frontend's own
    config = read([text.replace("  default_backend", "  bind :3400\n  default_backend")])
    assert config.frontend_limit(config.frontends["f"]) == 100


# Each declares the resolvers section the operator's backends name (haproxy refuses a server naming a missing one).
HAPROXY_LIMITED_GLOBALS = [
    # the frontends' own maxconn binds
    "global\n  maxconn 4000\n  external-check\n  insecure-fork-wanted\nresolvers kubernetes\n  parse-resolv-conf\ndefaults\n  mode tcp\n  timeout connect 5s\n"
    "  timeout client 30s\n  timeout server 30s\nfrontend galera-in\n  bind *:3306\n  maxconn 700\n"
    "  default_backend galera-nodes\nfrontend galera-replica-in\n  bind *:3309\n  maxconn 300\n"
    "  default_backend galera-replica-nodes\n",
    # every server's maxconn through default-server binds
    "global\n  maxconn 4000\n  external-check\n  insecure-fork-wanted\nresolvers kubernetes\n  parse-resolv-conf\ndefaults\n  mode tcp\n  timeout connect 5s\n"
    "  timeout client 30s\n  timeout server 30s\n  default-server maxconn 50\nfrontend galera-in\n  bind *:3306\n"
    "  default_backend galera-nodes\nfrontend galera-replica-in\n  bind *:3309\n  default_backend galera-replica-nodes\n",
]


@pytest.mark.parametrize("text", HAPROXY_LIMITED_GLOBALS)
def test_one_members_bound_does_not_depend_on_how_many_others_there_are(text):
    """Why a resource's size is read only up to MEMBERS_FOR_A_BOUND (core/haproxy_operator.py)."""
    bounds = {size: operator_pod_bound("pxc", text, size=size) for size in range(2, MEMBERS_FOR_A_BOUND + 1)}
    assert len({(bound.connections, bound.global_maxconn) for bound in bounds.values()}) == 1, bounds
    assert bounds[3].connections < 4000  # a frontend or server limit binds: the case says something


def test_a_malformed_size_of_a_billion_builds_no_billion_server_lines():
    # found by tests/policies/test_malformed.py: a size of 10**9 built a list of a billion host names (18 GB)
    text = HAPROXY_LIMITED_GLOBALS[0]
    assert len(member_hosts("pxc", "c", 10**6)) == MEMBERS_FOR_A_BOUND  # without the cap: a million, and fails here
    assert operator_pod_bound("pxc", text, size=10**9) == operator_pod_bound("pxc", text, size=3)
