"""M6's criterion, shared by sizing and the policy pack."""

from percona_mysql_k8s.core.connections import buffer_pool_floor_bytes, largest_connections
from percona_mysql_k8s.core.rules import default_thresholds
from percona_mysql_k8s.core.units import GIB, MIB

T = default_thresholds()


def test_floor_is_a_share_of_the_member_budget():
    assert buffer_pool_floor_bytes("pxc", 10 * GIB, T) == 5 * GIB  # 50%
    assert buffer_pool_floor_bytes("group-replication", 10 * GIB, T) == 4 * GIB  # 40%


def test_largest_connections_solves_the_linear_model():
    # peak without pool = 1 GiB + n x 2 MiB; limit 8 GiB, member 10 GiB -> floor 5 GiB;
    # room for connections = 8 - 5 - 1 = 2 GiB -> 1024 connections of 2 MiB
    def peak(n):
        return GIB + n * 2 * MIB

    assert largest_connections(peak, engine="pxc", limit_bytes=8 * GIB, member_memory_bytes=10 * GIB, thresholds=T) == 1024
    # a member so large its floor leaves room for fewer than min_connections (20): nothing fits
    assert largest_connections(peak, engine="pxc", limit_bytes=8 * GIB, member_memory_bytes=14 * GIB, thresholds=T) is None
