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

import copy
import random
import time
from dataclasses import dataclass, field
from typing import Any

from kubernetes.client.rest import ApiException
from operator_cluster import TierNode, create_nodes, member_pod, wait_for
from percona_mysql_k8s.core.node_inventory import pod_requests
from percona_mysql_k8s.core.zones import ZoneLayout, ZoneVerdict, majority, worst_case
from percona_mysql_k8s.policies._readers.database import database_view
from percona_mysql_k8s.policies._readers.pod_spread import component_zone_placement

ZONE_NAMESPACES = {"pxc": ["oz-pxc"], "ps": ["oz-ps"]}  # where the variants render (the operators watch them)
ZONE = "topology.kubernetes.io/zone"
POOL_LABEL = "mysql.percona.com/pool"
LAYOUTS = {"3 zones": (2, 2, 2), "2 zones": (2, 2)}
ZONE_NAMES = ("zone-a", "zone-b", "zone-c")
SEED = 34
STEP_TIMEOUT = 45.0  # kube-scheduler places a step's pods within seconds; more means it placed fewer than the rule
SETTLE = 3.0  # after the expected count is reached: a pod placed beyond it shows up in this time
SCENARIO_LABEL = "operator-tier/zone-scenario"


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
    try:
        core.create_namespace({"metadata": {"name": name, "labels": {"operator-tier": "zones"}}})
    except ApiException as error:
        if error.status != 409:
            raise
    wait_for(
        f"the default service account of {name}", lambda: _exists(lambda: core.read_namespaced_service_account("default", name))
    )


def _exists(read) -> bool:
    try:
        read()
        return True
    except ApiException as error:
        if error.status == 404:
            return False
        raise


def _bound(core, scenario: Scenario) -> dict[str, str]:
    """Pod name -> the Node kube-scheduler bound it to (``spec.nodeName``)."""
    pods = core.list_namespaced_pod(scenario.namespace).items
    return {pod.metadata.name: pod.spec.node_name for pod in pods if pod.spec.node_name}


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
    for scenario in scenarios:
        _namespace(core, scenario.namespace)
        for pod in pods_for(scenario, tier.api):
            core.create_namespaced_pod(scenario.namespace, pod)
        templates[scenario.index] = tier.api.sanitize_for_serialization(scenario.members.statefulset.spec.template)
    for step in range(max(len(s.verdict.arrival) for s in scenarios)):
        due = [(s, s.verdict.arrival[step]) for s in scenarios if step < len(s.verdict.arrival)]
        nodes = [node for s, (zones, _) in due for node in s.nodes(zones, templates[s.index])]
        started = time.monotonic()
        create_nodes(core, nodes, "zones")
        print(f"zones: step {step + 1}, {len(nodes)} Nodes Ready in {time.monotonic() - started:.0f} s")
        deadline = time.monotonic() + STEP_TIMEOUT
        while time.monotonic() < deadline:
            tier.assert_operators_healthy()
            if all(len(_bound(core, s)) >= expected for s, (_, expected) in due):
                break
            time.sleep(1.0)
        time.sleep(SETTLE)
    _record(core, scenarios)


def lose_fullest_zone(tier, scenario: Scenario) -> None:
    """Delete the Nodes of the zone holding the most members; count the members still on a Node that exists."""
    core = tier.core
    zone = max(scenario.observed, key=lambda z: (scenario.observed[z], z))
    for node in core.list_node(label_selector=f"{SCENARIO_LABEL}={scenario.index},{ZONE}={zone}").items:
        core.delete_node(node.metadata.name)
    wait_for(
        f"the Nodes of {zone} gone",
        lambda: not core.list_node(label_selector=f"{SCENARIO_LABEL}={scenario.index},{ZONE}={zone}").items,
    )
    left = {node.metadata.name for node in core.list_node(label_selector=f"{SCENARIO_LABEL}={scenario.index}").items}
    scenario.lost = (zone, sum(1 for node in _bound(core, scenario).values() if node in left))


def keeps_after_loss(scenario: Scenario) -> bool:
    assert scenario.lost is not None
    return scenario.lost[1] >= majority(scenario.members.size)


def clean_up(tier, scenarios: list[Scenario]) -> None:
    core = tier.core
    for node in core.list_node(label_selector=SCENARIO_LABEL).items:
        core.delete_node(node.metadata.name)
    for scenario in scenarios:
        try:
            core.delete_namespace(scenario.namespace)
        except ApiException as error:
            if error.status != 404:
                raise


def variant_cr(base: dict[str, Any], name: str, namespace: str, changes: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """A stack's custom resource renamed into ``namespace``, its own pods pinned to no Node (the render is what is
    wanted: the scenarios place copies), PMM off (its token is the stack's), ``changes`` laid over each component."""
    body = copy.deepcopy(base)
    body["metadata"] = {"name": name, "namespace": namespace}
    spec = body["spec"]
    spec.pop("secretsName", None)  # the operator generates the Secret of a cluster that names none
    spec["pmm"] = {**(spec.get("pmm") or {}), "enabled": False}
    for path, fields in changes.items():
        node = spec
        for part in path.split("."):
            node = node.setdefault(part, {})
        for key, value in fields.items():
            if value is None:
                node.pop(key, None)
            else:
                node[key] = copy.deepcopy(value)
        node["nodeSelector"] = {POOL_LABEL: "nowhere"}
    return body
