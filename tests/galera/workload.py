"""The tier's load: sysbench oltp_read_write against one member, then a buffer-pool fill, with every member sampled.

sysbench runs as its own account without SUPER, so it can take at most max_connections and the tier (with
SUPER) keeps MariaDB's one extra connection for its sampling; it is given max_connections less the two
connections the tier itself may hold at once. The fill inserts 4,000-byte rows on the same member in
8 MB transactions (write-sets Galera replicates and the others apply) until every buffer pool is nearly
full, which also wraps every gcache ring.
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import worst_case
from measure import Sampler
from percona_mysql_k8s.core.connection_cost import running_statement_bound

# The member the tier sizes: the 2 CPU / 2,560 MiB member issue 19 measured; three of them fit ~4 GiB here.
SIZING_ARGS = ("--engine", "pxc", "--cpu", "2", "--memory", "2560Mi", "--format", "json")
SYSBENCH_TABLES, SYSBENCH_TABLE_SIZE = 4, 100_000
SYSBENCH_SECONDS = 60
TIER_CONNECTIONS = 2  # the sampler's and one more the tier may open meanwhile
FILL_ROWS, FILL_ROW_BYTES = 2000, 4000  # 8 MB a transaction
FILLED_FREE_SHARE = 0.02  # a buffer pool with less than 2% free pages is full...
# ...or with no more free pages than the page cleaner keeps free on purpose: it evicts pages to hold
# innodb_lru_scan_depth of them on the free list (MariaDB buf_flush_LRU / MySQL buf_flush_LRU_list), and a frame
# evicted after use stays resident. 2.6% of the tier's ~58,000 pages is exactly its default 1536: 10% margin.
LRU_FREE_MARGIN = 1.1
# A login during the full load: after the ramp-up, when a starved pool had stalled every sysbench thread (its
# first 10 s interval still showed progress). The grader connects with --timeout, the PXC operator's probe timeout.
LOGIN_AFTER_SECONDS = 20
LOGIN_TIMEOUT_SECONDS = 10
# Whether 4 parallel appliers fall behind sysbench's small transactions on two shared cores is luck (39 threads at
# 711/s did not, even at an interval of [2, 2]; nor with the appliers at nice 19). What makes a real cluster's
# queues grow is a large transaction: appliers commit in the cluster's order, so while one applies a write-set of
# BIG_ROWS row changes, every write-set behind it waits in the receive queue. The flow-control phase runs the same
# sysbench for FLOW_CONTROL_SECONDS and, beside it on the writer, updates every row of a table of BIG_ROWS rows
# (no row sysbench touches) every BIG_PERIOD_SECONDS. (Stopping an applier does not do it: Galera delivers in
# total order, so a stopped member stalls the whole group instead of queueing.) The sized options are untouched.
FLOW_CONTROL_SECONDS = 25
BIG_ROWS = 200_000
BIG_PERIOD_SECONDS = 3
# The drift the G1 test sets on one member (interval [17, 17] on three). Earlier the forced run set it on two members
# under load; its G1 breaches were the test's own doing, and at [17, 17] the pauses were 25-48% of a window, around
# G3's bound: the forced run now lets a load make the appliers slow instead (NOPK_ROWS below).
FORCED_FC_LIMIT = 10
# The forced run's load, which changes no option: beside the full sysbench load, updates of the last NOPK_CHANGED rows
# of a table without a primary key or any index. The writer finds them in one scan per statement; an applier finds
# each changed row by a scan of its own (MariaDB sql/log_event_server.cc Rows_log_event::find_row: with no key,
# rnd_next over the table until the row's image matches), ~NOPK_ROWS rows each. So each such write-set costs the
# appliers about NOPK_CHANGED times what it cost the writer, and sysbench's write-sets queue behind it (appliers commit
# in the cluster's order): the classic slow applier of a Galera cluster, and what flow control is for. (Alone, 100
# changed rows of 2,000 a write-set did not pause the writer: the appliers kept up with one writer session.)
NOPK_ROWS, NOPK_CHANGED = 5000, 1000
_TRANSACTIONS = re.compile(r"^\s*transactions:\s+(\d+)\s+\(([0-9.]+) per sec\.\)", re.MULTILINE)
FC_STATUS = (
    "wsrep_flow_control_paused_ns",
    "wsrep_flow_control_sent",
    "wsrep_flow_control_recv",
    "wsrep_local_recv_queue_max",
    "wsrep_last_committed",
)


@dataclass
class Workload:
    threads: int
    sysbench_log: Path
    fc_before: dict[str, dict[str, int]] = field(default_factory=dict)
    fc_after: dict[str, dict[str, int]] = field(default_factory=dict)
    idle_end: float = 0.0  # sampler seconds at which sysbench started
    oltp_end: float = 0.0
    fill_batches: int = 0
    fill_seconds: float = 0.0
    pages_free_share: dict[str, float] = field(default_factory=dict)
    pools_full: dict[str, bool] = field(default_factory=dict)
    final_hwm: dict[str, int] = field(default_factory=dict)
    sampler: Sampler | None = None
    worst: worst_case.WorstCase | None = None  # the worst-case phase, after the fill
    password: str = ""  # the sbtest account's, for the grading tests' background load
    login: subprocess.CompletedProcess | None = None  # percona-mysql-grade run during the full load
    login_seconds: float = 0.0
    fc_log: Path | None = None  # sysbench of the flow-control phase
    big_update_seconds: list[float] = field(default_factory=list)  # each large transaction on the writer

    def throughput(self) -> tuple[int, float]:
        """(transactions, per second) from sysbench's summary of the full-load run."""
        match = _TRANSACTIONS.search(self.sysbench_log.read_text())
        if match is None:
            raise ValueError(f"no transactions line in {self.sysbench_log}")
        return int(match.group(1)), float(match.group(2))


def sysbench(
    cluster,
    member,
    password: str,
    threads: int,
    *extra: str,
    command: str = "run",
    seconds: float | None = None,
    log: Path | None = None,
    background: bool = False,
):
    """sysbench oltp_read_write as the ``sbtest`` account; the password goes in the environment, not argv."""
    argv = [
        "sysbench",
        "oltp_read_write",
        "--db-driver=mysql",
        "--mysql-host=127.0.0.1",
        f"--mysql-port={member.sql_port}",
        "--mysql-user=sbtest",
        "--mysql-db=sbtest",
        f"--tables={SYSBENCH_TABLES}",
        f"--table-size={SYSBENCH_TABLE_SIZE}",
        f"--threads={threads}",
        "--db-ps-mode=disable",
        "--mysql-ignore-errors=all",
        *extra,
    ]
    if seconds is not None:
        argv.append(f"--time={seconds:g}")
    argv.append(command)
    env = {**os.environ, "MYSQL_PWD": password}
    out = open(log, "ab") if log else subprocess.DEVNULL
    process = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT, env=env)
    if background:
        return process
    try:
        process.wait(timeout=(seconds or 300) + 120)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    if process.returncode:
        raise RuntimeError(f"{' '.join(argv)} exited {process.returncode}" + (f" (log: {log})" if log else ""))
    return process


def grade(cluster, member, *extra: str, admin: bool = True, env=None, timeout: float = 120) -> subprocess.CompletedProcess:
    """``percona-mysql-grade`` against one member as the tier's account (password in the environment).

    ``admin``: through every member's admin route (MariaDB's extra_port), as the operators' own users connect;
    otherwise through the SQL ports, behind the thread pool with the clients, peers discovered from the member.
    """
    environment = {**os.environ, "MYSQL_PWD": cluster.password, **(env or {})}
    port = member.admin_port if admin else member.sql_port
    peers = [f"--peer=127.0.0.1:{other.admin_port}" for other in cluster.members if other is not member] if admin else []
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "percona_mysql_k8s.grade",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--user",
            cluster.user,
            *peers,
            *extra,
        ],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=environment,
    )


@contextlib.contextmanager
def large_transactions(cluster, rows: int = BIG_ROWS, period: float = BIG_PERIOD_SECONDS, first: int = 1):
    """Update ``rows`` rows of ``sbtest.big`` from id ``first`` on the writer every ``period`` seconds, in a thread,
    until the block ends; yields the list of each update's seconds."""
    stop, seconds = threading.Event(), []
    last = min(BIG_ROWS, first + rows - 1)

    def loop() -> None:
        while not stop.is_set():
            started = time.monotonic()
            cluster.query(
                cluster.members[0], f"UPDATE sbtest.big SET v = v + 1 WHERE id BETWEEN {int(first)} AND {last}", timeout=300
            )
            seconds.append(time.monotonic() - started)
            stop.wait(period)

    thread = threading.Thread(target=loop, daemon=True)
    thread.start()
    try:
        yield seconds
    finally:
        stop.set()
        thread.join(timeout=60)  # a stuck update fails the test that waits on it, not the whole tier


@contextlib.contextmanager
def rows_without_a_key_updated(cluster):
    """Update the last NOPK_CHANGED rows of ``sbtest.nopk`` on the writer back to back, in a thread, until the block ends;
    yields the list of each update's seconds."""
    stop, seconds = threading.Event(), []

    def loop() -> None:
        while not stop.is_set():
            started = time.monotonic()
            cluster.query(
                cluster.members[0], f"UPDATE sbtest.nopk SET v = v + 1 WHERE id > {NOPK_ROWS - NOPK_CHANGED}", timeout=300
            )
            seconds.append(time.monotonic() - started)

    thread = threading.Thread(target=loop, daemon=True)
    thread.start()
    try:
        yield seconds
    finally:
        stop.set()
        thread.join(timeout=120)


def wait_drained(cluster, timeout: float = 300) -> float:
    """Wait until no member has a write-set waiting to be applied (``wsrep_local_recv_queue`` 0 everywhere): what a
    forced run left queued is applied before the next test reads the cluster. Returns the seconds it took."""
    started = time.monotonic()
    while True:
        queues = {
            member.name: int(cluster.query(member, "SHOW GLOBAL STATUS LIKE 'wsrep_local_recv_queue'", timeout=60)[0][1])
            for member in cluster.members
        }
        if not any(queues.values()):
            return time.monotonic() - started
        if time.monotonic() - started > timeout:
            raise RuntimeError(f"receive queues still not applied after {timeout:.0f} s: {queues}")
        time.sleep(1)


def prepare(cluster, out_dir: Path) -> str:
    """The sbtest schema and account (replicated), and sysbench's tables."""
    password = secrets.token_urlsafe(18)
    writer = cluster.members[0]
    cluster.query(writer, "CREATE DATABASE IF NOT EXISTS sbtest")
    cluster.query(writer, "CREATE USER IF NOT EXISTS 'sbtest'@'127.0.0.1' IDENTIFIED BY %s", (password,))
    cluster.query(writer, "GRANT ALL ON sbtest.* TO 'sbtest'@'127.0.0.1'")
    sysbench(cluster, writer, password, 4, command="prepare", log=out_dir / "sysbench-prepare.log")
    cluster.query(writer, "CREATE TABLE IF NOT EXISTS sbtest.big (id INT PRIMARY KEY, v BIGINT NOT NULL) ENGINE=InnoDB")
    cluster.query(writer, f"INSERT INTO sbtest.big SELECT seq, 0 FROM sbtest.seq_1_to_{BIG_ROWS}", timeout=300)
    cluster.query(writer, "CREATE TABLE IF NOT EXISTS sbtest.nopk (id INT NOT NULL, v BIGINT NOT NULL) ENGINE=InnoDB")
    cluster.query(writer, f"INSERT INTO sbtest.nopk SELECT seq, 0 FROM sbtest.seq_1_to_{NOPK_ROWS}")
    worst_case.prepare(cluster)
    return password


def fc_status(cluster) -> dict[str, dict[str, int]]:
    names = ", ".join(f"'{name}'" for name in FC_STATUS)
    return {
        member.name: {
            name.lower(): int(value)
            for name, value in cluster.query(member, f"SHOW GLOBAL STATUS WHERE Variable_name IN ({names})")
        }
        for member in cluster.members
    }


def fill_buffer_pools(cluster, max_batches: int) -> tuple[int, dict[str, float], dict[str, bool]]:
    """Insert on the writer until every buffer pool is full (:data:`FILLED_FREE_SHARE`, :data:`LRU_FREE_MARGIN`):
    (batches, each member's free share, whether each is full)."""
    writer = cluster.members[0]
    cluster.query(
        writer, "CREATE TABLE IF NOT EXISTS sbtest.fill (id BIGINT AUTO_INCREMENT PRIMARY KEY, pad VARCHAR(4000)) ENGINE=InnoDB"
    )
    insert = (
        f"INSERT INTO sbtest.fill (pad) SELECT REPEAT(CHAR(65 + seq % 26), {FILL_ROW_BYTES}) "
        f"FROM sbtest.seq_1_to_{FILL_ROWS}"
    )  # MariaDB's Sequence engine
    kept_free = {member.name: int(cluster.query(member, "SELECT @@innodb_lru_scan_depth")[0][0]) for member in cluster.members}
    shares: dict[str, float] = {}
    full: dict[str, bool] = {}
    for batch in range(1, max_batches + 1):
        cluster.query(writer, insert, timeout=300)
        if batch % 10 == 0 or batch == max_batches:
            for member in cluster.members:
                pages = dict(
                    cluster.query(
                        member,
                        "SHOW GLOBAL STATUS WHERE Variable_name IN "
                        "('Innodb_buffer_pool_pages_total', 'Innodb_buffer_pool_pages_free')",
                    )
                )
                free, total = int(pages["Innodb_buffer_pool_pages_free"]), int(pages["Innodb_buffer_pool_pages_total"])
                shares[member.name] = free / total
                full[member.name] = free < FILLED_FREE_SHARE * total or free <= LRU_FREE_MARGIN * kept_free[member.name]
            if all(full.values()):
                return batch, shares, full
    return max_batches, shares, full


def run(cluster, sizing, sizing_file: Path, out_dir: Path) -> Workload:
    password = prepare(cluster, out_dir)
    threads = sizing.max_connections - TIER_CONNECTIONS
    workload = Workload(threads, out_dir / "sysbench-oltp.log")
    workload.sysbench_log.unlink(missing_ok=True)
    pool = int(sizing.mysqld["innodb_buffer_pool_size"])
    sampler = Sampler(cluster.members, cluster, pool).start()
    workload.sampler = sampler
    try:
        time.sleep(3)  # idle samples: the server before any client
        workload.idle_end = sampler.elapsed()
        load = sysbench(
            cluster,
            cluster.members[0],
            password,
            threads,
            "--report-interval=10",
            seconds=SYSBENCH_SECONDS,
            log=workload.sysbench_log,
            background=True,
        )
        try:
            time.sleep(LOGIN_AFTER_SECONDS)
            started = time.monotonic()
            # through the SQL port, behind the pool with sysbench's clients: the cap must leave it a thread
            workload.login = grade(
                cluster,
                cluster.members[0],
                "--sizing",
                str(sizing_file),
                "--window",
                "1",
                "--timeout",
                str(LOGIN_TIMEOUT_SECONDS),
                admin=False,
                timeout=120,
            )
            workload.login_seconds = time.monotonic() - started
            (out_dir / "grade-during-load.txt").write_text(workload.login.stdout + workload.login.stderr)
        finally:
            load.wait(timeout=SYSBENCH_SECONDS + 120)
        if load.returncode:
            raise RuntimeError(f"sysbench exited {load.returncode} (log: {workload.sysbench_log})")
        workload.oltp_end = sampler.elapsed()
        # the flow-control phase: the same load, appliers slower than the writer
        for member in cluster.members:
            cluster.query(member, "FLUSH STATUS")  # resets wsrep_local_recv_queue_max (not the paused_ns counter)
        workload.fc_before = fc_status(cluster)
        workload.fc_log = out_dir / "sysbench-flow-control.log"
        workload.fc_log.unlink(missing_ok=True)
        with large_transactions(cluster) as big:
            sysbench(
                cluster,
                cluster.members[0],
                password,
                threads,
                "--report-interval=5",
                seconds=FLOW_CONTROL_SECONDS,
                log=workload.fc_log,
            )
        workload.big_update_seconds = big
        workload.fc_after = fc_status(cluster)
        started = time.monotonic()
        max_batches = int(pool * 1.6 // (FILL_ROWS * FILL_ROW_BYTES)) + 1
        workload.fill_batches, workload.pages_free_share, workload.pools_full = fill_buffer_pools(cluster, max_batches)
        workload.fill_seconds = time.monotonic() - started
        time.sleep(2)
        # the worst case, with every buffer pool full: the statements the pool runs at once each take every buffer the
        # model charges a statement, and the other connections mysqld admits idle
        running = running_statement_bound(sizing.mysqld)  # the sizing's connections.active.statements
        idle = sizing.max_connections - running - TIER_CONNECTIONS
        workload.worst = worst_case.run(cluster, "sbtest", password, running, idle, sampler)
        time.sleep(2)
    finally:
        sampler.stop()
    for member in cluster.members:
        workload.final_hwm[member.name] = sampler.sample(member).hwm
    workload.password = password
    return workload
