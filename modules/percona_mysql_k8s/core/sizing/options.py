"""The mysqld options sizing writes, and the memory model evaluated on them (M1-M6, K6, F1-F7, G1-G4).

:func:`memory_options` is everything that enters the memory model except the buffer pool; the engine
evaluates it many times while it searches the connection count and the buffer scale. :func:`io_options` and
:func:`flow_control_options` complete the configuration once those are chosen.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

from .. import flow_control
from ..bounds import MIN_DISK_IOPS
from ..connection_cost import STATEMENT_BUFFER_KEYS, connection_costs, thread_pool_options
from ..memory import (
    GROUP_REPLICATION,
    MESSAGE_CACHE_DEFAULT,
    MESSAGE_CACHE_MIN,
    MemoryModel,
    instrumented_thread_demand,
    model,
    temptable_for_container,
)
from ..mycnf import PROVIDER_OPTIONS, normalize_key, render_provider_options
from ..mysqld_catalog import BY_NAME
from ..profiles import LoadProfile
from ..units import KIB, MIB
from .appliers import galera_appliers, gr_queue
from .inputs import SizingInput

# Per-connection buffers (sort, join, read, read_rnd) are scaled in 1/256 steps of the load profile's
# value, down to 1/64: the ratio that takes the largest profile sort buffer (write-heavy, 2 MiB) to
# mysqld's 32 KiB minimum. Each is a multiple of 4 KiB and at least mysqld's own minimum (core/mysqld_catalog.py).
BUFFER_SCALE_FULL, BUFFER_SCALE_MIN = 256, 4
BUFFER_STEP = 4 * KIB
BUFFER_MINIMUMS = {key: math.ceil(BY_NAME[key].minimum / BUFFER_STEP) * BUFFER_STEP for key in STATEMENT_BUFFER_KEYS}


def per_connection_options(profile: LoadProfile, scale: int = BUFFER_SCALE_FULL) -> dict[str, str]:
    """The profile's per-connection buffers at ``scale``/256 of their size (4 KiB multiples, mysqld's minimums)."""
    sizes = {key: getattr(profile, key) for key in STATEMENT_BUFFER_KEYS}
    if scale >= BUFFER_SCALE_FULL:
        return {key: str(value) for key, value in sizes.items()}
    return {
        key: str(max(BUFFER_MINIMUMS[key], value * scale // BUFFER_SCALE_FULL // BUFFER_STEP * BUFFER_STEP))
        for key, value in sizes.items()
    }


def retention_cache_bytes(limit: int) -> int:
    """Size of the rejoin ring buffer (GR XCom cache M4, Galera gcache).

    One sixteenth of the mysqld limit, within [128 MiB, 1 GiB]: the GR default of 1 GiB is reached at a
    16 GiB container (the seed's 64 GB nodes ran it), and small containers fall to the M4 minimum. In
    whole bytes, like every term that grows with the limit, so the buffer pool never shrinks as it grows.
    """
    return min(MESSAGE_CACHE_DEFAULT, max(MESSAGE_CACHE_MIN, limit // 16))


def _normalized(options: Mapping[str, str]) -> dict[str, str]:
    """The options as the memory model reads them (``loose_`` prefixes and dashes removed)."""
    return {normalize_key(key): value for key, value in options.items()}


def memory_options(
    inp: SizingInput,
    profile: LoadProfile,
    limit: int,
    connections: int,
    cpu: int,
    thresholds: Mapping[str, float],
    scale: int = BUFFER_SCALE_FULL,
) -> dict[str, str]:
    """Everything that enters the memory model except the buffer pool."""
    log_buffer = max(MIB, min(profile.log_buffer_bytes, limit // 64 // KIB * KIB))
    # MySQL 8.4's own temptable_max_ram rule (3% of memory, at most 4 GiB), applied to the container limit.
    temptable = temptable_for_container(limit)
    tmp_table = min(16 * MIB, temptable)
    options = {
        "max_connections": str(connections),
        **per_connection_options(profile, scale),
        "innodb_log_buffer_size": str(log_buffer),
        "temptable_max_ram": str(temptable),
        "tmp_table_size": str(tmp_table),
        "max_heap_table_size": str(tmp_table),
    }
    if inp.mysql_version == "8.0":
        options["temptable_max_mmap"] = "0"  # overflow to InnoDB on disk, not to page-cache mmap files
    if inp.thread_pool:  # M6: idle connections hold no thread; the cap admits a thread for every connection
        options.update(thread_pool_options(cpu, connections))
    if inp.engine == GROUP_REPLICATION:
        queue = gr_queue(cpu, thresholds)  # F2/F3/F6: they size the certification reserve (M5)
        options["loose_group_replication_message_cache_size"] = str(retention_cache_bytes(limit))
        options["replica_parallel_workers"] = str(queue.appliers)
        options["loose_group_replication_flow_control_applier_threshold"] = str(queue.threshold)
        options["loose_group_replication_flow_control_certifier_threshold"] = str(queue.threshold)
    else:
        options[PROVIDER_OPTIONS] = render_provider_options({"gcache.size": retention_cache_bytes(limit)})
        options["wsrep_applier_threads"] = str(galera_appliers(cpu, thresholds))
    # M1: performance_schema's per-thread slots for every thread that can exist, not whole pages of 256
    costs = connection_costs(_normalized(options), thresholds)
    options["performance_schema_max_thread_instances"] = str(instrumented_thread_demand(options, costs))
    return options


def evaluate(inp: SizingInput, options: Mapping[str, str], limit: int, thresholds: Mapping[str, float], cpu: int) -> MemoryModel:
    """The memory model (M1) of ``options`` in a mysqld container of ``limit`` bytes and ``cpu`` millicores."""
    return model(
        _normalized(options),
        engine=inp.engine,
        limit_bytes=limit,
        thresholds=thresholds,
        version=inp.mysql_version,
        cpu_millicores=cpu,
    )


def io_options(inp: SizingInput, profile: LoadProfile, cpu: int, connections: int, redo: int) -> dict[str, str]:
    """Durability, IO and the table caches: the redo capacity (K6) and what follows from the cores and the volume."""
    cores = cpu / 1000
    io_capacity = max(MIN_DISK_IOPS, inp.disk_iops // 2)  # innodb_io_capacity's minimum (core/bounds.py)
    return {
        "innodb_redo_log_capacity": str(redo),
        "innodb_flush_log_at_trx_commit": "1",
        "sync_binlog": "1",
        "innodb_flush_method": "O_DIRECT",
        "innodb_io_capacity": str(io_capacity),
        "innodb_io_capacity_max": str(max(io_capacity, inp.disk_iops)),
        "innodb_purge_threads": str(max(1, min(32, math.ceil(cores * profile.purge_threads_per_core)))),
        "innodb_parallel_read_threads": str(max(1, min(256, math.floor(cores)))),
        "innodb_adaptive_hash_index": "ON" if profile.adaptive_hash_index else "OFF",
        "thread_cache_size": str(min(100, 8 + connections // 100)),
        "table_open_cache": "4000",
        "table_open_cache_instances": str(max(1, min(16, math.floor(cores)))),
        "table_definition_cache": "2000",
    }


@dataclass(frozen=True)
class FlowControl:
    """The flow-control options (F1-F7, G1-G4) and the queue they bound, drained at ``rate`` (F5)."""

    options: Mapping[str, str]
    rate: float
    queue_bound: float


def flow_control_options(inp: SizingInput, cpu: int, limit: int, thresholds: Mapping[str, float]) -> FlowControl:
    if inp.engine == GROUP_REPLICATION:
        queue = gr_queue(cpu, thresholds)
        options = {
            "loose_group_replication_flow_control_mode": "QUOTA",
            "loose_group_replication_flow_control_applier_threshold": str(queue.threshold),
            "loose_group_replication_flow_control_certifier_threshold": str(queue.threshold),
            "loose_group_replication_flow_control_min_quota": "0",
            "loose_group_replication_flow_control_hold_percent": "100",
            "loose_group_replication_flow_control_release_percent": "5",
            "loose_group_replication_flow_control_period": str(flow_control.GR_FLOW_CONTROL_PERIOD_SECONDS),
            # Hold (not reject) new writes on a new primary until its backlog is applied; strict
            # consistency is for sessions that need it (F7).
            "loose_group_replication_consistency": "BEFORE_ON_PRIMARY_FAILOVER",
            "replica_parallel_workers": str(queue.appliers),
            "replica_preserve_commit_order": "ON",
        }
        if inp.mysql_version == "8.0":
            options["binlog_transaction_dependency_tracking"] = "WRITESET"
        # F5: with the polling overshoot
        return FlowControl(options, queue.rate, flow_control.gr_queue_bound(queue.threshold, queue.rate, thresholds))
    appliers = galera_appliers(cpu, thresholds)
    rate = flow_control.apply_rate_tps(appliers, thresholds)
    fc_limit = flow_control.galera_fc_limit(rate, inp.cluster_size, thresholds)
    provider = render_provider_options(
        {
            "gcache.size": retention_cache_bytes(limit),
            "gcache.recover": "yes",
            "gcs.fc_limit": fc_limit,
            # Galera 4's default: resume as soon as the queue is back under the limit; the bound on
            # the queue (and so on failover) is fc_limit.
            "gcs.fc_factor": str(flow_control.GALERA_FC_FACTOR_DEFAULT),
        }
    )
    options = {PROVIDER_OPTIONS: provider, "wsrep_applier_threads": str(appliers), "wsrep_sync_wait": "1"}
    return FlowControl(options, rate, flow_control.galera_effective_queue(fc_limit, inp.cluster_size))
