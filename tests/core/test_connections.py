"""M6's criterion and the proxies' share (T5), shared by sizing and the policy pack."""

from hypothesis import given
from hypothesis import strategies as st
from percona_mysql_k8s.core.connections import (
    backend_connections_fit,
    buffer_pool_floor_bytes,
    deliverable_connections,
    fewest_connections,
    largest_connections,
    proxy_limits,
)
from percona_mysql_k8s.core.rules import default_thresholds
from percona_mysql_k8s.core.units import GIB, MIB

T = default_thresholds()


def test_floor_is_a_share_of_the_member_budget():
    assert buffer_pool_floor_bytes("pxc", 10 * GIB, T) == 5 * GIB  # 50%
    assert buffer_pool_floor_bytes("group-replication", 10 * GIB, T) == 4 * GIB  # 40%


def test_largest_connections_follows_a_model_with_two_rates():
    # peak without pool = 1 GiB + n x 0.5 MiB + min(n, 100) x 2 MiB (the thread pool's 100 running statements);
    # limit 8 GiB, member 10 GiB -> floor 5 GiB; room = 8 - 5 - 1 = 2 GiB = 2048 MiB:
    # 100 x 2 MiB = 200 MiB for the running ones, 1848 MiB / 0.5 MiB = 3696 connections
    def peak(n):
        return GIB + n * MIB // 2 + min(n, 100) * 2 * MIB

    assert largest_connections(peak, engine="pxc", limit_bytes=8 * GIB, member_memory_bytes=10 * GIB, thresholds=T) == 3696
    # a member so large its floor leaves room for fewer than min_connections (20): nothing fits
    assert largest_connections(peak, engine="pxc", limit_bytes=8 * GIB, member_memory_bytes=14 * GIB, thresholds=T) is None


def test_the_fewest_and_the_shipped_counts():
    # mysqld's own 20, and each pod's fewest backend connections: one, or one per hostgroup row for ProxySQL
    assert fewest_connections("haproxy", 3, T) == 23
    assert fewest_connections("proxysql", 3, T) == 26
    # what 3 pods open at the operators' shipped limits (HAProxy 2048, ProxySQL 2 x 1000, Router 512 + 64)
    assert [deliverable_connections(p, 3, T) for p in ("haproxy", "proxysql", "router")] == [6164, 6020, 1748]


@given(st.sampled_from(["haproxy", "proxysql", "router"]), st.integers(1, 7), st.integers(0, 100_000))
def test_proxies_written_from_max_connections_always_fit_it(proxy, pods, max_connections):
    if max_connections < fewest_connections(proxy, pods, T):
        return  # sizing refuses such a count (M6)
    limits = proxy_limits(proxy, max_connections, pods, T)
    assert backend_connections_fit(limits, pods, max_connections, T)
