"""Placement as kube-scheduler decides it (K4, K5, B1): each case follows the Kubernetes docs' rule."""

import pytest
from percona_mysql_k8s.core.scheduling import (
    can_schedule,
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
    right = {"matchExpressions": [{"key": "cores", "operator": "Exists"},
                                  {"key": "kubernetes.io/os", "operator": "In", "values": ["linux"]}]}
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
    pinned = {"node_selector": {"cloud.google.com/gke-nodepool": "database"}, "affinity": None,
              "tolerations": [{"key": "dedicated", "operator": "Equal", "value": "database", "effect": "NoSchedule"}]}
    assert can_schedule(**pinned, node_labels=GKE_NODE, node_taints=DEDICATED)
    assert not can_schedule(**{**pinned, "tolerations": []}, node_labels=GKE_NODE, node_taints=DEDICATED)
    assert not can_schedule(**pinned, node_labels={"cloud.google.com/gke-nodepool": "monitoring"}, node_taints=[])
