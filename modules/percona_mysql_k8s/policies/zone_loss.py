"""K7 (stack): on the zones of the pools the stack declares, a production database keeps a majority of its members
when one zone is lost.

For every database of the stack (custom resources, pxc-db/ps-db values), each component zone-spread judges (the
members unless async, every proxy): the pools its pods can land on (nodeSelector, required node affinity and
tolerations against the pools' nodes, as for K4/K5), their zones and nodes per zone (_readers/pool_zones.py: GKE
``nodeLocations``, an EKS node group's subnets' availability zones, a kind config's zone labels), and the placement
the operator renders (_readers/pod_spread.py), judged by the zone arithmetic (core.zones) on those zones: two zones, or
a zone with more members than (n - 1) // 2 at worst, is a violation. Pools the stack does not declare (an existing
cluster's), or whose zones the resources do not say, leave the judgement to zone-spread's three zones; a field unknown
at preview is named. Production only, and not where the stack config accepts the risk (``acceptZoneLoss: true``).
"""

from __future__ import annotations

from percona_mysql_k8s.core.zones import layout_of, tolerated_share, worst_case

from ._framework import Context, Spec, stack_policy
from ._readers.operator_pods import placement as pod_placement
from ._readers.pod_spread import component_zone_placement
from ._readers.pool_zones import pool_zones
from ._readers.stack import read_stack
from .data_protection import SPEC as DATA_PROTECTION
from .data_protection import production
from .zone_spread import ACCEPT_KEY, component_size, judged_components, zone_loss_accepted

SPEC = Spec(
    name="zone-loss",
    rules=("K7",),
    settings=DATA_PROTECTION.settings,
    description="on the zones of the stack's pools, losing one zone leaves a majority of a production database's members",
    remediation="Spread the database pool over three zones (GKE nodeLocations, the EKS node group's subnets), or set "
    "acceptZoneLoss: true in the stack config to accept the risk.",
)


def _layout(resources: dict, pools: list):
    """The layout of the pools, or None when one of them does not say where its nodes are."""
    zones: list[str | None] = []
    names = []
    for resource, pool in pools:
        depends_on = [resources[urn] for urn in resource.dependencies if urn in resources]
        found = pool_zones(resource, pool, depends_on)
        if found is None:
            return None, ""
        zones += [zone for zone, count in found for _ in range(count)]
        where = ", ".join(sorted({zone for zone, _ in found if zone})) or "no zone label"
        names.append(f"{pool.name} ({where})")
    return layout_of(zones), "; ".join(names)


def _judge(ctx: Context, stack, resources: dict, resource, view) -> None:
    for component, quorum in judged_components(view):
        with ctx.checking("K7", resource.urn, resource.label):
            size = component_size(view, component)
            if size is None or size < (3 if quorum else 2):
                continue
            placement = pod_placement(view, component)
            pools = [(r, pool) for r, pool in stack.pools if placement.can_land_on(pool.nodes)]
            if not pools:
                continue  # pools declared elsewhere: zone-spread judges the fields alone
            layout, where = _layout(resources, pools)
            if layout is None:
                continue
            verdict = worst_case(size, layout, component_zone_placement(view, component), quorum)
            if verdict.keeps:
                continue
            allowed = (
                f"at most {tolerated_share(size)} of {size} members in one zone"
                if quorum
                else "no zone with a majority of the proxies"
            )
            ctx.violation(
                "K7",
                f"{resource.label} {view.path(component.rel)} on node pool(s) {where}: {verdict.explain()}",
                f"the rule allows {allowed}, so that losing a zone leaves a majority",
                f"spread the pool over three zones (GKE nodeLocations, the EKS node group's subnets) with the members' "
                f"topologySpreadConstraints on topology.kubernetes.io/zone (maxSkew 1, minDomains 3), or set {ACCEPT_KEY}: "
                "true in the stack config to accept the risk",
                resource.urn,
                field=view.path(component.rel + ".topologySpreadConstraints"),
            )


def check(ctx: Context) -> None:
    stack = read_stack(ctx.resources)
    if zone_loss_accepted():
        ctx.not_applicable(f"K7: the stack config accepts a zone's loss ({ACCEPT_KEY}: true)")
        return
    resources = {resource.urn: resource for resource in ctx.resources}
    for resource, view in stack.databases:
        with ctx.checking("K7", resource.urn, resource.label):
            if not production(ctx, view):
                continue
            _judge(ctx, stack, resources, resource, view)


POLICY = stack_policy(SPEC, check)
