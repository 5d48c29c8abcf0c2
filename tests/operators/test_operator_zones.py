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
from percona_mysql_k8s.core.zones import ZONE_KEY, majority, tolerated_share
from zone_scenarios import (
    LAYOUTS,
    Members,
    Scenario,
    clean_up,
    keeps_after_loss,
    lose_fullest_zone,
    play,
    variant_cr,
)

pytestmark = pytest.mark.operators
REPOSITORY = Path(__file__).resolve().parents[2]
HOSTNAME = {"antiAffinityTopologyKey": "kubernetes.io/hostname"}


def _spread(**fields):
    return [{"maxSkew": 1, "topologyKey": ZONE_KEY, "whenUnsatisfiable": "DoNotSchedule", **fields}]


# placement -> (affinity, topologySpreadConstraints); None drops the stack's own spread
PLACEMENTS = {
    "zone key": ({"antiAffinityTopologyKey": ZONE_KEY}, None),
    "hostname key": (HOSTNAME, None),
    "none": ({"antiAffinityTopologyKey": "none"}, None),
    "DoNotSchedule, maxSkew 1": (HOSTNAME, _spread()),
    "DoNotSchedule, maxSkew 2": (HOSTNAME, _spread(maxSkew=2)),
    "DoNotSchedule, maxSkew 1, minDomains 3": (HOSTNAME, _spread(minDomains=3)),
    "ScheduleAnyway, maxSkew 1": (HOSTNAME, _spread(whenUnsatisfiable="ScheduleAnyway")),
}
STACKS = [case for case in STACK_CASES if case.stack != "kind"]  # kind: one machine, no zone (docs/zones.md)
BATCH = 32  # scenarios played side by side: their Nodes are deleted before the next batch


def _placement(name: str) -> dict:
    affinity, spread = PLACEMENTS[name]
    return {"affinity": affinity, "topologySpreadConstraints": spread}


def _variants() -> list[tuple[str, dict, list[str]]]:
    """(label, custom resource, components placed) of every grid variant."""
    gke = custom_resource(StackCase("gke", PXC).objects())
    eks = custom_resource(StackCase("eks", GROUP_REPLICATION).objects())
    found = []
    for index, name in enumerate(PLACEMENTS):
        changes = {"pxc": {**_placement(name), "size": 3}, "haproxy": {**_placement(name), "size": 5}}
        found.append((f"gke-pxc CR, {name}", variant_cr(gke, f"zp{index}", "oz-pxc", changes), ["pxc", "haproxy"]))
        found.append(
            (f"eks-gr CR, {name}", variant_cr(eks, f"zs{index}", "oz-ps", {"mysql": {**_placement(name), "size": 5}}), ["mysql"])
        )
    hostname = {"mysql": {**_placement("hostname key"), "size": 3}}
    found.append(("eks-gr CR, hostname key, 3 members", variant_cr(eks, "zs9", "oz-ps", hostname), ["mysql"]))
    return found


def _statefulset(tier, namespace: str, name: str):
    from kubernetes.client.rest import ApiException

    try:
        return tier.apps.read_namespaced_stateful_set(name, namespace)
    except ApiException as error:
        if error.status == 404:
            return None
        raise


def _render(tier) -> list[Members]:
    """Apply every variant at once; each StatefulSet once the operator has rendered it."""
    variants = _variants()
    for _, body, _ in variants:
        tier.apply(body)
    wanted = {}
    for label, body, components in variants:
        for key in components:
            name = f"{body['metadata']['name']}-{key}"
            wanted[name] = (label, body, key)

    def rendered():
        tier.assert_operators_healthy()
        return all(_statefulset(tier, body["metadata"]["namespace"], name) for name, (_, body, _) in wanted.items())

    wait_for(f"the operators render {sorted(wanted)}", rendered, timeout=300, interval=2.0)
    return [
        Members(f"{label}: {key}", body, _statefulset(tier, body["metadata"]["namespace"], name), key)
        for name, (label, body, key) in wanted.items()
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
    pairs = [(member, layout) for member in members for layout in LAYOUTS]
    played = [Scenario(index, member, layout) for index, (member, layout) in enumerate(pairs)]
    for start in range(0, len(played), BATCH):
        batch_started = time.monotonic()
        batch = played[start : start + BATCH]
        play(tier, batch)
        for scenario in batch:
            if " stack CR: " in scenario.members.label and scenario.layout_name == "3 zones":
                lose_fullest_zone(tier, scenario)
            print(scenario.describe())
        clean_up(tier, batch)
        print(f"zones: {len(batch)} scenarios played in {time.monotonic() - batch_started:.0f} s")
    return played


def test_the_rules_verdict_is_what_kube_scheduler_did(scenarios):
    """The differential: over every variant and layout, as many members placed, as many in the fullest zone."""
    assert len(scenarios) >= 2 * (len(PLACEMENTS) * 3 + 1)
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


def docs_block(scenarios: list[Scenario]) -> str:
    gke = next(s for s in scenarios if s.members.label.startswith("gke-pxc stack CR: ") and s.members.component_key == "pxc")
    template = gke.members.statefulset.spec.template.spec
    spread = [c.to_dict() for c in template.topology_spread_constraints or []]
    spread = [{k: v for k, v in c.items() if v is not None} for c in spread]
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


def test_the_docs_show_a_placement_as_kube_scheduler_made_it(scenarios):
    block = docs_block(scenarios)
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
