"""The rule catalogue: every rule as data, and every threshold with its default.

This is the single definition that the sizing engine, the reports and the policy pack all read; the
page docs/rules.md is generated from it (``python docs/generate.py``). ``Rule.sources`` are keys of
``SOURCES``, public documents. Where a source gives no number, the default below is the project's choice
and is exposed as a policy configuration value (``Threshold.name``) rather than buried in code.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

# The catalogue is split by concern (what a rule is; the sizing rules; the deployment rules); every name stays
# importable from here.
from .rule_model import (
    MAX_APPLIER_TPS_PER_WORKER,
    MAX_BROWNOUT_SECONDS,
    MAX_POOL_NODES,
    MAX_REPLICA_PARALLEL_WORKERS,
    MAX_RETENTION_DAYS,
    MAX_WSREP_APPLIER_THREADS,
    MYSQLD_MAX_CONNECTIONS,
    ORDERED_THRESHOLDS,
    Level,
    Rule,
    Threshold,
    ThresholdError,
)
from .rules_deployment import DEPLOYMENT_RULES
from .rules_sizing import (
    OLTP_READ_WRITE_WRITES_PER_EVENT,
    SEED_002_APPLIER_THREADS,
    SEED_002_EVENTS_PER_SECOND,
    SIZING_RULES,
)

__all__ = [
    "LIVE_ONLY_THRESHOLDS",
    "MAX_APPLIER_TPS_PER_WORKER",
    "MAX_BROWNOUT_SECONDS",
    "MAX_POOL_NODES",
    "MAX_REPLICA_PARALLEL_WORKERS",
    "MAX_RETENTION_DAYS",
    "MAX_WSREP_APPLIER_THREADS",
    "MYSQLD_MAX_CONNECTIONS",
    "OLTP_READ_WRITE_WRITES_PER_EVENT",
    "ORDERED_THRESHOLDS",
    "RULES",
    "SEED_002_APPLIER_THREADS",
    "SEED_002_EVENTS_PER_SECOND",
    "SOURCES",
    "THRESHOLDS",
    "THRESHOLD_RULE",
    "Level",
    "Rule",
    "Threshold",
    "ThresholdError",
    "check_order",
    "default_thresholds",
    "resolve_thresholds",
    "rule",
]

_RULES = (*SIZING_RULES, *DEPLOYMENT_RULES)  # K, M, F, G, then T, B, S, R, C: the catalogue's order

RULES: Mapping
RULES: Mapping[str, Rule] = MappingProxyType({rule.id: rule for rule in _RULES})

THRESHOLDS: Mapping[str, Threshold] = MappingProxyType(
    {threshold.name: threshold for rule in _RULES for threshold in rule.thresholds}
)

# Thresholds only a running cluster can breach: percona-mysql-grade reads them (its --threshold sets them);
# no policy does, as no stack setting decides them.
LIVE_ONLY_THRESHOLDS = frozenset({"max_flow_control_paused_fraction"})

# Which rule owns each threshold: the policy pack names the rule in violation messages.
THRESHOLD_RULE: Mapping[str, str] = MappingProxyType(
    {threshold.name: rule.id for rule in _RULES for threshold in rule.thresholds}
)


# Where the rules come from: the keys of ``Rule.sources``, each one or more public documents.
SOURCES: Mapping[str, tuple[tuple[str, str], ...]] = MappingProxyType(
    {
        "000": (
            (
                "Marco Tusa, The Failover Brownout: Rethinking High Availability in MySQL Group Replication",
                "https://www.tusacentral.net/joomla/index.php/mysql-blogs/266-the-failover-brownout-rethinking-high-availability-in-mysql-group-replication",
            ),
        ),
        "001": (
            (
                "Bin Wang, The Art of Problem-Solving in Software Engineering: How to Make MySQL Better",
                "https://github.com/enhancedformysql/The-Art-of-Problem-Solving-in-Software-Engineering_How-to-Make-MySQL-Better",
            ),
        ),
        "002": (
            (
                "Percona blog, Exploring Kubernetes CPU Resources in View of Percona XtraDB Cluster's Flow Control",
                "https://www.percona.com/blog/exploring-kubernetes-cpu-resources-in-view-of-percona-xtradb-clusters-flow-control/",
            ),
        ),
        "003": (
            (
                "Marco Tusa, Sweet and sour can become bitter (group replication flow control)",
                "https://www.tusacentral.net/joomla/index.php/mysql-blogs/192-sweet-and-sour-can-become-bitter",
            ),
        ),
        "004": (
            (
                "Marco Tusa, Comparisons of Proxies for MySQL",
                "https://www.tusacentral.com/joomla/index.php/mysql-blogs/252-comparisons-of-proxies-for-mysql",
            ),
            (
                "Marco Tusa, A face to face with semi-synchronous replication",
                "https://www.tusacentral.com/joomla/index.php/mysql-blogs/247-a-face-to-face-with-semi-synchronous-replication",
            ),
        ),
        "CRD": (
            (
                "Kubernetes: Extend the Kubernetes API with CustomResourceDefinitions (validation, defaulting, pruning, validation rules)",
                "https://kubernetes.io/docs/tasks/extend-kubernetes/custom-resources/custom-resource-definitions/",
            ),
            (
                "kubernetes/apiextensions-apiserver: the API server's validation of custom resources",
                "https://github.com/kubernetes/apiextensions-apiserver/tree/v0.36.3/pkg/apiserver",
            ),
        ),
        "SCHEDULER": (
            (
                "Kubernetes: Pod Topology Spread Constraints (maxSkew, minDomains, whenUnsatisfiable)",
                "https://kubernetes.io/docs/concepts/scheduling-eviction/topology-spread-constraints/",
            ),
            (
                "kubernetes/kubernetes v1.36.3: kube-scheduler's PodTopologySpread and InterPodAffinity filters",
                "https://github.com/kubernetes/kubernetes/tree/v1.36.3/pkg/scheduler/framework/plugins",
            ),
            (
                "Percona Operator for MySQL based on Percona XtraDB Cluster: binding components to nodes "
                "(antiAffinityTopologyKey, advanced affinity, topologySpreadConstraints)",
                "https://docs.percona.com/percona-operator-for-mysql/pxc/constraints.html",
            ),
        ),
        "VALIDATION": (
            (
                "the PXC operator 1.20.0's validation of a cluster (pkg/apis/pxc/v1/pxc_types.go Validate, CheckNSetDefaults)",
                "https://github.com/percona/percona-xtradb-cluster-operator/blob/b3b0b10a7/pkg/apis/pxc/v1/pxc_types.go",
            ),
            (
                "the PS operator v1.2.0's validation of a cluster (api/v1/perconaservermysql_types.go CheckNSetDefaults)",
                "https://github.com/percona/percona-server-mysql-operator/blob/v1.2.0/api/v1/perconaservermysql_types.go",
            ),
        ),
        "INTERFACES": (
            (
                "Percona Operator for MySQL based on Percona XtraDB Cluster: custom resource options",
                "https://docs.percona.com/percona-operator-for-mysql/pxc/operator.html",
            ),
            (
                "Percona Operator for MySQL based on Percona Server: custom resource options",
                "https://docs.percona.com/percona-operator-for-mysql/ps/operator.html",
            ),
            (
                "the PXC operator's sources (CRDs, defaults, finalizers)",
                "https://github.com/percona/percona-xtradb-cluster-operator",
            ),
            (
                "the PS operator's sources (CRDs, defaults, finalizers)",
                "https://github.com/percona/percona-server-mysql-operator",
            ),
        ),
    }
)


def rule(rule_id: str) -> Rule:
    return RULES[rule_id]


def default_thresholds() -> dict[str, float | int]:
    """Every threshold at its default; sizing and policies start from this and apply overrides."""
    return {name: threshold.default for name, threshold in THRESHOLDS.items()}


def check_order(values: Mapping[str, float | int]) -> None:
    """Raise :class:`ThresholdError` (naming the upper one) when a lower bound exceeds its upper bound."""
    for lower, upper in ORDERED_THRESHOLDS:
        if values[lower] > values[upper]:
            raise ThresholdError(
                upper,
                f"thresholds {lower!r} ({values[lower]!r}) and {upper!r} ({values[upper]!r}) "
                f"contradict each other: the minimum must not exceed the maximum",
            )


def resolve_thresholds(overrides: Mapping[str, object] | None = None) -> dict[str, float | int]:
    """Defaults with ``overrides`` applied; unknown names raise ``KeyError``, values outside a threshold's
    domain (not a number, not finite, out of bounds, a fraction for an integer) and contradicting pairs
    (``ORDERED_THRESHOLDS``) :class:`ThresholdError`."""
    values = default_thresholds()
    for name, value in (overrides or {}).items():
        if name not in THRESHOLDS:
            raise KeyError(f"unknown threshold {name!r}; known: {', '.join(sorted(THRESHOLDS))}")
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ThresholdError(name, f"threshold {name!r} must be a number, got {value!r}")
        threshold = THRESHOLDS[name]
        threshold.check(value)
        values[name] = int(value) if threshold.kind == "integer" else value
    check_order(values)
    return values
