"""What connections cost (core/connection_cost.py): by hand beside each assertion, then as properties."""

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st
from percona_mysql_k8s.core.connection_cost import (
    MAX_THREAD_GROUPS,
    connection_costs,
    thread_cap,
    thread_pool_options,
    uses_thread_pool,
)
from percona_mysql_k8s.core.rules import default_thresholds
from percona_mysql_k8s.core.units import KIB

T = default_thresholds()
SESSION = 64 * KIB + 2 * 16 * KIB + 32 * KIB + 32 * KIB  # structures, two network buffers, the binary log caches
THREAD = 390_912  # the calibrated resident thread (core/calibration.py); thread_stack is reserved, not resident
STATEMENT = (256 + 256 + 128 + 256) * KIB  # mysqld's default sort, join, read and read_rnd buffers


def test_one_thread_per_connection_charges_every_connection_its_thread_and_a_statement():
    costs = connection_costs({"max_connections": "500"}, T)
    assert (costs.connections, costs.active, costs.threads, costs.thread_pool) == (500, 500, 500, False)
    assert costs.idle_bytes == 500 * SESSION
    assert costs.active_bytes == 500 * STATEMENT
    assert costs.thread_total_bytes == 500 * THREAD


def test_the_pool_bounds_running_statements_by_the_cores_and_threads_by_its_cap():
    options = {
        "max_connections": "5000",
        "thread_handling": "pool-of-threads",
        "thread_pool_size": "12",
        "thread_pool_max_threads": "96",
    }
    costs = connection_costs(options, T)
    # 12 groups x (1 + 3) active threads run statements; max(96, 2 per group x 12) threads + min_connections (20)
    # for the admin port, which gets threads past the cap
    assert (costs.active, costs.threads, costs.thread_pool) == (48, 116, True)
    assert costs.idle_bytes == 5000 * SESSION  # idle connections hold no thread
    assert costs.active_bytes == 48 * STATEMENT
    assert costs.thread_total_bytes == 116 * THREAD


@pytest.mark.parametrize(
    ("options", "active", "threads"),
    [
        # a cap below two threads a group: every group still gets two (create_worker)
        ({"thread_pool_size": "40", "thread_pool_max_threads": "10"}, 80 + 20, 2 * 40 + 20),
        # no size: mysqld counts the host's CPUs, unknown here, so the most groups (1024) are charged
        ({"thread_pool_max_threads": "10"}, 2 * MAX_THREAD_GROUPS + 20, 2 * MAX_THREAD_GROUPS + 20),
        # Percona's default cap (100000): a group never has more threads than connections + 1, and mysqld admits
        # max_connections + 1: 5000 + 1 + 4 listeners, + 20 admin
        ({"thread_pool_size": "4"}, 16, 5025),
        # a larger oversubscription runs more statements at once
        ({"thread_pool_size": "4", "thread_pool_oversubscribe": "9"}, 40, 5025),
    ],
)
def test_what_the_pool_bounds_and_what_it_does_not(options, active, threads):
    costs = connection_costs({"max_connections": "5000", "thread_handling": "pool-of-threads", **options}, T)
    assert (costs.active, costs.threads) == (active, threads)


@pytest.mark.parametrize(
    ("value", "pool"),
    [
        ("pool-of-threads", True),
        ("POOL-OF-THREADS", True),
        (" 'pool-of-threads' ", True),
        ("one-thread-per-connection", False),
        ("no-threads", False),
        ("loaded-dynamically", False),
    ],
)
def test_only_pool_of_threads_is_read_as_the_pool(value, pool):
    assert uses_thread_pool({"thread_handling": value}) is pool


def test_thread_stack_is_reserved_address_space_not_charged_whole():
    # pthread stacks are mapped on demand: a thread keeps the pages it touched, which the measured figure includes
    assert connection_costs({"max_connections": "10", "thread_stack": "4M"}, T).thread_bytes == THREAD


def test_thread_pool_options_by_hand():
    # 12.2 cores -> 13 groups (mysqld's default would be the host's CPU count), Percona's oversubscription, and a
    # cap of one thread per connection mysqld admits (3000 + 1) and one listener per group (13)
    assert thread_pool_options(12200, 3000) == {
        "thread_handling": "pool-of-threads",
        "thread_pool_size": "13",
        "thread_pool_oversubscribe": "3",
        "thread_pool_max_threads": "3014",
    }
    # the Galera tier's member: 2 groups, 70 connections
    assert thread_pool_options(2000, 70)["thread_pool_max_threads"] == "73"
    # Percona's range ends at 100000
    assert thread_cap(100_000, 16) == 100_000


OPTIONS = st.fixed_dictionaries(
    {
        "max_connections": st.integers(1, 100_000).map(str),
        "thread_pool_size": st.integers(1, MAX_THREAD_GROUPS).map(str),
        "thread_pool_max_threads": st.integers(1, 100_000).map(str),
        "thread_pool_oversubscribe": st.integers(0, 1000).map(str),
        "sort_buffer_size": st.integers(32 * KIB, 64 * 1024 * KIB).map(str),
        "thread_stack": st.integers(128 * KIB, 8 * 1024 * KIB).map(str),
    }
)


def _total(costs) -> int:
    return costs.idle_bytes + costs.active_bytes + costs.thread_total_bytes


@given(OPTIONS)
def test_the_pool_never_charges_more_than_one_thread_per_connection_beyond_listeners_and_admin(options):
    pool = connection_costs({**options, "thread_handling": "pool-of-threads"}, T)
    threads = connection_costs(options, T)
    groups, admin = int(options["thread_pool_size"]), T["min_connections"]
    assert pool.active <= pool.threads and pool.active <= pool.connections + 1
    assert pool.threads <= threads.threads + 1 + groups + admin
    assert _total(pool) <= _total(threads) + (1 + groups + admin) * (pool.thread_bytes + pool.statement_bytes)


@given(OPTIONS, st.integers(1, 100_000))
def test_more_connections_never_cost_less(options, more):
    for mode in ({}, {"thread_handling": "pool-of-threads"}):
        fewer = connection_costs({**options, **mode}, T)
        larger = connection_costs({**options, **mode, "max_connections": str(int(options["max_connections"]) + more)}, T)
        assert _total(larger) >= _total(fewer)
        assert larger.active >= fewer.active and larger.threads >= fewer.threads


@given(st.integers(1, 10**7), st.integers(1, 100_000))
def test_the_emitted_cap_gives_every_admitted_connection_and_every_listener_a_thread(cpu, connections):
    options = thread_pool_options(cpu, connections)
    groups, cap = int(options["thread_pool_size"]), int(options["thread_pool_max_threads"])
    assert groups == min(MAX_THREAD_GROUPS, math.ceil(cpu / 1000))
    assert options["thread_pool_oversubscribe"] == "3"
    assert cap == min(100_000, connections + 1 + groups) >= min(100_000, connections)
    # with that cap the model charges a thread for every connection: the cap never bounds what blocked statements hold
    costs = connection_costs({**options, "max_connections": str(connections)}, T)
    assert costs.threads >= min(100_000, connections) + T["min_connections"]
