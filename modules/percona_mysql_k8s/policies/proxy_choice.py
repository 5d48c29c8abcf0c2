"""T2: proxies. HAProxy or ProxySQL on PXC, never both; HAProxy or Router on group replication, never both;
HAProxy only on async; at least min_proxy_pods proxy pods.

An ephemeral stack may go below with the operators' unsafe flags (proxySize; PS also ``proxy`` for no proxy).
"""

from __future__ import annotations

from ._framework import Context, Spec, resource_policy
from ._readers.database import ASYNC
from ._subjects import database, database_types

SPEC = Spec(
    name="proxy-choice",
    rules=("T2",),
    applies_to=database_types,
    description="one proxy kind per cluster (HAProxy by default; ProxySQL only on PXC, Router only on group "
    "replication, never HAProxy with ProxySQL) with at least min_proxy_pods pods",
    thresholds=("min_proxy_pods",),
    remediation="Enable HAProxy with 2 or more pods and disable the other proxy.",
)


def check(ctx: Context) -> None:
    view = database(ctx, "T2")
    if view is None:
        return
    minimum = int(ctx["min_proxy_pods"])
    enabled: list = []
    with ctx.checking("T2"):
        proxies = view.enabled_proxies()
        enabled = [proxy for proxy in proxies if proxy.undecided() is None]
        undecided = [proxy.undecided() for proxy in proxies if proxy.undecided() is not None]
        names = [proxy.key for proxy in enabled]
        if len(enabled) > 1:  # both known on: a breach whatever the unknown ones are
            ctx.violation(
                "T2",
                f"{view.source} enables both {' and '.join(names)} ({', '.join(view.path(p.rel + '.enabled') for p in enabled)})",
                "the rule allows one proxy kind per cluster (the operators refuse HAProxy with ProxySQL, and Router with HAProxy)",
                f"keep {view.path('haproxy' if view.operator == 'pxc' else 'proxy.haproxy')}.enabled: true and disable the other",
                field=view.path(enabled[-1].rel + ".enabled"),
            )
        elif enabled and undecided:
            ctx.not_judged("T2", undecided[0])  # one more proxy kind may be on
        with ctx.checking("T2"):
            if "router" in names and view.cluster_type() == ASYNC:
                ctx.violation(
                    "T2",
                    f"{view.path('proxy.router.enabled')} is true on an async cluster",
                    "the rule allows MySQL Router only on group replication",
                    f"disable the router and enable {view.path('proxy.haproxy')}",
                    field=view.path("proxy.router.enabled"),
                )
        if not enabled:
            if undecided:
                raise undecided[0]
            if view.operator == "ps" and view.unsafe("proxy"):
                return
            ctx.violation(
                "T2",
                f"{view.source} enables no proxy: clients would connect to mysqld pods directly",
                f"the rule requires a proxy (HAProxy by default) with at least {minimum} pods",
                f"set {view.path('haproxy' if view.operator == 'pxc' else 'proxy.haproxy')}.enabled: true with size: {max(minimum, 3)}",
                field=view.path("haproxy.enabled" if view.operator == "pxc" else "proxy.haproxy.enabled"),
            )
            return
    for proxy in enabled:
        with ctx.checking("T2"):
            _size(ctx, view, proxy, minimum)


def _size(ctx: Context, view, proxy, minimum: int) -> None:
    size = view.size(proxy.rel)
    if size is None or size < minimum:
        if size is not None and size >= 1 and view.unsafe("proxySize"):
            return
        ctx.violation(
            "T2",
            f"{view.path(proxy.rel + '.size')} is {'not set' if size is None else size}",
            f"the rule requires at least {minimum} proxy pods (config min_proxy_pods); fewer only with the unsafe proxySize flag",
            f"set {view.path(proxy.rel + '.size')}: {max(minimum, 3)}",
            field=view.path(proxy.rel + ".size"),
        )


POLICY = resource_policy(SPEC, check)
