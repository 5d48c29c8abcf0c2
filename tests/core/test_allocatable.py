"""The K1 allocatable model: GKE and EKS reserve ladders, the seed's worked example, kind shares."""

from __future__ import annotations

import math
from fractions import Fraction
from itertools import groupby, pairwise

import pytest
from hypothesis import given
from hypothesis import strategies as st
from percona_mysql_k8s.core.allocatable import (
    DEFAULT_MAX_PODS,
    EVICTION_MEMORY_BYTES,
    GKE_CPU_RESERVE_LADDER,
    GKE_MEMORY_RESERVE_LADDER,
    Allocatable,
    NodeBudget,
    kind_node_budget,
    ladder_reserve,
    node_budget,
)
from percona_mysql_k8s.core.errors import InputError
from percona_mysql_k8s.core.machines import MachineType, catalog

MIB = 2**20
GIB = 2**30


def gib(value: str) -> int:
    """A decimal GiB amount as bytes, rounded up like the model rounds reserves."""
    return math.ceil(Fraction(value) * GIB)


# ---- GKE ladders, values derived by hand ----


@pytest.mark.parametrize(
    ("machine", "reserve_bytes"),
    [
        # 8 GiB: 25% × 4 + 20% × 4 = 1 + 0.8 = 1.8 GiB
        ("n2-standard-2", gib("1.8")),
        # 16 GiB: 1 + 0.8 + 10% × 8 = 2.6 GiB
        ("n2-highmem-2", gib("2.6")),
        # 64 GiB: 1 + 0.8 + 0.8 + 6% × 48 = 1 + 0.8 + 0.8 + 2.88 = 5.48 GiB
        ("n2-standard-16", gib("5.48")),
        # 256 GiB: 2.6 + 6% × 112 + 2% × 128 = 2.6 + 6.72 + 2.56 = 11.88 GiB
        ("n2-highmem-32", gib("11.88")),
        # 512 GiB: 2.6 + 6.72 + 2% × 384 = 2.6 + 6.72 + 7.68 = 17 GiB exactly
        ("n2-highmem-64", 17 * GIB),
    ],
)
def test_gke_memory_reserve(machine, reserve_bytes):
    budget = node_budget(machine, "gke")
    assert budget.reserved_memory_bytes == reserve_bytes
    assert budget.eviction_memory_bytes == 100 * MIB


@pytest.mark.parametrize(
    ("machine", "reserve_millicores"),
    [
        ("n2-standard-2", 60 + 10),  # 6% of 1000m + 1% of 1000m
        ("n2-standard-4", 60 + 10 + 10),  # + 0.5% of 2000m
        ("n2-standard-16", 60 + 10 + 10 + 30),  # + 0.25% of 12000m = 110m
        ("c3-standard-22", 80 + 45),  # 0.25% of 18000m = 45m
        ("n2-standard-64", 80 + 150),  # 0.25% of 60000m = 150m
    ],
)
def test_gke_cpu_reserve(machine, reserve_millicores):
    assert node_budget(machine, "gke").reserved_cpu_millicores == reserve_millicores


def test_gke_max_pods_is_110():
    budget = node_budget("e2-standard-8", "gke")
    assert budget.max_pods == DEFAULT_MAX_PODS == 110
    assert any("110" in note for note in budget.notes)


def test_reserve_rounds_up():
    # The 8 GiB reserve, 1.8 GiB, is not a whole number of bytes (1.8 × 2**30 = 1932735283.2): rounded up.
    assert ladder_reserve(8 * GIB, GKE_MEMORY_RESERVE_LADDER) == 1932735284
    # 1 millicore × 6% = 0.06m: a reserve is never rounded to nothing.
    assert ladder_reserve(1, GKE_CPU_RESERVE_LADDER) == 1
    assert ladder_reserve(0, GKE_CPU_RESERVE_LADDER) == 0


# ---- The seed's worked example (seed 000, "Step 1: Discover Your Actual Resources") ----


def test_seed_example_with_daemonset_requests():
    # n2-standard-16 = 16 vCPU / 64 GiB; DaemonSet requests 702m / 645Mi.
    budget = node_budget("n2-standard-16", "gke", 702, 645 * MIB)
    # CPU: 16000 - 110 reserved = 15890m allocatable; - 702 = 15188m ≈ 15.2 CPU before the margin;
    # the margin is 2% of 15890 = 317.8 -> 318m, so 14870m are usable.
    assert budget.allocatable_cpu_millicores == 15890
    assert budget.margin_cpu_millicores == 318
    assert budget.usable_cpu_millicores == 15188 - 318
    assert 14000 <= budget.usable_cpu_millicores <= 16000
    # Memory: 64 GiB - 5.48 GiB reserved - 100 MiB eviction - 645 MiB DaemonSets
    #       = 65536 - 5611.52 - 100 - 645 MiB = 59179.48 MiB ≈ 57.79 GiB, the seed's "~58 GB";
    # the margin is 2% of the allocatable (65536 - 5611.52 - 100 = 59824.48 MiB), rounded up.
    allocatable = 64 * GIB - gib("5.48") - 100 * MIB
    assert budget.margin_memory_bytes == -(-allocatable * 2 // 100)
    assert budget.usable_memory_bytes == allocatable - 645 * MIB - budget.margin_memory_bytes
    assert round((budget.usable_memory_bytes + budget.margin_memory_bytes) / GIB) == 58


def test_seed_example_with_daemonset_limits():
    # Same node with the DaemonSet *limits* 1200m / 1994Mi, where the seed's "~14 CPU" comes from:
    # CPU 15890 - 1200 = 14690m ≈ 14.7 CPU; memory 65536 - 5611.52 - 100 - 1994 = 57830.48 MiB ≈ 56.5 GiB,
    # each less the same margin as above (it depends on the allocatable only).
    budget = node_budget("n2-standard-16", "gke", 1200, 1994 * MIB)
    assert budget.usable_cpu_millicores == 14690 - 318
    assert 14000 <= budget.usable_cpu_millicores < 15000
    assert budget.usable_memory_bytes == 64 * GIB - gib("5.48") - (100 + 1994) * MIB - budget.margin_memory_bytes


def test_terms_print_the_whole_subtraction():
    budget = node_budget("n2-standard-16", "gke", 702, 645 * MIB)
    rows = {label: (cpu, memory) for label, cpu, memory in budget.terms()}
    assert rows["capacity"] == (16000, 64 * GIB)
    assert rows["= allocatable"] == (budget.allocatable_cpu_millicores, budget.allocatable_memory_bytes)
    assert rows["- scheduling margin"] == (318, budget.margin_memory_bytes)
    assert rows["= usable"] == (15188 - 318, budget.usable_memory_bytes)
    assert budget.usable == Allocatable(15188 - 318, budget.usable_memory_bytes, 110, budget.notes)
    assert budget.allocatable.cpu_millicores == 15890


# ---- EKS ----


def test_eks_m6i_4xlarge():
    budget = node_budget("m6i.4xlarge", "eks")
    # 8 ENIs × (30 IPv4 - 1) + 2 = 234 pods; memory reserve 255 + 11 × 234 = 255 + 2574 = 2829 MiB.
    assert budget.max_pods == 8 * 29 + 2 == 234
    assert budget.reserved_memory_bytes == (255 + 11 * 234) * MIB == 2829 * MIB
    assert budget.reserved_cpu_millicores == 110  # the GKE CPU ladder, 16 cores
    assert budget.eviction_memory_bytes == 100 * MIB
    # 65536 - 2829 - 100 = 62607 MiB allocatable
    assert budget.allocatable_memory_bytes == 62607 * MIB
    assert any("234" in note for note in budget.notes)


def test_eks_small_and_large_sizes():
    # c5.large: 3 × (10 - 1) + 2 = 29 pods; m5.16xlarge: 15 × (50 - 1) + 2 = 737 pods.
    assert node_budget("c5.large", "eks").max_pods == 29
    assert node_budget("m5.16xlarge", "eks").max_pods == 737


def test_eks_unknown_eni_limits_assume_110_with_a_note():
    custom = MachineType("m6i.metal-custom", "eks", "m6i", 16, 64 * GIB)
    budget = node_budget(custom, "eks")
    assert budget.max_pods == 110
    # 255 + 11 × 110 = 255 + 1210 = 1465 MiB
    assert budget.reserved_memory_bytes == 1465 * MIB
    note, _margin_note = budget.notes
    assert "110" in note and "assumed" in note and "unknown" in note and "ENI" in note


# ---- Input errors ----


@pytest.mark.parametrize(("machine", "provider"), [("n2-standard-16", "eks"), ("m6i.4xlarge", "gke"), ("n2-standard-16", "aks")])
def test_provider_mismatch(machine, provider):
    with pytest.raises(InputError) as caught:
        node_budget(machine, provider)
    assert (caught.value.key, caught.value.rule) == ("provider", "K1")


def test_unknown_machine_is_a_node_type_error():
    with pytest.raises(InputError) as caught:
        node_budget("n2-standard-15", "gke")
    assert caught.value.key == "node_type"


@pytest.mark.parametrize(
    ("cpu", "memory", "key"),
    [
        (-1, 0, "daemonset_cpu"),
        (0, -1, "daemonset_memory"),
        (15891, 0, "daemonset_cpu"),  # n2-standard-16 allocatable CPU is 15890m
        (0, 64 * GIB, "daemonset_memory"),
        (1.5, 0, "daemonset_cpu"),
    ],
)
def test_bad_daemonset_overhead(cpu, memory, key):
    with pytest.raises(InputError) as caught:
        node_budget("n2-standard-16", "gke", cpu, memory)
    assert (caught.value.key, caught.value.rule) == (key, "K1")


def test_daemonsets_may_take_exactly_the_allocatable():
    assert node_budget("n2-standard-16", "gke", 15890, 0).usable_cpu_millicores == 0


# ---- Provider DaemonSet defaults and the scheduling margin (K1, K5; issue: the pod must schedule) ----


@pytest.mark.parametrize(
    ("machine", "provider", "cpu", "memory"),
    [
        ("n2-standard-16", "gke", 702, 645 * MIB),  # seed 000's worked node: 702m / 645Mi requested
        ("m6i.4xlarge", "eks", 200, 256 * MIB),  # aws-node + kube-proxy + ebs-csi-node, measured 170-195m / 250Mi
    ],
)
def test_unset_daemonsets_take_the_provider_default(machine, provider, cpu, memory):
    budget = node_budget(machine, provider)
    assert (budget.daemonset_cpu_millicores, budget.daemonset_memory_bytes) == (cpu, memory)
    # usable = allocatable - DaemonSets - margin, the margin 2% of allocatable (at least 100m / 128 MiB)
    margin_cpu = max(100, -(-budget.allocatable_cpu_millicores * 2 // 100))
    margin_memory = max(128 * MIB, -(-budget.allocatable_memory_bytes * 2 // 100))
    assert budget.usable_cpu_millicores == budget.allocatable_cpu_millicores - cpu - margin_cpu
    assert budget.usable_memory_bytes == budget.allocatable_memory_bytes - memory - margin_memory
    assert any("scheduling margin" in note for note in budget.notes)


def test_zero_daemonsets_are_taken_at_their_word_but_the_margin_stays():
    budget = node_budget("n2-standard-16", "gke", 0, 0)
    assert (budget.daemonset_cpu_millicores, budget.daemonset_memory_bytes) == (0, 0)
    assert budget.usable_cpu_millicores == 15890 - 318


def test_small_node_margin_has_its_floor():
    # e2-standard-2: 2000m - (60 + 10) reserved = 1930m; 2% = 38.6m < 100m, so the 100m floor applies.
    budget = node_budget("e2-standard-2", "gke")
    assert budget.allocatable_cpu_millicores == 1930
    assert budget.margin_cpu_millicores == 100


def test_kind_default_is_kindnet_without_margin():
    budget = kind_node_budget(8000, 32 * GIB, 0.5)
    assert (budget.daemonset_cpu_millicores, budget.daemonset_memory_bytes) == (100, 50 * MIB)
    assert (budget.margin_cpu_millicores, budget.margin_memory_bytes) == (0, 0)


# ---- kind ----


def test_kind_half_host():
    budget = kind_node_budget(8000, 32 * GIB, 0.5, 300, 200 * MIB)
    assert (budget.capacity_cpu_millicores, budget.capacity_memory_bytes) == (4000, 16 * GIB)
    assert (budget.reserved_cpu_millicores, budget.reserved_memory_bytes) == (0, 0)
    assert budget.eviction_memory_bytes == EVICTION_MEMORY_BYTES == 100 * MIB
    assert budget.max_pods == 110
    assert budget.usable_cpu_millicores == 3700
    assert budget.usable_memory_bytes == 16 * GIB - 300 * MIB  # 100 MiB eviction + 200 MiB DaemonSets
    assert budget.machine is None and budget.provider == "kind"


@pytest.mark.parametrize("share", [0, -0.1, 1.5, float("nan"), float("inf"), True, "0.5", None, 1e-12])
def test_kind_bad_share(share):
    with pytest.raises(InputError) as caught:
        kind_node_budget(8000, 32 * GIB, share)
    assert (caught.value.key, caught.value.rule) == ("kind.hostShare", "K1")


def test_kind_whole_host_is_allowed():
    assert kind_node_budget(8000, 32 * GIB, 1).capacity_cpu_millicores == 8000


# ---- Properties over the whole catalog ----


def _provider_budgets():
    return st.sampled_from(catalog()).map(lambda machine: node_budget(machine, machine.provider))


def _assert_sane(budget: NodeBudget):
    values = (
        budget.capacity_cpu_millicores,
        budget.capacity_memory_bytes,
        budget.reserved_cpu_millicores,
        budget.reserved_memory_bytes,
        budget.eviction_memory_bytes,
        budget.daemonset_cpu_millicores,
        budget.daemonset_memory_bytes,
        budget.max_pods,
        budget.usable_cpu_millicores,
        budget.usable_memory_bytes,
    )
    assert all(isinstance(value, int) and value >= 0 for value in values)
    assert 0 <= budget.usable_cpu_millicores <= budget.allocatable_cpu_millicores <= budget.capacity_cpu_millicores
    assert 0 <= budget.usable_memory_bytes <= budget.allocatable_memory_bytes <= budget.capacity_memory_bytes


@given(bare=_provider_budgets(), data=st.data())
def test_usable_le_allocatable_le_capacity(bare: NodeBudget, data):
    cpu = data.draw(st.integers(0, bare.allocatable_cpu_millicores), label="daemonset_cpu")
    memory = data.draw(st.integers(0, bare.allocatable_memory_bytes), label="daemonset_memory")
    budget = node_budget(bare.machine, bare.provider, cpu, memory)
    _assert_sane(budget)
    # the margin depends on the allocatable only, so it is the bare node's
    assert budget.usable_cpu_millicores == max(0, bare.allocatable_cpu_millicores - cpu - bare.margin_cpu_millicores)
    assert budget.usable_memory_bytes == max(0, bare.allocatable_memory_bytes - memory - bare.margin_memory_bytes)


@given(bare=_provider_budgets(), excess=st.integers(1, 10**12))
def test_overhead_above_allocatable_is_refused(bare: NodeBudget, excess: int):
    with pytest.raises(InputError) as caught:
        node_budget(bare.machine, bare.provider, 0, bare.allocatable_memory_bytes + excess)
    assert caught.value.key == "daemonset_memory"


def test_reserves_monotone_within_each_family():
    for _, machines in groupby(catalog(), key=lambda machine: machine.family):
        budgets = [node_budget(machine, machine.provider) for machine in machines]
        for smaller, larger in pairwise(budgets):
            assert smaller.capacity_cpu_millicores < larger.capacity_cpu_millicores
            assert smaller.reserved_cpu_millicores <= larger.reserved_cpu_millicores
            assert smaller.reserved_memory_bytes <= larger.reserved_memory_bytes
            assert smaller.max_pods <= larger.max_pods


@given(a=st.integers(0, 2**42), b=st.integers(0, 2**42))
def test_ladders_monotone_and_below_amount(a: int, b: int):
    low, high = sorted((a, b))
    for ladder in (GKE_MEMORY_RESERVE_LADDER, GKE_CPU_RESERVE_LADDER):
        assert 0 <= ladder_reserve(low, ladder) <= ladder_reserve(high, ladder)
        assert ladder_reserve(high, ladder) <= high


@given(
    host_cpu=st.integers(2000, 128_000),
    host_memory=st.integers(4 * GIB, 512 * GIB),
    shares=st.tuples(st.floats(0.05, 1.0), st.floats(0.05, 1.0)),
)
def test_kind_share_monotone(host_cpu: int, host_memory: int, shares):
    low, high = sorted(shares)
    # no DaemonSets: the property is about the share (kindnet's default is tested above)
    small = kind_node_budget(host_cpu, host_memory, low, 0, 0)
    large = kind_node_budget(host_cpu, host_memory, high, 0, 0)
    _assert_sane(small)
    _assert_sane(large)
    assert small.usable_cpu_millicores <= large.usable_cpu_millicores <= host_cpu
    assert small.usable_memory_bytes <= large.usable_memory_bytes <= host_memory
