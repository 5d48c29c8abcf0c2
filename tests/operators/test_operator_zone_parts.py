"""The zone tests' own parts, without a cluster (these run in the unit suite): the comparison of the pack's model of
labels, affinity and spread constraints with a render can fail; a scenario's pods are the StatefulSet's members moved
to its pool and namespace only; its Nodes follow the rule's worst-case arrival and hold every member."""

from __future__ import annotations

import copy

from kubernetes import client as k8s_client
from operator_inputs import StackCase, custom_resource
from render_compare import expected_statefulsets
from render_spread import compare_spread
from zone_scenarios import LAYOUTS, PLACEMENTS, POOL_LABEL, ZONE, Members, Scenario, pods_for, zone_grid

ZONE_SPREAD = {"maxSkew": 1, "topologyKey": ZONE, "whenUnsatisfiable": "DoNotSchedule", "minDomains": 3}
OPERATOR_LABELS = {
    "app.kubernetes.io/name": "percona-xtradb-cluster",
    "app.kubernetes.io/instance": "gke-mysql",
    "app.kubernetes.io/managed-by": "percona-xtradb-cluster-operator",
    "app.kubernetes.io/part-of": "percona-xtradb-cluster",
    "app.kubernetes.io/component": "pxc",
}


def _template() -> dict:
    """The gke stack's pxc pods as the PXC operator renders them (pkg/pxc/statefulset.go), written out by hand."""
    return {
        "metadata": {"labels": dict(OPERATOR_LABELS)},
        "spec": {
            "affinity": {
                "podAntiAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": [
                        {"labelSelector": {"matchLabels": dict(OPERATOR_LABELS)}, "topologyKey": "kubernetes.io/hostname"}
                    ]
                }
            },
            "topologySpreadConstraints": [{**ZONE_SPREAD, "labelSelector": {"matchLabels": dict(OPERATOR_LABELS)}}],
        },
    }


def test_the_spread_comparison_agrees_with_the_render_and_finds_each_difference():
    cr = custom_resource(StackCase("gke", "pxc").objects())
    name = f"{cr['metadata']['name']}-pxc"
    model = expected_statefulsets(cr)[name]
    assert compare_spread(cr, model, _template(), name).differences == []
    changes = {
        "pod template labels": lambda t: t["metadata"]["labels"].update(team="db"),
        "affinity (whole)": lambda t: t["spec"]["affinity"]["podAntiAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][
            0
        ]["labelSelector"]["matchLabels"].pop("app.kubernetes.io/part-of"),
        "topologySpreadConstraints": lambda t: t["spec"]["topologySpreadConstraints"][0].pop("minDomains"),
    }
    for what, change in changes.items():
        broken = copy.deepcopy(_template())
        change(broken)
        found = compare_spread(cr, model, broken, name).differences
        assert found and what in found[0], (what, found)
    broken = copy.deepcopy(_template())
    broken["spec"]["topologySpreadConstraints"][0]["whenUnsatisfiable"] = "ScheduleAnyway"
    found = compare_spread(cr, model, broken, name).differences
    assert any("zone placement as kube-scheduler reads it" in d for d in found), found


def _statefulset(cr: dict, key: str) -> k8s_client.V1StatefulSet:
    template = _template()
    template["spec"] |= {
        "nodeSelector": {POOL_LABEL: "nowhere"},
        "containers": [{"name": "pxc", "image": "x", "resources": {"requests": {"cpu": "2", "memory": "4Gi"}}}],
        "volumes": [{"name": "datadir", "persistentVolumeClaim": {"claimName": "datadir"}}],
        "serviceAccountName": "percona-xtradb-cluster-operator-workload",
    }
    return k8s_client.V1StatefulSet(
        metadata=k8s_client.V1ObjectMeta(name=f"{cr['metadata']['name']}-{key}", namespace="oz-pxc", uid="u"),
        spec=k8s_client.V1StatefulSet(
            spec={
                "replicas": 3,
                "serviceName": "gke-mysql-pxc",
                "selector": {"matchLabels": OPERATOR_LABELS},
                "template": template,
            }
        ).spec,
        status=k8s_client.V1StatefulSetStatus(replicas=1, update_revision="r1"),
    )


def test_a_scenario_moves_the_members_to_its_pool_and_replays_the_worst_arrival():
    cr = custom_resource(StackCase("gke", "pxc").objects())
    api = k8s_client.ApiClient()
    sts = api._ApiClient__deserialize(api.sanitize_for_serialization(_statefulset(cr, "pxc")), "V1StatefulSet")
    scenario = Scenario(7, Members("gke-pxc stack CR: gke-mysql-pxc", cr, sts, "pxc"), "3 zones")
    pods = pods_for(scenario, api)
    assert [p["metadata"]["name"] for p in pods] == ["gke-mysql-pxc-0", "gke-mysql-pxc-1", "gke-mysql-pxc-2"]
    for pod in pods:
        assert pod["metadata"]["namespace"] == "oz-s07" and "ownerReferences" not in pod["metadata"]
        assert pod["spec"]["nodeSelector"] == {POOL_LABEL: "zones-07"}
        assert pod["spec"]["volumes"] == [{"name": "datadir", "emptyDir": {}}]
        assert pod["spec"]["affinity"] == _template()["spec"]["affinity"]  # the placement fields, untouched
    assert scenario.verdict.keeps and scenario.verdict.largest_share == 1
    first, rest = scenario.verdict.arrival
    nodes = scenario.nodes(first[0], api.sanitize_for_serialization(sts.spec.template))
    assert {n.labels[ZONE] for n in nodes} == {scenario.zones[0]} and len(nodes) == LAYOUTS["3 zones"][0]
    assert nodes[0].cpu_millicores >= 3 * 2000 and nodes[0].memory_bytes >= 3 * 4 * 2**30  # every member fits one Node


def test_the_grid_changes_the_placement_fields_alone_and_renders_with_the_corpus():
    from render_corpus import zone_items

    items = {item.name: item for item in zone_items()}
    assert [entry.name for entry in zone_grid()] == list(items)
    base = custom_resource(StackCase("gke", "pxc").objects())["spec"]
    zone_key = items["zpxc00"].body["spec"]
    assert zone_key["pxc"]["affinity"] == {"antiAffinityTopologyKey": ZONE} and zone_key["pxc"]["size"] == 3
    assert "topologySpreadConstraints" not in zone_key["pxc"] and zone_key["haproxy"]["size"] == 5
    assert zone_key["pxc"]["resources"] == base["pxc"]["resources"]  # what decides no placement is the stack's
    assert {entry.label for entry in zone_grid() if entry.operator == "pxc"} == set(PLACEMENTS)
