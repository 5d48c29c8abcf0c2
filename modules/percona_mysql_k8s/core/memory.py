"""The mysqld memory model (rules M1-M5): every term named, computed from a my.cnf.

``model(...)`` is the one definition of the peak. The sizing engine evaluates it on the configuration it
emits; the policy pack evaluates it on any configuration it finds (hand-written custom resources, Helm
values), with mysqld's own defaults for keys that are not set. So a value is judged the same way
wherever it comes from.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

from . import flow_control
from .connection_cost import ConnectionCosts, connection_costs
from .galera_options import integer as galera_integer
from .mycnf import PROVIDER_OPTIONS, parse_provider_options
from .units import GIB, MIB, parse_mysql_size

PXC = "pxc"
GROUP_REPLICATION = "group-replication"
ENGINES = (PXC, GROUP_REPLICATION)
MYSQL_VERSIONS = ("8.0", "8.4")

# F5/M5 inputs of the certification reserve: the server defaults (MySQL 8.0.27+ / 8.4), read by the pack too
REPLICA_WORKERS_DEFAULT = 4  # replica_parallel_workers
GR_FLOW_CONTROL_THRESHOLD_DEFAULT = 25000  # group_replication_flow_control_{applier,certifier}_threshold

# mysqld defaults for the terms (MySQL 8.0 / 8.4 reference manual, server system variables).
_DEFAULTS = {
    "innodb_buffer_pool_size": 128 * MIB,
    "innodb_buffer_pool_chunk_size": 128 * MIB,
    "group_replication_message_cache_size": GIB,
    "replica_parallel_workers": REPLICA_WORKERS_DEFAULT,
    "group_replication_flow_control_applier_threshold": GR_FLOW_CONTROL_THRESHOLD_DEFAULT,
    "group_replication_flow_control_certifier_threshold": GR_FLOW_CONTROL_THRESHOLD_DEFAULT,
}
INNODB_PAGE_BYTES = 16 * 1024  # innodb_page_size default: the unit buf_chunk_init reserves descriptors in
# temptable_max_ram (MySQL 8.4): 3% of the memory, within [1 GiB, 4 GiB]
TEMPTABLE_SHARE_PERCENT = 3
TEMPTABLE_MIN, TEMPTABLE_MAX = GIB, 4 * GIB
# Terms mmapped in large blocks, outside malloc's arenas: no fragmentation is charged on them (M1).
_MMAPPED_TERMS = ("buffer_pool", "buffer_pool_descriptors", "gcache", "page_cache_reserve")
_LOG_BUFFER_DEFAULT = {"8.0": 16 * MIB, "8.4": 64 * MIB}
GALERA_GCACHE_DEFAULT = 128 * MIB
# group_replication_message_cache_size bounds (M4): default 1 GiB, minimum 128 MiB.
MESSAGE_CACHE_MIN = 128 * MIB
MESSAGE_CACHE_DEFAULT = GIB
# Buffer-pool rounding limits (InnoDB): at most 64 instances; instances count only from 1 GiB.
MAX_BUFFER_POOL_INSTANCES = 64
MULTI_INSTANCE_MIN_POOL = GIB
# The connection terms (M1), from core/connection_cost.py: every admitted connection's session, the work buffers of
# the statements running on the CPUs at once, and every thread that can exist (one per connection without the
# thread pool; the pool's workers, blocked or running, with it).
CONNECTION_TERMS = ("connections_idle", "connections_active", "connection_threads")


@dataclass(frozen=True)
class MemoryModel:
    """Terms in bytes; ``peak`` is their sum and must not exceed ``limit_bytes`` (M1)."""

    limit_bytes: int
    terms: Mapping[str, int]
    buffer_pool_configured: int
    buffer_pool_rounded: int
    connections: ConnectionCosts | None = None

    @property
    def peak_bytes(self) -> int:
        return sum(self.terms.values())

    @property
    def headroom_bytes(self) -> int:
        return self.limit_bytes - self.peak_bytes

    @property
    def fits(self) -> bool:
        return self.peak_bytes <= self.limit_bytes


def _size(options: Mapping[str, str], key: str, default: int) -> int:
    value = options.get(key)
    return default if value is None else parse_mysql_size(value)


def default_buffer_pool_instances(pool_bytes: int, chunk_bytes: int, version: str, cpu_millicores: int | None) -> int:
    """mysqld's default instance count: 8.0 uses 8; 8.4 uses min(pool/chunk/2, CPUs/4); 1 below 1 GiB."""
    if pool_bytes < MULTI_INSTANCE_MIN_POOL:
        return 1
    if version == "8.0":
        return 8
    cpus = (cpu_millicores or 8000) / 1000
    return max(1, min(MAX_BUFFER_POOL_INSTANCES, int(pool_bytes / chunk_bytes / 2), int(cpus / 4)))


def round_buffer_pool(pool_bytes: int, chunk_bytes: int, instances: int) -> int:
    """The buffer pool mysqld actually allocates (InnoDB buffer pool resizing rules).

    The pool is rounded *up* to a multiple of chunk x instances, as :func:`_effective_chunk_and_instances`
    leaves them.
    """
    chunk, instances = _effective_chunk_and_instances(pool_bytes, chunk_bytes, instances)
    unit = chunk * instances
    return math.ceil(pool_bytes / unit) * unit


def _effective_chunk_and_instances(pool_bytes: int, chunk_bytes: int, instances: int) -> tuple[int, int]:
    """(chunk, instances) mysqld really uses: below 1 GiB the instance count is ignored (one instance); chunks
    are whole MiB; when chunk x instances exceeds the pool, mysqld truncates the chunk to pool / instances."""
    if pool_bytes < MULTI_INSTANCE_MIN_POOL:
        instances = 1
    instances = max(1, min(instances, MAX_BUFFER_POOL_INSTANCES))
    chunk = max(MIB, chunk_bytes // MIB * MIB)
    if chunk * instances > pool_bytes:
        chunk = max(MIB, pool_bytes // instances // MIB * MIB)
    return chunk, instances


def temptable_default(version: str, limit_bytes: int) -> int:
    """temptable_max_ram default: 1 GiB on 8.0; 3% of memory within 1-4 GiB on 8.4."""
    if version == "8.0":
        return GIB
    return min(TEMPTABLE_MAX, max(TEMPTABLE_MIN, int(limit_bytes * TEMPTABLE_SHARE_PERCENT / 100)))


def temptable_for_container(limit_bytes: int) -> int:
    """The temptable_max_ram sizing sets: MySQL 8.4's rule (:func:`temptable_default`) on the container.

    Its 4 GiB cap applies. Its 1 GiB floor does not below a 33 GiB container: there 1 GiB would take
    more than 3% of the limit from the buffer pool, and a temporary table beyond temptable_max_ram only
    moves to disk (InnoDB), which costs speed, not memory. At least 2 MiB, so tiny containers still work.
    """
    return max(2 * MIB, min(temptable_default("8.4", limit_bytes), limit_bytes * TEMPTABLE_SHARE_PERCENT // 100))


def buffer_pool_descriptor_bytes(pool_rounded: int, chunk_bytes: int, descriptor_bytes: int) -> int:
    """M1: what InnoDB allocates beside the pages: one block descriptor per page, per chunk.

    buf_chunk_init (storage/innobase/buf/buf0buf.cc) adds (pages x sizeof(buf_block_t)) rounded up to
    whole pages to every chunk it allocates; the pool is a whole number of chunks after rounding.
    """
    if pool_rounded <= 0:
        return 0
    chunk = max(INNODB_PAGE_BYTES, min(chunk_bytes, pool_rounded))
    chunks = math.ceil(pool_rounded / chunk)
    per_chunk = math.ceil(chunk // INNODB_PAGE_BYTES * descriptor_bytes / INNODB_PAGE_BYTES) * INNODB_PAGE_BYTES
    return chunks * per_chunk


def pool_within(available: int, descriptor_bytes: int, max_chunks: int) -> int:
    """The largest pool whose pages and descriptors fit ``available`` bytes, for at most ``max_chunks`` chunks.

    Inverts :func:`buffer_pool_descriptor_bytes`: each page costs 16 KiB + descriptor_bytes, and each
    chunk's descriptors are rounded up by less than one page.
    """
    room = available - max_chunks * INNODB_PAGE_BYTES
    if room <= 0:
        return 0
    return room * INNODB_PAGE_BYTES // (INNODB_PAGE_BYTES + descriptor_bytes)


# performance_schema keeps its threads in a scalable buffer of pages of 256 (PFS_thread_container,
# storage/perfschema/pfs_buffer_container.h, mysql/mysql-server): a page's per-thread arrays are allocated and
# zero-filled whole when its first thread arrives (PFS_thread_allocator::alloc_array, MY_ZEROFILL -> memset in
# pfs_malloc), and never freed. With performance_schema_max_thread_instances set, the last page holds only the
# remainder and threads beyond it are not instrumented (counted as lost): memory, not service, is what it bounds.
PFS_THREAD_PAGE = 256
# Threads mysqld runs beside its connections, each instrumented: MySQL 8.0's own (InnoDB's I/O, log, purge and
# page-cleaner threads, the X plugin's, the signal handler, the event scheduler: ~45 in performance_schema.threads
# of a default server) and the replication service threads, rounded up; the appliers are counted from the options.
PFS_BACKGROUND_THREADS = 64
_APPLIER_KEYS = ("wsrep_applier_threads", "wsrep_slave_threads", "replica_parallel_workers", "slave_parallel_workers")


def instrumented_thread_demand(options: Mapping[str, str], costs: ConnectionCosts) -> int:
    """Threads performance_schema instruments at most: every connection mysqld admits (max_connections + 1), every
    thread the pool creates (its own PSI thread beside the connection's), the background and applier threads."""
    appliers = max((int(parse_mysql_size(options[key])) for key in _APPLIER_KEYS if key in options), default=0)
    pool = costs.threads if costs.thread_pool else 0
    return costs.connections + 1 + pool + PFS_BACKGROUND_THREADS + appliers


def instrumented_threads(demand: int, options: Mapping[str, str]) -> int:
    """The per-thread performance_schema slots allocated for ``demand`` threads: whole pages of 256, or the
    explicit performance_schema_max_thread_instances when that is fewer (-1, its default, means autosized)."""
    pages = math.ceil(demand / PFS_THREAD_PAGE) * PFS_THREAD_PAGE
    configured = (options.get("performance_schema_max_thread_instances") or "-1").strip()
    if configured.startswith("-"):  # the range starts at -1 (a signed long): my_getopt raises any lower value to it
        return pages
    return min(pages, int(parse_mysql_size(configured)))


def _performance_schema(options: Mapping[str, str], costs: ConnectionCosts, thresholds: Mapping[str, float]) -> int:
    """M1: performance_schema memory, which seed 000's ~300 MB query filters out (memory/performance%).

    Its per-thread arrays are allocated as threads arrive and never freed (MySQL manual, "The Performance Schema
    Memory-Allocation Model"), in pages of 256 threads (:func:`instrumented_threads`). Under the thread pool every
    connection still gets its own instrumented thread (``threadpool_add_connection`` calls
    ``PSI_THREAD_CALL(new_thread)``), and every worker one more (``mysql_thread_create(key_worker_thread, ...)``).
    """
    if options.get("performance_schema", "ON").strip().upper() in ("OFF", "0", "FALSE"):
        return 0
    slots = instrumented_threads(instrumented_thread_demand(options, costs), options)
    return int(thresholds["performance_schema_fixed_bytes"]) + slots * int(thresholds["performance_schema_bytes_per_connection"])


def _certification_info(options: Mapping[str, str], thresholds: Mapping[str, float]) -> int:
    """M5: from the write rate flow control lets through and the apply queue it allows (F5)."""
    workers = options.get("replica_parallel_workers", options.get("slave_parallel_workers"))  # 8.0's older name
    appliers = int(parse_mysql_size(workers if workers is not None else str(_DEFAULTS["replica_parallel_workers"])))
    threshold = max(
        int(parse_mysql_size(options.get(key, str(_DEFAULTS[key]))))
        for key in ("group_replication_flow_control_applier_threshold", "group_replication_flow_control_certifier_threshold")
    )
    if options.get("group_replication_flow_control_mode", "QUOTA").strip().upper() == "DISABLED":
        return int(thresholds["certification_max_bytes"])  # unbounded queue: the cap (M5 rejects this)
    rate = flow_control.apply_rate_tps(appliers, thresholds)
    return flow_control.certification_reserve_bytes(rate, flow_control.gr_queue_bound(threshold, rate, thresholds), thresholds)


def model(
    options: Mapping[str, str],
    *,
    engine: str,
    limit_bytes: int,
    thresholds: Mapping[str, float],
    version: str = "8.0",
    cpu_millicores: int | None = None,
) -> MemoryModel:
    """Evaluate M1 on normalized mysqld options (see :func:`percona_mysql_k8s.core.mycnf.mysqld_options`).

    Raises ``ValueError`` when a size cannot be read; the policy pack reports that as a violation.
    """
    if engine not in ENGINES:
        raise ValueError(f"engine must be one of {ENGINES}, got {engine!r}")
    pool = _size(options, "innodb_buffer_pool_size", _DEFAULTS["innodb_buffer_pool_size"])
    chunk = _size(options, "innodb_buffer_pool_chunk_size", _DEFAULTS["innodb_buffer_pool_chunk_size"])
    if "innodb_buffer_pool_instances" in options:
        instances = int(parse_mysql_size(options["innodb_buffer_pool_instances"]))
    else:
        instances = default_buffer_pool_instances(pool, chunk, version, cpu_millicores)
    pool_rounded = round_buffer_pool(pool, chunk, instances)

    costs = connection_costs(options, thresholds)

    terms: dict[str, int] = {
        "buffer_pool": pool_rounded,
        "buffer_pool_descriptors": buffer_pool_descriptor_bytes(
            pool_rounded,
            _effective_chunk_and_instances(pool, chunk, instances)[0],
            int(thresholds["buffer_pool_descriptor_bytes"]),
        ),
        "log_buffer": _size(options, "innodb_log_buffer_size", _LOG_BUFFER_DEFAULT[version]),
        "connections_idle": costs.idle_bytes,
        "connections_active": costs.active_bytes,
        "connection_threads": costs.thread_total_bytes,
        "temporary_tables": _size(options, "temptable_max_ram", temptable_default(version, limit_bytes)),
        "server_overhead": int(thresholds["fixed_server_overhead_bytes"]),
        "performance_schema": _performance_schema(options, costs, thresholds),
        "page_cache_reserve": math.ceil(limit_bytes * thresholds["page_cache_reserve_fraction"]),
    }
    if engine == PXC:
        provider = parse_provider_options(options.get(PROVIDER_OPTIONS))
        # gcache is a memory-mapped ring buffer: its pages count against the cgroup limit. Galera reads the
        # size as a C integer with one K/M/G/T suffix (galera_options.integer).
        size = provider.get("gcache.size")
        terms["gcache"] = GALERA_GCACHE_DEFAULT if size is None else galera_integer("gcache.size", size, 0)
    else:
        cache = _size(options, "group_replication_message_cache_size", _DEFAULTS["group_replication_message_cache_size"])
        terms["xcom_cache"] = cache + int(thresholds["xcom_structures_bytes"])  # M4
        terms["certification_info"] = _certification_info(options, thresholds)  # M5
    heap = sum(value for name, value in terms.items() if name not in _MMAPPED_TERMS)
    terms["allocator_fragmentation"] = math.ceil(heap * thresholds["allocator_fragmentation_fraction"])
    return MemoryModel(
        limit_bytes=limit_bytes, terms=terms, buffer_pool_configured=pool, buffer_pool_rounded=pool_rounded, connections=costs
    )
