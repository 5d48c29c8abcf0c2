"""10,000 malformed resources thrown at every policy, called directly: 0 crashes, 0 internal errors.

A malformed resource is a hand-written base (database CRs, chart values, workloads, node pools) with
random subtrees replaced by junk of every kind (wrong types, null, unknown-at-preview sentinels, odd
Kubernetes quantities, unreadable my.cnf, templates, huge and non-finite numbers), or an arbitrary
object under any type the pack reads. Every policy must report it, mark it not applicable or note it as
unknown at preview; none may raise, and none may fall back to its internal-error report.
"""

from __future__ import annotations

import copy

from harness import resolve_resource, run_resource, run_stack
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from percona_mysql_k8s.policies._catalog import ALL_POLICIES
from pulumi_policy import ResourceValidationPolicy
from pulumi_policy.proxy import UNKNOWN_NUMBER_VALUE, UNKNOWN_OBJECT_VALUE, UNKNOWN_STRING_VALUE

RESOURCE_POLICIES = [p for p in ALL_POLICIES if isinstance(p, ResourceValidationPolicy)]
STACK_POLICIES = [p for p in ALL_POLICIES if not isinstance(p, ResourceValidationPolicy)]

BASES = [
    resolve_resource({"base": name}) for name in ("pxc", "ps-gr", "sysbench-job", "gke-database-pool", "gke-monitoring-pool")
]
BASES += [
    {
        "type": "kubernetes:helm.sh/v3:Release",
        "name": "pxc",
        "props": {
            "chart": "percona/pxc-db",
            "values": {
                "pxc": {
                    "size": 3,
                    "configuration": "[mysqld]\ninnodb_buffer_pool_size=1G\n",
                    "resources": {"limits": {"memory": "4Gi"}},
                },
                "haproxy": {"exposePrimary": {"type": "LoadBalancer"}},
                "secrets": {"passwords": {"root": "x"}},
                "pmm": {"enabled": True},
            },
        },
    },
    {
        "type": "kubernetes:helm.sh/v4:Chart",
        "name": "pmm",
        "props": {"chart": "pmm", "values": {"image": {"tag": "3.8.1"}, "nodeSelector": {"a": "b"}}},
    },
    {
        "type": "aws:eks/nodeGroup:NodeGroup",
        "name": "db",
        "props": {
            "instanceTypes": ["m6i.4xlarge"],
            "scalingConfig": {"maxSize": 3},
            "labels": {"mysql.percona.com/pool": "database"},
            "taints": [{"key": "k", "effect": "NO_SCHEDULE"}],
        },
    },
    {"type": "kubernetes:core/v1:Service", "name": "svc", "props": {"spec": {"type": "LoadBalancer", "ports": [{"port": 3306}]}}},
]
TYPES = sorted(
    {base["type"] for base in BASES}
    | {
        "kubernetes:core/v1:ConfigMap",
        "kubernetes:apps/v1:DaemonSet",
        "kubernetes:batch/v1:CronJob",
        "eks:index:ManagedNodeGroup",
        "kubernetes:core/v1:Pod",
        "random:index/randomPassword:RandomPassword",
    }
)


def _paths(value, prefix=()):
    yield prefix
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _paths(item, (*prefix, index))


PATHS = [list(_paths(base["props"])) for base in BASES]

odd_text = st.sampled_from(
    [
        UNKNOWN_STRING_VALUE,
        UNKNOWN_NUMBER_VALUE,
        UNKNOWN_OBJECT_VALUE,
        "",
        " ",
        "1.5Gi",
        "1e3",
        "600m",
        "-1Gi",
        "12Ei",
        "1Gi1",
        "0x10",
        "NaN",
        "inf",
        "lots",
        "3",
        "3.5",
        "QUOTA",
        "DISABLED",
        "LoadBalancer",
        "0.0.0.0/0",
        "[mysqld]\ninnodb_buffer_pool_size={{containerMemoryLimit * 3 / 4}}\n",
        "[mysqld\n=",
        "innodb_buffer_pool_size=99999999999999999999999G\nmax_connections=-5\n",
        'wsrep_provider_options="gcs.fc_limit=1e400; gcs.fc_factor=-0"\n',
        "{{containerMemoryLimit / 0}}",
        "{{__import__('os')}}",
        "group_replication_message_cache_size=abc\n",
        "sysbench oltp_write_only --mysql-host=x-haproxy-replicas run",
        "percona/pmm-client:2.1.0",
        "percona/pmm-client:latest",
        "percona/percona-server:9.9",
        "registry:5000/img",
    ]
)
junk = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(min_value=-(2**70), max_value=2**70),
        st.floats(allow_nan=True, allow_infinity=True),
        st.text(max_size=30),
        odd_text,
    ),
    lambda children: st.one_of(
        st.lists(children, max_size=4), st.dictionaries(st.one_of(st.text(max_size=12), odd_text), children, max_size=4)
    ),
    max_leaves=12,
)


def _replace(props, path, value):
    if not path:
        return value if isinstance(value, dict) else props
    target = props
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return props


@st.composite
def malformed(draw):
    if draw(st.integers(0, 9)) == 0:
        return draw(st.sampled_from(TYPES)), draw(st.dictionaries(st.text(max_size=10), junk, max_size=5))
    index = draw(st.integers(0, len(BASES) - 1))
    props = copy.deepcopy(BASES[index]["props"])
    for _ in range(draw(st.integers(1, 4))):
        paths = list(_paths(props))
        path = draw(st.sampled_from(paths))
        props = _replace(props, path, draw(junk))
    return BASES[index]["type"], props


def _assert_clean(outcome):
    for message in outcome.messages:
        assert "could not evaluate" not in message, message
        assert message[:1].isalpha() and ":" in message[:8], message


@settings(max_examples=10_000, deadline=None, suppress_health_check=list(HealthCheck))
@given(malformed())
def test_no_policy_crashes_on_malformed_resources(resource):
    resource_type, props = resource
    for policy in RESOURCE_POLICIES:
        _assert_clean(run_resource(policy, resource_type, props))  # raises on any exception the SDK would not handle


@settings(max_examples=500, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(malformed(), min_size=1, max_size=6))
def test_no_stack_policy_crashes_on_malformed_stacks(resources):
    stack = [{"type": resource_type, "name": f"r{i}", "props": props} for i, (resource_type, props) in enumerate(resources)]
    for policy in STACK_POLICIES:
        _assert_clean(run_stack(policy, stack))
