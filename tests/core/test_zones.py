"""The zone arithmetic (core.zones, rule K7) against an exhaustive search of what kube-scheduler may do.

The search plays every arrival order of the nodes and every node the filters accept for every pod, node by node,
with kube-scheduler's own reading of the fields (required anti-affinity on the hostname, a zone or the region;
DoNotSchedule spread on the zone with maxSkew and minDomains, the fewest count taken as 0 while fewer zones than
minDomains have nodes; a node without the zone label refused by a zone spread). Pods never move once placed, and a
pod that some node accepts once every node is there does not stay Pending. The arithmetic must find the same fewest
survivors of a zone's loss, over every small case hypothesis draws.
"""

from __future__ import annotations

import functools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from percona_mysql_k8s.core.zones import (
    HOSTNAME_KEY,
    ZONE_KEY,
    Spread,
    ZoneLayout,
    ZonePlacement,
    even_layout,
    fewest_zones,
    layout_of,
    majority,
    tolerated_share,
    worst_case,
)

REGION = "topology.kubernetes.io/region"


def exhaustive(pods: int, layout: ZoneLayout, placement: ZonePlacement) -> tuple[int, int]:
    """(fewest survivors of the worst zone's loss, most pods in one zone) over every arrival order and choice."""
    zones = [zone for zone, count in enumerate(layout.nodes) for _ in range(count)] if layout.labelled else []
    if not layout.labelled:
        zones = [None] * layout.nodes[0]
    nodes = range(len(zones))
    spreads = placement.zone_spreads()
    anti = placement.anti_affinity

    def fits(node: int, present: frozenset[int], counts: tuple[int, ...]) -> bool:
        zone = zones[node]
        if HOSTNAME_KEY in anti and counts[node]:
            return False
        if REGION in anti and sum(counts):
            return False
        in_zone = sum(counts[other] for other in nodes if zones[other] == zone)
        if zone is not None and anti & {ZONE_KEY} and in_zone:
            return False
        for spread in spreads:
            if zone is None:
                return False
            domains = {zones[other] for other in present}
            fewest = (
                0 if len(domains) < spread.min_domains else min(sum(counts[o] for o in present if zones[o] == d) for d in domains)
            )
            if in_zone + 1 - fewest > spread.max_skew:
                return False
        return True

    def outcome(counts: tuple[int, ...]) -> tuple[int, int]:
        per_zone = {}
        for node, count in enumerate(counts):
            per_zone[zones[node]] = per_zone.get(zones[node], 0) + count
        share = max(per_zone.values(), default=0)
        return sum(counts) - share, share

    @functools.cache
    def search(present: frozenset[int], counts: tuple[int, ...]) -> tuple[int, int]:
        pending = pods - sum(counts)
        moves = []
        if pending:
            for node in present:
                if fits(node, present, counts):
                    moves.append((present, counts[:node] + (counts[node] + 1,) + counts[node + 1 :]))
        for node in nodes:
            if node not in present:
                moves.append((present | {node}, counts))
        if not moves:
            return outcome(counts)
        results = [search(*move) for move in moves]
        return min(r[0] for r in results), max(r[1] for r in results)

    return search(frozenset(), (0,) * len(zones))


PLACEMENTS = {
    "none": ZonePlacement(),
    "hostname": ZonePlacement(frozenset({HOSTNAME_KEY})),
    "zone": ZonePlacement(frozenset({ZONE_KEY})),
    "region": ZonePlacement(frozenset({REGION})),
    "spread 1": ZonePlacement(spreads=(Spread(ZONE_KEY, 1),)),
    "spread 2": ZonePlacement(spreads=(Spread(ZONE_KEY, 2),)),
    "spread 1 over 3 zones": ZonePlacement(spreads=(Spread(ZONE_KEY, 1, 3),)),
    "spread 2 over 3 zones": ZonePlacement(spreads=(Spread(ZONE_KEY, 2, 3),)),
    "hostname, spread 1 over 3 zones": ZonePlacement(frozenset({HOSTNAME_KEY}), (Spread(ZONE_KEY, 1, 3),)),
    "hostname, spread 1 over 2 zones": ZonePlacement(frozenset({HOSTNAME_KEY}), (Spread(ZONE_KEY, 1, 2),)),
    "hostname, spread 1": ZonePlacement(frozenset({HOSTNAME_KEY}), (Spread(ZONE_KEY, 1),)),
    "two spreads": ZonePlacement(spreads=(Spread(ZONE_KEY, 2, 3), Spread(ZONE_KEY, 1))),
}


spreads = st.builds(Spread, st.just(ZONE_KEY), st.integers(1, 3), st.integers(1, 4))
placements = st.one_of(
    st.sampled_from(list(PLACEMENTS.values())),
    st.builds(
        ZonePlacement,
        st.frozensets(st.sampled_from([HOSTNAME_KEY, ZONE_KEY, REGION]), max_size=2),
        st.lists(spreads, max_size=2).map(tuple),
    ),
)


@settings(max_examples=400, deadline=None)
@given(
    pods=st.integers(1, 5),
    nodes=st.lists(st.integers(1, 2), min_size=1, max_size=3),
    placement=placements,
    labelled=st.booleans(),
)
def test_the_arithmetic_finds_what_an_exhaustive_search_finds(pods, nodes, placement, labelled):
    layout = ZoneLayout(tuple(nodes) if labelled else (sum(nodes),), labelled)
    verdict = worst_case(pods, layout, placement)
    survivors, share = exhaustive(pods, layout, placement)
    assert (verdict.survivors, verdict.largest_share) == (survivors, share), verdict.shares


@pytest.mark.parametrize(
    ("placement", "pods", "nodes", "share", "keeps"),
    [
        # the operators' default: one member per node; two nodes in a zone hold two of three members
        ("hostname", 3, (2, 2, 2), 2, False),
        ("hostname", 3, (1, 1, 1), 1, True),  # one node per zone: kept, until the pool gains a node
        ("zone", 3, (2, 2, 2), 1, True),
        ("zone", 3, (2, 2), 1, False),  # two zones: the third member stays Pending, two of three is no majority left
        ("zone", 5, (2, 2, 2), 1, False),  # five members, three zones: two stay Pending
        ("spread 1", 3, (2, 2, 2), 3, False),  # without minDomains the first zone's nodes take every member
        ("hostname, spread 1 over 3 zones", 3, (2, 2, 2), 1, True),
        ("hostname, spread 1 over 3 zones", 5, (2, 2, 2), 2, True),
        ("hostname, spread 1 over 3 zones", 5, (2, 2), 1, False),  # minDomains 3 on two zones: one per zone
        ("spread 2 over 3 zones", 3, (2, 2, 2), 2, False),
        ("spread 1 over 3 zones", 7, (3, 3, 3), 3, True),
        ("none", 3, (2, 2, 2), 3, False),
    ],
)
def test_worked_examples(placement, pods, nodes, share, keeps):
    verdict = worst_case(pods, ZoneLayout(nodes), PLACEMENTS[placement])
    assert (verdict.largest_share, verdict.keeps) == (share, keeps), verdict.explain()
    assert str(share) in verdict.explain() and str(majority(pods)) in verdict.explain()


def test_a_zone_spread_on_nodes_without_a_zone_label_places_nothing():
    verdict = worst_case(3, ZoneLayout((3,), labelled=False), PLACEMENTS["hostname, spread 1 over 3 zones"])
    assert (verdict.placed, verdict.keeps) == (0, False)
    assert "3 stay Pending" in verdict.explain()


def test_proxies_keep_no_majority_in_a_zone_rather_than_a_majority_after_its_loss():
    two_zones = ZoneLayout((2, 2))
    placement = PLACEMENTS["hostname, spread 1 over 2 zones"]
    assert worst_case(2, two_zones, placement, quorum=False).keeps  # one proxy each side: one is left
    assert not worst_case(2, two_zones, placement, quorum=True).keeps
    assert not worst_case(3, ZoneLayout((3,)), PLACEMENTS["hostname"], quorum=False).keeps


def test_the_numbers_the_rule_states():
    assert [tolerated_share(n) for n in (3, 5, 7)] == [1, 2, 3]
    assert [tolerated_share(n, quorum=False) for n in (2, 3, 4)] == [1, 1, 2]
    assert [fewest_zones(n) for n in (1, 2, 3, 5, 7)] == [None, None, 3, 3, 3]
    for members in range(3, 40, 2):  # three zones keep a majority, two never do (the arithmetic FEWEST_ZONES rests on)
        assert -(-members // 3) <= tolerated_share(members) < -(-members // 2)


def test_layouts_from_node_labels_and_from_counts():
    assert layout_of(["a", "b", "a", "c"]) == ZoneLayout((2, 1, 1))
    assert layout_of([None, None]) == ZoneLayout((2,), labelled=False)
    assert layout_of(["a", None]) == ZoneLayout((1,))
    assert even_layout(5, 3) == ZoneLayout((2, 2, 1))
    assert even_layout(2, 3) == ZoneLayout((1, 1))
    assert ZoneLayout.any_pool(5).zones == 3
