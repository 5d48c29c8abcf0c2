"""What connections cost mysqld (M1, M6): an idle connection's session, and what a running statement adds.

The MySQL manual ("How MySQL Uses Memory", 8.0/8.4 §10.12.3.1) lists what a client connection holds: a
connection buffer and a result buffer of ``net_buffer_length`` each (both grow to ``max_allowed_packet`` for a
large packet; the result buffer shrinks back after every statement), and, while a statement runs, the buffers
that statement asks for (``sort_buffer_size``, ``join_buffer_size``, ``read_buffer_size``,
``read_rnd_buffer_size``). With binary logging on every client also gets a transaction and a statement cache
(``binlog_cache_size``, ``binlog_stmt_cache_size``, MySQL manual, "Binary Logging Options and Variables").

Who holds a thread decides the rest. With ``thread_handling=one-thread-per-connection`` (mysqld's default) every
connection is a thread with its own ``thread_stack``, idle or not, and any of them may run a statement at once.
With Percona Server's thread pool (``thread_handling=pool-of-threads``; PXC and PS 8.0/8.4 ship it in
``sql/threadpool_unix.cc`` of percona/percona-server) a connection is a THD with its socket registered in a thread
group's epoll set: no thread until it sends a statement (``sql/threadpool_common.cc``,
``threadpool_add_connection``). Statements run on the pool's worker threads, and ``create_worker`` refuses a new
worker once ``thread_pool_max_threads`` exist, except the first two of a group and those for admin-port
connections (``sql/threadpool_unix.cc``, percona/percona-server 0570de49a1e4). So the statements that can run at
once, and the threads that exist, are bounded by max(thread_pool_max_threads, 2 x thread_pool_size) plus the
admin connections, whatever max_connections is. Percona's default ``thread_pool_max_threads`` is 100000, which
bounds nothing: the cap only counts when it is set.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

from .units import KIB, MIB, parse_mysql_size

ONE_THREAD_PER_CONNECTION = "one-thread-per-connection"
POOL_OF_THREADS = "pool-of-threads"
# Percona Server's thread pool: at most 1024 thread groups (MAX_THREAD_GROUPS, sql/threadpool.h);
# thread_pool_max_threads defaults to 100000 and thread_pool_oversubscribe to 3, thread_pool_size to the
# host's CPU count (docs.percona.com/percona-server/8.0/threadpool.html; SHOW VARIABLES of 8.0.40-31 agrees).
MAX_THREAD_GROUPS = 1024
THREAD_POOL_MAX_THREADS_DEFAULT = 100_000
THREAD_POOL_OVERSUBSCRIBE_DEFAULT = 3
# create_worker() lets every group have two threads (a listener and a worker) beyond the cap.
THREADS_EVERY_GROUP_GETS = 2

# mysqld defaults of the per-connection keys (MySQL 8.0 / 8.4 server system variables).
CONNECTION_DEFAULTS = {
    "sort_buffer_size": 256 * 1024,
    "join_buffer_size": 256 * 1024,
    "read_buffer_size": 128 * 1024,
    "read_rnd_buffer_size": 256 * 1024,
    "binlog_cache_size": 32 * 1024,
    "binlog_stmt_cache_size": 32 * 1024,
    "thread_stack": 1024 * 1024,
    "net_buffer_length": 16 * 1024,
    "max_connections": 151,
}
# What one running statement may allocate beyond its session (the manual's per-statement buffers).
STATEMENT_BUFFER_KEYS = ("sort_buffer_size", "join_buffer_size", "read_buffer_size", "read_rnd_buffer_size")
# What every client session keeps while connected: the binary log caches, and two network buffers.
SESSION_CACHE_KEYS = ("binlog_cache_size", "binlog_stmt_cache_size")
NET_BUFFERS_PER_CONNECTION = 2  # the connection buffer and the result buffer
# The session's own structures beside those buffers. MariaDB 10.6 documents what a new connection allocates:
# the THD object (26,646 bytes), hashes for prepared statements, user variables and sequences, the
# diagnostics area and the digest token array, about 31 KB in all besides the two network buffers (MariaDB
# KB, "Connection Memory Usage"). MySQL 8's THD is larger and InnoDB keeps a transaction object for each
# connection that used it: charged at twice MariaDB's total, rounded up. The threshold
# session_bytes_per_connection (M1) defaults to it.
SESSION_BYTES_PER_CONNECTION = 64 * KIB


@dataclass(frozen=True)
class ConnectionCosts:
    """Connections, statements and threads mysqld may hold at once, and what each costs (bytes)."""

    connections: int  # max_connections: every session mysqld admits
    active: int  # statements that can run at once
    threads: int  # threads with a stack: one per connection, or the pool's workers
    thread_pool: bool
    session_bytes: int  # per admitted connection, idle or not
    thread_bytes: int  # per thread: its stack and what it keeps beside it
    statement_bytes: int  # per running statement: the buffers it may ask for

    @property
    def idle_bytes(self) -> int:
        """What every admitted connection holds while idle: its session, and its own thread without the pool."""
        threads = 0 if self.thread_pool else self.threads
        return self.connections * self.session_bytes + threads * self.thread_bytes

    @property
    def active_bytes(self) -> int:
        """What the statements that can run at once add: their buffers, and the pool's worker threads."""
        threads = self.threads if self.thread_pool else 0
        return self.active * self.statement_bytes + threads * self.thread_bytes

    @property
    def idle_bytes_per_connection(self) -> int:
        return self.session_bytes + (0 if self.thread_pool else self.thread_bytes)

    @property
    def active_bytes_per_statement(self) -> int:
        return self.statement_bytes + (self.thread_bytes if self.thread_pool else 0)


def _size(options: Mapping[str, str], key: str) -> int:
    value = options.get(key)
    return CONNECTION_DEFAULTS[key] if value is None else parse_mysql_size(value)


def _count(options: Mapping[str, str], key: str, default: int) -> int:
    value = options.get(key)
    return default if value is None else int(parse_mysql_size(value))


def uses_thread_pool(options: Mapping[str, str]) -> bool:
    """Whether mysqld runs Percona's thread pool. Anything but ``pool-of-threads`` is charged as one thread per
    connection, the costlier reading (mysqld refuses a value it does not know, and M1 then has nothing to judge)."""
    return options.get("thread_handling", ONE_THREAD_PER_CONNECTION).strip().strip("'\"").lower() == POOL_OF_THREADS


def pool_worker_bound(options: Mapping[str, str], service_connections: int) -> int:
    """The most worker threads the pool creates: max(thread_pool_max_threads, 2 x groups) + admin connections.

    An unset thread_pool_size is mysqld's count of the host's CPUs, unknown here: the most groups mysqld
    allows (1024) is charged. Admin-port connections get a thread whatever the cap (``create_worker``); they are
    mysqld's own users, so ``service_connections`` of them are allowed for.
    """
    groups = min(MAX_THREAD_GROUPS, _count(options, "thread_pool_size", MAX_THREAD_GROUPS))
    cap = _count(options, "thread_pool_max_threads", THREAD_POOL_MAX_THREADS_DEFAULT)
    return max(cap, THREADS_EVERY_GROUP_GETS * max(1, groups)) + service_connections


def connection_costs(options: Mapping[str, str], thresholds: Mapping[str, float]) -> ConnectionCosts:
    """The connection terms of M1 for normalized mysqld options (keys as ``mycnf.normalize_key`` gives them).

    Raises ``ValueError`` when a size cannot be read.
    """
    connections = _count(options, "max_connections", CONNECTION_DEFAULTS["max_connections"])
    net = NET_BUFFERS_PER_CONNECTION * _size(options, "net_buffer_length")
    session = int(thresholds["session_bytes_per_connection"]) + net + sum(_size(options, key) for key in SESSION_CACHE_KEYS)
    # A thread's resident memory was measured whole (core/calibration.py); a stack set beyond it is charged whole.
    thread = max(_size(options, "thread_stack"), int(thresholds["thread_resident_bytes"]))
    statement = sum(_size(options, key) for key in STATEMENT_BUFFER_KEYS)
    pool = uses_thread_pool(options)
    if pool:
        active = min(connections, pool_worker_bound(options, int(thresholds["min_connections"])))
    else:
        active = connections
    return ConnectionCosts(connections=connections, active=active, threads=active, thread_pool=pool,
                           session_bytes=session, thread_bytes=thread, statement_bytes=statement)


def thread_pool_options(mysqld_cpu_millicores: int, thresholds: Mapping[str, float], share: float = 1.0) -> dict[str, str]:
    """The thread pool sizing writes (M6): one thread group per mysqld core, Percona's default oversubscription,
    and a worker cap of ``thread_pool_workers_per_group`` per group (times ``share`` on a member too small for it,
    never below the two threads every group gets).

    thread_pool_size is set because mysqld's default is the host's CPU count, not the container's share of it.
    Each group dispatches low-priority statements only while 1 + thread_pool_oversubscribe of its threads are
    busy (``too_many_busy_threads``); statements of open transactions come from the high-priority queue past
    that check, so the cap (twice 1 + oversubscribe by default) leaves as many threads again for them: a lock
    holder's next statement finds a worker while as many statements wait on its locks.
    """
    groups = max(1, min(MAX_THREAD_GROUPS, math.ceil(mysqld_cpu_millicores / 1000)))
    per_group = max(THREADS_EVERY_GROUP_GETS, int(int(thresholds["thread_pool_workers_per_group"]) * share))
    workers = min(THREAD_POOL_MAX_THREADS_DEFAULT, groups * per_group)
    return {
        "thread_handling": POOL_OF_THREADS,
        "thread_pool_size": str(groups),
        "thread_pool_oversubscribe": str(THREAD_POOL_OVERSUBSCRIBE_DEFAULT),
        "thread_pool_max_threads": str(workers),
    }


def describe(costs: ConnectionCosts) -> str:
    """One line for notes and reports: how many connections, statements and threads are charged."""
    mode = "thread pool" if costs.thread_pool else "one thread per connection"
    return (f"{costs.connections} connections x {costs.idle_bytes_per_connection / MIB:.2f} MiB idle, "
            f"{costs.active} running statements x {costs.active_bytes_per_statement / MIB:.2f} MiB ({mode})")
