"""T5 (advisory): the proxies can open no more backend connections than mysqld accepts.

Each proxy pod's backend connections to one mysqld, read from the files the proxy really runs (docs/proxy-limits.md):
HAProxy's custom global file beside the backends the operator's script writes (the operator's default when
``haproxy -c`` refuses the pair, which is reported), bounded by the flow through frontend, server and global maxconn
with their inheritance (``core.haproxy_bound``); ProxySQL's per-server max_connections in the writer and the reader
hostgroup, at most two per client; Router's clients (``max_total_connections``, or its classic routes' own limits)
plus its idle pool. Times the proxy pods, plus ``min_connections`` for mysqld's own users, they must fit
``max_connections`` (as written, else as the operator auto-tunes it by its own test of the text, else mysqld's 151).
Otherwise a connection storm reaches mysqld and fails there with error 1040 instead of waiting at the proxy. The
readers and the proxies' facts are the ones sizing writes with (``percona_mysql_k8s.core.proxy_limits``), so a
stack this project sized passes by construction.
"""

from __future__ import annotations

from percona_mysql_k8s.core.connection_cost import CONNECTION_DEFAULTS
from percona_mysql_k8s.core.connections import service_connections
from percona_mysql_k8s.core.proxy_limits import HAPROXY_SHIPPED_MAXCONN, limits_for_share
from percona_mysql_k8s.core.sidecars import HAPROXY, PROXYSQL

from ._framework import Context, Spec, resource_policy
from ._readers.flow import integer_option
from ._readers.memory import autotune_source, operator_auto_config
from ._readers.proxies import proxy_backends
from ._readers.values import NotKnown
from ._subjects import database, database_types

SPEC = Spec(
    name="proxy-backend-connections",
    rules=("T5",),
    applies_to=database_types,
    description="the proxy pods open no more backend connections than mysqld's max_connections leaves beside "
    "min_connections for its own users, so a connection storm waits at the proxy",
    thresholds=("min_connections",),
    remediation="Write the proxies' limits from max_connections as python -m percona_mysql_k8s.sizing does "
    "(its JSON carries them under connections.proxy_limits), or raise max_connections.",
)


def _max_connections(view) -> tuple[int, str] | None:
    """mysqld's max_connections and where it comes from: the user's file, else what the operator writes into
    auto-config.cnf (by its own test of the text, core.operator_autotune), else mysqld's default; None when a
    template hides it."""
    where = view.path(view.config_rel)
    found = integer_option(view, "max_connections", minimum=1)
    if found is not None:
        return found[1], f"{where} sets max_connections={found[1]}"
    auto = operator_auto_config(view)
    if "max_connections" in auto.written:
        value = int(auto.written["max_connections"])
        return value, (
            f"{where} leaves max_connections to the operator, which writes {autotune_source(view)} / 12582880 = {value}"
        )
    default = CONNECTION_DEFAULTS["max_connections"]
    return default, (
        f"{where} leaves max_connections unset and the operator does not auto-tune it "
        f"({auto.why_not('max_connections')}), so mysqld keeps its default {default}"
    )


def check(ctx: Context) -> None:
    view = database(ctx, "T5")
    if view is None:
        return
    with ctx.checking("T5"):
        proxies = proxy_backends(view)
        if not proxies:
            return  # no proxy: T2's to report
        mysqld = _max_connections(view)
        if mysqld is None:
            return
        accepted, origin = mysqld
        own = service_connections(ctx.thresholds)
        for proxy in proxies:
            if isinstance(proxy, NotKnown):
                ctx.not_judged("T5", proxy)
                continue
            pods = proxy.pods
            if proxy.refused:
                ctx.violation(
                    "T5",
                    f"{proxy.refused} and runs the operator's default instead",
                    "the rule judges the limits the proxy really runs with, and a configuration it ignores sets none",
                    _acceptable(proxy, view.operator),
                    field=view.path(f"{proxy.component.rel}.configuration"),
                )
            if not pods:
                continue  # no size: T2's to report
            size_path = view.path(f"{proxy.component.rel}.size")
            share = max(0, (accepted - own) // pods)
            if proxy.limits is None:
                ctx.violation(
                    "T5",
                    f"{proxy.source}: nothing bounds what {pods} {proxy.component.key} pods "
                    f"({size_path}) open against max_connections={accepted} ({origin})",
                    f"the rule keeps the proxies' backend connections plus min_connections ({own}) within "
                    "max_connections, so a storm waits at the proxy instead of failing with error 1040",
                    _fix(proxy, share, view.operator),
                    field=view.path(f"{proxy.component.rel}.configuration"),
                )
                continue
            opened = pods * proxy.limits.backend_limit
            if opened + own > accepted:
                ctx.violation(
                    "T5",
                    f"{pods} {proxy.component.key} pods ({size_path}) can open {pods} x "
                    f"{proxy.limits.backend_limit} = {opened} connections to one mysqld "
                    f"({proxy.source}), and with min_connections ({own}) for mysqld's own users that "
                    f"exceeds max_connections={accepted} ({origin})",
                    "the rule keeps them within max_connections, so a connection storm waits at the proxy "
                    "instead of failing at mysqld with error 1040",
                    f"{_fix(proxy, share, view.operator)}, or raise max_connections to {opened + own}",
                    field=size_path,
                )


def _operator_file(operator: str) -> str:
    return f"the {'PXC' if operator == 'pxc' else 'PS'} operator's default global file (its build/haproxy-global.cfg)"


def _acceptable(proxy, operator: str) -> str:
    """How to make ``haproxy -c`` accept the custom file beside the backends the operator's script writes, from
    what it refused: each named addition is what those backends need, else the operator's own file."""
    where, reason = proxy.configuration, proxy.refused or ""
    if "global.external-check" in reason:
        return (
            f"add `external-check` and `insecure-fork-wanted` to the global section of {where} (the operator's "
            f"backends check the members with `option external-check`), or start {where} from {_operator_file(operator)}"
        )
    if "unable to find required resolvers" in reason:
        return (
            f"add a `resolvers kubernetes` section with `parse-resolv-conf` to {where} (the operator's backends "
            f"resolve the members through it), or start {where} from {_operator_file(operator)}"
        )
    return f"start {where} from {_operator_file(operator)} and change only what haproxy -c accepts beside its backends"


def _fix(proxy, share: int, operator: str) -> str:
    """The settings that give one pod ``share`` backend connections, as sizing writes them, where the pod reads them:
    a custom HAProxy file it runs gets its global maxconn; without one (or one it ignores), the operator's default
    with that maxconn, since a global file of our own must carry everything the operator's backends need."""
    key = proxy.component.key
    settings = limits_for_share(key, share).settings
    if key == HAPROXY:
        if proxy.custom:
            return f"set `maxconn {settings['maxconn']}` in the global section of {proxy.configuration} (its only global maxconn)"
        return (
            f"set {proxy.configuration} to {_operator_file(operator)}, with `maxconn {settings['maxconn']}` in place of "
            f"its `maxconn {HAPROXY_SHIPPED_MAXCONN}` (the file has the external-check, insecure-fork-wanted and "
            "`resolvers kubernetes` the operator's backends need; this project's stacks write it so)"
        )
    if key == PROXYSQL:
        scheduler = proxy.configuration.removesuffix(".configuration") + ".scheduler"
        return (
            f"set {scheduler}.enabled: true and {scheduler}.maxConnections: {settings['scheduler.maxConnections']} "
            "(each server sits in two hostgroups)"
        )
    return (
        f"set [DEFAULT] max_total_connections={settings['max_total_connections']} and [connection_pool] "
        f"max_idle_server_connections={settings['max_idle_server_connections']} in {proxy.configuration}"
    )


POLICY = resource_policy(SPEC, check)
