"""The memory model against a real server (M1): what was measured, and the terms derived from it.

Each figure is a :class:`Measurement`: what was measured, on what, and where the number comes from. A term
calibrated on a measurement is that figure times ``SAFETY_FACTOR``, less what the model already charges for the
same memory from the settings of the run; its threshold default (``core/rules.py``) reads it from here, so a new
measurement changes one line. Only terms that do not depend on the server build are calibrated this way: the
tier runs MariaDB, not MySQL 8, so MySQL-8-only terms (performance_schema, the data dictionary inside the server
overhead) keep their MySQL sources.

The runs: the Galera tier of issue 19 §3 (``scripts/galera.sh run-tier``, docs/galera.md): three MariaDB 10.11.19
+ Galera 4.23 servers on loopback, each with the my.cnf and provider options this project's sizing gives a
2 CPU / 2,560 MiB PXC member (per-connection buffers at their smallest), sysbench ``oltp_read_write`` against one
node at the sizing's connection count, then the buffer pool filled; resident memory per server and term sampled
once a second (``tests/galera/measure.py``). Each figure below is the largest over the runs recorded in
docs/galera.md (one independent run for issue 19 with 64 connections, then the tier's own runs).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .connection_cost import NET_BUFFERS_PER_CONNECTION, SESSION_BYTES_PER_CONNECTION
from .units import KIB, MIB

TIER_RUNS = "the Galera tier (issue 19 §3) on a 2 CPU / 2,560 MiB PXC member, MariaDB 10.11.19 + Galera 4.23"


@dataclass(frozen=True)
class Measurement:
    """One figure a real server gave, with what it is and where it was taken."""

    name: str
    value_bytes: int
    what: str
    source: str = TIER_RUNS


WRITER_PEAK_RSS = Measurement(
    "writer_peak_rss",
    1441 * MIB,
    "peak resident memory (VmHWM) of the node sysbench wrote to: 1,276-1,325 MiB in the "
    "runs without the flow-control phase, 1,394-1,441 MiB with its 200,000-row transactions",
)
APPLIER_PEAK_RSS = Measurement(
    "applier_peak_rss", 1322 * MIB, "peak resident memory of the two applying nodes: 1,223-1,322 MiB over the runs"
)
SERVER_OVERHEAD_IDLE = Measurement(
    "server_overhead_idle",
    192 * MIB,
    "resident at idle beside the buffer pool, the log buffers and the gcache (code, caches, background threads): "
    "155-168 MiB, 182-192 MiB once the flow-control phase's 200,000-row table is loaded, against the model's "
    "300 MiB MySQL 8 figure",
)
PER_ACTIVE_CONNECTION_RSS = Measurement(
    "per_active_connection_rss",
    475 * KIB,
    "resident memory each connection running sysbench added on the writer (its THD, network buffers, statement "
    "buffers, the table cache's copies of its tables, and its thread's touched stack and malloc arena): 0.26-0.36 "
    "MiB over the runs with one thread per connection, 0.14-0.46 MiB with the thread pool and its starvation-proof "
    "cap; the largest (486,266 bytes: 48 connections, 46 sysbench threads), rounded up to a KiB",
)
PER_CONNECTION_GROWTH_LARGEST = Measurement(
    "per_connection_growth_largest",
    764_782,
    "issue 29's runs of the tier (sysbench oltp_read_write at 42 threads against 44 connections, then the worst case): "
    "the writer's heap grew 764,782 bytes per sysbench thread on one run, 0.16-0.37 MiB on the others. The model "
    "charges the tier's member (41 connections, 8 running statements, 64 threads) 784,370 bytes a connection: 1.03 x "
    "that figure. A factor of 1.10 instead of 1.25 (thread_resident_bytes 310.5 KiB, 44 connections) charged 657,676 "
    "bytes, below it, so the factor stays",
)
LOG_BUFFER_WRITER = Measurement(
    "log_buffer_writer",
    32 * MIB,
    "do-not-dump resident beside the buffer pool on the writer, innodb_log_buffer_size 16 MiB: MariaDB 10.11 "
    "allocates two buffers of that size (log_t::create, buf and flush_buf), MySQL 8 one (log_allocate_buffer, "
    "storage/innobase/log/log0log.cc, mysql/mysql-server)",
)
# Terms the runs found as modelled (ratio 0.99-1.00): the buffer pool's frames and the gcache.
CONFIRMED_TERMS = ("buffer_pool", "gcache")
# Terms the runs cannot check on PXC 8's behalf: MariaDB keeps the buffer pool's block descriptors inside
# innodb_buffer_pool_size (9.0 MiB against the model's 28.8 MiB beside it, sizeof(buf_block_t) differs) and
# allocates the log buffer twice; the model keeps MySQL 8's layout for both.
BUILD_DEPENDENT_TERMS = ("buffer_pool_descriptors", "log_buffer", "server_overhead", "performance_schema")

# A measured figure enters the model at this multiple: a few runs of one workload on one build measured it, and a
# glibc allocator's resident memory varies between runs (0.14-0.73 MiB per connection here).
SAFETY_FACTOR = 1.25
# Issue 29: for a term both servers share, the model is never below what the real server held and at most this multiple
# of it; the Galera tier asserts it of a worst-case statement, tests/core/test_calibration.py of a connection.
SHARED_TERM_MARGIN = 1.10

# The runs' per-connection settings, as that server applied them: the sizing's smallest buffers and mysqld's
# defaults for the binary log caches and the network buffer. (Their thread_stack, MariaDB 10.11's default of
# 299008 bytes, is reserved address space: only the touched pages are inside the measured figure.)
TIER_CONNECTION_SETTINGS = {
    "sort_buffer_size": 32 * KIB,
    "join_buffer_size": 8 * KIB,
    "read_buffer_size": 8 * KIB,
    "read_rnd_buffer_size": 4 * KIB,
    "binlog_cache_size": 32 * KIB,
    "binlog_stmt_cache_size": 32 * KIB,
    "net_buffer_length": 16 * KIB,
}


def with_safety(measurement: Measurement) -> int:
    return math.ceil(measurement.value_bytes * SAFETY_FACTOR)


def tier_settings_charge() -> int:
    """What the connection terms charge one running connection of the runs from its settings, besides its thread:
    its session (structures, two network buffers, the binary log caches) and its statement's buffers."""
    s = TIER_CONNECTION_SETTINGS
    session = (
        SESSION_BYTES_PER_CONNECTION
        + NET_BUFFERS_PER_CONNECTION * s["net_buffer_length"]
        + s["binlog_cache_size"]
        + s["binlog_stmt_cache_size"]
    )
    statement = s["sort_buffer_size"] + s["join_buffer_size"] + s["read_buffer_size"] + s["read_rnd_buffer_size"]
    return session + statement


# What a thread keeps resident, running or blocked: the stack pages it touched, its malloc arena, the blocks of
# its statement memory roots. The measured figure with the safety factor, less the settings' share; charged per
# thread (every connection without the thread pool, every thread the pool can create with it).
THREAD_RESIDENT_BYTES = with_safety(PER_ACTIVE_CONNECTION_RSS) - tier_settings_charge()

CALIBRATED = {"thread_resident_bytes": (THREAD_RESIDENT_BYTES, PER_ACTIVE_CONNECTION_RSS)}
