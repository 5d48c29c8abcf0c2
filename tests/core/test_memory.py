"""The M1-M5 memory model, with expected values derived by hand beside each assertion."""

import pytest
from percona_mysql_k8s.core.memory import model, round_buffer_pool
from percona_mysql_k8s.core.rules import default_thresholds
from percona_mysql_k8s.core.units import GIB, KIB, MIB

THRESHOLDS = default_thresholds()


@pytest.mark.parametrize(
    ("pool", "chunk", "instances", "expected"),
    [
        (3 * GIB, 128 * MIB, 8, 3 * GIB),  # unit 8 x 128 MiB = 1 GiB divides 3 GiB
        (3 * GIB + 1, 128 * MIB, 8, 4 * GIB),  # one byte over rounds *up* a whole unit
        (512 * MIB, 128 * MIB, 8, 512 * MIB),  # below 1 GiB instances are ignored: unit 128 MiB
        (1025 * MIB, 128 * MIB, 8, 2 * GIB),  # 1025 MiB with 1 GiB units -> 2 GiB
        (2 * GIB, GIB, 4, 2 * GIB),  # 4 x 1 GiB > 2 GiB: chunk truncated to 512 MiB, unit 2 GiB
        (100 * MIB, 128 * MIB, 1, 100 * MIB),  # chunk larger than the pool is truncated to the pool
    ],
)
def test_buffer_pool_rounds_up_like_mysqld(pool, chunk, instances, expected):
    assert round_buffer_pool(pool, chunk, instances) == expected


def test_group_replication_terms_by_hand():
    limit = 8 * GIB
    terms = model({"max_connections": "100"}, engine="group-replication", limit_bytes=limit, thresholds=THRESHOLDS).terms
    # one thread per connection (mysqld's default): every connection idles with its session (64 KiB structures
    # + 2 x net buffer 16K + binlog cache 32K + binlog statement cache 32K = 160 KiB) and keeps its thread (the
    # calibrated 390,912 bytes resident; thread_stack is reserved, not resident); all 100 may run a statement:
    # sort 256K + join 256K + read 128K + read_rnd 256K = 896 KiB
    assert terms["connections_idle"] == 100 * 160 * KIB
    assert terms["connections_active"] == 100 * 896 * KIB
    assert terms["connection_threads"] == 100 * 390_912
    assert terms["buffer_pool"] == 128 * MIB  # mysqld default, one instance below 1 GiB
    assert terms["log_buffer"] == 16 * MIB  # 8.0 default
    assert terms["temporary_tables"] == GIB  # 8.0 temptable_max_ram default
    assert terms["server_overhead"] == 300 * MIB
    assert terms["page_cache_reserve"] == 429_496_730  # ceil(0.05 x 8 GiB = 429496729.6)
    assert terms["xcom_cache"] == GIB + 50 * MIB  # M4: default cache + structures
    # M5 with server defaults: 4 workers x 50 tps = 200 tps; queue 25000 + 4 x 200 = 25800;
    # 200 x 60 s + 25800 = 37800 transactions x 4096 bytes = 154,828,800 bytes (inside [128 MiB, 1.5 GiB])
    assert terms["certification_info"] == 37_800 * 4096
    # descriptors: 128 MiB pool in one 128 MiB chunk = 8192 pages x 512 bytes = 4 MiB (whole pages)
    assert terms["buffer_pool_descriptors"] == 8192 * 512
    # performance_schema: 128 MiB + its per-thread slots: 100 + 1 connections and 64 background threads fill one
    # page of 256 threads, allocated whole (no performance_schema_max_thread_instances)
    assert terms["performance_schema"] == 128 * MIB + 256 * 384 * KIB
    # fragmentation: 10% of every heap term (all but pool, descriptors, page cache; no gcache on GR)
    heap = sum(
        v
        for k, v in terms.items()
        if k not in ("buffer_pool", "buffer_pool_descriptors", "page_cache_reserve", "allocator_fragmentation")
    )
    assert terms["allocator_fragmentation"] == -(-heap // 10)
    assert "gcache" not in terms


def test_certification_follows_the_queue_the_config_allows():
    base = {"max_connections": "100", "replica_parallel_workers": "32"}
    strict = {
        **base,
        "group_replication_flow_control_applier_threshold": "500",
        "group_replication_flow_control_certifier_threshold": "500",
    }
    loose = {**base, "group_replication_flow_control_applier_threshold": "25000"}  # certifier stays 25000 too
    reserve = {
        name: model(o, engine="group-replication", limit_bytes=64 * GIB, thresholds=THRESHOLDS).terms["certification_info"]
        for name, o in (("strict", strict), ("loose", loose))
    }
    # 32 x 50 = 1600 tps; strict: 1600 x 60 + 500 + 6400 = 102,900 trx; loose: 96,000 + 25,000 + 6,400 = 127,400
    assert reserve["strict"] == 102_900 * 4096
    assert reserve["loose"] == 127_400 * 4096
    disabled = model(
        {**strict, "group_replication_flow_control_mode": "DISABLED"},
        engine="group-replication",
        limit_bytes=64 * GIB,
        thresholds=THRESHOLDS,
    )
    assert disabled.terms["certification_info"] == 1536 * MIB  # unbounded queue: the cap


def test_certification_reads_the_older_workers_name():
    new = model({"replica_parallel_workers": "16"}, engine="group-replication", limit_bytes=64 * GIB, thresholds=THRESHOLDS)
    old = model({"slave_parallel_workers": "16"}, engine="group-replication", limit_bytes=64 * GIB, thresholds=THRESHOLDS)
    # 16 x 50 = 800 tps: 800 x 60 + 25000 + 4 x 800 = 76,200 transactions x 4 KiB
    assert new.terms["certification_info"] == old.terms["certification_info"] == 76_200 * 4096


def test_performance_schema_off_costs_nothing():
    memory = model({"performance_schema": "OFF"}, engine="pxc", limit_bytes=8 * GIB, thresholds=THRESHOLDS)
    assert memory.terms["performance_schema"] == 0


def test_descriptors_follow_buf_chunk_init_per_chunk():
    # 40 GiB in 128 MiB chunks: 320 chunks x 8192 pages x 512 bytes = 320 x 4 MiB = 1280 MiB (3.125%)
    memory = model(
        {"innodb_buffer_pool_size": str(40 * GIB), "innodb_buffer_pool_instances": "8"},
        engine="pxc",
        limit_bytes=64 * GIB,
        thresholds=THRESHOLDS,
    )
    assert memory.terms["buffer_pool_descriptors"] == 1280 * MIB


def test_pxc_reads_gcache_from_provider_options_and_84_defaults():
    limit = 64 * GIB
    options = {"wsrep_provider_options": "gcache.size=2G; gcs.fc_limit=100", "innodb_buffer_pool_size": str(40 * GIB)}
    memory = model(options, engine="pxc", limit_bytes=limit, thresholds=THRESHOLDS, version="8.4", cpu_millicores=16000)
    assert memory.terms["gcache"] == 2 * GIB
    assert memory.terms["log_buffer"] == 64 * MIB  # 8.4 default
    assert memory.terms["temporary_tables"] == int(64 * GIB * 0.03)  # 3% of 64 GiB is inside 1-4 GiB
    # 8.4 instances: min(pool/chunk/2 = 160, CPUs/4 = 4) = 4; 4 x 128 MiB divides 40 GiB
    assert memory.buffer_pool_rounded == 40 * GIB
    assert "xcom_cache" not in memory.terms


def test_fits_and_headroom():
    limit = 4 * GIB
    options = {"innodb_buffer_pool_size": str(3 * GIB), "max_connections": "10"}
    memory = model(options, engine="pxc", limit_bytes=limit, thresholds=THRESHOLDS)
    assert memory.peak_bytes == sum(memory.terms.values())
    assert memory.headroom_bytes == limit - memory.peak_bytes
    # 3 GiB pool + 1 GiB temptable default (+ descriptors, performance_schema...) exceed 4 GiB
    assert not memory.fits


def test_unreadable_size_raises_value_error():
    with pytest.raises(ValueError):
        model({"innodb_buffer_pool_size": "lots"}, engine="pxc", limit_bytes=GIB, thresholds=THRESHOLDS)


def test_performance_schema_slots_come_in_pages_of_256_unless_bounded():
    base = {
        "max_connections": "100",
        "thread_handling": "pool-of-threads",
        "thread_pool_size": "2",
        "thread_pool_max_threads": "103",
    }

    def charged(**extra):
        options = {**base, **extra}
        return model(options, engine="pxc", limit_bytes=8 * GIB, thresholds=THRESHOLDS).terms["performance_schema"] - 128 * MIB

    # demand: 100 + 1 connections, min(103, 100 + 1 + 2) pool threads + 20 admin, 64 background threads = 288;
    # autosized (unset or -1, or anything below -1, which mysqld raises to -1): two whole pages of 256 threads
    for autosized in ({}, {"performance_schema_max_thread_instances": "-1"}, {"performance_schema_max_thread_instances": " -7 "}):
        assert charged(**autosized) == 512 * 384 * KIB
    # bounded: the last page holds only the remainder; threads beyond are lost to instrumentation, not charged
    assert charged(performance_schema_max_thread_instances="300") == 300 * 384 * KIB
    assert charged(performance_schema_max_thread_instances="100") == 100 * 384 * KIB
    assert charged(performance_schema_max_thread_instances="0") == 0
    # Galera appliers count as threads too (either name): 288 + 300 = 588 threads take a third page
    assert charged(wsrep_slave_threads="300") == charged(wsrep_applier_threads="300") == 768 * 384 * KIB
