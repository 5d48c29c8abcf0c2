"""How many of a cluster's pods one zone can hold at worst, as kube-scheduler places them (rule K7).

A cluster of ``n`` members keeps a majority, ``n // 2 + 1``, when one zone is lost only if no zone holds more than
``(n - 1) // 2`` of them. Whether a placement guarantees that is read here from the fields kube-scheduler filters
with, and only those (``ScheduleAnyway`` spreads and preferred affinities only score nodes: they promise nothing):

* a required pod anti-affinity over the pods' own labels on ``kubernetes.io/hostname`` keeps one pod per node, on a
  zone key one per zone, on a region key one per region (InterPodAffinity, ``satisfyPodAntiAffinity``);
* a ``DoNotSchedule`` topology spread constraint on a zone key lets a pod into a zone only while
  ``pods there + 1 - the fewest pods of any zone <= maxSkew``, where the fewest counts as 0 while fewer zones than
  ``minDomains`` (unset: 1) have eligible nodes (PodTopologySpread ``Filter`` and ``minMatchNum``).

Sources: kubernetes v1.36.3 pkg/scheduler/framework/plugins/podtopologyspread/filtering.go (``calPreFilterState``
counts only the domains of nodes that carry the key and pass the pod's node affinity; ``Filter``; ``minMatchNum``),
common.go (``filterTopologySpreadConstraints``: minDomains nil is 1, only DoNotSchedule constraints filter) and
interpodaffinity/filtering.go (``satisfyPodAntiAffinity``: a node without the term's key is no obstacle).

Nodes arrive over time (a pool created zone by zone, scaled up, or replaced during an upgrade), and kube-scheduler
places a pending pod on the first node it may use; it never moves a running pod. At worst, then, the nodes of a few
zones exist first. :func:`worst_case` plays that adversary: it lets the zone with the most room (``A``) and as few
other zones as the constraints need appear first, fills ``A`` as far as the filters let it (each other pod going to
the emptiest zone that accepts it, which raises the fewest count soonest), then lets every zone appear and places
the rest the same way. ``tests/core/test_zones.py`` checks it against an exhaustive search of every arrival order
and every choice kube-scheduler may make, node by node.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

HOSTNAME_KEY = "kubernetes.io/hostname"
ZONE_KEYS = frozenset({"topology.kubernetes.io/zone", "failure-domain.beta.kubernetes.io/zone"})
REGION_KEYS = frozenset({"topology.kubernetes.io/region", "failure-domain.beta.kubernetes.io/region"})
ZONE_KEY = "topology.kubernetes.io/zone"  # the key GKE, EKS and the kubelet's cloud providers label nodes with
# The fewest zones that can keep a majority of 3 or more members: two zones hold ceil(n / 2) >= n // 2 + 1 in one of
# them, three hold ceil(n / 3) <= (n - 1) // 2 in each (n >= 3). A placement judged without its pool's zones is judged
# on a pool of this many zones, each with as many nodes as there are pods (the nodes per zone never limit it).
FEWEST_ZONES = 3


def majority(members: int) -> int:
    """More than half: what Galera's primary component and group replication need to keep taking writes."""
    return members // 2 + 1


def tolerated_share(members: int, quorum: bool = True) -> int:
    """The most pods one zone may hold: with ``quorum`` (database members) what leaves a majority when the zone is
    lost, ``(n - 1) // 2``; without (proxies) less than a majority of them, ``n // 2``."""
    return (members - 1) // 2 if quorum else members // 2


def fewest_zones(members: int) -> int | None:
    """The fewest zones over which ``members`` can keep a majority after losing one, None when no number can (one
    or two members: losing either loses the majority)."""
    return FEWEST_ZONES if members >= 3 else None


@dataclass(frozen=True)
class Spread:
    """One ``DoNotSchedule`` topology spread constraint over the pods' own labels (what the filter reads)."""

    key: str
    max_skew: int
    min_domains: int = 1

    def describe(self) -> str:
        domains = f", minDomains {self.min_domains}" if self.min_domains > 1 else ""
        return f"topology spread on {self.key} (DoNotSchedule, maxSkew {self.max_skew}{domains})"


@dataclass(frozen=True)
class ZonePlacement:
    """The placement fields that bound where a set of pods lands: the topology keys of the required pod
    anti-affinity over their own labels, and their ``DoNotSchedule`` spread constraints (both as the operator
    renders them into the pod; what only scores is left out by the readers)."""

    anti_affinity: frozenset[str] = frozenset()
    spreads: tuple[Spread, ...] = ()

    def zone_spreads(self) -> tuple[Spread, ...]:
        return tuple(spread for spread in self.spreads if spread.key in ZONE_KEYS)

    def describe(self) -> str:
        parts = [f"required anti-affinity on {key}" for key in sorted(self.anti_affinity)]
        parts += [spread.describe() for spread in self.spreads]
        return "; ".join(parts) or "no required anti-affinity and no DoNotSchedule topology spread"


@dataclass(frozen=True)
class ZoneLayout:
    """The nodes the pods may use, per zone (each zone's count of eligible nodes); ``labelled`` False when the nodes
    carry no zone label (kind, bare metal): then they are one failure domain."""

    nodes: tuple[int, ...]
    labelled: bool = True
    spare: bool = field(default=False, compare=False)  # as many nodes as pods in every zone: "nodes to spare"

    @classmethod
    def any_pool(cls, pods: int) -> ZoneLayout:
        """The layout a placement alone is judged on: FEWEST_ZONES zones, never short of nodes."""
        return cls((max(pods, 1),) * FEWEST_ZONES, spare=True)

    @property
    def zones(self) -> int:
        return len(self.nodes) if self.labelled else 1

    def describe(self) -> str:
        if not self.labelled:
            return f"{sum(self.nodes)} node(s) without a zone label (one failure domain)"
        if self.spare:
            return f"{len(self.nodes)} zones with nodes to spare"
        counts = sorted(set(self.nodes))
        per_zone = f"{counts[0]}" if len(counts) == 1 else f"{counts[0]} to {counts[-1]}"
        return f"{len(self.nodes)} zone(s) of {per_zone} node(s)"


@dataclass(frozen=True)
class ZoneVerdict:
    """What the placement allows at worst: how many pods run, and the most of them in one zone."""

    pods: int
    layout: ZoneLayout
    placement: ZonePlacement
    placed: int
    largest_share: int
    quorum: bool = True  # database members (a majority must survive) or proxies (no zone holds a majority)
    shares: tuple[int, ...] = field(default=(), compare=False)
    # The worst case's arrival: the zones whose nodes appear at each step, and how many pods run after it (what
    # the operator tier replays against the real kube-scheduler).
    arrival: tuple[tuple[tuple[int, ...], int], ...] = field(default=(), compare=False)

    @property
    def survivors(self) -> int:
        return self.placed - self.largest_share

    @property
    def keeps(self) -> bool:
        """Members: a majority of ``pods`` runs outside the worst zone. Proxies: no zone holds a majority of them."""
        if self.quorum:
            return self.survivors >= majority(self.pods)
        return self.placed > 0 and self.largest_share < majority(self.pods)

    def explain(self) -> str:
        """One clause: what kube-scheduler may do at worst, and what is left after the zone's loss."""
        pending = f", {self.pods - self.placed} stay Pending" if self.placed < self.pods else ""
        head = (
            f"on {self.layout.describe()}, under {self.placement.describe()}, kube-scheduler may put "
            f"{self.largest_share} of {self.pods} pods in one zone{pending}"
        )
        if self.quorum:
            return f"{head}: losing that zone leaves {self.survivors}, and a majority is {majority(self.pods)}"
        return f"{head}: a majority of them is {majority(self.pods)}"


def _caps(layout: ZoneLayout, placement: ZonePlacement, pods: int) -> tuple[list[int], int]:
    """Per-zone and total caps from the required anti-affinity (a node without the key is no obstacle)."""
    nodes = list(layout.nodes) if layout.labelled else [sum(layout.nodes)]
    caps = [count if HOSTNAME_KEY in placement.anti_affinity else pods for count in nodes]
    if layout.labelled and placement.anti_affinity & ZONE_KEYS:
        caps = [min(cap, 1) for cap in caps]
    total = pods
    if placement.anti_affinity & REGION_KEYS:  # a pool's zones are in one region: one pod in all
        total = min(total, 1)
    return caps, total


def _fits(zone: int, counts: list[int], present: set[int], caps: list[int], spreads: tuple[Spread, ...]) -> bool:
    """Whether the filters let one more pod into ``zone`` while only the zones in ``present`` have nodes."""
    if zone not in present or counts[zone] >= caps[zone]:
        return False
    for spread in spreads:
        fewest = 0 if len(present) < spread.min_domains else min(counts[other] for other in present)
        if counts[zone] + 1 - fewest > spread.max_skew:
            return False
    return True


def _fill(counts: list[int], target: int, present: set[int], caps: list[int], spreads, left: int) -> int:
    """Place up to ``left`` pods, ``target`` first, else the emptiest zone that accepts one; the pods left over."""
    while left:
        if _fits(target, counts, present, caps, spreads):
            counts[target] += 1
        else:
            others = [zone for zone in present if zone != target and _fits(zone, counts, present, caps, spreads)]
            if not others:
                break
            counts[min(others, key=lambda zone: (counts[zone], -caps[zone], zone))] += 1
        left -= 1
    return left


def _play(pods: int, caps: list[int], spreads, target: int, order: list[list[int]]) -> tuple[int, list[int], tuple]:
    """One arrival order: the zones of each step appear, then pods are placed (``target`` first) as far as the
    filters let them; returns how many were placed, the counts per zone and the pods running after each step."""
    counts, present, left, steps = [0] * len(caps), set(), pods, []
    for step in order:
        present |= set(step)
        left = _fill(counts, target, present, caps, spreads, left)
        steps.append((tuple(step), pods - left))
    return pods - left, counts, tuple(steps)


def _orders(zones: int, target: int, caps: list[int]) -> list[list[list[int]]]:
    """The arrival orders the adversary tries: ``target`` first with k - 1 other zones (the roomiest), then the rest
    at once; or ``target`` first and the others one by one."""
    others = sorted((zone for zone in range(zones) if zone != target), key=lambda zone: (-caps[zone], zone))
    orders = [[[target, *others[: k - 1]], others[k - 1 :]] for k in range(1, zones + 1)]
    orders.append([[target], *([zone] for zone in others)])
    return orders


def worst_case(pods: int, layout: ZoneLayout, placement: ZonePlacement, quorum: bool = True) -> ZoneVerdict:
    """The most of ``pods`` one zone can hold at worst over ``layout`` under ``placement`` (module docstring): of
    every arrival order tried and every zone as the one filled first, the one that leaves the fewest pods running
    outside the fullest zone (members), or puts the most in one zone (proxies)."""
    caps, total = _caps(layout, placement, pods)
    if not layout.labelled and placement.zone_spreads():
        # PodTopologySpread Filter: a node without the constraint's key is UnschedulableAndUnresolvable
        return ZoneVerdict(pods, layout, placement, 0, 0, quorum, (0,), (((0,), 0),))
    spreads = placement.zone_spreads() if layout.labelled else ()
    zones, pods_placed = len(caps), min(pods, total)
    worst: tuple | None = None
    for target in range(zones):
        for order in _orders(zones, target, caps):
            placed, counts, steps = _play(pods_placed, caps, spreads, target, order)
            share = max(counts, default=0)
            rank = (placed - share, -share) if quorum else (-share, placed - share)
            if worst is None or rank < worst[0]:
                worst = (rank, placed, share, tuple(counts), steps)
    assert worst is not None
    _, placed, share, counts, steps = worst
    return ZoneVerdict(pods, layout, placement, placed, share, quorum, counts, steps)


def layout_of(zones: Sequence[str | None]) -> ZoneLayout:
    """A layout from each eligible node's zone label (None: the node has none). Nodes without a label beside
    labelled ones can take no pod of a zone spread and count in no zone; all unlabelled: one failure domain."""
    labelled = [zone for zone in zones if zone]
    if not labelled:
        return ZoneLayout((len(zones),), labelled=False)
    names = sorted(set(labelled))
    return ZoneLayout(tuple(labelled.count(name) for name in names))


def even_layout(nodes: int, zones: int) -> ZoneLayout:
    """``nodes`` spread over ``zones`` as evenly as whole nodes allow (GKE's per-zone node_count, an EKS managed
    node group's Auto Scaling group balancing its subnets' zones)."""
    if zones <= 0:
        return ZoneLayout((nodes,), labelled=False)
    counts = (nodes // zones + (1 if index < nodes % zones else 0) for index in range(zones))
    return ZoneLayout(tuple(count for count in counts if count))  # a zone without a node is no domain


def zone_spread(keep_quorum: bool = True) -> dict[str, object]:
    """The topology spread constraint the plans write and the pack recommends: one zone may hold at most one pod
    more than the emptiest (DoNotSchedule), and, to keep a majority, no pod goes anywhere until FEWEST_ZONES zones
    have nodes (minDomains): on three zones ceil(n / 3) members in the fullest, within (n - 1) // 2 for n >= 3.
    Without ``keep_quorum`` (a stack that accepts a zone's loss, or has fewer zones) it only balances them."""
    spread: dict[str, object] = {"maxSkew": 1, "topologyKey": ZONE_KEY, "whenUnsatisfiable": "DoNotSchedule"}
    if keep_quorum:
        spread["minDomains"] = FEWEST_ZONES
    return spread
