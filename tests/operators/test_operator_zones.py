"""K7 proven by kube-scheduler: the real operators' pods, placed by the real scheduler on zoned Nodes (issue 34).

Scenarios (zone_scenarios.py): every stack's own StatefulSets as the operator rendered them (test_operator_stacks: gke,
eks and existing, with PXC and with group replication), and a grid of variants of the gke (PXC) and eks (group
replication) custom resources changed in their placement only, each rendered by the operator: the zone key, the
hostname key (the operators' default), ``none``, a topology spread with DoNotSchedule (maxSkew 1, maxSkew 2, maxSkew
1 with minDomains 3) and with ScheduleAnyway; 3 members (PXC), 5 (group replication) and 5 proxies (HAProxy); each on
3 zones of 2 Nodes and on 2 zones of 2, the Nodes arriving in the order the rule's worst case names.

* The rule's verdict (the policy pack's reading of the custom resource, core.zones) is what kube-scheduler did: as
  many members placed, as many in the fullest zone. A disagreement is fixed in the rule, never here.
* Every stack's members and proxies keep a majority on 3 zones; the Nodes of the fullest zone are then deleted, and
  the members left on the other zones are a majority.
* The same custom resource with the hostname key only puts two of three members in one zone, and the policy pack
  rejects it (K7), run as ``percona-mysql-policy-check --manifests`` runs it.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
import yaml
from operator_cluster import wait_for
from operator_inputs import GROUP_REPLICATION, PXC, STACK_CASES, StackCase, custom_resource
from percona_mysql_k8s.core.zones import majority, tolerated_share
from zone_scenarios import (
    LAYOUTS,
    PLACEMENTS,
    Members,
    Scenario,
    clean_up,
    keeps_after_loss,
    lose_fullest_zone,
    play,
    zone_grid,
)

pytestmark = pytest.mark.operators
REPOSITORY = Path(__file__).resolve().parents[2]
STACKS = [case for case in STACK_CASES if case.stack != "kind"]  # kind: one machine, no zone (docs/zones.md)
# every stack on 3 zones; on 2 zones, one of each engine (the plan refuses 2 zones on production: what it would do)
TWO_ZONE_STACKS = ("gke-pxc", "eks-gr")


def _statefulset(tier, namespace: str, name: str):
    from kubernetes.client.rest import ApiException

    try:
        return tier.apps.read_namespaced_stateful_set(name, namespace)
    except ApiException as error:
        if error.status == 404:
            return None
        raise


def _render(tier) -> list[Members]:
    """The grid's StatefulSets as the operators rendered them with the render corpus' variants
    (test_operator_differential); applied again here (unchanged, so nothing re-renders) when this module runs alone."""
    from render_corpus import zone_items

    items = {item.name: item for item in zone_items()}
    for item in items.values():
        if item.secret is not None:
            tier.apply(item.secret)
        tier.apply(item.body)
    wanted = {f"{entry.name}-{key}": (entry, key) for entry in zone_grid() for key in entry.components}

    def rendered():
        tier.assert_operators_healthy()
        return all(_statefulset(tier, items[entry.name].namespace, name) for name, (entry, _) in wanted.items())

    wait_for(f"the operators render {sorted(wanted)}", rendered, timeout=300, interval=2.0)
    return [
        Members(
            f"{items[entry.name].id}: {key}", items[entry.name].body, _statefulset(tier, items[entry.name].namespace, name), key
        )
        for name, (entry, key) in wanted.items()
    ]


def _stack_members(tier) -> list[Members]:
    from test_operator_stacks import deployed

    found = []
    for case in STACKS:
        deployment = deployed(tier, case)
        for name in deployment.statefulsets:
            key = name.rsplit("-", 1)[1]
            sts = tier.apps.read_namespaced_stateful_set(name, deployment.namespace)
            found.append(Members(f"{case.id} stack CR: {name}", deployment.cr, sts, key))
    return found


@pytest.fixture(scope="module")
def scenarios(tier) -> list[Scenario]:
    started = time.monotonic()
    stacks = _stack_members(tier)
    rendered = time.monotonic()
    members = stacks + _render(tier)
    print(f"\nzones: the stacks' renders {rendered - started:.0f} s, the variants' {time.monotonic() - rendered:.0f} s")
    pairs = [
        (member, layout)
        for member in members
        for layout in LAYOUTS
        if " stack CR: " not in member.label or layout == "3 zones" or member.label.split(" ")[0] in TWO_ZONE_STACKS
    ]
    played = [Scenario(index, member, layout) for index, (member, layout) in enumerate(pairs)]
    started = time.monotonic()
    play(tier, played)
    lose_fullest_zone(tier, [s for s in played if " stack CR: " in s.members.label and s.layout_name == "3 zones"])
    for scenario in played:
        print(scenario.describe())
    clean_up(tier, played)
    print(f"zones: {len(played)} scenarios played in {time.monotonic() - started:.0f} s")
    return played


def test_the_rules_verdict_is_what_kube_scheduler_did(scenarios):
    """The differential: over every variant and layout, as many members placed, as many in the fullest zone."""
    grid = {s.members.label for s in scenarios if ": zones, " in s.members.label}
    assert len(grid) == 2 * len(PLACEMENTS) + 4  # each placement on PXC's members and HAProxy, four on GR's members
    assert {(s.members.label, s.layout_name) for s in scenarios if s.members.label in grid} == {
        (label, layout) for label in grid for layout in LAYOUTS
    }
    wrong = [s.describe() for s in scenarios if (s.placed, s.share) != (s.verdict.placed, s.verdict.largest_share)]
    assert not wrong, "\n".join(wrong)
    kept = {s.verdict.keeps for s in scenarios}
    assert kept == {True, False}, "the corpus must hold placements the rule accepts and placements it rejects"


def test_every_stack_keeps_a_majority_on_three_zones_and_after_losing_one(scenarios):
    stacks = [s for s in scenarios if " stack CR: " in s.members.label and s.layout_name == "3 zones"]
    assert len(stacks) == len(STACKS) + sum(case.engine == PXC for case in STACKS)  # PXC: members and HAProxy
    for scenario in stacks:
        quorum = not scenario.members.component_key.endswith(("haproxy", "proxysql", "router"))
        assert scenario.placed == scenario.members.size, scenario.describe()
        assert scenario.share <= tolerated_share(scenario.members.size, quorum), scenario.describe()
        zone, left = scenario.lost
        print(f"{scenario.members.label}: {zone} lost, {left} of {scenario.members.size} left")
        if quorum:
            assert keeps_after_loss(scenario), f"{scenario.describe()}; {zone} lost, {left} left"
        else:
            assert left >= 1


def test_the_hostname_key_alone_puts_two_members_in_one_zone_and_the_rule_rejects_it(scenarios):
    from percona_mysql_k8s.cli.check import check_manifests
    from percona_mysql_k8s.cli.manifests import read_manifests

    hostname = [
        s
        for s in scenarios
        if "hostname key" in s.members.label
        and s.layout_name == "3 zones"
        and s.members.size == 3
        and s.members.component_key in ("pxc", "mysql")
    ]
    assert {s.members.component_key for s in hostname} == {"pxc", "mysql"}
    for scenario in hostname:
        assert scenario.share == 2 and scenario.placed == 3, scenario.describe()
        assert scenario.placed - scenario.share < majority(3)
    text = yaml.safe_dump_all([s.members.cr for s in hostname])
    report = check_manifests(read_manifests(text, "hostname-only.yaml"))
    rejected = {f.resource_name.split(" ")[0] for f in report.findings if f.diagnostic.rule == "K7"}  # namespace/name
    names = {f"{s.members.cr['metadata']['namespace']}/{s.members.cr['metadata']['name']}" for s in hostname}
    assert names <= rejected, [f.diagnostic.message for f in report.findings]
    stack_crs = [
        custom_resource(StackCase(stack, engine).objects()) for stack in ("gke", "eks") for engine in (PXC, GROUP_REPLICATION)
    ]
    report = check_manifests(read_manifests(yaml.safe_dump_all(stack_crs), "stacks.yaml"))
    assert not [f.diagnostic.message for f in report.findings if f.diagnostic.rule == "K7"]


# ---------------------------------------------------------------------------------------------------------
# docs/zones.md shows one placement as kube-scheduler made it

DOCS = REPOSITORY / "docs" / "zones.md"
BEGIN, END = (
    "<!-- BEGIN ZONE PLACEMENT (scripts/operators.sh run-tier -k zones; OPERATOR_TIER_WRITE_DOCS=1 rewrites) -->",
    "<!-- END ZONE PLACEMENT -->",
)


def _line(scenario: Scenario) -> str:
    counts = sorted((scenario.observed.get(zone, 0) for zone in scenario.zones), reverse=True)
    lost = ""
    if scenario.lost:
        lost = f"; the fullest zone's Nodes deleted: {scenario.lost[1]} of {scenario.members.size} left"
    return (
        f"| {scenario.members.label} | {scenario.layout_name} | {scenario.placed} of {scenario.members.size} | "
        f"{', '.join(map(str, counts))}{lost} |"
    )


def docs_block(scenarios: list[Scenario], api) -> str:
    gke = next(s for s in scenarios if s.members.label.startswith("gke-pxc stack CR: ") and s.members.component_key == "pxc")
    spread = api.sanitize_for_serialization(gke.members.statefulset.spec.template.spec.topology_spread_constraints)
    picked = [
        s
        for s in scenarios
        if s.members.component_key in ("pxc", "mysql")
        and (s.members.label.startswith("gke-pxc stack CR: ") or "hostname key" in s.members.label and s.members.size == 3)
    ]
    rows = "\n".join(_line(s) for s in sorted(picked, key=lambda s: (s.members.label, s.layout_name)))
    return "\n".join(
        [
            f"`{gke.members.statefulset.metadata.name}`, as the PXC operator rendered the gke stack's custom resource:",
            "",
            "```yaml",
            yaml.safe_dump({"topologySpreadConstraints": spread}, sort_keys=True).strip(),
            "```",
            "",
            "| members | layout | placed | members per zone, fullest first |",
            "|---|---|---|---|",
            rows,
        ]
    )


def test_the_docs_show_a_placement_as_kube_scheduler_made_it(tier, scenarios):
    block = docs_block(scenarios, tier.api)
    text = DOCS.read_text()
    assert BEGIN in text and END in text, f"{DOCS} has no {BEGIN} ... {END} block"
    current = text[text.index(BEGIN) + len(BEGIN) : text.index(END)].strip()
    if os.environ.get("OPERATOR_TIER_WRITE_DOCS") == "1":
        DOCS.write_text(text.replace(current, block) if current else text.replace(BEGIN + "\n", BEGIN + "\n" + block + "\n"))
        return
    assert current == block, (
        "docs/zones.md shows another placement than kube-scheduler made: rerun with OPERATOR_TIER_WRITE_DOCS=1 "
        "(scripts/operators.sh run-tier -k zones) and review the diff"
    )
