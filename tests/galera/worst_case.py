"""The worst case the memory model charges connections for, on every member at once (issue 29).

sysbench OLTP never allocates a sort, join or temporary-table buffer. This load does, in every statement the thread
pool lets run at once, while idle connections hold the rest of ``max_connections`` open:

* ``RUNNING`` clients per member, ``thread_pool_size`` x (1 + ``thread_pool_oversubscribe``) (the sizing's
  ``connections.active.statements``): one client per statement the pool runs on the cores at once (MariaDB
  ``sql/threadpool_generic.cc`` ``too_many_active_threads``). No client waits in the pool's queue, so the stall
  timer (``check_stall``) has nothing to wake: the pool's bound, not the clients, limits what runs.
* every other connection mysqld admits to the tier's account idles, after one write (so its binary log caches
  exist: MariaDB allocates them with the session's first logged statement, ``THD::binlog_setup_trx_data``).

Each running client loops :data:`STATEMENT`, which does, in one statement (MariaDB 10.11 source, the Debian
10.11.18 tarball; function names as in MariaDB/server 10.11):

* a join without an index: ``w.x MOD 200 = b.id`` is no key, so ``b`` is read into a join buffer of
  ``join_buffer_size`` (``sql/sql_join_cache.cc`` ``JOIN_CACHE::alloc_buffer``, ``get_max_join_buffer_size``:
  200 rows of ``b``'s id and 250-byte column are more than the buffer holds, so the whole size), kept until the
  statement ends;
* a temporary table up to ``tmp_table_size``: the ORDER BY is not on the first table, so the join's ~20,000 rows
  of ~1.5 KB go to an internal temporary table, a MEMORY (HEAP) table that grows until it reaches
  min(``tmp_table_size``, ``max_heap_table_size``) and is then copied to Aria on disk
  (``sql/sql_select.cc`` ``create_internal_tmp_table_from_heap``): ``Created_tmp_disk_tables`` counts it;
* a sort that cannot use an index and fills ``sort_buffer_size``: ``w.k2`` has no index, and more rows than the
  buffer holds (``sql/filesort.cc`` ``filesort``: max(15, min(rows, size / key length)) keys, allocated whole by
  ``Filesort_buffer::alloc_sort_buffer``); ``Sort_merge_passes`` counts the chunks it wrote;
* reads through ``read_rnd_buffer_size``: the sorted rows are longer than ``max_length_for_sort_data`` (1024), so
  the sort keeps row positions and the rows are read back by position from the on-disk table, through a cache of
  ``read_rnd_buffer_size`` (``sql/records.cc`` ``init_read_record`` -> ``init_rr_cache``; Aria has no
  ``HA_FAST_KEY_READ``); ``Handler_read_rnd`` counts those reads. The scan of that table goes through a
  ``read_buffer_size`` cache (``HA_EXTRA_CACHE``).

``LIMIT 1 OFFSET`` keeps the result off the wire without shortening the sort (the offset is too large for the
priority queue of ``check_if_pq_applicable``). MariaDB accounts every one of those buffers as the session's own
memory (``MY_THREAD_SPECIFIC``, ``my_malloc_size_cb_func`` in ``sql/mysqld.cc``), so
``information_schema.PROCESSLIST.MAX_MEMORY_USED`` is the high-water of a session's memory and ``MEMORY_USED``
what it holds now.

MySQL 8.4 (what PXC and Percona Server 8.4 run; mysql/mysql-server) allocates the same buffers by the same
variables, with two differences: the sort buffer grows in blocks up to ``sort_buffer_size``
(``sql/filesort_utils.cc`` ``Filesort_buffer::allocate_block``) and a join without an index is a hash join whose
rows are kept up to ``join_buffer_size`` (``sql/iterators/hash_join_buffer.cc``), so each size is a bound, never
less than what is used; and internal temporary tables use the TempTable engine, bounded for all sessions together
by ``temptable_max_ram`` (``storage/temptable/include/temptable/allocator.h``; ``tmp_table_size`` bounds each
table), where MariaDB's MEMORY tables are bounded per table only.
"""

from __future__ import annotations

import contextlib
import threading
import time
from dataclasses import dataclass, field

WIDE_ROWS = 20_000  # rows of sbtest.wide: 5 x CHAR(250) latin1 + 3 INT, ~1.26 KB a row, ~25 MB
JOINED_ROWS = 200  # rows of sbtest1 joined: each matches WIDE_ROWS / JOINED_ROWS rows of wide
SECONDS = 45
SAMPLE_SECONDS = 0.5
# b is wide itself: its ids are the explicit 1..WIDE_ROWS (sysbench's tables take AUTO_INCREMENT ids, which Galera
# spaces by the member count: wsrep_auto_increment_control), and 200 of its rows (id, p1) overflow the join buffer.
STATEMENT = (
    "SELECT STRAIGHT_JOIN w.k2, w.p1, w.p2, w.p3, w.p4, w.p5, b.p1 FROM sbtest.wide b "
    f"JOIN sbtest.wide w ON w.x MOD {JOINED_ROWS} = b.id WHERE b.id <= {JOINED_ROWS} "
    f"ORDER BY w.k2 LIMIT 1 OFFSET {WIDE_ROWS - WIDE_ROWS // 20}"
)
# What the statement must show in its session's counters, once per run: each a buffer it used to the full.
COUNTERS = ("Select_full_join", "Created_tmp_disk_tables", "Sort_merge_passes", "Handler_read_rnd")
_PROCESSLIST = "SELECT ID, COMMAND, MEMORY_USED, MAX_MEMORY_USED FROM information_schema.PROCESSLIST WHERE USER = %s"


def prepare(cluster) -> None:
    """sbtest.wide on the writer (replicated): rows longer than max_length_for_sort_data, no index but the key."""
    writer = cluster.members[0]
    cluster.query(
        writer,
        "CREATE TABLE IF NOT EXISTS sbtest.wide (id INT PRIMARY KEY, k2 INT NOT NULL, x INT NOT NULL, "
        "p1 CHAR(250) NOT NULL, p2 CHAR(250) NOT NULL, p3 CHAR(250) NOT NULL, p4 CHAR(250) NOT NULL, "
        "p5 CHAR(250) NOT NULL) ENGINE=InnoDB DEFAULT CHARSET=latin1",
    )
    step = 5000  # write-sets of ~6 MB
    for start in range(1, WIDE_ROWS + 1, step):
        cluster.query(
            writer,
            "INSERT INTO sbtest.wide SELECT seq, (seq * 7919) MOD 20011, seq, MD5(seq), MD5(seq + 1), MD5(seq + 2), "
            f"MD5(seq + 3), MD5(seq + 4) FROM sbtest.seq_{start}_to_{min(WIDE_ROWS, start + step - 1)}",
            timeout=300,
        )
    cluster.query(writer, "CREATE TABLE IF NOT EXISTS sbtest.idle_marks (id INT PRIMARY KEY) ENGINE=InnoDB")
    cluster.query(writer, "ANALYZE TABLE sbtest.wide")


@dataclass
class MemberLoad:
    running: int
    idle: int
    statements: int = 0
    errors: list[str] = field(default_factory=list)
    counters: dict[str, int] = field(default_factory=dict)  # summed over the running sessions
    idle_bytes: dict[int, int] = field(default_factory=dict)  # MEMORY_USED of each idle session, by session id
    before_bytes: dict[int, int] = field(default_factory=dict)  # a running session before its first statement
    peak_bytes: dict[int, int] = field(default_factory=dict)  # MAX_MEMORY_USED of each running session
    most_running: int = 0  # the most of its statements seen running at once (PROCESSLIST Command = Query)
    lock: threading.Lock = field(default_factory=threading.Lock)  # its clients count into it from their threads

    def statement_peak(self) -> int:
        """The most one running session held above what it held before its first statement."""
        return max(self.peak_bytes[s] - self.before_bytes[s] for s in self.peak_bytes)

    def statements_peak(self) -> int:
        """What the running sessions held above their start together, were every peak at the same moment."""
        return sum(self.peak_bytes[s] - self.before_bytes[s] for s in self.peak_bytes)


@dataclass
class WorstCase:
    members: dict[str, MemberLoad]
    started: float = 0.0  # sampler seconds
    ended: float = 0.0


def _sessions(cluster, member, user: str) -> list[tuple[int, str, int, int]]:
    with cluster.connect(member, admin=True, timeout=60) as connection:
        return [(int(s), c, int(u), int(p)) for s, c, u, p in cluster.rows(connection, _PROCESSLIST, (user,))]


def _client(cluster, member, user, password, load: MemberLoad, stop: threading.Event, ready: threading.Barrier) -> None:
    try:
        with cluster.connect_as(member, user, password, timeout=600) as connection:
            ready.wait(timeout=120)  # every client connected: the sessions' memory before any statement is read
            ready.wait(timeout=120)
            while not stop.is_set():
                cluster.rows(connection, STATEMENT)
                with load.lock:
                    load.statements += 1
            names = ", ".join(f"'{name}'" for name in COUNTERS)
            for name, value in cluster.rows(connection, f"SHOW SESSION STATUS WHERE Variable_name IN ({names})"):
                with load.lock:
                    load.counters[name] = load.counters.get(name, 0) + int(value)
    except Exception as error:  # noqa: BLE001 - recorded; the test asserts none happened
        with load.lock:
            load.errors.append(f"{type(error).__name__}: {error}")
        ready.abort()  # the main thread's wait raises instead of timing out


def _watch(cluster, member, user: str, load: MemberLoad, stop: threading.Event) -> None:
    """Sample the running sessions' high-water and how many statements run at once, through the admin port."""
    try:
        with cluster.connect(member, admin=True, timeout=60) as connection:
            while not stop.is_set():
                busy = 0
                for session, command, _, peak in cluster.rows(connection, _PROCESSLIST, (user,)):
                    if session in load.before_bytes:
                        load.peak_bytes[session] = max(load.peak_bytes.get(session, 0), int(peak))
                        busy += command == "Query"
                load.most_running = max(load.most_running, busy)
                stop.wait(SAMPLE_SECONDS)
            for session, _, _, peak in _sessions(cluster, member, user):  # the last statements' peaks
                if session in load.before_bytes:
                    load.peak_bytes[session] = max(load.peak_bytes.get(session, 0), peak)
    except Exception as error:  # noqa: BLE001 - recorded; the test asserts none happened
        load.errors.append(f"watch: {type(error).__name__}: {error}")


def _wait(ready: threading.Barrier, loads: dict[str, MemberLoad]) -> None:
    try:
        ready.wait(timeout=120)
    except threading.BrokenBarrierError:
        errors = {name: load.errors for name, load in loads.items() if load.errors}
        raise RuntimeError(f"the worst-case clients did not all start: {errors or 'a client took over 120 s'}") from None


def run(cluster, user: str, password: str, running: int, idle: int, sampler) -> WorstCase:
    """``idle`` idle and ``running`` running clients on every member at once for :data:`SECONDS`."""
    loads = {member.name: MemberLoad(running, idle) for member in cluster.members}
    with contextlib.ExitStack() as stack:
        for member in cluster.members:
            for index in range(idle):
                connection = stack.enter_context(cluster.connect_as(member, user, password))
                cluster.rows(connection, "REPLACE INTO sbtest.idle_marks VALUES (%s)", (member.index * 1000 + index,))
            loads[member.name].idle_bytes = {s: used for s, _, used, _ in _sessions(cluster, member, user)}
        stop, ready = threading.Event(), threading.Barrier(running * len(cluster.members) + 1)
        clients = [
            threading.Thread(target=_client, args=(cluster, m, user, password, loads[m.name], stop, ready), daemon=True)
            for m in cluster.members
            for _ in range(running)
        ]
        for thread in clients:
            thread.start()
        _wait(ready, loads)
        for member in cluster.members:
            load = loads[member.name]
            load.before_bytes = {s: used for s, _, used, _ in _sessions(cluster, member, user) if s not in load.idle_bytes}
        result = WorstCase(loads, started=sampler.elapsed())
        watch_stop = threading.Event()
        watchers = [
            threading.Thread(target=_watch, args=(cluster, m, user, loads[m.name], watch_stop), daemon=True)
            for m in cluster.members
        ]
        for thread in watchers:
            thread.start()
        _wait(ready, loads)
        time.sleep(SECONDS)
        stop.set()
        for thread in clients:
            thread.join(timeout=600)
        watch_stop.set()
        for thread in watchers:
            thread.join(timeout=60)
        result.ended = sampler.elapsed()
    return result
