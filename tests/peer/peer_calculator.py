"""An independent model of the peer sizing service, mysqloperatorcalculator v1.20.1.

It covers what the comparison needs: open-dimension requests (id 999) for ``pxc`` and
``group_replication``, load ids 1-4, explicit connections (>= 1) and ``connections = 0`` (the
auto-connection search). It is written from the formula-by-formula description in
``/work/shared/reference/peer-calculator/ALGORITHM.md``; section numbers below (§) point there.

The peer is a Go program, so the model reproduces its arithmetic: float32 where the peer computes in
float32 (the load factor λ, the redo index, the Galera timer products, ``1 - λ``), float64 elsewhere,
and Go's truncating conversions. The version filter (§3.14) only deletes parameters and never changes
a value, so the model keeps every value, as the peer answers for MySQL 8.0.46. Bugs are reproduced, not
fixed: this is a model of what the peer answers, used to check that our engine does at least as well
wherever the peer's answer is safe.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from itertools import pairwise
from types import MappingProxyType

GIB = 2**30
MIB = 2**20

PXC, GROUP_REPLICATION = "pxc", "group_replication"
OK, CLOSE_TO_LIMIT, OVERUTILIZING, ERROR, CONNECTIONS_RECALCULATED = 1001, 2001, 3001, 5001, 6001
CPU_OVERLOAD, MEMORY_OVERUTILIZED = "cpu", "memory"

MIN_CONNECTIONS = 20  # MinConnectionNumber
CONNECTION_STEP = 10  # step of the auto-connection search and of the back-off
MAX_AUTO_CONNECTIONS = 500_000
TMP_TABLE_SIZE = 16 * MIB  # static tmp_table_size / max_heap_table_size (§3.3, §6)
BUFFER_POOL_CHUNK = 2 * MIB  # static innodb_buffer_pool_chunk_size (§6)

_FLOAT32 = struct.Struct("<f")


def f32(value: float) -> float:
    """Round to the nearest float32. One float32 operation equals the float64 operation rounded so."""
    return _FLOAT32.unpack(_FLOAT32.pack(value))[0]


def go_div(a: int, b: int) -> int:
    """Go integer division: truncates toward zero (Python's // floors)."""
    quotient = abs(a) // abs(b)
    return quotient if (a >= 0) == (b >= 0) else -quotient


@dataclass(frozen=True)
class Dimension:
    """One row of the predefined dimension table (§2.1): totals and the per-family split."""

    id: int
    cpu: int
    memory: float
    mysql_cpu: int
    proxy_cpu: int
    pmm_cpu: int
    mysql_memory: float
    proxy_memory: float
    pmm_memory: float


DIMENSIONS = (
    Dimension(1, 1000, 2 * GIB, 600, 200, 100, 1825361100, 214748364, 107374182),
    Dimension(2, 2500, 4 * GIB, 2000, 350, 150, 3758096384, 429496729, 107374182),
    Dimension(3, 4500, 8 * GIB, 3800, 500, 200, 7516192768, 751619276, 322122547),
    Dimension(4, 6500, 16 * GIB, 5500, 700, 300, 15032385536, 1610612736, 536870912),
    Dimension(5, 8500, 32 * GIB, 7400, 800, 300, 32212254720, 1610612736, 536870912),
    Dimension(6, 16000, 64 * GIB, 14000, 1500, 500, 66571993088, 1610612736, 536870912),
    Dimension(7, 32000, 128 * GIB, 29000, 2000, 1000, 135291469824, 1610612736, 536870912),
    Dimension(8, 48000, 192 * GIB, 45000, 2000, 1000, 204010946560, 1610612736, 536870912),
    Dimension(9, 64000, 256 * GIB, 60000, 3000, 1000, 271656681472, 2147483648, 1073741824),
    Dimension(10, 96000, 384 * GIB, 90000, 4000, 2000, 408021893120, 2684354560, 1610612736),
)


def reference_dimension(cpu: int, memory: float) -> Dimension:
    """§2.2: the scan that picks the ratios; the smaller of the CPU and memory matches wins."""
    first = DIMENSIONS[0]
    if cpu <= first.cpu or memory <= first.memory:
        return first
    for previous, current in pairwise(DIMENSIONS):
        if previous.cpu <= cpu <= current.cpu or previous.memory <= memory <= current.memory:
            return previous
    last = DIMENSIONS[-1]
    if cpu >= last.cpu or memory >= last.memory:
        return last
    return first


def open_dimension(cpu: int, memory: float) -> Dimension:
    """§2.2: split an open request with the reference dimension's ratios (ratio first, as the peer does).

    CPU parts are truncated to whole millicores; memory parts stay fractional floats.
    """
    ref = reference_dimension(cpu, memory)
    return Dimension(
        id=999,
        cpu=cpu,
        memory=memory,
        mysql_cpu=int(cpu * (ref.mysql_cpu / ref.cpu)),
        proxy_cpu=int(cpu * (ref.proxy_cpu / ref.cpu)),
        pmm_cpu=int(cpu * (ref.pmm_cpu / ref.cpu)),
        mysql_memory=memory * (ref.mysql_memory / ref.memory),
        proxy_memory=memory * (ref.proxy_memory / ref.memory),
        pmm_memory=memory * (ref.pmm_memory / ref.memory),
    )


# ---- per-load tables, index = load id - 1 (§3.1-§3.11) ----
CPU_PER_CONNECTION = (0.8, 1.2, 1.6, 2.0)  # millicores one connection costs (§3.1)
JOIN_BUFFER = (262144, 524288, 1048576, 1048576)  # §3.3
READ_RND_BUFFER = (262144, 393216, 707788, 707788)
SORT_BUFFER = (262144, 524288, 1572864, 2097152)
TMP_TABLE_FACTOR = (0.2, 0.1, 0.3, 0.05)
REDO_BASE = (0.6, 0.7, 0.8, 0.9)  # §3.4
GCACHE_LOAD = (1.0, 1.15, 1.2, 1.0)  # §3.2
GCACHE_FOOTPRINT = (0.5, 0.6, 0.8, 0.5)  # §3.6
IO_CAPACITY_MAX = (28000, 24000, 20000, 20000)  # §3.7
GR_MAX_MESSAGE_SIZE = (5097152, 7645728, 10194304, 10485760)  # min(10485760, 5097152 x load weight) (§3.11)

IDEAL_BUFFER_POOL_SHARE = {PXC: 0.80, GROUP_REPLICATION: 0.70}  # §3.2, also the BP1 share (§3.5)
MIN_LIMIT = {PXC: 0.50, GROUP_REPLICATION: 0.40}  # §4 classification, §3.12 floor
CONNECTION_WEIGHT_LIMIT = 0.50  # §3.3 gate
GCS_CACHE_MIN = 128 * MIB  # §3.11
PROBE_MAX = MappingProxyType({"mysql": 600, "haproxy": 30, "pmm": 30})  # readiness Max (§3.13)
PROBE_MIN = MappingProxyType({"mysql": 15, "haproxy": 5, "pmm": 5})

# Galera provider options scaled by λ: key -> (RMax, rendering) (§3.10).
GALERA_SCALED = MappingProxyType(
    {
        "evs.delay_margin": (30, "PT{}S"),
        "evs.delayed_keep_period": (60, "PT5{}S"),  # the peer's literal "5" prefix, reproduced
        "evs.inactive_check_period": (5, "PT{}S"),
        "evs.inactive_timeout": (120, "PT{}S"),
        "evs.join_retrans_period": (5, "PT{}S"),
        "evs.max_install_timeouts": (5, "{}"),
        "evs.send_window": (1024, "{}"),
        "evs.user_send_window": (1024, "{}"),
        "evs.suspect_timeout": (60, "PT{}S"),
        "gcs.fc_limit": (128, "{}"),
        "gcs.max_packet_size": (131072, "{}"),
        "gmcast.peer_timeout": (15, "PT{}S"),
        "gmcast.time_wait": (18, "PT{}S"),
        "pc.announce_timeout": (60, "PT{}S"),
        "pc.linger": (60, "PT{}S"),
    }
)
GALERA_LITERAL = MappingProxyType({"pc.recovery": "true", "gcache.recover": "yes", "evs.stats_report_period": "PT1M"})


def return_bytes(leftover: int) -> int:
    """§3.12 CalculateReturnBytes: 20% of small leftovers, 85% from 2 GiB, linear in between.

    The interpolation is written as the peer's code computes it: progress first, then the share.
    """
    low, high = 300 * MIB, 2 * GIB
    if leftover <= low:
        return int(leftover * 0.20)
    if leftover >= high:
        return int(leftover * 0.85)
    progress = (leftover - low) / (high - low)
    return int(leftover * (0.20 + progress * (0.85 - 0.20)))


def log_files_in_group(redo: int, load: int) -> int:
    """§3.4: the number of redo files from the capacity in MiB (no cap above 4000 MiB)."""
    mib = redo / MIB
    reads = load == 1
    if mib < 500:
        return 2
    if mib <= 1000:
        return 2 if reads else 3
    if mib <= 2000:
        return 3 if reads else 5
    if mib <= 4000:
        return 5 if reads else 8
    return math.floor(mib / 400)


def buffer_pool_instances(total_cpu: int, mysql_cpu: int, first_pool: int) -> int:
    """§3.5: instances from BP1 per mysqld core; one when the *total* CPU is at most 2000m."""
    if total_cpu <= 2000:
        return 1
    cores = mysql_cpu / 1000
    per_core = first_pool / GIB / cores
    if per_core > 1:
        instances = int(2 * cores)
    elif per_core > 0.4:
        instances = int(cores)
    else:
        instances = math.ceil(cores / 2)
    return min(instances, 64)


def probe_timeout(family: str, load_factor: float) -> int:
    """§3.13: ceil(Max x λ), falling back to Min only below 1; liveness copies readiness."""
    value = math.ceil(PROBE_MAX[family] * load_factor)
    return PROBE_MIN[family] if value < 1 else value


def galera_provider_options(load_factor: float, gcache: int) -> dict[str, str]:
    """§3.10: every timer and window is trunc(float32(RMax) x λ), with no floor."""
    options = dict(GALERA_LITERAL)
    options["gcache.size"] = str(gcache)
    for key, (rmax, pattern) in GALERA_SCALED.items():
        options[key] = pattern.format(int(f32(f32(rmax) * load_factor)))
    return dict(sorted(options.items()))


def render_provider_options(options: Mapping[str, str]) -> str:
    """The peer writes sorted ``key=value;`` pairs, so the string ends with ``;``."""
    return "".join(f"{key}={value};" for key, value in options.items())


@dataclass(frozen=True)
class PeerAnswer:
    """One pass of the peer, or its final answer. mysqld settings are None when a pass stops early.

    ``message_type`` is 1001/2001/6001 for answers with settings, 3001 for a failed pass, 6001 with
    ``answered`` False for the CPU-overload dead end, 5001 for the auto-connection cap; ``http_status``
    500 marks a memory-overutilized last pass, which the server returns as a plain-text error.
    """

    db: str
    load: int
    message_type: int
    http_status: int
    failure: str | None  # CPU_OVERLOAD or MEMORY_OVERUTILIZED for a 3001 pass
    requested_connections: int  # the connection count the (last) pass was run with, before the floor
    connections: int  # N = max(requested, 20), what the formulas use
    load_factor: float  # λ (a float32 value)
    total_cpu: int
    total_memory: float
    mysql_cpu: int
    mysql_memory: float
    proxy_cpu: int
    proxy_memory: float
    pmm_cpu: int
    pmm_memory: float
    connection_memory: int | None = None
    buffer_pool: int | None = None
    buffer_pool_fraction: float | None = None  # BP / total memory, the classification value (§4)
    buffer_pool_instances: int | None = None
    max_connections: int | None = None
    thread_cache_size: int | None = None
    join_buffer_size: int | None = None
    read_rnd_buffer_size: int | None = None
    sort_buffer_size: int | None = None
    tmp_table_size: int = TMP_TABLE_SIZE
    redo_log_capacity: int | None = None
    log_files_in_group: int | None = None
    log_file_size: int | None = None
    gcache_size: int | None = None
    gcache_footprint: int | None = None
    gcs_cache_size: int | None = None
    leftover: int | None = None
    purge_threads: int | None = None
    parallel_read_threads: int | None = None
    io_capacity_max: int | None = None
    replica_parallel_workers: int | None = None
    wsrep_slave_threads: int | None = None
    wsrep_sync_wait: int | None = None
    provider_options: Mapping[str, str] | None = None
    gr_member_expel_timeout: int | None = None
    gr_autorejoin_tries: int | None = None
    gr_flow_control_period: int | None = None
    gr_max_message_size: int | None = None
    probe_timeouts: Mapping[str, int] | None = None
    # Intermediate values of the pass, named after ALGORITHM.md's symbols (E, left after each step ...).
    steps: Mapping[str, float] = field(default_factory=dict)

    @property
    def answered(self) -> bool:
        """True when the client receives mysqld settings (types 1001, 2001 and a successful 6001)."""
        return self.http_status == 200 and self.buffer_pool is not None and self.failure is None

    def limit_memory(self, family: str) -> int:
        """The ``limit_memory`` string as an integer: %.0f, i.e. round half to even on the float."""
        return int(f"{getattr(self, f'{family}_memory'):.0f}")

    def mycnf(self) -> dict[str, str]:
        """The peer's memory-relevant my.cnf values, with the names the peer writes."""
        options = {
            "innodb_buffer_pool_size": str(self.buffer_pool),
            "innodb_buffer_pool_chunk_size": str(BUFFER_POOL_CHUNK),
            "innodb_buffer_pool_instances": str(self.buffer_pool_instances),
            "max_connections": str(self.max_connections),
            "join_buffer_size": str(self.join_buffer_size),
            "read_rnd_buffer_size": str(self.read_rnd_buffer_size),
            "sort_buffer_size": str(self.sort_buffer_size),
            "tmp_table_size": str(self.tmp_table_size),
            "max_heap_table_size": str(self.tmp_table_size),
            "innodb_redo_log_capacity": str(self.redo_log_capacity),
        }
        if self.db == PXC:
            options["wsrep-provider-options"] = render_provider_options(self.provider_options or {})
        else:
            options["loose_group_replication_message_cache_size"] = str(self.gcs_cache_size)
        return options


def run_pass(db: str, load: int, dim: Dimension, requested: int) -> PeerAnswer:
    """§3 and §4: one calculation pass for ``requested`` connections on a resolved dimension."""
    i = load - 1
    n = max(requested, MIN_CONNECTIONS)
    # §3.1: λ = N / (C_my / f_cpu), in float32.
    capacity = dim.mysql_cpu / CPU_PER_CONNECTION[i]
    load_factor = f32(f32(n) / f32(capacity))
    base = dict(
        db=db,
        load=load,
        requested_connections=requested,
        connections=n,
        load_factor=load_factor,
        total_cpu=dim.cpu,
        total_memory=dim.memory,
        mysql_cpu=dim.mysql_cpu,
        mysql_memory=dim.mysql_memory,
        proxy_cpu=dim.proxy_cpu,
        proxy_memory=dim.proxy_memory,
        pmm_cpu=dim.pmm_cpu,
        pmm_memory=dim.pmm_memory,
    )
    if load_factor > 1:
        return PeerAnswer(message_type=OVERUTILIZING, http_status=200, failure=CPU_OVERLOAD, **base)

    # §3.3: buffers are charged for the "effective" connections E = N x λ only.
    buffers = JOIN_BUFFER[i] + READ_RND_BUFFER[i] + SORT_BUFFER[i]
    tmp_footprint = int(TMP_TABLE_SIZE * TMP_TABLE_FACTOR[i])
    effective = n * load_factor
    connection_memory = buffers * int(effective) + math.floor(effective) * tmp_footprint
    left = int(dim.mysql_memory) - connection_memory
    steps = {"effective_connections": effective, "tmp_table_footprint": tmp_footprint, "left_after_connections": left}
    settings = dict(
        steps=steps,
        connection_memory=connection_memory,
        join_buffer_size=JOIN_BUFFER[i],
        read_rnd_buffer_size=READ_RND_BUFFER[i],
        sort_buffer_size=SORT_BUFFER[i],
    )
    if connection_memory / dim.mysql_memory >= CONNECTION_WEIGHT_LIMIT:
        # The gate skips everything else: the buffer pool stays 0 and the pass is overutilized.
        return PeerAnswer(
            message_type=OVERUTILIZING,
            http_status=500,
            failure=MEMORY_OVERUTILIZED,
            buffer_pool=0,
            buffer_pool_fraction=0.0,
            leftover=left,
            **settings,
            **base,
        )

    # §3.4: redo from the *ideal* buffer pool, converted to float32 first.
    ideal_pool = int(dim.mysql_memory * IDEAL_BUFFER_POOL_SHARE[db])
    index = f32(f32(REDO_BASE[i]) + f32(f32(0.5) * load_factor))
    index = min(index, 1.0)
    redo = int(f32(ideal_pool) * index)
    steps.update(ideal_buffer_pool=ideal_pool, redo_index=index)
    files = log_files_in_group(redo, load)

    # §3.5: first buffer pool and its instances.
    first_pool = math.floor(left * IDEAL_BUFFER_POOL_SHARE[db])
    left -= first_pool
    steps.update(first_buffer_pool=first_pool, left_after_first_buffer_pool=left)
    instances = buffer_pool_instances(dim.cpu, dim.mysql_cpu, first_pool)

    cores = dim.mysql_cpu / 1000
    settings.update(
        redo_log_capacity=redo,
        log_files_in_group=files,
        log_file_size=go_div(redo, files),
        buffer_pool_instances=instances,
        io_capacity_max=IO_CAPACITY_MAX[i],
        max_connections=n + 2,
        thread_cache_size=min(requested, 16384),
        replica_parallel_workers=4 if dim.mysql_cpu <= 1000 else max(4, int(2.5 * cores)),
    )
    whole_cores = math.floor(cores)
    settings["parallel_read_threads"] = whole_cores if 2 < whole_cores < 256 else (256 if whole_cores > 256 else 1)

    if db == PXC:
        # §3.6: gcache, capped at a third of what is left; its resident footprint is charged.
        gcache = min(int(redo * GCACHE_LOAD[i]), go_div(left, 3))
        footprint = math.ceil(gcache * GCACHE_FOOTPRINT[i])
        left -= footprint
        steps.update(gcache_uncapped=int(redo * GCACHE_LOAD[i]), left_after_gcache=left)
        purge_adjustment = GCACHE_LOAD[i]
        settings.update(
            gcache_size=gcache,
            gcache_footprint=footprint,
            provider_options=galera_provider_options(load_factor, gcache),
            wsrep_sync_wait=3 if load in (2, 3) else 0,
            wsrep_slave_threads=1 if whole_cores <= 1 else whole_cores // 2,
        )
    else:
        # §3.11: the GCS (XCom) cache grows with N over the *total* CPU, without a cap.
        gcs = int(GIB * (n / go_div(dim.cpu, 10)))
        gcs = max(gcs, GCS_CACHE_MIN)
        left -= gcs
        steps["left_after_gcs_cache"] = left
        purge_adjustment = 1.0
        settings.update(
            gcs_cache_size=gcs,
            gr_member_expel_timeout=max(5, math.ceil(15 * load_factor)),
            gr_autorejoin_tries=max(3, math.ceil(8 * load_factor)),
            gr_flow_control_period=max(1, math.ceil(5 * f32(1.0 - load_factor))),
            gr_max_message_size=GR_MAX_MESSAGE_SIZE[i],
        )
    purge = 4 if go_div(dim.cpu, 1000) <= 4 else math.ceil(cores * purge_adjustment)
    settings["purge_threads"] = min(purge, 32)

    # §3.12: final buffer pool.
    if left > 0:
        recovered = return_bytes(left)
        pool = first_pool + recovered
        steps["recovered"] = recovered
        left -= recovered
    else:
        pool = max(first_pool - abs(left), int(dim.mysql_memory * MIN_LIMIT[db]))
        left = 0

    # §4: classification against the *total* memory.
    fraction = pool / dim.memory
    if fraction < MIN_LIMIT[db]:
        verdict, status, failure = OVERUTILIZING, 500, MEMORY_OVERUTILIZED
    elif fraction <= MIN_LIMIT[db] + 0.10:
        verdict, status, failure = CLOSE_TO_LIMIT, 200, None
    else:
        verdict, status, failure = OK, 200, None
    probes = {family: probe_timeout(family, load_factor) for family in PROBE_MAX}
    return PeerAnswer(
        message_type=verdict,
        http_status=status,
        failure=failure,
        buffer_pool=pool,
        buffer_pool_fraction=fraction,
        leftover=left,
        probe_timeouts=probes,
        **settings,
        **base,
    )


def calculate(db: str, cpu: int, memory: float, load: int, connections: int) -> PeerAnswer:
    """§5: the peer's answer to an open-dimension request (id 999).

    ``connections = 0`` searches upward in steps of 10 until a pass is overutilized and answers with
    the step before it; an overutilized answer backs off in steps of 10 down to 20 and is relabelled
    6001. A memory-overutilized last pass is an HTTP 500; a CPU-overloaded one a 6001 with no settings.
    """
    if db not in (PXC, GROUP_REPLICATION):
        raise ValueError(f"the peer answers HTTP 500 to dbtype {db!r}")
    if load not in (1, 2, 3, 4):
        raise ValueError("the model covers load ids 1-4 only")
    if cpu <= 0 or memory <= 0:
        raise ValueError("an open dimension needs CPU and memory (the peer answers 5001)")
    dim = open_dimension(cpu, memory)
    count = connections
    # The peer always runs the request as sent first; for connections = 0 that pass uses N = 20.
    answer = run_pass(db, load, dim, count)
    if connections == 0:
        count = MIN_CONNECTIONS
        while answer.message_type != OVERUTILIZING and count < MAX_AUTO_CONNECTIONS:
            count += CONNECTION_STEP
            answer = run_pass(db, load, dim, count)
        if count >= MAX_AUTO_CONNECTIONS:
            return replace(answer, message_type=ERROR)
        count -= CONNECTION_STEP
        answer = run_pass(db, load, dim, count)
    if answer.message_type == OVERUTILIZING:
        while answer.message_type == OVERUTILIZING and count > MIN_CONNECTIONS:
            count -= CONNECTION_STEP
            answer = run_pass(db, load, dim, count)
        answer = replace(answer, message_type=CONNECTIONS_RECALCULATED)
    return answer
