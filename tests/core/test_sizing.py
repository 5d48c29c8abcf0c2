"""The sizing engine on worked examples (derived by hand) and on every kind of bad input."""

import pytest

from modules.core.allocatable import node_budget
from modules.core.errors import InputError
from modules.core.memory import round_buffer_pool
from modules.core.sizing import SizingInput, _buffer_pool_layout, size
from modules.core.units import GIB, MIB

PXC_4_CPU_8_GIB = SizingInput(engine="pxc", cpu_millicores=4000, memory_bytes=8 * GIB, load="light-oltp", connections=100)


def test_pxc_member_split_by_hand():
    result = size(PXC_4_CPU_8_GIB)
    c = result.containers
    # PMM client interpolated at 8/32 of the reference: 300m + 200m/4 = 350m; 150 MB + 350 MB/4 = 237.5 MB -> 227 MiB
    assert (c["pmm-client"].cpu_millicores, c["pmm-client"].memory_bytes) == (350, 227 * MIB)
    assert (c["logs"].cpu_millicores, c["logrotate"].memory_bytes) == (200, 100_000_000)
    assert (c["pxc-monit"].cpu_millicores, c["pxc-monit"].memory_bytes) == (50, 64 * MIB)
    # CPU: 4000 - (350 + 200 + 200 + 50 + 350) = 2850 for mysqld + HAProxy at 10% of mysqld -> 2590 + 260
    assert c["mysqld"].cpu_millicores == 2590
    assert c["haproxy"].cpu_millicores == 260
    # HAProxy memory: 64 MiB + 100 x 40 KiB = 67.9 MiB, below the 128 MiB floor
    assert c["haproxy"].memory_bytes == 128 * MIB
    # mysqld limit: 8192 MiB - 2 x 227 MiB - 200,000,000 B - 64 MiB - 128 MiB = 7355.27 MiB -> 7355 MiB
    assert c["mysqld"].memory_bytes == 7355 * MIB
    assert result.pods == {"mysqld": ("mysqld", "pmm-client", "logs", "logrotate"), "proxy": ("haproxy", "pxc-monit", "pmm-client")}


def test_pxc_mysqld_terms_by_hand():
    result = size(PXC_4_CPU_8_GIB)
    terms = result.memory.terms
    assert terms["log_buffer"] == 16 * MIB  # light-oltp profile, below limit/64
    assert terms["temporary_tables"] == 220 * MIB  # 3% of 7355 MiB = 220.65 MiB, whole MiB
    assert terms["gcache"] == 459 * MIB  # limit/16 = 459.7 MiB, inside [128 MiB, 1 GiB]
    # light-oltp per connection: 512K + 512K + 128K + 384K + binlog 32K + stack 1024K + 2 x 16K = 2624 KiB
    assert terms["connection_buffers"] == 2624 * 1024 * 100
    assert terms["page_cache_reserve"] == 385_613_824  # 5% of 7355 MiB exactly
    # buffer pool = 7355 - (16 + 220 + 459 + 256.25 + 300 + 367.75) = 5736 MiB; one instance (2590m < 4 CPUs);
    # 5736 = 2^3 x 3 x 239: its largest divisor <= 1000 chunks is 956, so chunks of 5736 / 956 = 6 MiB
    assert result.mysqld["innodb_buffer_pool_size"] == str(5736 * MIB)
    assert result.mysqld["innodb_buffer_pool_chunk_size"] == str(6 * MIB)
    assert result.mysqld["innodb_buffer_pool_instances"] == "1"
    assert result.memory.buffer_pool_rounded == 5736 * MIB
    assert result.memory.peak_bytes == 7355 * MIB  # the pool takes exactly what is left
    assert result.mysqld["innodb_redo_log_capacity"] == str(2868 * MIB)  # light-oltp: half the pool


def test_pxc_flow_control_by_hand():
    result = size(PXC_4_CPU_8_GIB)
    assert result.mysqld["wsrep_applier_threads"] == "10"  # 4 per core x 2.59 cores
    assert result.apply_rate_tps == 125.0  # 10 x 12.5 tps
    # fc_limit: min(100, 30 s x 125 / sqrt(3)) = 100; effective queue 100 x sqrt(3) = 173.2
    assert "gcs.fc_limit=100" in result.mysqld["wsrep_provider_options"]
    assert "gcs.fc_factor=1.0" in result.mysqld["wsrep_provider_options"]
    assert result.brownout_seconds == pytest.approx(173.205 / 125, rel=1e-3)
    assert result.mysqld["wsrep_sync_wait"] == "1"
    assert "replica_parallel_workers" not in result.mysqld  # F6: no effect on PXC
    assert result.mysqld["innodb_flush_log_at_trx_commit"] == "1"


def test_group_replication_settings():
    result = size(SizingInput(engine="group-replication", cpu_millicores=16000, memory_bytes=64 * GIB, load="heavy-oltp", connections=500))
    m = result.mysqld
    assert m["loose_group_replication_flow_control_mode"] == "QUOTA"  # F1
    assert m["loose_group_replication_flow_control_applier_threshold"] == "500"  # F2 strict value
    assert m["loose_group_replication_flow_control_certifier_threshold"] == "500"  # F3 equal
    assert (m["loose_group_replication_flow_control_min_quota"], m["loose_group_replication_flow_control_hold_percent"],
            m["loose_group_replication_flow_control_release_percent"]) == ("0", "100", "5")  # F4
    workers = int(m["replica_parallel_workers"])
    assert workers == int(result.mysqld_cpu_millicores / 1000 * 2.5)  # F6
    assert m["loose_group_replication_message_cache_size"] == str(GIB)  # limit > 16 GiB: the 1 GiB default
    assert result.brownout_seconds == pytest.approx(500 / (workers * 12.5))
    assert m["binlog_transaction_dependency_tracking"] == "WRITESET"


@pytest.mark.parametrize(
    ("raw_mib", "cpu", "expected"),
    [
        # one instance below 4 CPUs; 5736 = 2^3 x 3 x 239, largest divisor <= 1000 is 956 -> 6 MiB chunks
        (5736, 2590, (5736, 6, 1)),
        # 16 CPUs want 4 instances, but 1023 MiB is under 1 GiB: one instance; 1023 = 3 x 11 x 31 -> 341 x 3 MiB
        (1023, 16000, (1023, 3, 1)),
        # 4 instances: 1030 // 4 x 4 = 1028 (>= 1 GiB); 257 MiB each is prime: one chunk per instance
        (1030, 16000, (1028, 257, 4)),
        # 10240 MiB per instance = 2^11 x 5, at most 1000 // 4 = 250 chunks: 160 chunks of 64 MiB
        (40 * 1024, 16000, (40 * 1024, 64, 4)),
    ],
)
def test_buffer_pool_layout_by_hand(raw_mib, cpu, expected):
    pool, chunk, instances = _buffer_pool_layout(raw_mib * MIB, cpu)
    assert (pool // MIB, chunk // MIB, instances) == expected
    assert round_buffer_pool(pool, chunk, instances) == pool  # mysqld's round-up leaves it unchanged


def test_node_type_budget_is_the_usable_allocatable():
    result = size(SizingInput(engine="pxc", node_type="n2-standard-16", provider="gke"))
    node = node_budget("n2-standard-16", "gke")
    assert (result.budget_cpu_millicores, result.budget_memory_bytes) == (node.usable_cpu_millicores, node.usable_memory_bytes)
    total = result.member_total
    assert total.cpu_millicores <= node.usable_cpu_millicores and total.memory_bytes <= node.usable_memory_bytes


def test_derived_connections_keep_half_the_budget_for_the_buffer_pool():
    result = size(SizingInput(engine="pxc", cpu_millicores=4000, memory_bytes=8 * GIB))
    assert result.memory.buffer_pool_rounded >= 0.5 * result.budget_memory_bytes  # M6 floor, after rounding
    # two significant figures, and no more than the mysqld cores serve (833 light-oltp connections per core)
    assert result.connections == int(str(result.connections)[:2]) * 10 ** (len(str(result.connections)) - 2)
    assert result.connections <= result.mysqld_cpu_millicores * 833 // 1000


def test_derived_connections_are_memory_bound_on_a_large_budget():
    # 16 cores serve 13,000+ read-heavy connections; memory allows fewer: the buffer pool floor decides.
    result = size(SizingInput(engine="pxc", cpu_millicores=16000, memory_bytes=16 * GIB, load="read-heavy"))
    more = size(SizingInput(engine="pxc", cpu_millicores=16000, memory_bytes=16 * GIB, load="read-heavy",
                            connections=result.connections))
    assert more.memory.buffer_pool_rounded == result.memory.buffer_pool_rounded
    with pytest.raises(InputError, match="at most"):
        size(SizingInput(engine="pxc", cpu_millicores=16000, memory_bytes=16 * GIB, load="read-heavy",
                         connections=int(result.connections * 1.2)))


@pytest.mark.parametrize(
    ("overrides", "key", "rule"),
    [
        ({"engine": "mysql"}, "engine", None),
        ({"load": "batch"}, "load", None),
        ({"engine": "group-replication", "proxy": "proxysql"}, "proxy", "T2"),
        ({"proxy": "router"}, "proxy", "T2"),
        ({"proxy": "nginx"}, "proxy", "T2"),
        ({"connections": -1}, "connections", "M6"),
        ({"connections": 100_001}, "connections", "M6"),
        ({"connections": 5}, "connections", "M6"),
        ({"connections": 20_000}, "connections", "M6"),
        ({"cluster_size": 4}, "cluster_size", "T1"),
        ({"cluster_size": 1}, "cluster_size", "T1"),
        ({"engine": "group-replication", "cluster_size": 9}, "cluster_size", "T1"),
        ({"cpu_millicores": 0}, "cpu", "K1"),
        ({"cpu_millicores": 1000}, "cpu", "M3"),
        ({"memory_bytes": GIB}, "memory", "M6"),
        ({"memory_bytes": None}, "memory", "K1"),
        ({"node_type": "n2-standard-16", "provider": "gke"}, "node_type", None),
        ({"cpu_millicores": None, "memory_bytes": None}, "node_type", "K1"),
        ({"cpu_millicores": None, "memory_bytes": None, "node_type": "n2-standard-16"}, "provider", "K1"),
        ({"cpu_millicores": None, "memory_bytes": None, "node_type": "n9-giant-3", "provider": "gke"}, "node_type", "K1"),
        ({"engine": "group-replication", "log_collector": True}, "log_collector", "M3"),
        ({"mysql_version": "5.7"}, "mysql_version", None),
        ({"thresholds": {"max_fc_limt": 5}}, "thresholds", None),
    ],
)
def test_bad_input_names_the_key_and_the_rule(overrides, key, rule):
    fields = {**PXC_4_CPU_8_GIB.__dict__, **overrides}
    with pytest.raises(InputError) as raised:
        size(SizingInput(**fields))
    assert raised.value.key == key
    assert raised.value.rule == rule


def test_unsafe_small_cluster_is_allowed_for_ephemeral_stacks():
    result = size(SizingInput(**{**PXC_4_CPU_8_GIB.__dict__, "cluster_size": 1, "allow_unsafe_size": True}))
    assert any("T1" in note for note in result.notes)
