"""sysbench runs, sized from the database they measure (rules B2-B4).

Pure: no Pulumi. The database layer turns a :class:`Benchmark` into Jobs.

* B4 - data size against the buffer pool: the load profile says how many times the buffer pool the
  data should be (``LoadProfile.data_to_buffer_pool_ratio``: below 1 the run is CPU-bound, above 1 it is
  IO-bound). Rows are converted to bytes with :data:`ROW_BYTES`.
* B3 - a thread ladder with a fixed duration per step, optional ``--rate``, per-second reports, a
  histogram and the 95th percentile; B2 - a warm-up before the first measured step.
* The ladder's top step must fit ``max_connections`` (one connection per sysbench thread through the
  proxy), and the data must leave room on the volume for redo, undo and binary logs.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

from .errors import InputError
from .profiles import LOADS, PROFILES
from .units import GIB

# One row of a sysbench oltp table (id INT, k INT, c CHAR(120), pad CHAR(60)) with its secondary index
# k_1, as InnoDB stores it: ~2.3 GB per 10 million rows, the figure usually quoted for sysbench tables.
ROW_BYTES = 230
# Tables: Percona's e2e runs use 16; bigger data sets get more tables (one per ~2 GiB) so prepare can
# load them in parallel and no single table's index dominates, up to 64.
MIN_TABLES, MAX_TABLES = 16, 64
TABLE_TARGET_BYTES = 2 * GIB
MIN_TABLE_SIZE = 1000


def data_bytes(tables: int, table_size: int) -> int:
    """B4, R7: the bytes ``sysbench prepare`` leaves on disk for ``tables`` oltp tables of ``table_size`` rows each:
    the one definition the sizing and the pack's data-volume-size policy both read."""
    return tables * table_size * ROW_BYTES


# R7: the data volume holds the data and the binary logs mysqld keeps beside it. The sizing models no
# binary-log rate, so it derives the binary logs from its own input, the data set: sysbench prepare inserts
# every row once, and row-based logging (binlog_format ROW with binlog_row_image FULL, mysqld's defaults, which
# neither operator changes) writes each inserted row in full, so prepare alone leaves binary logs the size of the
# data, kept binlog_expire_logs_seconds (30 days by default, longer than any run). So the data may take at most
# half the volume; the ladder's writes, redo, undo and temporary files share the binary logs' half.
BINLOG_BYTES_PER_DATA_BYTE = 1
MAX_DATA_SHARE_OF_VOLUME = 1 / (1 + BINLOG_BYTES_PER_DATA_BYTE)


def data_volume_needed(data_bytes: int) -> int:
    """R7: the smallest data volume that holds ``data_bytes`` of data and the binary logs writing it leaves."""
    return data_bytes + data_bytes * BINLOG_BYTES_PER_DATA_BYTE


# Connections the operators and the PMM agent hold open beside sysbench (monitor, replication,
# operator, pmm): the ladder's top step must leave them room.
RESERVED_CONNECTIONS = 16
MAX_THREADS = 4096
# Beyond these a value is a typo, not a plan: one step (or warm-up) longer than a day, a rate no server reaches.
MAX_STEP_SECONDS = 86_400
MAX_RATE_TPS = 1_000_000
SCRIPT = "oltp_read_write"


@dataclass(frozen=True)
class Dataset:
    """What ``sysbench prepare`` creates: ``tables`` x ``table_size`` rows, ~``data_bytes`` on disk."""

    tables: int
    table_size: int
    data_bytes: int
    buffer_pool_bytes: int
    ratio: float  # the profile's target data / buffer pool
    requested: bool = False  # sized by the user's request (R5), not from the buffer pool

    @property
    def fits_buffer_pool(self) -> bool:
        return self.data_bytes <= self.buffer_pool_bytes

    @property
    def bound(self) -> str:
        return "cpu" if self.fits_buffer_pool else "io"


@dataclass(frozen=True)
class Ladder:
    threads: tuple[int, ...]
    duration_seconds: int
    warmup_seconds: int
    rate: int  # transactions per second for the whole run; 0 = unlimited
    report_interval_seconds: int = 1
    percentile: int = 95

    @property
    def warmup_threads(self) -> int:
        """The warm-up runs at the ladder's middle step: enough to touch the working set."""
        return self.threads[len(self.threads) // 2]

    @property
    def step_warmup_seconds(self) -> int:
        """Each step first runs unmeasured at its own concurrency (``--warmup-time``): a tenth of the
        step, at most a minute. The buffer pool itself is warmed once, before the ladder (B2)."""
        return max(1, min(60, self.duration_seconds // 10))

    @property
    def measured_seconds(self) -> int:
        return self.duration_seconds * len(self.threads)


@dataclass(frozen=True)
class Benchmark:
    dataset: Dataset
    ladder: Ladder
    script: str = SCRIPT

    @property
    def prepare_threads(self) -> int:
        return min(self.dataset.tables, 16)


def dataset(buffer_pool_bytes: int, load: str, requested_bytes: int | None = None) -> Dataset:
    """B4: tables and rows so the data is ``ratio`` x the buffer pool; or, for a production run, the
    ``requested_bytes`` its user asked for and never more (R5): then the data set does not follow the
    database's sizing, so a change of the database never changes (and reruns) the run."""
    if load not in PROFILES:
        raise InputError("load", f"must be one of {', '.join(LOADS)}; got {load!r}", "B4")
    if isinstance(buffer_pool_bytes, bool) or not isinstance(buffer_pool_bytes, int) or buffer_pool_bytes <= 0:
        raise InputError("buffer_pool_bytes", f"must be a positive whole number, got {buffer_pool_bytes!r}", "B4")
    ratio = PROFILES[load].data_to_buffer_pool_ratio
    target = buffer_pool_bytes * ratio
    if requested_bytes is not None:
        smallest = MIN_TABLES * MIN_TABLE_SIZE * ROW_BYTES
        if requested_bytes < smallest:
            raise InputError(
                "sysbenchDataSize",
                f"{requested_bytes} bytes cannot hold {MIN_TABLES} tables of {MIN_TABLE_SIZE} rows ({smallest} bytes)",
                "R5",
            )
        target = requested_bytes
    tables = max(MIN_TABLES, min(MAX_TABLES, math.ceil(target / TABLE_TARGET_BYTES)))
    table_size = max(MIN_TABLE_SIZE, math.ceil(target / (tables * ROW_BYTES)))
    if requested_bytes is not None:  # rows rounded down: never more than asked
        table_size = max(MIN_TABLE_SIZE, requested_bytes // (tables * ROW_BYTES))
    return Dataset(
        tables, table_size, data_bytes(tables, table_size), buffer_pool_bytes, ratio, requested=requested_bytes is not None
    )


def _whole(key: str, value: object, minimum: int, rule: str = "B3", maximum: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputError(key, f"must be a whole number, got {value!r}", rule)
    if value < minimum:
        raise InputError(key, f"must be >= {minimum}, got {value}", rule)
    if maximum is not None and value > maximum:
        raise InputError(key, f"must be <= {maximum}, got {value}", rule)
    return value


def ladder(threads: Sequence[int], duration_seconds: int, warmup_seconds: int, rate: int = 0) -> Ladder:
    """B3 (and B2): validate the thread ladder, step duration, warm-up and rate."""
    if isinstance(threads, (str, bytes)) or not isinstance(threads, Sequence) or not threads:
        raise InputError("sysbenchThreads", f"must be a non-empty list of thread counts, got {threads!r}", "B3")
    if not all(isinstance(step, int) and not isinstance(step, bool) for step in threads):
        raise InputError("sysbenchThreads", f"must be a list of whole thread counts, got {list(threads)!r}", "B3")
    steps = tuple(_whole("sysbenchThreads", step, 1) for step in threads)
    if any(later <= earlier for earlier, later in itertools.pairwise(steps)):
        raise InputError("sysbenchThreads", f"must increase step by step (a ladder), got {list(steps)}", "B3")
    if steps[-1] > MAX_THREADS:
        raise InputError("sysbenchThreads", f"at most {MAX_THREADS} threads, got {steps[-1]}", "B3")
    return Ladder(
        threads=steps,
        duration_seconds=_whole("sysbenchDuration", duration_seconds, 1, maximum=MAX_STEP_SECONDS),
        warmup_seconds=_whole("sysbenchWarmup", warmup_seconds, 0, "B2", maximum=MAX_STEP_SECONDS),
        rate=_whole("sysbenchRate", rate, 0, maximum=MAX_RATE_TPS),
    )


def plan(
    *,
    buffer_pool_bytes: int,
    load: str,
    max_connections: int,
    volume_bytes: int,
    threads: Sequence[int],
    duration_seconds: int,
    warmup_seconds: int,
    rate: int = 0,
    requested_data_bytes: int | None = None,
) -> Benchmark:
    """The whole run, checked against the database it measures."""
    steps = ladder(threads, duration_seconds, warmup_seconds, rate)
    data = dataset(buffer_pool_bytes, load, requested_data_bytes)
    room = max_connections - RESERVED_CONNECTIONS
    if steps.threads[-1] > room:
        raise InputError(
            "sysbenchThreads",
            f"the top step of {steps.threads[-1]} threads needs as many connections, but the cluster is sized for "
            f"max_connections={max_connections} with {RESERVED_CONNECTIONS} kept for the operator and PMM: at most "
            f"{max(room, 0)} threads (raise connections or use bigger nodes)",
            "B3",
        )
    if data_volume_needed(data.data_bytes) > volume_bytes:
        needed = math.ceil(data_volume_needed(data.data_bytes) / GIB)
        raise InputError(
            "storageSize",
            f"the {load} data set is {data.data_bytes / GIB:.1f} GiB ({data.ratio:g} x the buffer pool); with the binary "
            f"logs its prepare leaves (as large again: row-based logging of every inserted row) it needs a data volume of "
            f"at least {needed}Gi",
            "R7",
        )
    return Benchmark(data, steps)


def timeout_seconds(benchmark: Benchmark, phase: str) -> int:
    """How long Pulumi may wait for a phase's Job (its await timeout), with a generous margin.

    prepare: InnoDB loads a few hundred thousand sysbench rows a second on the nodes we size; a
    conservative 20,000 rows/s per prepare thread bounds it.
    """
    margin = 15 * 60
    if phase == "schema":
        return margin + 15 * 60  # includes waiting for the proxy to admit the new user
    if phase == "prepare":
        rows = benchmark.dataset.tables * benchmark.dataset.table_size
        return margin + math.ceil(rows / (20_000 * benchmark.prepare_threads))
    if phase == "warmup":
        return margin + benchmark.ladder.warmup_seconds + math.ceil(benchmark.dataset.data_bytes / (50 * 2**20))
    if phase == "ladder":
        steps = len(benchmark.ladder.threads)
        return margin + benchmark.ladder.measured_seconds + (benchmark.ladder.step_warmup_seconds + 30) * steps
    if phase == "cleanup":
        return margin
    raise ValueError(f"unknown phase {phase!r}")
