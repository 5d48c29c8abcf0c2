"""The memory model against a real server (M1): what was measured, and the terms derived from it.

Each figure is a :class:`Measurement`: what was measured, on what, and where the number comes from. A term
calibrated on a measurement is that figure times ``SAFETY_FACTOR``, less what the model already charges for the
same memory from the settings of the run; its threshold default (``core/rules.py``) reads it from here, so a new
measurement changes one line. Only terms that do not depend on the server build are calibrated this way: the
tier runs MariaDB, not MySQL 8, so MySQL-8-only terms (performance_schema, the data dictionary inside the server
overhead) keep their MySQL sources.

The run (issue 21, an independent run of the Galera tier of issue 19 §3): three MariaDB 10.11 + galera-4 26.4
servers on loopback, each with the my.cnf and provider options this project's sizing gives a 2 CPU / 2,560 MiB
PXC member (max_connections 64, per-connection buffers at their smallest), sysbench ``oltp_read_write`` against one
node at the sizing's connection count, then the buffer pool filled; peak resident memory per server.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .connection_cost import NET_BUFFERS_PER_CONNECTION, SESSION_BYTES_PER_CONNECTION
from .units import KIB, MIB

TIER_RUN = "issue 21: the Galera tier (issue 19 §3) on a 2 CPU / 2,560 MiB PXC member, MariaDB 10.11 + galera-4 26.4"


@dataclass(frozen=True)
class Measurement:
    """One figure a real server gave, with what it is and where it was taken."""

    name: str
    value_bytes: int
    what: str
    source: str = TIER_RUN


MODELLED_TOTAL = Measurement("modelled_total", 1823 * MIB, "the model's peak for the member's my.cnf (M1)")
WRITER_PEAK_RSS = Measurement("writer_peak_rss", 1325 * MIB, "peak resident memory of the node sysbench wrote to")
APPLIER_PEAK_RSS = Measurement("applier_peak_rss", 1243 * MIB, "peak resident memory of the two applying nodes")
HEAP_BESIDE_BUFFERS = Measurement(
    "heap_beside_buffers", 110 * MIB,
    "resident memory beside the buffer pool, the gcache and the connections: the server's own heap",
)
PER_ACTIVE_CONNECTION_RSS = Measurement(
    "per_active_connection_rss", 1 * MIB,
    "resident memory each connection running sysbench added (one thread per connection, MariaDB's default)",
)
# Terms the run found as modelled (ratio ~1): the buffer pool with its block descriptors, and the gcache.
CONFIRMED_TERMS = ("buffer_pool", "buffer_pool_descriptors", "gcache")

# A measured figure enters the model at this multiple: one run, one workload and one build measured it, and a
# glibc allocator's resident memory varies between runs.
SAFETY_FACTOR = 1.25

# The run's per-connection settings, as that server applied them: the sizing's smallest buffers and mysqld's
# defaults for the binary log caches and the network buffer. (Its thread_stack, MariaDB 10.11's default of
# 299008 bytes, is inside the measured thread.)
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
    """What the connection terms charge one running connection of the run from its settings, besides its thread:
    its session (structures, two network buffers, the binary log caches) and its statement's buffers."""
    s = TIER_CONNECTION_SETTINGS
    session = (SESSION_BYTES_PER_CONNECTION + NET_BUFFERS_PER_CONNECTION * s["net_buffer_length"]
               + s["binlog_cache_size"] + s["binlog_stmt_cache_size"])
    statement = s["sort_buffer_size"] + s["join_buffer_size"] + s["read_buffer_size"] + s["read_rnd_buffer_size"]
    return session + statement


# What a thread running statements keeps resident: the stack pages it touched, its malloc arena, the blocks of
# its statement memory roots. The measured figure with the safety factor, less the settings' share; charged per
# thread (every connection without the thread pool, every worker with it), never below the thread's whole
# thread_stack (core/connection_cost.py).
THREAD_RESIDENT_BYTES = with_safety(PER_ACTIVE_CONNECTION_RSS) - tier_settings_charge()

CALIBRATED = {"thread_resident_bytes": (THREAD_RESIDENT_BYTES, PER_ACTIVE_CONNECTION_RSS)}
