"""core.qos: a pod's QoS class as kubernetes v1.36.3 computes it (pkg/apis/core/helper/qos/qos.go ComputePodQOS, after
pkg/apis/core/v1/defaults.go SetDefaults_Pod). Each expectation is worked out from those two functions; the operator
tier checks the same function against the API server's own ``status.qosClass`` (tests/operators)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from percona_mysql_k8s.core.qos import BEST_EFFORT, BURSTABLE, GUARANTEED, ContainerAmounts, pod_qos_class

EXACT = ContainerAmounts(500, 500, 2**30, 2**30)
LIMITS_ONLY = ContainerAmounts(None, 50, None, 50_000_000)  # the PXC operator's init-container default


def test_request_equal_to_limit_everywhere_is_guaranteed():
    assert pod_qos_class([EXACT, EXACT]) == GUARANTEED


def test_limits_alone_are_defaulted_into_requests():
    # SetDefaults_Pod copies each limit into the missing request, so limits alone make a Guaranteed pod
    assert pod_qos_class([EXACT, LIMITS_ONLY]) == GUARANTEED


def test_requests_alone_are_burstable():
    assert pod_qos_class([EXACT, ContainerAmounts(100, None, 64 * 2**20, None)]) == BURSTABLE


def test_a_container_without_a_cpu_limit_makes_it_burstable():
    assert pod_qos_class([EXACT, ContainerAmounts(100, None, 2**20, 2**20)]) == BURSTABLE


def test_a_container_without_resources_makes_it_burstable_but_not_best_effort():
    assert pod_qos_class([EXACT, ContainerAmounts()]) == BURSTABLE


def test_no_resources_anywhere_is_best_effort():
    assert pod_qos_class([ContainerAmounts(), ContainerAmounts()]) == BEST_EFFORT


def test_init_containers_count_like_containers():
    assert pod_qos_class([EXACT, ContainerAmounts(100, None, None, None)]) == BURSTABLE


def test_zero_amounts_are_ignored():
    # qos.go counts only quantities above zero: a zero request is no request (and a zero limit no limit)
    assert pod_qos_class([ContainerAmounts(0, 0, 0, 0)]) == BEST_EFFORT
    assert pod_qos_class([EXACT, ContainerAmounts(0, 100, 0, 2**20)]) == BURSTABLE  # requests 0 -> not defaulted


def test_the_comparison_is_of_sums_not_of_each_container():
    # ComputePodQOS sums requests and limits over all containers and compares the sums: a request above its limit
    # in one container can be balanced by another (the API server refuses request > limit, so this never runs)
    assert pod_qos_class([ContainerAmounts(600, 400, 100, 100), ContainerAmounts(400, 600, 100, 100)]) == GUARANTEED


AMOUNT = st.one_of(st.none(), st.integers(min_value=0, max_value=10**12))


@given(st.lists(st.builds(ContainerAmounts, AMOUNT, AMOUNT, AMOUNT, AMOUNT), min_size=1, max_size=6))
def test_guaranteed_needs_every_limit_and_best_effort_none_at_all(containers):
    qos = pod_qos_class(containers)
    if qos == GUARANTEED:
        assert all(c.cpu_limit and c.memory_limit for c in containers)
    if qos == BEST_EFFORT:
        assert not any(c.cpu_request or c.cpu_limit or c.memory_request or c.memory_limit for c in containers)
    if all(
        c.cpu_limit and c.memory_limit and c.cpu_request in (None, c.cpu_limit) and c.memory_request in (None, c.memory_limit)
        for c in containers
    ):
        assert qos == GUARANTEED
