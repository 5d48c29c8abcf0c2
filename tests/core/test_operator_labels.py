"""The operators' pod labels and LabelSelector matching (core.operator_labels)."""

from __future__ import annotations

import pytest
from percona_mysql_k8s.core.operator_labels import mysqld_pod_labels, proxy_pod_labels, selector_matches

POD = {"app.kubernetes.io/instance": "shop", "app.kubernetes.io/component": "pxc", "tier": "db"}


@pytest.mark.parametrize(
    ("selector", "expected"),
    [
        (None, True),
        ({}, True),  # an empty selector selects every pod
        ({"matchLabels": {"tier": "db"}}, True),
        ({"matchLabels": {"tier": "web"}}, False),
        ({"matchExpressions": [{"key": "tier", "operator": "In", "values": ["db", "cache"]}]}, True),
        ({"matchExpressions": [{"key": "zone", "operator": "NotIn", "values": ["a"]}]}, True),  # absent key: NotIn holds
        ({"matchExpressions": [{"key": "tier", "operator": "NotIn", "values": ["db"]}]}, False),
        ({"matchExpressions": [{"key": "tier", "operator": "Exists"}]}, True),
        ({"matchExpressions": [{"key": "tier", "operator": "DoesNotExist"}]}, False),
        # matchLabels AND matchExpressions
        ({"matchLabels": {"tier": "db"}, "matchExpressions": [{"key": "zone", "operator": "Exists"}]}, False),
        ({"matchExpressions": [{"key": "tier", "operator": "Gt", "values": ["1"]}]}, False),  # not a LabelSelector operator
        ("tier=db", False),  # a string selector is not the API's object form
    ],
)
def test_selector_matches_as_apimachinery_reads_it(selector, expected):
    assert selector_matches(selector, POD) is expected


def test_pod_labels_of_both_operators():
    # PXC: LabelsCluster + component; PS: Labels(name, cr.Name, "percona-server", component)
    assert mysqld_pod_labels("pxc", "shop")["app.kubernetes.io/component"] == "pxc"
    assert proxy_pod_labels("pxc", "shop", "proxysql")["app.kubernetes.io/component"] == "proxysql"
    ps = mysqld_pod_labels("ps", "orders")
    assert (ps["app.kubernetes.io/name"], ps["app.kubernetes.io/component"]) == ("mysql", "database")
    router = proxy_pod_labels("ps", "orders", "router")
    assert (router["app.kubernetes.io/name"], router["app.kubernetes.io/component"]) == ("router", "proxy")
    assert {mysqld_pod_labels(op, "x")["app.kubernetes.io/instance"] for op in ("pxc", "ps")} == {"x"}
