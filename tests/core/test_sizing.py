"""The sizing engine on worked examples (derived by hand) and on every kind of bad input."""

import pytest
from percona_mysql_k8s.core.allocatable import node_budget
from percona_mysql_k8s.core.errors import InputError
from percona_mysql_k8s.core.memory import round_buffer_pool
from percona_mysql_k8s.core.sizing import SizingInput, size
from percona_mysql_k8s.core.sizing.buffer_pool import buffer_pool_layout
from percona_mysql_k8s.core.units import GIB, MIB

PXC_4_CPU_8_GIB = SizingInput(engine="pxc", cpu_millicores=4000, memory_bytes=8 * GIB, load="light-oltp", connections=100)


def test_pxc_member_split_by_hand():
    result = size(PXC_4_CPU_8_GIB)
    c = result.containers
    # PMM client: CPU at 4/8 of the reference CPU: 100m + 400m/2 = 300m (a 4-core member is not scaled down);
    # memory at 8/32 of the reference memory: 150 MB + 350 MB/4 = 237,500,000 bytes exactly
    assert (c["pmm-client"].cpu_millicores, c["pmm-client"].memory_bytes) == (300, 237_500_000)
    assert (c["logs"].cpu_millicores, c["logrotate"].memory_bytes) == (200, 100_000_000)
    assert (c["pxc-monit"].cpu_millicores, c["pxc-monit"].memory_bytes) == (50, 64 * MIB)
    # CPU: 4000 - (300 + 200 + 200 + 50 + 300) = 2950 for mysqld + HAProxy at 10% of mysqld (10m steps):
    # 2680 + 270 = 2950 fits, 2690 + 270 = 2960 does not
    assert c["mysqld"].cpu_millicores == 2680
    assert c["haproxy"].cpu_millicores == 270
    # HAProxy carries its share of the clients: (100 - 20 for mysqld's own users) // 3 proxies = 26;
    # 64 MiB + 26 x 40 KiB = 65 MiB, below the 128 MiB floor
    assert result.proxy_connections == 26
    assert c["haproxy"].memory_bytes == 128 * MIB
    # mysqld limit: 8 GiB - 2 x 237.5 MB - 2 x 100 MB - 64 MiB - 128 MiB = 7,713,608,000 B -> 7356 MiB
    assert c["mysqld"].memory_bytes == 7356 * MIB
    assert result.pods == {
        "mysqld": ("mysqld", "pmm-client", "logs", "logrotate"),
        "proxy": ("haproxy", "pxc-monit", "pmm-client"),
    }


def test_pxc_mysqld_terms_by_hand():
    result = size(PXC_4_CPU_8_GIB)
    terms = result.memory.terms
    limit = 7356 * MIB  # 7,713,325,056 B
    assert terms["log_buffer"] == 16 * MIB  # light-oltp profile, below limit/64
    # MySQL 8.4's rule: 3% of the limit (231,399,751 B), its 4 GiB cap far away; its 1 GiB floor is not
    # applied below a 33 GiB container (a larger temporary table goes to disk)
    assert terms["temporary_tables"] == limit * 3 // 100 == 231_399_751
    assert terms["gcache"] == limit // 16 == 482_082_816  # limit/16 = 459.75 MiB, inside [128 MiB, 1 GiB]
    # M6: the thread pool, one group per started mysqld core (2680m -> 3); its cap admits a thread for each of the
    # 100 + 1 connections mysqld accepts and a listener per group: 104, so blocked statements never starve a login
    assert (result.mysqld["thread_handling"], result.mysqld["thread_pool_size"]) == ("pool-of-threads", "3")
    assert (result.mysqld["thread_pool_oversubscribe"], result.mysqld["thread_pool_max_threads"]) == ("3", "104")
    # idle: every connection's session, 64 KiB + 2 x 16 KiB network buffers + 32 KiB binlog cache + 32 KiB
    # binlog statement cache = 160 KiB; x 100
    assert terms["connections_idle"] == 100 * 160 * 1024 == 16_384_000
    # active: 3 groups x (1 + 3) statements on the cores, each with light-oltp's buffers 512K + 512K + 128K + 384K
    assert terms["connections_active"] == 12 * 1536 * 1024 == 18_874_368
    # threads: the 104 the cap admits and 20 admin-port ones past it, each the calibrated 390,912 resident bytes
    assert terms["connection_threads"] == 124 * 390_912 == 48_473_088
    assert terms["page_cache_reserve"] == 385_666_253  # ceil(5% of the limit = 385,666,252.8)
    # performance_schema: 128 MiB + one slot for each thread that can exist (101 connections, 124 pool threads, 64
    # background, 10 appliers = 299, written as performance_schema_max_thread_instances) x 384 KiB
    assert result.mysqld["performance_schema_max_thread_instances"] == "299"
    assert terms["performance_schema"] == 134_217_728 + 299 * 393_216 == 251_789_312
    # fragmentation: 10% of the heap terms (log buffer, temporary tables, the three connection terms, 300 MiB
    # overhead, performance_schema) = ceil(898,270,535 / 10)
    assert terms["allocator_fragmentation"] == 89_827_054
    # the other terms sum to 1,855,846,658 B, leaving 5,857,478,398 B for the pool and its descriptors:
    # (5,857,478,398 - 1000 chunks x 16 KiB of rounding) x 16384 / (16384 + 512) = 5,664,091,537 B =
    # 5401.7 MiB; one instance (2680m < 4 CPUs), so the pool is 5401 MiB = 11 x 491: 491 chunks of 11 MiB
    assert result.mysqld["innodb_buffer_pool_size"] == str(5401 * MIB)
    assert result.mysqld["innodb_buffer_pool_chunk_size"] == str(11 * MIB)
    assert result.mysqld["innodb_buffer_pool_instances"] == "1"
    assert result.memory.buffer_pool_rounded == 5401 * MIB
    # descriptors (buf_chunk_init): per 11 MiB chunk 704 pages x 512 B = 22 whole pages; x 491 chunks
    assert terms["buffer_pool_descriptors"] == 491 * 22 * 16384 == 176_979_968
    assert result.memory.headroom_bytes == 5_857_478_398 - 5401 * MIB - 176_979_968  # the rounding slack
    # redo: light-oltp's half of the pool (2700 MiB) is below every bound: 90% of the pool, and recovery
    # within 300 s at 3000 IOPS x 16 KiB / 2 = 7,372,800,000 B
    assert result.mysqld["innodb_redo_log_capacity"] == str(2700 * MIB)


def test_without_the_thread_pool_every_connection_is_a_thread_that_may_run():
    result = size(
        SizingInput(
            engine="pxc", cpu_millicores=4000, memory_bytes=8 * GIB, load="light-oltp", connections=100, thread_pool=False
        )
    )
    terms = result.memory.terms
    assert "thread_handling" not in result.mysqld  # mysqld's default, one thread per connection
    # idle: 160 KiB of session per connection; active: all 100 with 1536 KiB of buffers; a thread each
    assert terms["connections_idle"] == 100 * 160 * 1024
    assert terms["connections_active"] == 100 * 1536 * 1024
    assert terms["connection_threads"] == 100 * 390_912
    # no pool threads: 101 connections, 64 background threads and 10 appliers
    assert result.mysqld["performance_schema_max_thread_instances"] == "175"
    assert terms["performance_schema"] == 134_217_728 + 175 * 393_216
    with_pool = size(PXC_4_CPU_8_GIB)
    assert with_pool.memory.buffer_pool_rounded > result.memory.buffer_pool_rounded


def test_pxc_flow_control_by_hand():
    result = size(PXC_4_CPU_8_GIB)
    assert result.mysqld["wsrep_applier_threads"] == "10"  # 4 per core x 2.68 cores, rounded down
    assert result.apply_rate_tps == 500.0  # 10 x 50 tps (seed 002: 400 events x 4 writes / 32 appliers)
    # fc_limit: min(100, 30 s x 500 / sqrt(3)) = 100; effective queue 100 x sqrt(3) = 173.2; Galera's
    # flow control is event-driven, so no polling overshoot is added
    assert "gcs.fc_limit=100" in result.mysqld["wsrep_provider_options"]
    assert "gcs.fc_factor=1.0" in result.mysqld["wsrep_provider_options"]
    assert result.brownout_seconds == pytest.approx(173.205 / 500, rel=1e-3)
    assert result.mysqld["wsrep_sync_wait"] == "1"
    assert "replica_parallel_workers" not in result.mysqld  # F6: no effect on PXC
    assert result.mysqld["innodb_flush_log_at_trx_commit"] == "1"


def test_group_replication_settings():
    result = size(
        SizingInput(engine="group-replication", cpu_millicores=16000, memory_bytes=64 * GIB, load="heavy-oltp", connections=500)
    )
    m = result.mysqld
    assert m["loose_group_replication_flow_control_mode"] == "QUOTA"  # F1
    assert m["loose_group_replication_flow_control_applier_threshold"] == "500"  # F2 strict value
    assert m["loose_group_replication_flow_control_certifier_threshold"] == "500"  # F3 equal
    assert (
        m["loose_group_replication_flow_control_min_quota"],
        m["loose_group_replication_flow_control_hold_percent"],
        m["loose_group_replication_flow_control_release_percent"],
    ) == ("0", "100", "5")  # F4
    workers = int(m["replica_parallel_workers"])
    assert workers == int(result.mysqld_cpu_millicores / 1000 * 2.5)  # F6
    assert m["loose_group_replication_message_cache_size"] == str(GIB)  # limit > 16 GiB: the 1 GiB default
    # F5: the rate counts at most the 32 appliers measured, 50 tps each; the queue is the threshold plus
    # one 1 s period at (5 - 1) x the rate: brownout = (500 + 4 x rate) / rate = 500 / rate + 4 s
    rate = min(workers, 32) * 50.0
    assert result.apply_rate_tps == rate
    assert result.queue_bound == 500 + 4 * rate
    assert result.brownout_seconds == pytest.approx(500 / rate + 4)
    # M5: rate x 60 s GC period + the queue, 4 KiB each, inside [128 MiB, 1.5 GiB]
    assert result.memory.terms["certification_info"] == max(128 * MIB, min(1536 * MIB, int((rate * 60 + 500 + 4 * rate) * 4096)))
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
    pool, chunk, instances = buffer_pool_layout(raw_mib * MIB, cpu)
    assert (pool // MIB, chunk // MIB, instances) == expected
    assert round_buffer_pool(pool, chunk, instances) == pool  # mysqld's round-up leaves it unchanged


def test_node_type_budget_is_the_usable_allocatable():
    result = size(SizingInput(engine="pxc", node_type="n2-standard-16", provider="gke"))
    node = node_budget("n2-standard-16", "gke")
    assert (result.budget_cpu_millicores, result.budget_memory_bytes) == (node.usable_cpu_millicores, node.usable_memory_bytes)
    total = result.member_total
    assert total.cpu_millicores <= node.usable_cpu_millicores and total.memory_bytes <= node.usable_memory_bytes


def test_derived_connections_keep_70_percent_of_mysqld_for_the_buffer_pool():
    result = size(SizingInput(engine="pxc", cpu_millicores=4000, memory_bytes=8 * GIB))
    limit = result.mysqld_memory_bytes
    # 8 GiB cannot hold the 3 x 2048 + 20 the proxies open beside a buffer pool of 70% of the mysqld limit
    # (derived_min_buffer_pool_share): the largest count that keeps it, rounded down to two significant figures;
    # the M6 floor on the member budget (50%) holds too
    assert result.connections < 3 * 2048 + 20
    assert result.memory.buffer_pool_rounded >= 0.70 * limit
    assert result.memory.buffer_pool_rounded >= 0.5 * result.budget_memory_bytes
    step = 10 ** (len(str(result.connections)) - 2)
    assert result.connections % step == 0
    more = size(SizingInput(engine="pxc", cpu_millicores=4000, memory_bytes=8 * GIB, connections=result.connections + step))
    assert more.memory.buffer_pool_rounded < 0.70 * more.mysqld_memory_bytes
    # one thread per connection: each connection costs its thread and may run at once, so fewer keep the share
    threads = size(SizingInput(engine="pxc", cpu_millicores=4000, memory_bytes=8 * GIB, thread_pool=False))
    assert threads.connections < result.connections
    assert threads.memory.buffer_pool_rounded >= 0.70 * threads.mysqld_memory_bytes


def test_an_explicit_count_beyond_the_floor_shrinks_the_buffers_before_a_refusal():
    # 16 cores and 8 GiB, read-heavy: 1030 connections cannot keep the M6 floor (4 GiB, half the budget) at the
    # profile's buffers. The per-connection buffers shrink instead of a refusal, and the pool is the floor itself:
    # 4096 MiB, rounded up to a multiple of the 3 instances (13220m // 4000) -> 4098 MiB
    inp = SizingInput(engine="pxc", cpu_millicores=16000, memory_bytes=8 * GIB, load="read-heavy", connections=1000)
    fits = size(inp)
    assert fits.memory.buffer_pool_rounded >= 4096 * MIB and fits.mysqld["sort_buffer_size"] == str(256 * 1024)
    squeezed = size(SizingInput(**{**inp.__dict__, "connections": 1030}))
    assert squeezed.memory.buffer_pool_rounded == 4098 * MIB
    assert int(squeezed.mysqld["sort_buffer_size"]) < 256 * 1024  # read-heavy's 256 KiB, scaled down
    # the thread cap never shrinks with the buffers: one thread for each of the 1030 + 1 connections and 14 listeners
    assert squeezed.mysqld["thread_pool_max_threads"] == str(1030 + 1 + 14)
    assert any(note.startswith("M6: per-connection buffers scaled") for note in squeezed.notes)


def test_derived_connections_are_what_the_proxies_deliver_on_a_big_node():
    # n2-standard-16: memory and CPU allow more than 3 HAProxies pass at maxconn 2048; mysqld takes exactly
    # 3 x 2048 + min_connections (20) = 6164, and each HAProxy's limit is the shipped 2048.
    result = size(SizingInput(engine="pxc", node_type="n2-standard-16", provider="gke"))
    assert (result.connections, result.proxy_connections) == (6164, 2048)
    # HAProxy memory for its own 2048 clients: 64 MiB + 2048 x 40 KiB = 144 MiB
    assert result.containers["haproxy"].memory_bytes == 144 * MIB
    assert result.memory.buffer_pool_rounded >= 0.5 * result.budget_memory_bytes


def test_a_one_core_two_gib_member_is_answered():
    # 1 CPU: every sidecar's CPU is scaled by 1000/2000. PMM: (100m + 400m x 1/8) / 2 = 75m -> 80m;
    # logs, logrotate: 200m / 2 = 100m each; pxc-monit 50m / 2 = 25m -> 30m. 1000 - 2 x 80 - 200 - 30 = 610m
    # for mysqld + HAProxy at max(10% of mysqld, 100m / 2): 550m + 60m.
    result = size(SizingInput(engine="pxc", cpu_millicores=1000, memory_bytes=2 * GIB, load="light-oltp"))
    c = result.containers
    assert [c[name].cpu_millicores for name in ("pmm-client", "logs", "logrotate", "pxc-monit", "mysqld", "haproxy")] == [
        80,
        100,
        100,
        30,
        550,
        60,
    ]
    assert result.memory.fits and result.memory.buffer_pool_rounded >= 5 * MIB
    # The floor on 2 GiB (1 GiB) is out of reach beside the sidecars, and so is half the 1337 MiB mysqld
    # limit: at the fewest connections (23) the fixed terms alone take 300 MiB of server overhead,
    # 128 MiB + (24 connections + 45 pool threads + 64 background + 2 appliers = 135) x 384 KiB of performance_schema,
    # the 128 MiB minimum gcache, 5% page cache, 3% temporary tables and 10% fragmentation of the heap terms:
    # ~830 MiB, leaving 500 MiB (37%) to the pool. The pool's cap still admits a thread for every connection
    # (23 + 1 + 1 listener = 25), and 1 x (1 + 3) statements run at once. The answer stands (mysqld starts), and
    # the note says what was kept.
    assert result.connections == 23
    assert result.mysqld["thread_pool_max_threads"] == "25" and result.memory.connections.active == 4
    assert 0.35 * result.mysqld_memory_bytes < result.memory.buffer_pool_rounded < 0.5 * result.mysqld_memory_bytes
    assert any(
        "cannot keep 50% of its budget" in note and "even the fewest (23) leave the pool 37%" in note for note in result.notes
    )


def test_the_refusal_names_the_nearest_input_that_runs():
    with pytest.raises(InputError) as raised:
        size(SizingInput(engine="pxc", cpu_millicores=4000, memory_bytes=2 * GIB, connections=1000))
    assert raised.value.key == "connections" and raised.value.rule == "M1"
    at_most = int(raised.value.message.split("at most ")[1].split()[0])
    needed = int(raised.value.message.split("at least ")[1].split()[0])
    assert size(SizingInput(engine="pxc", cpu_millicores=4000, memory_bytes=2 * GIB, connections=at_most)).memory.fits
    assert size(SizingInput(engine="pxc", cpu_millicores=4000, memory_bytes=needed * MIB, connections=1000)).memory.fits
    with pytest.raises(InputError):
        size(SizingInput(engine="pxc", cpu_millicores=4000, memory_bytes=2 * GIB, connections=at_most + 1))
    with pytest.raises(InputError) as raised:
        size(SizingInput(engine="pxc", cpu_millicores=400, memory_bytes=8 * GIB))
    needed_cpu = int(raised.value.message.split("at least ")[-1].rstrip("m"))
    assert size(SizingInput(engine="pxc", cpu_millicores=needed_cpu, memory_bytes=8 * GIB)).mysqld_cpu_millicores >= 250


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
        ({"connections": 20_000}, "connections", "M1"),  # 20,000 x 1.1 MiB even at the smallest buffers > 8 GiB
        ({"cluster_size": 4}, "cluster_size", "T1"),
        ({"cluster_size": 1}, "cluster_size", "T1"),
        ({"engine": "group-replication", "cluster_size": 9}, "cluster_size", "T1"),
        ({"cpu_millicores": 0}, "cpu", "K1"),
        # 400m: sidecars at 400/2000 of their size (30 + 30 + 40 + 40 + 10) leave 250m; mysqld 220m + HAProxy 30m
        ({"cpu_millicores": 400}, "cpu", "M3"),
        # 1 GiB: two PMM clients (2 x 161 MB), logs + logrotate (200 MB), pxc-monit (64 MiB) and HAProxy
        # (128 MiB) leave mysqld 334 MiB, less than its 300 MiB overhead, gcache (128 MiB) and the rest
        ({"memory_bytes": GIB}, "memory", "M1"),
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


@pytest.mark.parametrize(("node_type", "provider"), [("n2-standard-16", "gke"), ("m6i.4xlarge", "eks")])
@pytest.mark.parametrize("engine", ["pxc", "group-replication"])
def test_node_sizing_leaves_the_daemonsets_and_the_margin(node_type, provider, engine):
    """K1/K5: the member plus the provider's DaemonSets plus the margin fit the allocatable, so the pod schedules."""
    result = size(SizingInput(engine=engine, node_type=node_type, provider=provider))
    node = result.node
    assert node.daemonset_cpu_millicores > 0 and node.daemonset_memory_bytes > 0  # the provider's default
    member = result.member_total
    assert member.cpu_millicores + node.daemonset_cpu_millicores + node.margin_cpu_millicores <= node.allocatable_cpu_millicores
    assert member.memory_bytes + node.daemonset_memory_bytes + node.margin_memory_bytes <= node.allocatable_memory_bytes
    # the margin is really left: at least 2% of the allocatable is unrequested
    assert (
        node.allocatable_cpu_millicores - member.cpu_millicores - node.daemonset_cpu_millicores
        >= node.allocatable_cpu_millicores * 0.02
    )
    assert (
        node.allocatable_memory_bytes - member.memory_bytes - node.daemonset_memory_bytes >= node.allocatable_memory_bytes * 0.02
    )


def test_r6i_8xlarge_terms_the_issue_names():
    """Issue 13 §2/§5 on an r6i.8xlarge (32 vCPU / 256 GiB) group replication member, default 3000-IOPS disk."""
    result = size(SizingInput(engine="group-replication", node_type="r6i.8xlarge", provider="eks"))
    terms = result.memory.terms
    # temptable_max_ram: 3% of a ~240 GiB limit is ~7.2 GiB; MySQL 8.4's rule caps it at 4 GiB
    assert result.mysqld["temptable_max_ram"] == str(4 * GIB) and terms["temporary_tables"] == 4 * GIB
    # certification: 80 workers, but 32 counted x 50 = 1600 tps; queue 500 + 4 x 1600 = 6900;
    # 1600 x 60 + 6900 = 102,900 transactions x 4 KiB = 421,478,400 B (11% of the limit was 27.7 GiB)
    assert result.apply_rate_tps == 1600.0
    assert terms["certification_info"] == 102_900 * 4096
    # redo: recovery within 300 s at 3000 IOPS x 16 KiB / 2 = 7,372,800,000 B -> 7031 whole MiB (was 128 GiB)
    assert result.mysqld["innodb_redo_log_capacity"] == str(7031 * MIB)
    # descriptors: 512 B per 16 KiB page = 1/32 of the pool, within one page per chunk
    pool = result.memory.buffer_pool_rounded
    chunks = pool // int(result.mysqld["innodb_buffer_pool_chunk_size"])
    assert pool // 32 <= terms["buffer_pool_descriptors"] <= pool // 32 + chunks * 16384


def test_redo_is_bounded_by_the_volume():
    # 20 GiB volume: 10% = 2 GiB, below the recovery bound (7031 MiB) and half of the light-oltp pool
    result = size(SizingInput(engine="pxc", cpu_millicores=8000, memory_bytes=32 * GIB, volume_bytes=20 * GIB))
    assert result.mysqld["innodb_redo_log_capacity"] == str(2048 * MIB)
    with pytest.raises(InputError) as raised:
        size(SizingInput(engine="pxc", cpu_millicores=8000, memory_bytes=32 * GIB, volume_bytes=1024))
    assert (raised.value.key, raised.value.rule) == ("volume_bytes", "K6")


def test_faster_disk_allows_more_redo():
    slow = size(SizingInput(engine="pxc", cpu_millicores=8000, memory_bytes=32 * GIB, load="write-heavy", disk_iops=3000))
    fast = size(SizingInput(engine="pxc", cpu_millicores=8000, memory_bytes=32 * GIB, load="write-heavy", disk_iops=16000))
    assert int(slow.mysqld["innodb_redo_log_capacity"]) == 7031 * MIB  # the recovery bound at 3000 IOPS
    assert int(fast.mysqld["innodb_redo_log_capacity"]) > int(slow.mysqld["innodb_redo_log_capacity"])


def test_the_redo_bound_is_named_in_the_notes():
    result = size(SizingInput(engine="pxc", cpu_millicores=8000, memory_bytes=32 * GIB, volume_bytes=20 * GIB))
    assert "K6: innodb_redo_log_capacity 2048 MiB, set by the 10% of the volume" in result.notes


def test_the_package_keeps_every_name_the_single_module_exported():
    # core/sizing.py became a package: its importers keep their names, and the ranges it restated are now read
    # from their one definition in core/rules.py
    from percona_mysql_k8s.core import rules, sizing

    assert all(hasattr(sizing, name) for name in sizing.__all__)
    assert {"SizingInput", "SizingResult", "size", "validate", "CLUSTER_SIZES", "DEFAULT_DISK_IOPS"} <= set(sizing.__all__)
    assert (sizing.MAX_CONNECTIONS_LIMIT, sizing.GALERA_MAX_APPLIERS, sizing.MAX_REPLICA_WORKERS) == (
        rules.MYSQLD_MAX_CONNECTIONS,
        rules.MAX_WSREP_APPLIER_THREADS,
        rules.MAX_REPLICA_PARALLEL_WORKERS,
    )
    assert (sizing.MIN_BUFFER_POOL, sizing.BUFFER_MINIMUMS["sort_buffer_size"]) == (5 * MIB, 32 * 1024)


def test_derived_connections_never_exceed_what_mysqld_accepts():
    # min_connections near its bound beside three HAProxy pods at their shipped maxconn (2048 each) would ask for
    # 99000 + 3 * 2048 = 105144; mysqld's max_connections stops at 100000 (found by the threshold property test)
    result = size(
        SizingInput(
            engine="group-replication",
            proxy="haproxy",
            load="read-heavy",
            cluster_size=3,
            cpu_millicores=127_650,
            memory_bytes=395 * 10**9,
            thresholds={"min_connections": 99_000},
        )
    )
    assert result.connections == int(result.mysqld["max_connections"]) <= 100_000


def test_min_connections_that_leaves_the_proxies_no_room_is_refused_by_name():
    # five ProxySQL pods need at least 2 backend connections each (two hostgroups): 99993 + 10 > 100000
    with pytest.raises(InputError) as raised:
        size(
            SizingInput(
                engine="pxc",
                proxy="proxysql",
                cluster_size=5,
                cpu_millicores=127_650,
                memory_bytes=395 * 10**9,
                thresholds={"min_connections": 99_993},
            )
        )
    assert raised.value.key == "min_connections" and raised.value.rule == "M6"
    assert "at most 99990" in str(raised.value)
