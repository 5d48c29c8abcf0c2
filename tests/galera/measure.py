"""What a running mariadbd holds in memory, split the way the memory model (M1) splits it.

Read from ``/proc/<pid>/status`` (VmHWM, VmRSS: never VmSize, MariaDB 10.11 reserves
``innodb_buffer_pool_size_max`` of address space), ``/proc/<pid>/smaps`` (the gcache's file mapping, the log
buffer's anonymous mapping) and InnoDB's page counters. How each term is measured, and whether it depends on
the server build (MariaDB 10.11 here, PXC 8 in production):

* buffer_pool: page frames InnoDB can use (``Innodb_buffer_pool_pages_total`` x page size). Build-independent:
  both servers fill innodb_buffer_pool_size with 16 KiB pages.
* buffer_pool_descriptors: MariaDB 10.11 keeps the block descriptors inside innodb_buffer_pool_size (pages_total
  is below size / page size), MySQL 8 beside it (buf_chunk_init). Build-dependent: sizeof(buf_block_t) differs.
* log_buffer: MariaDB 10.11 allocates two buffers of innodb_log_buffer_size, ``buf`` and ``flush_buf``
  (MariaDB/server storage/innobase/log/log0log.cc ``log_t::create``, ``ut_malloc_dontdump``), MySQL 8 one.
  Measured, up to the end of the sysbench run (few frames are freed before the fill), as the resident bytes of
  the mappings marked do-not-dump (``dd`` in VmFlags: the buffer pool and the log buffers) less the buffer
  pool's frames in use and descriptors. Build-dependent.
* gcache: resident bytes of the ``galera.cache`` file mapping (a ring: it is all resident once it wrapped).
  Build-independent: the Galera 4 provider maps it the same way under PXC 8.
* server_overhead: what is resident at idle beside the do-not-dump mappings and the gcache (code,
  dictionary, caches, threads).
  Build-dependent.
* per active connection: growth of that remainder under sysbench, per sysbench thread. Build-dependent
  (THD, network buffers; MariaDB runs without performance_schema by default).
"""

from __future__ import annotations

import re
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from percona_mysql_k8s.grade.proc import status_bytes

_MAPPING = re.compile(r"^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ \S+\s*(.*)$")
INNODB_PAGE_BYTES = 16 * 1024


@dataclass(frozen=True)
class Sample:
    seconds: float  # since the sampler started
    rss: int
    hwm: int
    gcache: int  # resident bytes of the galera.cache mapping
    dontdump: int  # resident bytes of anonymous mappings marked do-not-dump: buffer pool and log buffers
    pages_total: int
    pages_free: int
    pool_bytes: int

    @property
    def descriptors(self) -> int:
        """MariaDB: the part of innodb_buffer_pool_size that holds no page frame (block descriptors)."""
        return max(0, self.pool_bytes - self.pages_total * INNODB_PAGE_BYTES)

    @property
    def pool_resident(self) -> int:
        """Frames in use plus the descriptors; a frame never used is not resident (mapped on first touch). Exact
        at idle; later, freed frames stay resident, so this is a lower bound."""
        return (self.pages_total - self.pages_free) * INNODB_PAGE_BYTES + self.descriptors

    @property
    def log_buffer(self) -> int:
        return max(0, self.dontdump - self.pool_resident)

    @property
    def remainder(self) -> int:
        """Resident beside the buffer pool, the log buffers and the gcache: code, heap, stacks."""
        return self.rss - self.dontdump - self.gcache


def mapping_rss(smaps: str) -> tuple[int, int]:
    """(gcache resident, do-not-dump anonymous resident) from one ``/proc/<pid>/smaps`` (proc(5): each mapping's
    header line, then its fields, ``Rss:`` before ``VmFlags:``)."""
    gcache = dontdump = 0
    name, rss = "", 0
    for line in smaps.splitlines():
        match = _MAPPING.match(line)
        if match:
            name, rss = match.group(4).strip(), 0
        elif line.startswith("Rss:"):
            rss = int(line.split()[1]) * 1024
        elif line.startswith("VmFlags:"):
            if name.endswith("/galera.cache"):
                gcache += rss
            elif not name and "dd" in line.split()[1:]:
                dontdump += rss
    return gcache, dontdump


@dataclass
class Sampler:
    """Samples every member once a second in a thread, between ``start()`` and ``stop()``."""

    members: list  # galera_cluster.Member
    cluster: object  # galera_cluster.GaleraCluster
    pool_bytes: int
    interval: float = 1.0
    samples: dict[str, list[Sample]] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._started = time.monotonic()

    def elapsed(self) -> float:
        return time.monotonic() - self._started

    def sample(self, member) -> Sample:
        proc = Path("/proc") / str(member.pid)
        status = status_bytes((proc / "status").read_text())
        gcache, dontdump = mapping_rss((proc / "smaps").read_text())
        pages = {
            name: int(value)
            for name, value in self.cluster.query(
                member,
                "SHOW GLOBAL STATUS WHERE Variable_name IN ('Innodb_buffer_pool_pages_total', 'Innodb_buffer_pool_pages_free')",
                timeout=10,
            )
        }
        return Sample(
            self.elapsed(),
            status["VmRSS"],
            status["VmHWM"],
            gcache,
            dontdump,
            pages["Innodb_buffer_pool_pages_total"],
            pages["Innodb_buffer_pool_pages_free"],
            self.pool_bytes,
        )

    def _run(self) -> None:
        while not self._stop.is_set():
            for member in self.members:
                try:
                    self.samples.setdefault(member.name, []).append(self.sample(member))
                except Exception as error:  # noqa: BLE001 - a missed sample is recorded, the run goes on
                    self.errors.append(f"{member.name}: {type(error).__name__}: {error}")
            self._stop.wait(self.interval)

    def start(self) -> Sampler:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=60)


# term -> (build-independent?, how it is measured); the figures issue 21 recalibrates the model from
TERMS = {
    "buffer_pool": (True, "Innodb_buffer_pool_pages_total x 16 KiB: the page frames"),
    "buffer_pool_descriptors": (False, "innodb_buffer_pool_size less the page frames (MariaDB keeps descriptors inside)"),
    "log_buffer": (False, "do-not-dump resident less the pool's frames in use and descriptors (MariaDB: 2 buffers)"),
    "gcache": (True, "resident bytes of the galera.cache mapping"),
    "server_overhead": (False, "resident at idle beside the do-not-dump mappings and the gcache"),
    "per_active_connection": (False, "growth of that remainder under sysbench, per sysbench thread"),
    "heap_side": (False, "peak of that remainder over the whole run, against every heap term of the model"),
    "total": (False, "VmHWM against the modelled peak"),
}
CONNECTION_TERMS = ("connections_idle", "connections_active", "connection_threads")
HEAP_TERMS_EXCLUDED = ("buffer_pool", "buffer_pool_descriptors", "gcache", "page_cache_reserve", "log_buffer")


def member_figures(
    samples: list[Sample],
    idle_end: float,
    oltp_end: float,
    clients: int,
    final_hwm: int,
    model_terms: dict[str, int],
    max_connections: int,
    model_peak: int,
) -> dict[str, dict]:
    """Measured figure, model figure and their ratio for every term of :data:`TERMS`, for one member.

    ``clients``: the sysbench threads this member served (0 for a member that only applies: it has no
    per-connection figure).
    """
    idle = [s for s in samples if s.seconds <= idle_end]
    oltp = [s for s in samples if idle_end < s.seconds <= oltp_end]
    if not idle or not oltp:
        raise ValueError(f"too few samples: {len(idle)} idle, {len(oltp)} under sysbench")
    baseline = idle[-1].remainder
    measured = {
        "buffer_pool": samples[-1].pages_total * INNODB_PAGE_BYTES,
        "buffer_pool_descriptors": samples[-1].descriptors,
        "log_buffer": max(s.log_buffer for s in idle + oltp),
        "gcache": max(s.gcache for s in samples),
        "server_overhead": baseline,
        "per_active_connection": max(0, max(s.remainder for s in oltp) - baseline) / clients if clients else None,
        "heap_side": max(s.remainder for s in samples),
        "total": max(final_hwm, *(s.hwm for s in samples)),
    }
    model = {
        name: model_terms.get(name, 0)
        for name in ("buffer_pool", "buffer_pool_descriptors", "log_buffer", "gcache", "server_overhead")
    }
    # a connection's session, its share of the running statements' buffers and a thread of its own
    model["per_active_connection"] = sum(model_terms.get(term, 0) for term in CONNECTION_TERMS) / max_connections
    model["heap_side"] = sum(value for name, value in model_terms.items() if name not in HEAP_TERMS_EXCLUDED)
    model["total"] = model_peak
    return {
        name: {
            "measured_bytes": None if measured[name] is None else round(measured[name]),
            "model_bytes": round(model[name]),
            "ratio": round(measured[name] / model[name], 3) if model[name] and measured[name] is not None else None,
            "build_independent": TERMS[name][0],
            "how": TERMS[name][1],
        }
        for name in TERMS
    }


def worst_case_figures(samples: list[Sample], load, started: float, ended: float, options: dict, model_terms: dict) -> dict:
    """The worst-case phase on one member (tests/galera/worst_case.py): what its sessions held, against the model.

    ``load``: its :class:`worst_case.MemberLoad`; ``options``: the options the server runs (MariaDB's names).
    A running statement is charged its buffers (sort, join, read, read_rnd) and one temporary table of at most
    min(tmp_table_size, max_heap_table_size): the bound of each in-memory internal temporary table on both servers
    (MySQL 8.4's TempTable as well, which also bounds all of them together by temptable_max_ram).
    """
    during = [s for s in samples if started <= s.seconds <= ended]
    before = [s for s in samples if s.seconds < started]
    statement_buffers = sum(
        int(options[key]) for key in ("sort_buffer_size", "join_buffer_size", "read_buffer_size", "read_rnd_buffer_size")
    )
    temp_table = min(int(options["tmp_table_size"]), int(options["max_heap_table_size"]))
    idle = sorted(load.idle_bytes.values())
    return {
        "running_clients": load.running,
        "idle_clients": load.idle,
        "statements": load.statements,
        "most_running_at_once": load.most_running,
        "counters": load.counters,
        "errors": load.errors[:5],
        "heap_side_peak_bytes": max((s.remainder for s in during), default=None),
        "hwm_bytes": max((s.hwm for s in during), default=None),
        # the same before the worst case: sysbench, its flow-control phase and the buffer-pool fill
        "before_heap_side_peak_bytes": max((s.remainder for s in before), default=None),
        "before_hwm_bytes": max((s.hwm for s in before), default=None),
        "idle_session_bytes": {"median": idle[len(idle) // 2] if idle else None, "max": idle[-1] if idle else None},
        "statement": {
            "measured_bytes": load.statement_peak(),
            "model_bytes": statement_buffers + temp_table,
            "statement_buffers_bytes": statement_buffers,
            "temporary_table_bytes": temp_table,
        },
        "statements_together": {
            "measured_bytes": load.statements_peak(),
            "model_bytes": model_terms.get("connections_active", 0) + model_terms.get("temporary_tables", 0),
        },
    }
