"""Placement as kube-scheduler decides it (K4, K5, B1): each case follows the Kubernetes docs' rule."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from percona_mysql_k8s.core.allocatable import node_budget
from percona_mysql_k8s.core.pools import PoolShape, Taint
from percona_mysql_k8s.core.scheduling import (
    PodPlacement,
    can_schedule,
    eks_pool_nodes,
    gke_pool_nodes,
    kind_config_pools,
    kubernetes_effect,
    matches_node_affinity,
    matches_node_selector,
    tolerates,
)

GKE_NODE = {"cloud.google.com/gke-nodepool": "database", "kubernetes.io/os": "linux", "cores": "16"}
DEDICATED = [{"key": "dedicated", "value": "database", "effect": "NoSchedule"}]


def _affinity(*terms):
    return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": list(terms)}}}


def test_node_selector_needs_every_pair():
    assert matches_node_selector({"cloud.google.com/gke-nodepool": "database"}, GKE_NODE)
    assert not matches_node_selector({"cloud.google.com/gke-nodepool": "monitoring"}, GKE_NODE)
    assert not matches_node_selector({"cloud.google.com/gke-nodepool": "database", "x": "y"}, GKE_NODE)
    assert matches_node_selector({}, GKE_NODE) and matches_node_selector(None, GKE_NODE)


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ({"key": "cloud.google.com/gke-nodepool", "operator": "In", "values": ["database", "db2"]}, True),
        ({"key": "cloud.google.com/gke-nodepool", "operator": "NotIn", "values": ["database"]}, False),
        ({"key": "absent", "operator": "NotIn", "values": ["x"]}, True),  # NotIn matches a node without the key
        ({"key": "absent", "operator": "DoesNotExist"}, True),
        ({"key": "cores", "operator": "Exists"}, True),
        ({"key": "cores", "operator": "Gt", "values": ["8"]}, True),
        ({"key": "cores", "operator": "Lt", "values": ["8"]}, False),
        ({"key": "cores", "operator": "Gt", "values": ["eight"]}, False),
    ],
)
def test_affinity_operators(expression, expected):
    assert matches_node_affinity(_affinity({"matchExpressions": [expression]}), GKE_NODE) is expected


def test_terms_are_ored_and_expressions_anded():
    wrong = {"matchExpressions": [{"key": "cloud.google.com/gke-nodepool", "operator": "In", "values": ["monitoring"]}]}
    right = {
        "matchExpressions": [
            {"key": "cores", "operator": "Exists"},
            {"key": "kubernetes.io/os", "operator": "In", "values": ["linux"]},
        ]
    }
    assert matches_node_affinity(_affinity(wrong, right), GKE_NODE)
    assert not matches_node_affinity(_affinity(wrong), GKE_NODE)
    assert not matches_node_affinity(_affinity({}), GKE_NODE)  # an empty term selects nothing
    assert matches_node_affinity({}, GKE_NODE)  # no requirement: any node


@pytest.mark.parametrize(
    ("toleration", "expected"),
    [
        ({"key": "dedicated", "operator": "Equal", "value": "database", "effect": "NoSchedule"}, True),
        ({"key": "dedicated", "value": "database"}, True),  # Equal is the default, empty effect matches all
        ({"key": "dedicated", "operator": "Exists"}, True),
        ({"operator": "Exists"}, True),  # empty key + Exists tolerates everything
        ({"key": "dedicated", "operator": "Equal", "value": "monitoring"}, False),
        ({"key": "dedicated", "operator": "Exists", "effect": "NoExecute"}, False),
    ],
)
def test_tolerations(toleration, expected):
    assert tolerates([toleration], DEDICATED) is expected


def test_prefer_no_schedule_never_blocks_and_no_taints_need_nothing():
    assert tolerates([], [{"key": "a", "value": "b", "effect": "PreferNoSchedule"}])
    assert tolerates(None, [])
    assert not tolerates(None, DEDICATED)


def test_can_schedule_combines_labels_and_taints():
    pinned = {
        "node_selector": {"cloud.google.com/gke-nodepool": "database"},
        "affinity": None,
        "tolerations": [{"key": "dedicated", "operator": "Equal", "value": "database", "effect": "NoSchedule"}],
    }
    assert can_schedule(**pinned, node_labels=GKE_NODE, node_taints=DEDICATED)
    assert not can_schedule(**{**pinned, "tolerations": []}, node_labels=GKE_NODE, node_taints=DEDICATED)
    assert not can_schedule(**pinned, node_labels={"cloud.google.com/gke-nodepool": "monitoring"}, node_taints=[])


# ---- pools: the labels the provider adds, taints in Kubernetes' spelling -----------------------------

DEDICATED_TOLERATION = {"key": "dedicated", "operator": "Equal", "value": "database", "effect": "NoSchedule"}


def test_gke_pool_nodes_carry_the_labels_gke_adds():
    nodes = gke_pool_nodes(
        name="database",
        machine_type="n2-standard-8",
        labels={"team": "data"},
        taints=[{"key": "dedicated", "value": "database", "effect": "NO_SCHEDULE"}],
        location="europe-west1-b",
    )
    # GKE's node-pools page: gke-nodepool = the pool's name; machine family = the machine type's prefix;
    # a zonal pool's nodes are all in its zone, and the zone's region is the zone minus its letter.
    assert nodes.labels == {
        "team": "data",
        "cloud.google.com/gke-nodepool": "database",
        "node.kubernetes.io/instance-type": "n2-standard-8",
        "cloud.google.com/machine-family": "n2",
        "kubernetes.io/os": "linux",
        "kubernetes.io/arch": "amd64",
        "topology.kubernetes.io/zone": "europe-west1-b",
        "topology.kubernetes.io/region": "europe-west1",
    }
    assert nodes.taints == ({"key": "dedicated", "value": "database", "effect": "NoSchedule"},)
    assert nodes.dedicated


def test_gke_regional_and_spot_arm_pools():
    regional = gke_pool_nodes(name="db", machine_type="c4a-standard-8", labels={}, location="europe-west1", spot=True)
    assert "topology.kubernetes.io/zone" not in regional.labels  # nodes in three zones: no one zone
    assert regional.labels["topology.kubernetes.io/region"] == "europe-west1"
    assert regional.labels["kubernetes.io/arch"] == "arm64"  # C4A is Axion (Arm)
    assert regional.labels["cloud.google.com/gke-spot"] == "true"
    two_zones = gke_pool_nodes(
        name="db", machine_type=None, labels={}, location="europe-west1", node_locations=["europe-west1-b", "europe-west1-c"]
    )
    assert "topology.kubernetes.io/zone" not in two_zones.labels
    assert two_zones.labels["topology.kubernetes.io/region"] == "europe-west1"
    assert "cloud.google.com/gke-nodepool" not in gke_pool_nodes(name=None, machine_type=None, labels={}).labels


def test_eks_pool_nodes_carry_the_labels_eks_adds():
    nodes = eks_pool_nodes(
        name="db",
        instance_types=["m6g.2xlarge"],
        labels={},
        taints=[{"key": "dedicated", "value": "database", "effect": "NO_EXECUTE"}],
    )
    assert nodes.labels["eks.amazonaws.com/nodegroup"] == "db"
    assert nodes.labels["eks.amazonaws.com/capacityType"] == "ON_DEMAND"  # the API's default capacity type
    assert nodes.labels["node.kubernetes.io/instance-type"] == "m6g.2xlarge"
    assert nodes.labels["kubernetes.io/arch"] == "arm64"  # Graviton: a "g" after the generation digit
    assert nodes.taints[0]["effect"] == "NoExecute"
    mixed = eks_pool_nodes(name="db", instance_types=["m6i.2xlarge", "m5.2xlarge"], labels={"x": "y"}, capacity_type="SPOT")
    assert "node.kubernetes.io/instance-type" not in mixed.labels and mixed.labels["kubernetes.io/arch"] == "amd64"
    assert mixed.labels["eks.amazonaws.com/capacityType"] == "SPOT" and not mixed.dedicated


def test_own_labels_win_and_effects_are_normalised_or_refused():
    nodes = eks_pool_nodes(
        name="db", instance_types=[], labels={"kubernetes.io/os": "linux", "eks.amazonaws.com/nodegroup": "db"}
    )
    assert nodes.labels["eks.amazonaws.com/nodegroup"] == "db"
    assert kubernetes_effect("PREFER_NO_SCHEDULE") == "PreferNoSchedule" and kubernetes_effect("NoExecute") == "NoExecute"
    assert kubernetes_effect("NO_WAY") is None
    with pytest.raises(ValueError, match="NO_WAY"):
        gke_pool_nodes(name="db", machine_type=None, labels={}, taints=[{"key": "a", "effect": "NO_WAY"}])


def test_kind_config_pools_group_workers_and_taint_the_control_plane():
    taint = [{"key": "dedicated", "value": "database", "effect": "NoSchedule"}]
    pools = kind_config_pools(
        [
            ("control-plane", {}, []),
            ("worker", {"w": "db"}, taint),
            ("worker", {"w": "db"}, taint),
            ("worker", {"w": "tools"}, []),
        ]
    )
    counts = {nodes.labels.get("w", "control-plane"): count for nodes, count in pools}
    assert counts == {"control-plane": 1, "db": 2, "tools": 1}
    control_plane = next(nodes for nodes, _ in pools if "node-role.kubernetes.io/control-plane" in nodes.labels)
    assert control_plane.dedicated  # kubeadm's control-plane taint stays when the cluster has workers
    alone = kind_config_pools([("control-plane", {}, [])])
    assert not alone[0][0].dedicated  # kind removes it from a single-node cluster


# ---- a pod's placement: pinned, required labels, landing ---------------------------------------------


def test_pinned_means_a_pool_label_not_a_node_wide_one():
    assert PodPlacement({"cloud.google.com/gke-nodepool": "database"}).pinned()
    assert PodPlacement({"any-label-of-yours": "db"}).pinned()
    assert not PodPlacement({"kubernetes.io/os": "linux"}).pinned()
    assert not PodPlacement().pinned()
    by_affinity = PodPlacement(
        {}, _affinity({"matchExpressions": [{"key": "eks.amazonaws.com/nodegroup", "operator": "In", "values": ["db"]}]})
    )
    assert by_affinity.pinned()
    # One term pins, the other accepts any node outside a zone: the pod is not pinned.
    loose = PodPlacement(
        {},
        _affinity(
            {"matchExpressions": [{"key": "pool", "operator": "In", "values": ["db"]}]},
            {"matchExpressions": [{"key": "pool", "operator": "NotIn", "values": ["web"]}]},
        ),
    )
    assert not loose.pinned()


def test_requires_reads_selector_and_every_affinity_term():
    labels = {"mysql.percona.com/pool": "database"}
    assert PodPlacement(labels).requires(labels)
    in_every_term = {"matchExpressions": [{"key": "mysql.percona.com/pool", "operator": "In", "values": ["database"]}]}
    assert PodPlacement({}, _affinity(in_every_term, in_every_term)).requires(labels)
    assert not PodPlacement({}, _affinity(in_every_term, {"matchExpressions": [{"key": "x", "operator": "Exists"}]})).requires(
        labels
    )
    assert not PodPlacement({"other": "x"}).requires(labels) and not PodPlacement(labels).requires({})


def test_a_pod_lands_on_a_gke_pool_by_the_label_gke_adds():
    pool = gke_pool_nodes(
        name="database",
        machine_type="n2-standard-8",
        labels={},
        taints=[{"key": "dedicated", "value": "database", "effect": "NO_SCHEDULE"}],
    )
    pod = PodPlacement({"cloud.google.com/gke-nodepool": "database"}, None, (DEDICATED_TOLERATION,))
    assert pod.can_land_on(pool) and pod.tolerates_a_dedicated_taint()
    assert not PodPlacement({"cloud.google.com/gke-nodepool": "database"}).can_land_on(pool)  # the taint repels it
    assert not PodPlacement({"cloud.google.com/gke-nodepool": "monitoring"}, None, (DEDICATED_TOLERATION,)).can_land_on(pool)
    assert PodPlacement({}, None, ({"operator": "Exists"},)).can_land_on(pool)  # a blanket toleration lands anywhere
    assert not PodPlacement(
        {}, None, ({"key": "x", "operator": "Exists", "effect": "PreferNoSchedule"},)
    ).tolerates_a_dedicated_taint()
    spec = pod.as_pod_spec()
    assert spec == {"nodeSelector": {"cloud.google.com/gke-nodepool": "database"}, "tolerations": [DEDICATED_TOLERATION]}
    assert PodPlacement({"a": "b"}).as_pod_spec() == {"nodeSelector": {"a": "b"}}


# ---- the components' placement and the pack's judgement are one reader -------------------------------

_NAMES = st.from_regex(r"[a-z][a-z0-9.-]{0,10}/[a-z][a-z0-9-]{0,10}", fullmatch=True)
_VALUES = st.from_regex(r"[a-z0-9]{1,8}", fullmatch=True)
_EFFECTS = st.sampled_from(["NoSchedule", "PreferNoSchedule", "NoExecute"])


@settings(max_examples=200, deadline=None)
@given(
    labels=st.dictionaries(_NAMES, _VALUES, min_size=1, max_size=3),
    taints=st.lists(st.builds(Taint, _NAMES, _VALUES, _EFFECTS), max_size=3),
    provider=st.sampled_from([("gke", "n2-standard-8"), ("eks", "m6i.2xlarge")]),
)
def test_a_component_pinned_to_a_pool_lands_on_it_and_only_a_tolerating_pod_does(labels, taints, provider):
    # PoolShape.placement() is what the database layer writes into the CRs; PoolShape.nodes() is the pool
    # as the pack reads it: the same reader must say the pod lands there, and that a pod with the same
    # selector but no tolerations lands only when no taint blocks (NoSchedule/NoExecute).
    pool = PoolShape("db", labels, 3, node_budget(provider[1], provider[0]), tuple(taints), provider[1])
    assert pool.placement().can_land_on(pool.nodes())
    untolerating = PodPlacement(pool.placement().node_selector)
    assert untolerating.can_land_on(pool.nodes()) is (not any(t.effect in ("NoSchedule", "NoExecute") for t in taints))
    assert pool.placement().pinned()  # a non-node-wide label of the pool's own


def test_the_tolerations_every_pod_gets_keep_no_pool():
    from percona_mysql_k8s.core.scheduling import NODE_CONDITION_TAINT_KEYS, PodPlacement

    defaults = tuple(
        {"key": key, "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300}
        for key in ("node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable")
    )
    assert {t["key"] for t in defaults} <= NODE_CONDITION_TAINT_KEYS
    assert not PodPlacement({"pool": "db"}, None, defaults).tolerates_a_dedicated_taint()
    assert PodPlacement(
        {"pool": "db"}, None, (*defaults, {"key": "dedicated", "operator": "Exists"})
    ).tolerates_a_dedicated_taint()
    assert PodPlacement({"pool": "db"}, None, ({"operator": "Exists"},)).tolerates_a_dedicated_taint()  # tolerates everything


def test_requires_reads_in_over_one_value_in_every_ored_term():
    from percona_mysql_k8s.core.scheduling import PodPlacement

    def affinity(*terms):
        return {
            "nodeAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {
                    "nodeSelectorTerms": [{"matchExpressions": list(term)} for term in terms]
                }
            }
        }

    db = {"key": "pool", "operator": "In", "values": ["db", "db"]}
    zone = {"key": "topology.kubernetes.io/zone", "operator": "In", "values": ["a", "b"]}
    assert PodPlacement({}, affinity([db, zone])).requires({"pool": "db"})  # ANDed: still only db nodes
    assert not PodPlacement({}, affinity([db], [zone])).requires({"pool": "db"})  # ORed: zone nodes of any pool
    assert not PodPlacement({}, affinity([{"key": "pool", "operator": "In", "values": ["db", "mon"]}])).requires({"pool": "db"})


def test_a_label_whose_value_is_unknown_may_match():
    from percona_mysql_k8s.core.scheduling import NODE_WIDE_LABELS, PodPlacement, PoolNodes

    nodes = PoolNodes("configured", {"pool": "db"}, (), NODE_WIDE_LABELS)
    assert PodPlacement({"pool": "db", "kubernetes.io/arch": "arm64"}).can_land_on(nodes)
    assert not PodPlacement({"pool": "mon", "kubernetes.io/arch": "arm64"}).can_land_on(nodes)
    known = PoolNodes("real", {"pool": "db", "kubernetes.io/arch": "amd64"})
    assert not PodPlacement({"pool": "db", "kubernetes.io/arch": "arm64"}).can_land_on(known)
