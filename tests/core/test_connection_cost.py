"""What connections cost (core/connection_cost.py): by hand beside each assertion, then as properties."""

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st
from percona_mysql_k8s.core.connection_cost import (
    MAX_THREAD_GROUPS,
    connection_costs,
    thread_pool_options,
    uses_thread_pool,
)
from percona_mysql_k8s.core.rules import default_thresholds
from percona_mysql_k8s.core.units import KIB

T = default_thresholds()
SESSION = 64 * KIB + 2 * 16 * KIB + 32 * KIB + 32 * KIB  # structures, two network buffers, the binary log caches
THREAD = 1068 * KIB  # the calibrated resident thread, above mysqld's 1 MiB stack
STATEMENT = (256 + 256 + 128 + 256) * KIB  # mysqld's default sort, join, read and read_rnd buffers


def test_one_thread_per_connection_charges_every_connection_its_thread_and_a_statement():
    costs = connection_costs({"max_connections": "500"}, T)
    assert (costs.connections, costs.active, costs.threads, costs.thread_pool) == (500, 500, 500, False)
    assert costs.idle_bytes == 500 * (SESSION + THREAD)
    assert costs.active_bytes == 500 * STATEMENT


def test_the_pool_bounds_running_statements_by_its_workers_and_admin_connections():
    options = {"max_connections": "5000", "thread_handling": "pool-of-threads", "thread_pool_size": "12",
               "thread_pool_max_threads": "96"}
    costs = connection_costs(options, T)
    # max(96 workers, 2 per group x 12) + min_connections (20) for the admin port
    assert (costs.active, costs.threads, costs.thread_pool) == (116, 116, True)
    assert costs.idle_bytes == 5000 * SESSION  # idle connections hold no thread
    assert costs.active_bytes == 116 * (STATEMENT + THREAD)


@pytest.mark.parametrize(("options", "active"), [
    # a cap below two threads a group: every group still gets two (create_worker)
    ({"thread_pool_size": "40", "thread_pool_max_threads": "10"}, 2 * 40 + 20),
    # no size: mysqld counts the host's CPUs, unknown here, so the most groups (1024) are charged
    ({"thread_pool_max_threads": "10"}, 2 * MAX_THREAD_GROUPS + 20),
    # Percona's default cap (100000) bounds nothing below it
    ({"thread_pool_size": "4"}, 5000),
])
def test_what_the_pool_does_not_bound(options, active):
    costs = connection_costs({"max_connections": "5000", "thread_handling": "pool-of-threads", **options}, T)
    assert costs.active == min(5000, active)


@pytest.mark.parametrize(("value", "pool"), [
    ("pool-of-threads", True), ("POOL-OF-THREADS", True), (" 'pool-of-threads' ", True),
    ("one-thread-per-connection", False), ("no-threads", False), ("loaded-dynamically", False),
])
def test_only_pool_of_threads_is_read_as_the_pool(value, pool):
    assert uses_thread_pool({"thread_handling": value}) is pool


def test_a_stack_set_beyond_the_measured_thread_is_charged_whole():
    costs = connection_costs({"max_connections": "10", "thread_stack": "4M"}, T)
    assert costs.thread_bytes == 4 * 1024 * KIB


def test_thread_pool_options_by_hand():
    # 12.2 cores -> 13 groups (mysqld's default would be the host's CPU count), Percona's oversubscription,
    # 8 workers a group
    assert thread_pool_options(12200, T) == {"thread_handling": "pool-of-threads", "thread_pool_size": "13",
                                             "thread_pool_oversubscribe": "3", "thread_pool_max_threads": "104"}
    # a member too small for 8 a group keeps the two every group gets
    assert thread_pool_options(2000, T, share=0.01)["thread_pool_max_threads"] == "4"


OPTIONS = st.fixed_dictionaries({
    "max_connections": st.integers(1, 100_000).map(str),
    "thread_pool_size": st.integers(1, MAX_THREAD_GROUPS).map(str),
    "thread_pool_max_threads": st.integers(1, 100_000).map(str),
    "sort_buffer_size": st.integers(32 * KIB, 64 * 1024 * KIB).map(str),
    "thread_stack": st.integers(128 * KIB, 8 * 1024 * KIB).map(str),
})


@given(OPTIONS)
def test_the_pool_never_charges_connections_more_than_one_thread_each(options):
    pool = connection_costs({**options, "thread_handling": "pool-of-threads"}, T)
    threads = connection_costs(options, T)
    assert pool.active <= pool.connections == threads.connections == threads.active
    assert pool.idle_bytes + pool.active_bytes <= threads.idle_bytes + threads.active_bytes


@given(OPTIONS, st.integers(1, 100_000))
def test_more_connections_never_cost_less(options, more):
    for mode in ({}, {"thread_handling": "pool-of-threads"}):
        fewer = connection_costs({**options, **mode}, T)
        larger = connection_costs({**options, **mode, "max_connections": str(int(options["max_connections"]) + more)}, T)
        assert larger.idle_bytes + larger.active_bytes >= fewer.idle_bytes + fewer.active_bytes
        assert larger.active >= fewer.active


@given(st.integers(1, 10**7), st.floats(0, 1), st.integers(2, 1000))
def test_thread_pool_options_stay_in_percona_ranges(cpu, share, per_group):
    options = thread_pool_options(cpu, {**T, "thread_pool_workers_per_group": per_group}, share)
    groups, workers = int(options["thread_pool_size"]), int(options["thread_pool_max_threads"])
    assert groups == min(MAX_THREAD_GROUPS, math.ceil(cpu / 1000))
    assert 2 * groups <= workers <= min(100_000, groups * per_group) or workers == 100_000
    assert options["thread_pool_oversubscribe"] == "3"
