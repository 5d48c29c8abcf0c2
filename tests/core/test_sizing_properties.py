"""Sizing invariants over the whole input domain the flags accept (hypothesis): int64 budgets, any count.

Every input is either a clean InputError or a sizing that fits: modeled peak <= mysqld limit, all
containers <= the budget, requests = limits, every value inside mysqld's documented range, thresholds
never above the F2/G1 maxima, probes never below the operator defaults (K6).
"""

from dataclasses import replace

from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis import strategies as st
from percona_mysql_k8s.core.connections import deliverable_connections, fewest_connections
from percona_mysql_k8s.core.errors import InputError
from percona_mysql_k8s.core.machines import catalog
from percona_mysql_k8s.core.mycnf import normalize_key, parse_provider_options
from percona_mysql_k8s.core.probes import OPERATOR_DEFAULTS
from percona_mysql_k8s.core.profiles import LOADS
from percona_mysql_k8s.core.redo import MAX_CRASH_RECOVERY_SECONDS, MAX_REDO_VOLUME_FRACTION, REDO_MIN, recovery_bytes_per_second
from percona_mysql_k8s.core.report import to_json
from percona_mysql_k8s.core.rules import THRESHOLDS
from percona_mysql_k8s.core.sizing import SizingInput, size
from percona_mysql_k8s.core.units import GIB, MIB

ENGINE_PROXIES = {"pxc": ("haproxy", "proxysql"), "group-replication": ("haproxy", "router")}

# mysqld's documented ranges (MySQL 8.0/8.4 server system variables; Galera provider options).
RANGES = {
    "innodb_buffer_pool_size": (5 * MIB, 2**64 - 1),
    "innodb_buffer_pool_chunk_size": (MIB, 2**63),
    "innodb_buffer_pool_instances": (1, 64),
    "innodb_redo_log_capacity": (8 * MIB, 128 * GIB),
    "innodb_log_buffer_size": (MIB, 4 * GIB),
    "max_connections": (1, 100_000),
    "sort_buffer_size": (32 * 1024, 2**63),
    "join_buffer_size": (128, 2**63),
    "read_buffer_size": (8192, 2 * GIB),
    "read_rnd_buffer_size": (1, 2 * GIB),
    "temptable_max_ram": (2 * MIB, 2**63),
    "temptable_max_mmap": (0, 2**63),
    "tmp_table_size": (1024, 2**63),
    "max_heap_table_size": (16384, 2**63),
    "thread_cache_size": (0, 16384),
    "table_open_cache": (1, 524288),
    "table_open_cache_instances": (1, 64),
    "table_definition_cache": (400, 524288),
    "innodb_io_capacity": (100, 2**64 - 1),
    "innodb_io_capacity_max": (100, 2**64 - 1),
    "innodb_purge_threads": (1, 32),
    "innodb_parallel_read_threads": (1, 256),
    "replica_parallel_workers": (0, 1024),
    "wsrep_applier_threads": (1, 512),
    "wsrep_sync_wait": (0, 15),
    "group_replication_message_cache_size": (128 * MIB, 2**63),
    "group_replication_flow_control_applier_threshold": (0, 2**31 - 1),
    "group_replication_flow_control_certifier_threshold": (0, 2**31 - 1),
    "group_replication_flow_control_min_quota": (0, 2**31 - 1),
    "group_replication_flow_control_hold_percent": (0, 100),
    "group_replication_flow_control_release_percent": (0, 1000),
    "group_replication_flow_control_period": (1, 60),
    "sync_binlog": (0, 2**32 - 1),
    "innodb_flush_log_at_trx_commit": (0, 2),
    # Percona Server's thread pool (docs.percona.com/percona-server/8.0/threadpool.html; MAX_THREAD_GROUPS 1024)
    "thread_pool_size": (1, 1024),
    "thread_pool_oversubscribe": (1, 1000),
    "thread_pool_max_threads": (1, 100_000),
    "performance_schema_max_thread_instances": (-1, 1_048_576),  # MySQL 8.0 server system variables
}
ENUMS = {
    "innodb_flush_method": {"O_DIRECT"},
    "innodb_adaptive_hash_index": {"ON", "OFF"},
    "group_replication_flow_control_mode": {"QUOTA"},
    "group_replication_consistency": {"EVENTUAL", "BEFORE_ON_PRIMARY_FAILOVER", "BEFORE", "AFTER", "BEFORE_AND_AFTER"},
    "replica_preserve_commit_order": {"ON"},
    "binlog_transaction_dependency_tracking": {"WRITESET"},
    "wsrep_provider_options": None,  # checked below
    "thread_handling": {"pool-of-threads"},
}


# The whole domain the flags accept: any Kubernetes quantity (int64) for the budget, any connection count
# mysqld accepts, any IOPS. Most draws stay in the range where members are real; some go to the edges.
MAX_QUANTITY = 2**63 - 1


def _mostly(common, *edges):
    """``common`` eight draws in ten, each edge strategy in the rest."""
    return st.integers(0, 9).flatmap(lambda i: edges[i % len(edges)] if i >= 8 else common)


# Common draws start where a member with every sidecar runs (about 500m, 1.5 GiB); edges cover the rest.
CPU = _mostly(st.integers(500, 128_000), st.integers(1, 500), st.integers(128_000, MAX_QUANTITY))
MEMORY = _mostly(st.integers(1536 * MIB, 512 * GIB), st.integers(1, 1536 * MIB), st.integers(512 * GIB, MAX_QUANTITY))
CONNECTIONS = _mostly(st.one_of(st.just(0), st.integers(20, 20_000)), st.integers(0, 100_000))
IOPS = _mostly(st.integers(100, 200_000), st.integers(100, MAX_QUANTITY))


@st.composite
def inputs(draw):
    engine = draw(st.sampled_from(sorted(ENGINE_PROXIES)))
    sizes = (3, 5) if engine == "pxc" else (3, 5, 7)
    return SizingInput(
        engine=engine,
        load=draw(st.sampled_from(LOADS)),
        connections=draw(CONNECTIONS),
        proxy=draw(st.sampled_from(ENGINE_PROXIES[engine])),
        thread_pool=draw(st.booleans()),
        pmm=draw(st.booleans()),
        log_collector=draw(st.booleans()) if engine == "pxc" else None,
        backup=draw(st.booleans()),
        mysql_version=draw(st.sampled_from(("8.0", "8.4"))),
        cluster_size=draw(st.sampled_from(sizes)),
        disk_iops=draw(IOPS),
        volume_bytes=draw(st.one_of(st.none(), st.integers(GIB, 16 * 1024 * GIB))),
        cpu_millicores=draw(CPU),
        memory_bytes=draw(MEMORY),
    )


def _sized(inp):
    try:
        return size(inp)
    except InputError as error:
        assert error.key and str(error)
        return None


def _check_values(result):
    for key, value in result.mysqld.items():
        name = normalize_key(key)
        if name in RANGES:
            low, high = RANGES[name]
            assert low <= int(value) <= high, (key, value)
        elif name == "wsrep_provider_options":
            options = parse_provider_options(value)
            assert 1 <= int(options["gcs.fc_limit"]) <= result.thresholds["max_fc_limit"]  # G1
            assert 0 < float(options["gcs.fc_factor"]) <= 1  # G2
            assert int(options["gcache.size"]) >= 128 * MIB
        else:
            assert name in ENUMS and value in ENUMS[name], (key, value)
    pool = int(result.mysqld["innodb_buffer_pool_size"])
    assert int(result.mysqld["innodb_redo_log_capacity"]) <= max(8 * MIB, pool)  # redo never beyond the pool
    chunk, instances = int(result.mysqld["innodb_buffer_pool_chunk_size"]), int(result.mysqld["innodb_buffer_pool_instances"])
    assert chunk % MIB == 0 and pool % (chunk * instances) == 0 and pool // chunk <= 1000


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(inputs())
def test_every_answer_fits_or_is_a_clean_error(inp):
    result = _sized(inp)
    if result is None:
        return
    memory = result.memory
    assert memory.fits and memory.peak_bytes <= memory.limit_bytes  # M1
    assert memory.buffer_pool_rounded >= 5 * MIB  # InnoDB's minimum: an answer is a mysqld that starts
    # T5: mysqld accepts every backend connection the proxy pods can open, plus min_connections of its own
    limits = result.proxy_limits
    assert result.connections >= inp.cluster_size * limits.backend_limit + result.thresholds["min_connections"]
    assert result.proxy_connections == limits.client_limit >= 1
    assert memory.buffer_pool_rounded == int(result.mysqld["innodb_buffer_pool_size"])
    total = result.member_total
    assert total.cpu_millicores <= result.budget_cpu_millicores
    assert total.memory_bytes <= result.budget_memory_bytes
    answer = to_json(result)
    for resources in answer["resources"].values():
        assert resources["requests"] == resources["limits"]  # K2: Guaranteed QoS
        assert resources["limits"]["cpu"] > 0 and resources["limits"]["memory"] > 0
    for amount in ("cpu", "memory"):  # one entry per container instance: the entries add up to the member
        assert sum(r["limits"][amount] for r in answer["resources"].values()) == answer["pods"]["member"]["limits"][amount]
    _check_values(result)
    assert result.brownout_seconds <= result.thresholds["max_failover_brownout_seconds"]  # F5
    if inp.engine == "group-replication":
        applier = int(result.mysqld["loose_group_replication_flow_control_applier_threshold"])
        assert applier <= 1000 and result.mysqld["loose_group_replication_flow_control_certifier_threshold"] == str(applier)
        assert int(result.mysqld["replica_parallel_workers"]) <= result.mysqld_cpu_millicores / 1000 * 2.5  # F6
    for component, kinds in result.probes.items():
        for kind, probe in kinds.items():
            default = OPERATOR_DEFAULTS[(inp.engine, component)][kind]
            assert probe.timeoutSeconds >= default.timeoutSeconds  # K6
            assert probe.failureThreshold >= default.failureThreshold
    # K6/F5: a mysqld draining a failover backlog (with the flow-control overshoot) is not killed mid-drain
    assert result.probes["mysqld"]["liveness"].timeoutSeconds >= result.brownout_seconds


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(inputs())
def test_derived_connections_give_up_the_buffer_pool_share_only_where_the_fewest_cannot_keep_it(inp):
    result = _sized(replace(inp, connections=0))
    assume(result is not None)
    t = result.thresholds
    # M6: between the fewest the proxies need and what they open at their shipped limits
    assert fewest_connections(inp.proxy, inp.cluster_size, t) <= result.connections
    assert result.connections <= deliverable_connections(inp.proxy, inp.cluster_size, t)
    costs = result.memory.connections
    if inp.thread_pool:  # statements on the cores run with their buffers; every connection may hold a thread
        assert costs.active == min(result.connections + 1, 4 * int(result.mysqld["thread_pool_size"]))
    if result.memory.buffer_pool_rounded < t["derived_min_buffer_pool_share"] * result.mysqld_memory_bytes:
        fewest = _sized(replace(inp, connections=fewest_connections(inp.proxy, inp.cluster_size, t)))
        assert (
            fewest is None or fewest.memory.buffer_pool_rounded < t["derived_min_buffer_pool_share"] * fewest.mysqld_memory_bytes
        )


@settings(max_examples=200, deadline=None)
@given(inputs(), st.integers(1, 64 * GIB))
def test_more_memory_never_gives_a_smaller_buffer_pool(inp, extra):
    inp = replace(inp, connections=inp.connections or 100)
    assume(inp.memory_bytes + extra <= MAX_QUANTITY)
    smaller = _sized(inp)
    assume(smaller is not None)
    larger = size(replace(inp, memory_bytes=inp.memory_bytes + extra))  # more memory: still fits
    assert larger.memory.buffer_pool_rounded >= smaller.memory.buffer_pool_rounded


@settings(max_examples=200, deadline=None)
@given(inputs())
def test_group_replication_gets_a_smaller_buffer_pool_than_pxc(inp):
    # Same budget and connections, HAProxy, no PXC-only sidecars: only M4/M5 differ (and gcache, far smaller).
    common = dict(
        cpu_millicores=inp.cpu_millicores,
        memory_bytes=inp.memory_bytes,
        load=inp.load,
        pmm=inp.pmm,
        connections=inp.connections or 100,
        mysql_version=inp.mysql_version,
        proxy="haproxy",
    )
    pxc = _sized(SizingInput(engine="pxc", log_collector=False, **common))
    group = _sized(SizingInput(engine="group-replication", **common))
    assume(pxc is not None and group is not None)
    assert group.memory.buffer_pool_rounded < pxc.memory.buffer_pool_rounded


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(inputs())
def test_certification_reserve_within_floor_and_cap(inp):
    # every drawn budget as a group replication member (drawing the engine would discard half the inputs)
    result = _sized(replace(inp, engine="group-replication", proxy="haproxy", log_collector=None, cluster_size=3))
    assume(result is not None)
    reserve = result.memory.terms["certification_info"]
    t = result.thresholds
    assert t["certification_min_bytes"] <= reserve <= t["certification_max_bytes"]  # M5
    # and never below what one GC period at the apply rate plus the queue bound needs, unless capped
    needed = (result.apply_rate_tps * t["certification_gc_period_seconds"] + result.queue_bound) * t[
        "certification_bytes_per_transaction"
    ]
    assert reserve >= min(needed, t["certification_max_bytes"])


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(inputs())
def test_redo_recoverable_within_the_probes_and_a_share_of_the_volume(inp):
    result = _sized(inp)
    assume(result is not None)
    redo = int(result.mysqld["innodb_redo_log_capacity"])
    # K6: recovery at IOPS x 16 KiB / 2 finishes within 300 s (the PXC liveness delay)
    assert redo <= max(REDO_MIN, MAX_CRASH_RECOVERY_SECONDS * recovery_bytes_per_second(inp.disk_iops))
    if inp.volume_bytes is not None:
        assert redo <= max(REDO_MIN, inp.volume_bytes * MAX_REDO_VOLUME_FRACTION)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(catalog()), st.sampled_from(("pxc", "group-replication")), st.sampled_from(LOADS))
def test_node_sizings_leave_the_daemonsets_and_the_margin(machine, engine, load):
    """K1/K5: on every catalog node, member + provider DaemonSets + margin <= allocatable (or a clean refusal)."""
    result = _sized(SizingInput(engine=engine, load=load, node_type=machine.name, provider=machine.provider))
    assume(result is not None)
    node, member = result.node, result.member_total
    assert node.daemonset_cpu_millicores > 0 and node.margin_cpu_millicores >= 100
    assert member.cpu_millicores + node.daemonset_cpu_millicores + node.margin_cpu_millicores <= node.allocatable_cpu_millicores
    assert member.memory_bytes + node.daemonset_memory_bytes + node.margin_memory_bytes <= node.allocatable_memory_bytes


def _threshold_values(threshold):
    """Values inside a threshold's own domain (core/rules.py), up to 100 x its default where it has no maximum."""
    low = threshold.minimum if threshold.minimum is not None else 0
    high = threshold.maximum if threshold.maximum is not None else max(low, threshold.default) * 100
    if threshold.kind == "integer":
        low = low + 1 if threshold.exclusive_minimum else low
        high = high - 1 if threshold.exclusive_maximum else high
        return st.integers(int(low), int(high))
    return st.floats(
        low,
        high,
        exclude_min=threshold.exclusive_minimum,
        exclude_max=threshold.exclusive_maximum,
        allow_nan=False,
        allow_infinity=False,
    )


SIZING_THRESHOLDS = sorted(name for name in THRESHOLDS if name not in ("min_proxy_pods", "min_backup_retention_days"))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(inputs(), st.data())
def test_every_threshold_inside_its_domain_gives_a_fitting_answer_or_a_clean_error(inp, data):
    names = data.draw(st.lists(st.sampled_from(SIZING_THRESHOLDS), max_size=4, unique=True))
    overrides = {name: data.draw(_threshold_values(THRESHOLDS[name]), label=name) for name in names}
    result = _sized(replace(inp, thresholds=overrides))
    event("answered" if result is not None else "refused")
    if result is None:
        return
    assert result.memory.fits and result.memory.buffer_pool_rounded >= 5 * MIB  # M1
    total = result.member_total
    assert total.cpu_millicores <= result.budget_cpu_millicores and total.memory_bytes <= result.budget_memory_bytes
    _check_values(result)
    answer = to_json(result)
    assert "Infinity" not in repr(answer) and "nan" not in repr(answer)
    # F5: a budget no setting meets is refused; an answer never exceeds it silently
    assert result.brownout_seconds <= result.thresholds["max_failover_brownout_seconds"] * (1 + 1e-12)
