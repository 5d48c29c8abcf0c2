"""sysbench sizing (B2-B4) and the monitoring pool plan (K5)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from percona_mysql_k8s.core import benchmark, monitoring
from percona_mysql_k8s.core.allocatable import kind_node_budget, node_budget
from percona_mysql_k8s.core.errors import InputError
from percona_mysql_k8s.core.profiles import PROFILES
from percona_mysql_k8s.core.units import GIB


@pytest.mark.parametrize("load", list(PROFILES))
def test_data_size_follows_the_profile_against_the_buffer_pool(load):
    pool = 20 * GIB
    data = benchmark.dataset(pool, load)
    ratio = PROFILES[load].data_to_buffer_pool_ratio
    assert data.data_bytes == pytest.approx(pool * ratio, rel=0.01)
    assert data.bound == ("cpu" if ratio <= 1 else "io")
    assert benchmark.MIN_TABLES <= data.tables <= benchmark.MAX_TABLES


def test_tiny_buffer_pools_still_get_a_usable_table():
    data = benchmark.dataset(64 * 2**20, "read-heavy")
    assert data.tables == 16 and data.table_size >= benchmark.MIN_TABLE_SIZE


def test_big_data_sets_spread_over_more_tables():
    assert benchmark.dataset(40 * GIB, "write-heavy").tables == 60


@pytest.mark.parametrize(
    "threads,duration,warmup,rate,key",
    [
        ([], 60, 0, 0, "sysbenchThreads"),
        ([4, 1], 60, 0, 0, "sysbenchThreads"),
        ([1, 1], 60, 0, 0, "sysbenchThreads"),
        ([0, 2], 60, 0, 0, "sysbenchThreads"),
        ([1, 99999], 60, 0, 0, "sysbenchThreads"),
        ("1,2", 60, 0, 0, "sysbenchThreads"),
        ([1], 0, 0, 0, "sysbenchDuration"),
        ([1], 60, -1, 0, "B2: sysbenchWarmup"),
        ([1], 60, 0, -5, "sysbenchRate"),
    ],
)
def test_bad_ladders_name_their_key(threads, duration, warmup, rate, key):
    with pytest.raises(InputError, match=key):
        benchmark.ladder(threads, duration, warmup, rate)


def test_ladder_must_fit_max_connections():
    with pytest.raises(InputError, match="B3: sysbenchThreads.*max_connections=200"):
        benchmark.plan(
            buffer_pool_bytes=GIB,
            load="light-oltp",
            max_connections=200,
            volume_bytes=100 * GIB,
            threads=[1, 16, 256],
            duration_seconds=60,
            warmup_seconds=10,
        )


def test_data_and_its_binary_logs_must_fit_the_volume():
    # R7: prepare leaves as much binary log as it writes data; the write-heavy data set of a 40 GiB pool outgrows half of 100 GiB
    assert benchmark.data_volume_needed(120 * GIB) == 240 * GIB
    assert benchmark.data_volume_needed(0) == 0
    with pytest.raises(InputError, match="R7: storageSize.*at least"):
        benchmark.plan(
            buffer_pool_bytes=40 * GIB,
            load="write-heavy",
            max_connections=5000,
            volume_bytes=100 * GIB,
            threads=[1, 16],
            duration_seconds=60,
            warmup_seconds=10,
        )


def test_timeouts_cover_the_whole_phase():
    plan = benchmark.plan(
        buffer_pool_bytes=8 * GIB,
        load="light-oltp",
        max_connections=2000,
        volume_bytes=100 * GIB,
        threads=[1, 4, 16, 64],
        duration_seconds=600,
        warmup_seconds=300,
    )
    assert benchmark.timeout_seconds(plan, "ladder") > 4 * 600
    assert benchmark.timeout_seconds(plan, "warmup") > 300
    assert plan.ladder.warmup_threads == 16
    with pytest.raises(ValueError):
        benchmark.timeout_seconds(plan, "other")


def test_monitoring_plan_fits_one_node():
    node = node_budget("n2-standard-8", "gke")
    plan = monitoring.plan(node, operator=True, pmm_server=True, sysbench=True)
    assert plan.total.cpu_millicores <= node.usable_cpu_millicores
    assert plan.total.memory_bytes <= node.usable_memory_bytes
    assert plan.pmm_server.cpu_millicores >= monitoring.PMM_SERVER_MIN.cpu_millicores
    assert plan.sysbench.memory_bytes <= monitoring.SYSBENCH_MEMORY_MAX


def test_monitoring_plan_without_optional_parts():
    node = node_budget("n2-standard-8", "gke")
    plan = monitoring.plan(node, operator=False, pmm_server=False, sysbench=False)
    assert plan.operator is plan.pmm_server is plan.sysbench is None


def test_too_small_monitoring_node_is_refused_naming_the_setting_to_change():
    # a kind node is a share of the machine: the share is what to change
    node = kind_node_budget(4000, 8 * GIB, 0.1)
    with pytest.raises(InputError, match="K5: kindHostShare: .*raise kindHostShare"):
        monitoring.plan(node, operator=True, pmm_server=True, sysbench=True)
    # a cloud node is a machine type: a larger one (2 vCPUs cannot hold the PMM server beside sysbench)
    with pytest.raises(InputError, match="K5: monitoringNodeType: .*choose a larger monitoring node"):
        monitoring.plan(node_budget("e2-standard-2", "gke"), operator=True, pmm_server=True, sysbench=True)


@given(
    requested=st.integers(min_value=16 * 1000 * 230, max_value=64 * 2**40),
    pool=st.integers(min_value=2**20, max_value=2**40),
    load=st.sampled_from(sorted(PROFILES)),
)
def test_a_requested_data_set_is_never_more_than_asked_nor_follows_the_buffer_pool(requested, pool, load):
    """R5: a production run prepares at most what was asked, whatever the database's buffer pool."""
    data = benchmark.dataset(pool, load, requested)
    assert data.requested and data.data_bytes <= requested
    other = benchmark.dataset(pool * 2 + 1, load, requested)
    assert (other.tables, other.table_size) == (data.tables, data.table_size)


def test_a_request_too_small_for_sixteen_tables_names_the_key():
    with pytest.raises(InputError) as error:
        benchmark.dataset(2**30, "light-oltp", 1000)
    assert error.value.key == "sysbenchDataSize" and error.value.rule == "R5"
