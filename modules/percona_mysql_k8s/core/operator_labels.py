"""The labels the Percona operators put on a cluster's pods (and select their StatefulSets by).

Read once here, for the NetworkPolicies the stacks create and for the R6 policy that looks for them:

* PXC operator 1.16+ ``pkg/naming/labels.go``: ``LabelsCluster`` (name ``percona-xtradb-cluster``,
  instance = the CR's name, managed-by ``percona-xtradb-cluster-operator``, part-of
  ``percona-xtradb-cluster``) + ``app.kubernetes.io/component`` ``pxc`` | ``haproxy`` | ``proxysql``.
* PS operator v1.2.0 ``pkg/naming/kubernetes.go`` ``Labels(name, cr.Name, "percona-server", component)``
  with managed-by ``percona-server-mysql-operator``; name ``mysql`` | ``haproxy`` | ``router`` (the
  packages' ``AppName``), component ``database`` | ``proxy``.
"""

from __future__ import annotations

PXC_OPERATOR, PS_OPERATOR = "pxc", "ps"  # the operator families (PXC CRs; PerconaServerMySQL CRs)


def pxc_cluster_labels(cluster: str) -> dict[str, str]:
    return {
        "app.kubernetes.io/name": "percona-xtradb-cluster",
        "app.kubernetes.io/instance": cluster,
        "app.kubernetes.io/managed-by": "percona-xtradb-cluster-operator",
        "app.kubernetes.io/part-of": "percona-xtradb-cluster",
    }


def ps_labels(cluster: str, name: str, component: str) -> dict[str, str]:
    return {
        "app.kubernetes.io/name": name,
        "app.kubernetes.io/instance": cluster,
        "app.kubernetes.io/managed-by": "percona-server-mysql-operator",
        "app.kubernetes.io/part-of": "percona-server",
        "app.kubernetes.io/component": component,
    }


def mysqld_pod_labels(operator: str, cluster: str) -> dict[str, str]:
    """A database (mysqld) pod of ``cluster``."""
    if operator == PXC_OPERATOR:
        return {**pxc_cluster_labels(cluster), "app.kubernetes.io/component": "pxc"}
    return ps_labels(cluster, "mysql", "database")


def proxy_pod_labels(operator: str, cluster: str, proxy: str) -> dict[str, str]:
    """A proxy pod: ``proxy`` is haproxy, proxysql (PXC) or haproxy, router (PS)."""
    if operator == PXC_OPERATOR:
        return {**pxc_cluster_labels(cluster), "app.kubernetes.io/component": proxy}
    return ps_labels(cluster, proxy, "proxy")


def selector_matches(selector: object, labels: dict[str, str]) -> bool:
    """A Kubernetes LabelSelector (``matchLabels`` AND every ``matchExpressions`` item) against a pod's
    labels, as apimachinery's ``LabelSelectorAsSelector`` reads it; an empty selector selects every pod.
    A malformed selector selects nothing (the API server would reject it)."""
    if selector is None:
        return True
    if not isinstance(selector, dict):
        return False
    match_labels = selector.get("matchLabels") or {}
    expressions = selector.get("matchExpressions") or []
    if not isinstance(match_labels, dict) or not isinstance(expressions, list):
        return False
    if any(labels.get(key) != value for key, value in match_labels.items()):
        return False
    for expression in expressions:
        if not isinstance(expression, dict):
            return False
        key, operator, values = expression.get("key"), expression.get("operator"), expression.get("values") or []
        if operator == "In":
            ok = key in labels and labels[key] in values
        elif operator == "NotIn":
            ok = key not in labels or labels[key] not in values
        elif operator == "Exists":
            ok = key in labels
        elif operator == "DoesNotExist":
            ok = key not in labels
        else:
            return False
        if not ok:
            return False
    return True
