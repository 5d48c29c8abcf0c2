"""The zone tests' scenarios: a real operator's pods placed by the real kube-scheduler on zoned kwok Nodes (K7).

A **scenario** is one StatefulSet the operator rendered (a stack's own, or a variant of a stack's custom resource
changed in its placement fields) placed on one **layout** of Nodes: 3 zones of 2 Nodes (``zone-a`` .. ``zone-c``), or
2 zones of 2. Each scenario has a namespace and a pool of its own (``mysql.percona.com/pool: zones-<n>``: its pods'
nodeSelector names it, its Nodes carry it, with the database pool's taint and a zone label), so scenarios run side by
side without seeing each other: pod anti-affinity and topology spread count the pods of one namespace, over the Nodes
a pod's nodeSelector selects. Every Node holds all of a scenario's pods (its allocatable is the pod's request times
the members): only the placement fields keep members apart.

What stands in, beside what operator_cluster.py says: the members are the StatefulSet's pod template as the controller
makes each member (operator_cluster.member_pod: name, identity labels, hostname), created in the scenario's namespace
without an owner (an owner in another namespace is garbage-collected), with the scenario's pool in the nodeSelector,
``emptyDir`` for the claims (no volume has a zone here) and the namespace's ``default`` service account. Scheduling
reads none of what changed but the nodeSelector.

The Nodes arrive in the order the rule's worst case names (core.zones.ZoneVerdict.arrival): the zones of each step
appear, kube-scheduler places what it can, then the next step. Which of the layout's zones comes first, and the order
of the Nodes within a step, are drawn from a seeded random generator (``SEED``): the layout is symmetric, so the
verdict does not depend on it, and the order kube-scheduler sees does.
"""

from __future__ import annotations

import random
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from kubernetes.client.rest import ApiException
from operator_cluster import NOT_READY, TierNode, member_pod, wait_for
from percona_mysql_k8s.core.node_inventory import pod_requests
from percona_mysql_k8s.core.zones import ZONE_KEY, ZoneLayout, ZoneVerdict, majority, worst_case
from percona_mysql_k8s.policies._readers.database import database_view
from percona_mysql_k8s.policies._readers.pod_spread import component_zone_placement

ZONE = "topology.kubernetes.io/zone"
POOL_LABEL = "mysql.percona.com/pool"
LAYOUTS = {"3 zones": (2, 2, 2), "2 zones": (2, 2)}
ZONE_NAMES = ("zone-a", "zone-b", "zone-c")
SEED = 34
STEP_TIMEOUT = 45.0  # kube-scheduler places a step's pods within seconds; more means it placed fewer than the rule
SETTLE = 3.0  # after the expected count is reached: a pod placed beyond it shows up in this time
SCENARIO_LABEL = "operator-tier/zone-scenario"


def _spread(**fields) -> list[dict[str, Any]]:
    return [{"maxSkew": 1, "topologyKey": ZONE_KEY, "whenUnsatisfiable": "DoNotSchedule", **fields}]


HOSTNAME = {"antiAffinityTopologyKey": "kubernetes.io/hostname"}
# The placements of the grid: (affinity, topologySpreadConstraints); None drops the stack's own spread.
PLACEMENTS = {
    "zone key": ({"antiAffinityTopologyKey": ZONE_KEY}, None),
    "hostname key": (HOSTNAME, None),
    "none": ({"antiAffinityTopologyKey": "none"}, None),
    "DoNotSchedule, maxSkew 1": (HOSTNAME, _spread()),
    "DoNotSchedule, maxSkew 2": (HOSTNAME, _spread(maxSkew=2)),
    "DoNotSchedule, maxSkew 1, minDomains 3": (HOSTNAME, _spread(minDomains=3)),
    "ScheduleAnyway, maxSkew 1": (HOSTNAME, _spread(whenUnsatisfiable="ScheduleAnyway")),
}


@dataclass(frozen=True)
class GridEntry:
    operator: str  # pxc | ps
    label: str
    name: str  # the custom resource's name in the render corpus' variants namespace
    changes: dict[str, Any]  # path below spec -> value (None: drop it)
    components: tuple[str, ...]  # the StatefulSets whose pods the scenarios place


def zone_grid() -> list[GridEntry]:
    """Every placement on the gke stack's PXC cluster, for its 3 members and 5 HAProxy pods; the zone key, the
    hostname key and the quorum spread on the eks stack's group replication with 5 members, and the hostname key with
    3 (the same custom resource with the hostname key only)."""
    found = []
    for index, (label, (affinity, spread)) in enumerate(PLACEMENTS.items()):
        changes: dict[str, Any] = {}
        for component, size in (("pxc", 3), ("haproxy", 5)):
            changes |= {f"{component}.affinity": affinity, f"{component}.topologySpreadConstraints": spread}
            changes[f"{component}.size"] = size
        found.append(GridEntry("pxc", label, f"zpxc{index:02d}", changes, ("pxc", "haproxy")))
    picked = [("zone key", 5), ("hostname key", 5), ("DoNotSchedule, maxSkew 1, minDomains 3", 5), ("hostname key", 3)]
    for index, (label, size) in enumerate(picked):
        affinity, spread = PLACEMENTS[label]
        changes = {"mysql.affinity": affinity, "mysql.topologySpreadConstraints": spread, "mysql.size": size}
        found.append(GridEntry("ps", f"{label}, {size} members", f"zps{index:02d}", changes, ("mysql",)))
    return found


@dataclass
class Members:
    """One rendered StatefulSet and what the rule says of its pods: the pack's reading of the custom resource."""

    label: str  # "gke-pxc stack CR: gke-mysql-pxc"
    cr: dict[str, Any]
    statefulset: Any  # V1StatefulSet as the operator rendered it
    component_key: str  # pxc | haproxy | proxysql | mysql

    @property
    def size(self) -> int:
        return self.statefulset.spec.replicas

    def verdict(self, layout: ZoneLayout) -> ZoneVerdict:
        view = database_view(f"kubernetes:{self.cr['apiVersion']}:{self.cr['kind']}", self.cr, self.cr["metadata"]["name"])
        component = next(c for c in [view.mysqld(), *view.proxies()] if c.key == self.component_key)
        quorum = component.role == "mysqld"
        return worst_case(self.size, layout, component_zone_placement(view, component), quorum)


@dataclass
class Scenario:
    index: int
    members: Members
    layout_name: str
    verdict: ZoneVerdict = field(init=False)
    zones: list[str] = field(init=False)  # the layout's zones, the worst case's first zone first
    observed: dict[str, int] = field(default_factory=dict)  # zone -> members kube-scheduler put there
    placed: int = 0
    lost: tuple[str, int] | None = None  # (the zone whose Nodes were deleted, members left running)

    def __post_init__(self) -> None:
        layout = ZoneLayout(LAYOUTS[self.layout_name])
        self.verdict = self.members.verdict(layout)
        names = list(ZONE_NAMES[: len(layout.nodes)])
        random.Random(f"{SEED}:{self.index}").shuffle(names)  # which zone's Nodes come first
        self.zones = names

    @property
    def namespace(self) -> str:
        return f"oz-s{self.index:02d}"

    @property
    def pool(self) -> str:
        return f"zones-{self.index:02d}"

    @property
    def share(self) -> int:
        return max(self.observed.values(), default=0)

    def nodes(self, step: tuple[int, ...], template: dict[str, Any]) -> list[TierNode]:
        cpu, memory = pod_requests({"spec": template["spec"]})
        found = []
        for zone_index in step:
            zone = self.zones[zone_index]
            for number in range(LAYOUTS[self.layout_name][zone_index]):
                found.append(
                    TierNode(
                        f"oz{self.index:02d}-{zone}-{number}",
                        "database",
                        {POOL_LABEL: self.pool, ZONE: zone, SCENARIO_LABEL: str(self.index)},
                        ({"key": POOL_LABEL, "value": "database", "effect": "NoSchedule"},),
                        cpu * self.members.size + 1000,
                        memory * self.members.size + 2**30,
                        110,
                    )
                )
        random.Random(f"{SEED}:{self.index}:{step}").shuffle(found)
        return found

    def describe(self) -> str:
        found = ", ".join(f"{zone} {self.observed.get(zone, 0)}" for zone in self.zones)
        return (
            f"{self.members.label} ({self.members.size} pods) on {self.layout_name}, Nodes of {self.zones[0]} first: "
            f"kube-scheduler placed {self.placed} ({found}); the rule: {self.verdict.placed} placed, at most "
            f"{self.verdict.largest_share} in one zone"
        )


def pods_for(scenario: Scenario, api) -> list[dict[str, Any]]:
    """The StatefulSet's members as its controller makes them, moved to the scenario's namespace and pool."""
    sts = scenario.members.statefulset
    pods = []
    for ordinal in range(scenario.members.size):
        pod = member_pod(sts, ordinal, api)
        pod["metadata"]["namespace"] = scenario.namespace
        pod["metadata"].pop("ownerReferences", None)
        pod["metadata"]["labels"][SCENARIO_LABEL] = str(scenario.index)
        spec = pod["spec"]
        spec["nodeSelector"] = {**(spec.get("nodeSelector") or {}), POOL_LABEL: scenario.pool}
        spec["serviceAccountName"] = "default"
        spec.pop("serviceAccount", None)
        spec["automountServiceAccountToken"] = False
        spec["volumes"] = [
            {"name": v["name"], "emptyDir": {}} if "persistentVolumeClaim" in v else v for v in spec.get("volumes") or []
        ]
        pods.append(pod)
    return pods


def _namespace(core, name: str) -> None:
    """The scenario's namespace and its ``default`` service account, made here rather than awaited from the service
    account controller (the ServiceAccount admission plugin refuses a pod whose account does not exist)."""
    for create in (
        lambda: core.create_namespace({"metadata": {"name": name, "labels": {"operator-tier": "zones"}}}),
        lambda: core.create_namespaced_service_account(name, {"metadata": {"name": "default"}}),
    ):
        try:
            create()
        except ApiException as error:
            if error.status != 409:
                raise


def _bound(core, scenario: Scenario) -> dict[str, str]:
    """Pod name -> the Node kube-scheduler bound it to (``spec.nodeName``)."""
    pods = core.list_namespaced_pod(scenario.namespace).items
    return {pod.metadata.name: pod.spec.node_name for pod in pods if pod.spec.node_name}


def create_zone_nodes(core, nodes: list[TierNode]) -> None:
    """Create the Nodes; once kwok has made them Ready, lift the not-ready taint the API server's admission put on
    them, as the node lifecycle controller would (operator_cluster.create_nodes, for many Nodes at once)."""
    for node in nodes:
        core.create_node(node.body("zones"))
    names = {node.name for node in nodes}

    def ready():
        live = core.list_node(label_selector=SCENARIO_LABEL).items
        found = [n for n in live if n.metadata.name in names]
        ok = [n for n in found if any(c.type == "Ready" and c.status == "True" for c in n.status.conditions or [])]
        return ok if len(ok) == len(names) else None

    live = wait_for(f"kwok makes {len(names)} Nodes Ready", ready, timeout=120)

    def lift(node) -> None:
        kept = [t.to_dict() for t in node.spec.taints or [] if t.key != NOT_READY]
        core.patch_node(node.metadata.name, {"spec": {"taints": kept or None}})

    with ThreadPoolExecutor(8) as pool:
        list(pool.map(lift, live))


def _record(core, scenarios: list[Scenario]) -> None:
    zones = {node.metadata.name: node.metadata.labels.get(ZONE) for node in core.list_node(label_selector=SCENARIO_LABEL).items}
    for scenario in scenarios:
        bound = _bound(core, scenario)
        scenario.placed = len(bound)
        scenario.observed = {}
        for node in bound.values():
            scenario.observed[zones[node]] = scenario.observed.get(zones[node], 0) + 1


def play(tier, scenarios: list[Scenario]) -> None:
    """Every scenario's pods, then its Nodes step by step in the worst case's order, all scenarios in lockstep;
    after each step, until kube-scheduler has placed what the rule says it can (or STEP_TIMEOUT), then SETTLE."""
    core = tier.core
    templates = {}
    begun = time.monotonic()
    for scenario in scenarios:
        _namespace(core, scenario.namespace)
        for pod in pods_for(scenario, tier.api):
            core.create_namespaced_pod(scenario.namespace, pod)
        templates[scenario.index] = tier.api.sanitize_for_serialization(scenario.members.statefulset.spec.template)
    print(f"zones: {len(scenarios)} namespaces and their pods in {time.monotonic() - begun:.0f} s")
    for step in range(max(len(s.verdict.arrival) for s in scenarios)):
        due = [(s, s.verdict.arrival[step]) for s in scenarios if step < len(s.verdict.arrival)]
        nodes = [node for s, (zones, _) in due for node in s.nodes(zones, templates[s.index])]
        started = time.monotonic()
        create_zone_nodes(core, nodes)
        print(f"zones: step {step + 1}, {len(nodes)} Nodes Ready in {time.monotonic() - started:.0f} s")
        deadline = time.monotonic() + STEP_TIMEOUT
        while time.monotonic() < deadline:
            tier.assert_operators_healthy()
            if all(len(_bound(core, s)) >= expected for s, (_, expected) in due):
                break
            time.sleep(1.0)
        short = [
            f"{s.index}: {len(_bound(core, s))} of {expected}" for s, (_, expected) in due if len(_bound(core, s)) < expected
        ]
        short_of = f"; short of the rule's count: {short}" if short else ""
        print(f"zones: step {step + 1}, kube-scheduler placed the pods after {time.monotonic() - started:.0f} s{short_of}")
        time.sleep(SETTLE)
    _record(core, scenarios)


def lose_fullest_zone(tier, scenarios: list[Scenario]) -> None:
    """Delete the Nodes of the zone holding the most members, for every scenario at once; count each one's members
    still bound to a Node that exists."""
    core = tier.core
    for scenario in scenarios:
        zone = max(scenario.observed, key=lambda z: (scenario.observed[z], z))
        core.delete_collection_node(label_selector=f"{SCENARIO_LABEL}={scenario.index},{ZONE}={zone}")
        scenario.lost = (zone, 0)
    lost = {(str(scenario.index), scenario.lost[0]) for scenario in scenarios}

    def gone():
        live = core.list_node(label_selector=SCENARIO_LABEL).items
        return not any((n.metadata.labels[SCENARIO_LABEL], n.metadata.labels[ZONE]) in lost for n in live)

    wait_for("the lost zones' Nodes gone", gone)
    left = {node.metadata.name for node in core.list_node(label_selector=SCENARIO_LABEL).items}
    for scenario in scenarios:
        scenario.lost = (scenario.lost[0], sum(1 for node in _bound(core, scenario).values() if node in left))


def keeps_after_loss(scenario: Scenario) -> bool:
    assert scenario.lost is not None
    return scenario.lost[1] >= majority(scenario.members.size)


def clean_up(tier, scenarios: list[Scenario]) -> None:
    """The scenarios' Nodes and namespaces (deleted in the background: nothing waits for them)."""
    core = tier.core
    core.delete_collection_node(label_selector=SCENARIO_LABEL)
    for scenario in scenarios:
        try:
            core.delete_namespace(scenario.namespace)
        except ApiException as error:
            if error.status != 404:
                raise
