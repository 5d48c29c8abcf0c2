"""What connections cost mysqld (M1, M6): an idle connection's session, a running statement's buffers, and the
threads that can exist.

The MySQL manual ("How MySQL Uses Memory", 8.0/8.4 §10.12.3.1) lists what a client connection holds: a
connection buffer and a result buffer of ``net_buffer_length`` each (both grow to ``max_allowed_packet`` for a
large packet; the result buffer shrinks back after every statement), and, while a statement runs, the buffers
that statement asks for (``sort_buffer_size``, ``join_buffer_size``, ``read_buffer_size``,
``read_rnd_buffer_size``). With binary logging on every client also gets a transaction and a statement cache
(``binlog_cache_size``, ``binlog_stmt_cache_size``, MySQL manual, "Binary Logging Options and Variables").

Who holds a thread decides the rest. With ``thread_handling=one-thread-per-connection`` (mysqld's default) every
connection is a thread, idle or not, and any of them may run a statement at once. With Percona Server's thread
pool (``thread_handling=pool-of-threads``; PXC and PS 8.0/8.4 ship it in ``sql/threadpool_unix.cc`` of
percona/percona-server 0570de49a1e4) a connection is a THD with its socket registered in a thread group's epoll
set: no thread until it sends a statement (``sql/threadpool_common.cc``, ``threadpool_add_connection``). A group
takes new statements only while fewer than 1 + ``thread_pool_oversubscribe`` of its threads are active
(``too_many_active_threads``): that bounds the statements running on the CPUs. A thread that blocks (a row lock,
a Galera commit or flow-control wait, I/O: ``thd_wait_begin``) no longer counts as active, and the group wakes or
creates another (``wait_begin``; the timer thread does the same every ``thread_pool_stall_limit`` for a group
that dequeued nothing, ``check_stall``). ``create_worker`` refuses a new thread once ``thread_pool_max_threads``
exist in the whole server (``tp_stats.num_worker_threads``, one global count), except the first two of a group
and those for admin-port connections; ``wake_or_create_thread`` never gives a group more threads than it has
connections, plus one. So blocked statements can hold up to every connection's worth of threads, and a cap below
that starves the server: once every thread waits on a lock whose holder's next statement is queued, nothing runs
(not even a login) until a lock wait times out. MariaDB's pool (``sql/threadpool_generic.cc``) counts and creates
threads the same way. The cap sizing writes therefore admits one thread per connection mysqld accepts plus one
listener per group (:func:`thread_cap`); the model charges every such thread its resident memory, and the work
buffers only to the statements the CPUs can run.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

from .units import KIB, MIB, parse_mysql_size

ONE_THREAD_PER_CONNECTION = "one-thread-per-connection"
POOL_OF_THREADS = "pool-of-threads"
# Percona Server's thread pool: at most 1024 thread groups (MAX_THREAD_GROUPS, sql/threadpool.h);
# thread_pool_max_threads defaults to (and is at most) 100000 and thread_pool_oversubscribe to 3, thread_pool_size
# to the host's CPU count (docs.percona.com/percona-server/8.0/threadpool.html; SHOW VARIABLES of 8.0.40-31 agrees).
MAX_THREAD_GROUPS = 1024
THREAD_POOL_MAX_THREADS_DEFAULT = 100_000
THREAD_POOL_OVERSUBSCRIBE_DEFAULT = 3
# create_worker() lets every group have two threads (a listener and a worker) beyond the cap.
THREADS_EVERY_GROUP_GETS = 2
# mysqld admits max_connections + 1 connections on its ordinary interfaces: the extra one for an account with
# CONNECTION_ADMIN (MySQL manual, "Too many connections"; MariaDB likewise for SUPER).
ADMIN_EXTRA_CONNECTIONS = 1

# mysqld defaults of the per-connection keys (MySQL 8.0 / 8.4 server system variables).
CONNECTION_DEFAULTS = {
    "sort_buffer_size": 256 * 1024,
    "join_buffer_size": 256 * 1024,
    "read_buffer_size": 128 * 1024,
    "read_rnd_buffer_size": 256 * 1024,
    "binlog_cache_size": 32 * 1024,
    "binlog_stmt_cache_size": 32 * 1024,
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
    """Connections, running statements and threads mysqld may hold at once, and what each costs (bytes)."""

    connections: int  # max_connections: every session mysqld admits
    active: int  # statements running on the CPUs at once, each with its work buffers
    threads: int  # threads that can exist for connections: one per connection, or every one the pool may create
    thread_pool: bool
    session_bytes: int  # per admitted connection, idle or not
    thread_bytes: int  # per thread: its resident stack pages, malloc arena and statement memory roots
    statement_bytes: int  # per running statement: the buffers it may ask for

    @property
    def idle_bytes(self) -> int:
        """What every admitted connection holds while idle: its session."""
        return self.connections * self.session_bytes

    @property
    def active_bytes(self) -> int:
        """What the statements running at once add: their work buffers."""
        return self.active * self.statement_bytes

    @property
    def thread_total_bytes(self) -> int:
        """What every thread that can exist keeps resident, blocked or running."""
        return self.threads * self.thread_bytes


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


def thread_groups(options: Mapping[str, str]) -> int:
    """thread_pool_size; unset, it is mysqld's count of the host's CPUs, unknown here: the most groups (1024)."""
    return max(1, min(MAX_THREAD_GROUPS, _count(options, "thread_pool_size", MAX_THREAD_GROUPS)))


def running_statement_bound(options: Mapping[str, str]) -> int:
    """Statements the pool runs on the CPUs at once: 1 + thread_pool_oversubscribe active threads a group
    (``too_many_active_threads``). A blocked statement is no longer active; it is charged its thread."""
    oversubscribe = _count(options, "thread_pool_oversubscribe", THREAD_POOL_OVERSUBSCRIBE_DEFAULT)
    return thread_groups(options) * (1 + max(0, oversubscribe))


def connection_threads_bound(connections: int, groups: int) -> int:
    """The most threads blocked statements can hold in a pool with no cap: a group never has more threads than
    connections plus one (``wake_or_create_thread``), and mysqld admits max_connections + 1 connections."""
    return connections + ADMIN_EXTRA_CONNECTIONS + groups


def pool_thread_bound(options: Mapping[str, str], connections: int, service_connections: int) -> int:
    """The most threads the pool creates: max(thread_pool_max_threads, 2 x groups), never more than the connections
    can hold (:func:`connection_threads_bound`), plus the admin-port connections, which get a thread whatever the cap
    (``create_worker``); those are mysqld's own users, so ``service_connections`` of them are allowed for."""
    groups = thread_groups(options)
    cap = _count(options, "thread_pool_max_threads", THREAD_POOL_MAX_THREADS_DEFAULT)
    created = min(max(cap, THREADS_EVERY_GROUP_GETS * groups), connection_threads_bound(connections, groups))
    return created + service_connections


def thread_cap(max_connections: int, groups: int) -> int:
    """The thread_pool_max_threads that can never starve the server: a thread for every connection mysqld admits
    (each may be blocked in a statement) and a listener for every group, within Percona's range (1..100000)."""
    return min(THREAD_POOL_MAX_THREADS_DEFAULT, connection_threads_bound(max_connections, groups))


def connection_costs(options: Mapping[str, str], thresholds: Mapping[str, float]) -> ConnectionCosts:
    """The connection terms of M1 for normalized mysqld options (keys as ``mycnf.normalize_key`` gives them).

    Raises ``ValueError`` when a size cannot be read.
    """
    connections = _count(options, "max_connections", CONNECTION_DEFAULTS["max_connections"])
    net = NET_BUFFERS_PER_CONNECTION * _size(options, "net_buffer_length")
    session = int(thresholds["session_bytes_per_connection"]) + net + sum(_size(options, key) for key in SESSION_CACHE_KEYS)
    # A thread's stack is reserved address space: only the pages it touched are resident, and the measured thread
    # (core/calibration.py) includes them. thread_stack is therefore not charged whole.
    thread = int(thresholds["thread_resident_bytes"])
    statement = sum(_size(options, key) for key in STATEMENT_BUFFER_KEYS)
    pool = uses_thread_pool(options)
    if pool:
        threads = pool_thread_bound(options, connections, int(thresholds["min_connections"]))
        active = min(threads, connections + ADMIN_EXTRA_CONNECTIONS, running_statement_bound(options))
    else:
        threads = active = connections
    return ConnectionCosts(
        connections=connections,
        active=active,
        threads=threads,
        thread_pool=pool,
        session_bytes=session,
        thread_bytes=thread,
        statement_bytes=statement,
    )


def thread_pool_options(mysqld_cpu_millicores: int, max_connections: int) -> dict[str, str]:
    """The thread pool sizing writes (M6): one thread group per mysqld core, Percona's default oversubscription,
    and a thread cap that never starves the server (:func:`thread_cap`).

    thread_pool_size is set because mysqld's default is the host's CPU count, not the container's share of it.
    The cap is set although the pool would create no more threads without it: it makes the bound the model charges
    visible in the configuration, and the pack reads it back.
    """
    groups = max(1, min(MAX_THREAD_GROUPS, math.ceil(mysqld_cpu_millicores / 1000)))
    return {
        "thread_handling": POOL_OF_THREADS,
        "thread_pool_size": str(groups),
        "thread_pool_oversubscribe": str(THREAD_POOL_OVERSUBSCRIBE_DEFAULT),
        "thread_pool_max_threads": str(thread_cap(max_connections, groups)),
    }


def describe(costs: ConnectionCosts) -> str:
    """One line for notes and reports: how many connections, statements and threads are charged."""
    mode = "thread pool" if costs.thread_pool else "one thread per connection"
    return (
        f"{costs.connections} connections x {costs.session_bytes / MIB:.2f} MiB idle, "
        f"{costs.active} running statements x {costs.statement_bytes / MIB:.2f} MiB, "
        f"{costs.threads} threads x {costs.thread_bytes / MIB:.2f} MiB ({mode})"
    )
