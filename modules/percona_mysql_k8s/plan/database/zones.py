"""Where the members and proxies go across zones, decided from the database pool's zones (rule K7).

Pure. The pods keep the operators' required anti-affinity on the hostname (one member per node: the sizing's
K5) and get a ``DoNotSchedule`` topology spread constraint on ``topology.kubernetes.io/zone`` (core.zones.zone_spread),
which both operators copy into every pod type that declares it: the members, HAProxy, ProxySQL, Router (PXC 1.20.0
pkg/pxc/statefulset.go ``PodTopologySpreadConstraints``; PS v1.2.0 api/v1 ``GetTopologySpreadConstraints``), the
operator filling in each pod type's own labels as the selector.

* Zones that keep a majority (three or more with nodes, core.zones.worst_case): ``maxSkew`` 1 and ``minDomains``
  3, so kube-scheduler never puts more than ``ceil(n / 3)`` members in a zone, even while a pool's nodes arrive zone
  by zone.
* Zones that cannot (two, one, nodes without a zone label): a production stack is refused, with the setting that
  accepts the risk named (``acceptZoneLoss``); with it, or on an ephemeral stack, a warning says so, and the spread
  only balances the zones there are (no ``minDomains``, which would leave members Pending). Nodes without a zone
  label get no zone spread at all: kube-scheduler refuses every such node to a pod that has one.
* Zones the target learns only at run time (EKS: its subnets' availability zones): the spread is written as for
  three zones, and the cluster component checks them before it creates anything (:func:`check_zones`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from percona_mysql_k8s.core.errors import InputError
from percona_mysql_k8s.core.pools import PoolShape
from percona_mysql_k8s.core.zones import (
    FEWEST_ZONES,
    HOSTNAME_KEY,
    Spread,
    ZoneLayout,
    ZonePlacement,
    worst_case,
    zone_spread,
)

ACCEPT_KEY = "acceptZoneLoss"
# A pool whose zones the target itself decides: kind runs every node on this machine, one failure domain whatever
# the config says. The kind target is the test target: K7 never refuses there, and says so in a note, not a warning:
# nothing on kind can change it, and a warning on every kind run would hide the one that changes the stack.
ONE_MACHINE = "target"
# What the plan writes on a pool that has the zones (the hostname anti-affinity and the quorum spread), and where it
# has not (the spread only balances): a refusal says what the latter would allow at worst.
KEEPING = ZonePlacement(frozenset({HOSTNAME_KEY}), (Spread(zone_spread()["topologyKey"], 1, FEWEST_ZONES),))
BALANCING = ZonePlacement(frozenset({HOSTNAME_KEY}), (Spread(zone_spread()["topologyKey"], 1),))


@dataclass(frozen=True)
class ZoneDecision:
    spread: tuple[Mapping[str, object], ...]
    notes: tuple[str, ...] = ()  # warnings: a risk the stack accepted
    remarks: tuple[str, ...] = ()  # notes: the kind target's one machine


def _refusal(key: str, reason: str, ephemeral: bool, accepted: bool) -> ZoneDecision | None:
    """None on a production stack that does not accept the risk (the caller refuses); else the warning."""
    if ephemeral or accepted:
        why = "a test stack" if ephemeral else f"{ACCEPT_KEY}: true"
        return ZoneDecision((), (f"K7: {reason}; accepted ({why}): losing one zone may stop the database",))
    return None


def refuse(key: str, reason: str) -> InputError:
    return InputError(key, f"{reason}; give the database pool three zones, or set {ACCEPT_KEY}: true to accept that risk", "K7")


def check_zones(
    members: int, layout: ZoneLayout, key: str, *, ephemeral: bool = False, accepted: bool = False
) -> tuple[str, ...]:
    """Whether ``members`` (and as many proxies) keep a majority through a zone's loss on ``layout`` under the
    spread the plan writes: the notes to show, or the InputError naming ``key`` and the setting that accepts it."""
    if not layout.labelled:
        reason = (
            f"the database nodes carry no {zone_spread()['topologyKey']} label: all {members} members share one failure domain"
        )
    else:
        if members < 3 or worst_case(members, layout, KEEPING).keeps:
            return ()
        reason = worst_case(members, layout, BALANCING).explain()
    decision = _refusal(key, reason, ephemeral, accepted)
    if decision is None:
        raise refuse(key, reason)
    return decision.notes


def zone_decision(members: int, pool: PoolShape, *, ephemeral: bool, accepted: bool) -> ZoneDecision:
    """The spread constraints to write (members and proxies alike) and the notes to show."""
    layout = pool.zones
    if layout is None:  # decided at run time (clusters.eks checks the subnets' zones)
        return ZoneDecision((zone_spread(keep_quorum=not (ephemeral or accepted)),))
    if pool.zones_key == ONE_MACHINE:
        return ZoneDecision(
            (), (), (f"K7: kind runs every node on this machine, one failure domain for all {members} members: a test target",)
        )
    notes = check_zones(members, layout, pool.zones_key, ephemeral=ephemeral, accepted=accepted)
    if not layout.labelled:
        return ZoneDecision((), notes)
    keeps = not notes and layout.zones >= FEWEST_ZONES
    return ZoneDecision((zone_spread(keep_quorum=keeps),), notes)
