"""K7 (resource): the placement fields of a production database keep a majority of its members when a zone is lost.

The members (PXC, and Percona Server with group replication) and the proxies of a custom resource or pxc-db/ps-db
chart values, as the operator renders their pods (_readers/pod_spread.py: the generated anti-affinity or the advanced
one, the topology spread constraints with the operator's defaults), read as kube-scheduler reads them
(core.spread_fields) and judged by the zone arithmetic (core.zones) on a pool of three zones with nodes to spare: the
fewest zones that can keep a majority, where the nodes per zone never stop kube-scheduler. A placement that lets more
than (n - 1) // 2 members into one zone there (the operators' default hostname anti-affinity lets all of them), or a
majority of the proxies, is a violation. The pools' actual zones are the stack policy zone-loss's to judge.

Production only (data_protection.production), and not where the stack config accepts the risk
(``acceptZoneLoss: true``). An async cluster's members are left out: no majority keeps it writing. Values unknown at
preview leave the component they decide unjudged, and name the field.
"""

from __future__ import annotations

import json
import os

from percona_mysql_k8s.core.zones import ZoneLayout, tolerated_share, worst_case, zone_spread

from ._framework import Context, Spec, resource_policy
from ._readers.database import ASYNC, Component, DatabaseView
from ._readers.pod_spread import component_zone_placement
from ._subjects import database, database_types
from .data_protection import SPEC as DATA_PROTECTION
from .data_protection import production

ACCEPT_KEY = "acceptZoneLoss"
SPEC = Spec(
    name="zone-spread",
    rules=("K7",),
    applies_to=database_types,
    settings=DATA_PROTECTION.settings,
    description="the members and proxies of a production database are placed so that losing one zone leaves a majority",
    remediation="Spread the members over zones: a DoNotSchedule topology spread constraint on topology.kubernetes.io/zone "
    "with maxSkew 1 and minDomains 3, or set acceptZoneLoss: true in the stack config to accept the risk.",
)


def zone_loss_accepted() -> bool:
    """Whether the stack config accepts that a zone's loss may stop the cluster (``<project>:acceptZoneLoss``)."""
    try:
        config = json.loads(os.environ.get("PULUMI_CONFIG") or "{}")
    except ValueError:
        return False
    return any(key.rsplit(":", 1)[-1] == ACCEPT_KEY and str(value).lower() == "true" for key, value in config.items())


def judged_components(view: DatabaseView) -> list[tuple[Component, bool]]:
    """(component, whether a majority of it must survive): the members unless async, and every enabled proxy."""
    found = [] if view.cluster_type() == ASYNC else [(view.mysqld(), True)]
    return found + [(proxy, False) for proxy in view.enabled_proxies()]


def component_size(view: DatabaseView, component: Component) -> int | None:
    size = view.size(component.rel)
    return (3 if view.chart else None) if size is None else size


def fix_text(view: DatabaseView, component: Component) -> str:
    spread = json.dumps(zone_spread(), separators=(", ", ": "))
    return (
        f"keep {view.path(component.rel + '.affinity.antiAffinityTopologyKey')} on kubernetes.io/hostname and add "
        f"{spread} to {view.path(component.rel + '.topologySpreadConstraints')} (the operator fills in the pods' "
        f"labels), or set {ACCEPT_KEY}: true in the stack config to accept the risk"
    )


def check(ctx: Context) -> None:
    view = database(ctx, "K7")
    if view is None:
        return
    components: list[tuple[Component, bool]] = []  # stays empty where a value unknown at preview decides them
    with ctx.checking("K7"):
        if not production(ctx, view):
            return
        if zone_loss_accepted():
            ctx.not_applicable(f"K7: the stack config accepts a zone's loss ({ACCEPT_KEY}: true)")
            return
        components = judged_components(view)
    for component, quorum in components:
        with ctx.checking("K7"):
            size = component_size(view, component)
            if size is None or size < (3 if quorum else 2):
                continue  # T1 and T2 judge the sizes
            verdict = worst_case(size, ZoneLayout.any_pool(size), component_zone_placement(view, component), quorum)
            if verdict.keeps:
                continue
            what = "members" if quorum else "proxy pods"
            allowed = (
                f"at most {tolerated_share(size)} of {size} members in one zone, so that a majority survives its loss"
                if quorum
                else f"fewer than a majority of the {size} proxy pods in one zone"
            )
            ctx.violation(
                "K7",
                f"{view.path(component.rel)} ({size} {what}): {verdict.explain()}",  # the same words for values and CR (paths aside)
                f"the rule allows {allowed}, on three zones (the fewest that can keep a majority)",
                fix_text(view, component),
                field=view.path(component.rel + ".topologySpreadConstraints"),  # missing: its nearest written parent
            )


POLICY = resource_policy(SPEC, check)
