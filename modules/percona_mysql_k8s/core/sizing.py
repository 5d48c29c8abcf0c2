"""The sizing engine: one database member's budget in, every size and setting out.

A *member* is everything one database node runs: the mysqld pod with its sidecars and one proxy pod.
Its budget is either given (CPU + memory) or the usable allocatable of a node type (K1), one member per
node. The engine splits the budget (M3), fills the mysqld limit with the memory model (M1-M5) so the
buffer pool is what is left (M2), derives connections when asked (M6), and sets flow control (F1-F6,
G1-G4) and probes (K6). Every value records the rule IDs behind it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field

from . import flow_control, probes
from .allocatable import NodeBudget, node_budget
from .connections import buffer_pool_floor_bytes
from .errors import InputError
from .memory import (
    ENGINES,
    GROUP_REPLICATION,
    MYSQL_VERSIONS,
    PXC,
    MemoryModel,
    model,
    pool_within,
    temptable_for_container,
)
from .mycnf import PROVIDER_OPTIONS, normalize_key, render_provider_options
from .profiles import LOADS, PROFILES, LoadProfile
from .redo import redo_capacity
from .rules import resolve_thresholds
from .sidecars import (
    BACKUP_SIDECAR,
    HAPROXY,
    LOG_COLLECTOR_CONTAINERS,
    LOG_COLLECTOR_EACH,
    MONIT_SIDECAR,
    PROXIES,
    PROXY_CPU_SHARE,
    PROXYSQL,
    ROUTER,
    ContainerSize,
    pmm_client,
    proxy_container,
    proxy_has_pmm,
    proxy_monitor_containers,
)
from .units import GIB, MIB

MAX_CONNECTIONS_LIMIT = 100_000  # mysqld's maximum max_connections
MIN_MYSQLD_CPU = 250  # below a quarter core the probes' queries time out under any load
DEFAULT_DISK_IOPS = 3000  # seed 000's volumes (~3k IOPS), also the gp3 baseline
CLUSTER_SIZES = {PXC: (3, 5), GROUP_REPLICATION: (3, 5, 7)}  # T1
MAX_POOL_CHUNKS = 1000  # InnoDB's guidance; _buffer_pool_layout never uses more


@dataclass(frozen=True)
class SizingInput:
    engine: str
    load: str = "light-oltp"
    connections: int = 0
    proxy: str = HAPROXY
    pmm: bool = True
    log_collector: bool | None = None  # None: the operator's default (on for PXC; PS has none)
    backup: bool = False
    mysql_version: str = "8.0"
    cluster_size: int = 3
    allow_unsafe_size: bool = False
    disk_iops: int = DEFAULT_DISK_IOPS
    volume_bytes: int | None = None  # the data volume; bounds the redo log (K6)
    cpu_millicores: int | None = None
    memory_bytes: int | None = None
    node_type: str | None = None
    provider: str | None = None
    daemonset_cpu_millicores: int | None = None  # None: the provider's default DaemonSets (K1)
    daemonset_memory_bytes: int | None = None
    thresholds: Mapping[str, float] = field(default_factory=dict)

    @property
    def log_collector_enabled(self) -> bool:
        return self.engine == PXC if self.log_collector is None else self.log_collector


@dataclass(frozen=True)
class SizingResult:
    input: SizingInput
    thresholds: Mapping[str, float]
    budget_cpu_millicores: int
    budget_memory_bytes: int
    node: NodeBudget | None
    containers: Mapping[str, ContainerSize]
    pods: Mapping[str, tuple[str, ...]]
    mysqld: Mapping[str, str]
    memory: MemoryModel
    buffer_pool_raw_bytes: int
    connections: int
    queue_bound: float
    apply_rate_tps: float
    brownout_seconds: float
    probes: Mapping[str, Mapping[str, probes.Probe]]
    rules: Mapping[str, tuple[str, ...]]
    notes: tuple[str, ...]

    @property
    def mysqld_cpu_millicores(self) -> int:
        return self.containers["mysqld"].cpu_millicores

    @property
    def mysqld_memory_bytes(self) -> int:
        return self.containers["mysqld"].memory_bytes

    def pod_total(self, pod: str) -> ContainerSize:
        sizes = [self.containers[name] for name in self.pods[pod]]
        return ContainerSize(sum(s.cpu_millicores for s in sizes), sum(s.memory_bytes for s in sizes))

    @property
    def member_total(self) -> ContainerSize:
        mysqld_pod, proxy_pod = self.pod_total("mysqld"), self.pod_total("proxy")
        return ContainerSize(
            mysqld_pod.cpu_millicores + proxy_pod.cpu_millicores, mysqld_pod.memory_bytes + proxy_pod.memory_bytes
        )


# --------------------------------------------------------------------------------------------------
# validation


def _require_int(key: str, value: object, minimum: int, rule: str | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputError(key, f"must be a whole number, got {value!r}", rule)
    if value < minimum:
        raise InputError(key, f"must be >= {minimum}, got {value}", rule)
    return value


def _choice(key: str, value: object, choices: tuple[str, ...], rule: str | None = None) -> str:
    if value not in choices:
        raise InputError(key, f"must be one of {', '.join(choices)}; got {value!r}", rule)
    return value  # type: ignore[return-value]


def validate(inp: SizingInput) -> dict[str, float]:
    """Check every input; return the resolved thresholds. Raises InputError naming key and rule."""
    _choice("engine", inp.engine, ENGINES)
    _choice("load", inp.load, LOADS)
    _choice("proxy", inp.proxy, PROXIES, "T2")
    _choice("mysql_version", inp.mysql_version, MYSQL_VERSIONS)
    if inp.proxy == PROXYSQL and inp.engine != PXC:
        raise InputError("proxy", "ProxySQL is supported only with PXC; use haproxy or router", "T2")
    if inp.proxy == ROUTER and inp.engine != GROUP_REPLICATION:
        raise InputError("proxy", "MySQL Router is supported only with group replication; use haproxy or proxysql", "T2")
    if inp.engine == GROUP_REPLICATION and inp.log_collector:
        raise InputError("log_collector", "the PS operator has no log collector sidecar; leave it off", "M3")
    _require_int("connections", inp.connections, 0, "M6")
    _require_int("disk_iops", inp.disk_iops, 100)
    if inp.volume_bytes is not None:
        _require_int("volume_bytes", inp.volume_bytes, GIB, "K6")
    size = _require_int("cluster_size", inp.cluster_size, 1, "T1")
    allowed = CLUSTER_SIZES[inp.engine]
    if size not in allowed and not (inp.allow_unsafe_size and size < min(allowed)):
        hint = " (smaller sizes need allow_unsafe_size for an ephemeral stack)" if size < min(allowed) else ""
        raise InputError("cluster_size", f"{inp.engine} clusters have {' or '.join(map(str, allowed))} members, got {size}{hint}", "T1")
    explicit = inp.cpu_millicores is not None or inp.memory_bytes is not None
    if explicit and inp.node_type is not None:
        raise InputError("node_type", "give either a per-member budget (cpu + memory) or a node type, not both")
    if explicit:
        if inp.cpu_millicores is None or inp.memory_bytes is None:
            missing = "memory" if inp.memory_bytes is None else "cpu"
            raise InputError(missing, "a per-member budget needs both cpu and memory", "K1")
        _require_int("cpu", inp.cpu_millicores, 1, "K1")
        _require_int("memory", inp.memory_bytes, 1, "K1")
    elif inp.node_type is None:
        raise InputError("node_type", "give a per-member budget (cpu + memory) or a node type with its provider", "K1")
    elif inp.provider is None:
        raise InputError("provider", "a node type needs its provider (gke or eks)", "K1")
    try:
        return resolve_thresholds(inp.thresholds)
    except (KeyError, ValueError) as error:
        raise InputError("thresholds", str(error).strip('"')) from None


# --------------------------------------------------------------------------------------------------
# the split


def _budget(inp: SizingInput) -> tuple[int, int, NodeBudget | None]:
    if inp.node_type is None:
        return inp.cpu_millicores, inp.memory_bytes, None  # type: ignore[return-value]
    node = node_budget(inp.node_type, inp.provider, inp.daemonset_cpu_millicores, inp.daemonset_memory_bytes)
    return node.usable_cpu_millicores, node.usable_memory_bytes, node


def _fixed_containers(inp: SizingInput, budget_memory: int, budget_cpu: int) -> dict[str, ContainerSize]:
    """Containers whose size does not depend on mysqld's share (M3)."""
    fixed: dict[str, ContainerSize] = {}
    if inp.pmm:
        fixed["pmm-client"] = pmm_client(budget_memory, budget_cpu)
    if inp.log_collector_enabled:
        for name in LOG_COLLECTOR_CONTAINERS:
            fixed[name] = LOG_COLLECTOR_EACH
    if inp.backup and inp.engine == GROUP_REPLICATION:
        fixed["xtrabackup"] = BACKUP_SIDECAR
    for name in proxy_monitor_containers(inp.proxy, inp.engine):
        fixed[name] = MONIT_SIDECAR
    return fixed


def _pods(inp: SizingInput, fixed: Mapping[str, ContainerSize]) -> dict[str, tuple[str, ...]]:
    mysqld_pod = ("mysqld",) + tuple(name for name in ("pmm-client", *LOG_COLLECTOR_CONTAINERS, "xtrabackup") if name in fixed)
    proxy_pod = (inp.proxy,) + proxy_monitor_containers(inp.proxy, inp.engine)
    if inp.pmm and proxy_has_pmm(inp.proxy):
        proxy_pod += ("pmm-client",)
    return {"mysqld": mysqld_pod, "proxy": proxy_pod}


def _pod_sum(pods: Mapping[str, tuple[str, ...]], sizes: Mapping[str, ContainerSize], attribute: str) -> int:
    return sum(getattr(sizes[name], attribute) for pod in pods.values() for name in pod if name in sizes)


def _split_cpu(inp: SizingInput, budget_cpu: int, fixed: Mapping[str, ContainerSize], pods) -> int:
    """mysqld CPU: what is left after fixed sidecars and the proxy, which takes a share of mysqld's."""
    available = budget_cpu - _pod_sum(pods, fixed, "cpu_millicores")
    share = PROXY_CPU_SHARE[inp.proxy]
    mysqld = int(available / (1 + share)) // 10 * 10 + 10  # estimate, then step down to the exact fit
    while mysqld > 0 and mysqld + proxy_container(inp.proxy, 0, mysqld).cpu_millicores > available:
        mysqld -= 10
    if mysqld < MIN_MYSQLD_CPU:
        raise InputError(
            "cpu",
            f"the member budget of {budget_cpu}m leaves {max(mysqld, 0)}m for mysqld after sidecars and the "
            f"proxy; at least {MIN_MYSQLD_CPU}m is needed",
            "M3",
        )
    return mysqld


# --------------------------------------------------------------------------------------------------
# mysqld options


def _per_connection_options(profile: LoadProfile) -> dict[str, str]:
    return {
        "sort_buffer_size": str(profile.sort_buffer_size),
        "join_buffer_size": str(profile.join_buffer_size),
        "read_buffer_size": str(profile.read_buffer_size),
        "read_rnd_buffer_size": str(profile.read_rnd_buffer_size),
    }


def _retention_cache_bytes(limit: int) -> int:
    """Size of the rejoin ring buffer (GR XCom cache M4, Galera gcache).

    One sixteenth of the mysqld limit, within [128 MiB, 1 GiB]: the GR default of 1 GiB is reached at a
    16 GiB container (the seed's 64 GB nodes ran it), and small containers fall to the M4 minimum. In
    whole bytes, like every term that grows with the limit, so the buffer pool never shrinks as it grows.
    """
    return min(GIB, max(128 * MIB, limit // 16))


def _gr_queue_options(cpu: int, thresholds: Mapping[str, float]) -> dict[str, str]:
    """F2/F3/F6: the appliers and the queue threshold, which also size certification info (M5)."""
    appliers = flow_control.replica_workers(cpu, thresholds)
    threshold = flow_control.gr_applier_threshold(flow_control.apply_rate_tps(appliers, thresholds), thresholds)
    return {
        "replica_parallel_workers": str(appliers),
        "loose_group_replication_flow_control_applier_threshold": str(threshold),
        "loose_group_replication_flow_control_certifier_threshold": str(threshold),
    }


def _memory_options(
    inp: SizingInput, profile: LoadProfile, limit: int, connections: int, cpu: int, thresholds: Mapping[str, float]
) -> dict[str, str]:
    """Everything that enters the memory model except the buffer pool."""
    log_buffer = max(MIB, min(profile.log_buffer_bytes, limit // 64 // 1024 * 1024))
    # MySQL 8.4's own temptable_max_ram rule (3% of memory, at most 4 GiB), applied to the container limit.
    temptable = temptable_for_container(limit)
    tmp_table = min(16 * MIB, temptable)
    options = {
        "max_connections": str(connections),
        **_per_connection_options(profile),
        "innodb_log_buffer_size": str(log_buffer),
        "temptable_max_ram": str(temptable),
        "tmp_table_size": str(tmp_table),
        "max_heap_table_size": str(tmp_table),
    }
    if inp.mysql_version == "8.0":
        options["temptable_max_mmap"] = "0"  # overflow to InnoDB on disk, not to page-cache mmap files
    if inp.engine == GROUP_REPLICATION:
        options["loose_group_replication_message_cache_size"] = str(_retention_cache_bytes(limit))
        options.update(_gr_queue_options(cpu, thresholds))  # they size the certification reserve (M5)
    else:
        options[PROVIDER_OPTIONS] = render_provider_options({"gcache.size": _retention_cache_bytes(limit)})
    return options


def _evaluate(inp, options, limit, thresholds, cpu) -> MemoryModel:
    return model(
        {normalize_key(k): v for k, v in options.items()},
        engine=inp.engine,
        limit_bytes=limit,
        thresholds=thresholds,
        version=inp.mysql_version,
        cpu_millicores=cpu,
    )


def _buffer_pool_instances(raw_mib: int, cpu: int) -> int:
    instances = max(1, min(64, cpu // 4000))
    return instances if raw_mib // instances * instances >= GIB // MIB else 1


def _buffer_pool_bytes(raw: int, cpu: int) -> int:
    """The pool :func:`_buffer_pool_layout` chooses for ``raw``, without choosing the chunk."""
    instances = _buffer_pool_instances(raw // MIB, cpu)
    return raw // MIB // instances * instances * MIB


def _buffer_pool_layout(raw: int, cpu: int) -> tuple[int, int, int]:
    """(pool, chunk, instances): the pool an exact multiple of chunk x instances, <= raw, monotone in raw.

    Instances follow MySQL 8.4's default of a quarter of the CPUs, used only once the pool holds 1 GiB
    with them (below that mysqld runs one instance). The pool is the largest multiple of ``instances``
    MiB; the chunk is a divisor of the per-instance size chosen so the pool has at most 1000 chunks
    (InnoDB's guidance), so mysqld's round-up (M1) leaves the value unchanged.
    """
    raw_mib = raw // MIB
    instances = _buffer_pool_instances(raw_mib, cpu)
    per_instance = raw_mib // instances
    chunks_per_instance = next(d for d in range(min(per_instance, MAX_POOL_CHUNKS // instances), 0, -1) if per_instance % d == 0)
    return per_instance * instances * MIB, per_instance // chunks_per_instance * MIB, instances


# --------------------------------------------------------------------------------------------------
# the engine


def size(inp: SizingInput) -> SizingResult:
    thresholds = validate(inp)
    profile = PROFILES[inp.load]
    budget_cpu, budget_memory, node = _budget(inp)
    fixed = _fixed_containers(inp, budget_memory, budget_cpu)
    pods = _pods(inp, fixed)
    mysqld_cpu = _split_cpu(inp, budget_cpu, fixed, pods)
    fixed_memory = _pod_sum(pods, fixed, "memory_bytes")
    min_fraction = thresholds["min_buffer_pool_fraction_gr" if inp.engine == GROUP_REPLICATION else "min_buffer_pool_fraction_pxc"]
    pool_floor = buffer_pool_floor_bytes(inp.engine, budget_memory, thresholds)  # M6

    def limit_for(connections: int) -> int:
        proxy = proxy_container(inp.proxy, connections, mysqld_cpu)
        return (budget_memory - fixed_memory - proxy.memory_bytes) // MIB * MIB

    def raw_pool(connections: int) -> tuple[int, int]:
        limit = limit_for(connections)
        if limit <= 0:
            return limit, -1
        options = _memory_options(inp, profile, limit, connections, mysqld_cpu, thresholds)
        others = _evaluate(inp, {**options, "innodb_buffer_pool_size": "0"}, limit, thresholds, mysqld_cpu).peak_bytes
        # M1: the pool's block descriptors come on top of it; the layout keeps at most 1000 chunks
        return limit, pool_within(limit - others, int(thresholds["buffer_pool_descriptor_bytes"]), MAX_POOL_CHUNKS)

    # M6: connections may grow until the buffer pool would fall below its share of the member budget;
    # HAProxy's memory grows with them too, so the limit is recomputed for every count.
    def fits(connections: int) -> bool:
        limit, pool = raw_pool(connections)
        return limit > 0 and pool > 0 and _buffer_pool_bytes(pool, mysqld_cpu) >= pool_floor

    floor_connections = int(thresholds["min_connections"])
    if not fits(floor_connections):
        limit, pool = raw_pool(floor_connections)
        raise InputError(
            "memory",
            f"the member budget of {budget_memory // MIB} MiB is too small: with {floor_connections} connections "
            f"the buffer pool would be {max(pool, 0) // MIB} MiB (mysqld limit {max(limit, 0) // MIB} MiB), below "
            f"{min_fraction:.0%} of the budget",
            "M6",
        )
    largest = _largest_fitting(fits, floor_connections, _estimate(raw_pool, pool_floor, floor_connections))
    if inp.connections == 0:
        # Derived: also within what the mysqld cores can serve, and rounded down to two significant figures
        # so the value reads as chosen and the buffer pool keeps a margin above its floor.
        cpu_ceiling = mysqld_cpu * profile.connections_per_core // 1000
        connections = max(floor_connections, _two_significant_figures(min(largest, cpu_ceiling)))
    elif inp.connections < floor_connections:
        raise InputError("connections", f"must be 0 (derive) or at least {floor_connections}, got {inp.connections}", "M6")
    elif inp.connections > MAX_CONNECTIONS_LIMIT:
        raise InputError("connections", f"mysqld accepts at most {MAX_CONNECTIONS_LIMIT}, got {inp.connections}", "M6")
    elif inp.connections > largest:
        raise InputError(
            "connections",
            f"{inp.connections} connections do not fit the member budget: the buffer pool would fall below "
            f"{min_fraction:.0%} of the budget; at most {largest} fit (pass 0 to derive it)",
            "M6",
        )
    else:
        connections = inp.connections

    limit, raw = raw_pool(connections)
    pool, chunk, instances = _buffer_pool_layout(raw, mysqld_cpu)
    options = _memory_options(inp, profile, limit, connections, mysqld_cpu, thresholds)
    options = {
        "innodb_buffer_pool_size": str(pool),
        "innodb_buffer_pool_chunk_size": str(chunk),
        "innodb_buffer_pool_instances": str(instances),
        **options,
    }
    cores = mysqld_cpu / 1000
    redo, redo_bound = redo_capacity(
        pool, profile.redo_share_of_buffer_pool, engine=inp.engine, disk_iops=inp.disk_iops,
        volume_bytes=inp.volume_bytes,
    )  # K6: recoverable within the probes' allowance, and a bounded share of the volume
    io_capacity = max(100, inp.disk_iops // 2)
    options.update({
        "innodb_redo_log_capacity": str(redo),
        "innodb_flush_log_at_trx_commit": "1",
        "sync_binlog": "1",
        "innodb_flush_method": "O_DIRECT",
        "innodb_io_capacity": str(io_capacity),
        "innodb_io_capacity_max": str(max(io_capacity, inp.disk_iops)),
        "innodb_purge_threads": str(max(1, min(32, math.ceil(cores * profile.purge_threads_per_core)))),
        "innodb_parallel_read_threads": str(max(1, min(256, math.floor(cores)))),
        "innodb_adaptive_hash_index": "ON" if profile.adaptive_hash_index else "OFF",
        "thread_cache_size": str(min(100, 8 + connections // 100)),
        "table_open_cache": "4000",
        "table_open_cache_instances": str(max(1, min(16, math.floor(cores)))),
        "table_definition_cache": "2000",
    })

    if inp.engine == GROUP_REPLICATION:
        appliers = flow_control.replica_workers(mysqld_cpu, thresholds)
        rate = flow_control.apply_rate_tps(appliers, thresholds)
        threshold = flow_control.gr_applier_threshold(rate, thresholds)
        queue_bound = flow_control.gr_queue_bound(threshold, rate, thresholds)  # F5: with the polling overshoot
        options.update({
            "loose_group_replication_flow_control_mode": "QUOTA",
            "loose_group_replication_flow_control_applier_threshold": str(threshold),
            "loose_group_replication_flow_control_certifier_threshold": str(threshold),
            "loose_group_replication_flow_control_min_quota": "0",
            "loose_group_replication_flow_control_hold_percent": "100",
            "loose_group_replication_flow_control_release_percent": "5",
            "loose_group_replication_flow_control_period": "1",
            # Hold (not reject) new writes on a new primary until its backlog is applied; strict
            # consistency is for sessions that need it (F7).
            "loose_group_replication_consistency": "BEFORE_ON_PRIMARY_FAILOVER",
            "replica_parallel_workers": str(appliers),
            "replica_preserve_commit_order": "ON",
        })
        if inp.mysql_version == "8.0":
            options["binlog_transaction_dependency_tracking"] = "WRITESET"
    else:
        appliers = flow_control.galera_applier_threads(mysqld_cpu, thresholds)
        rate = flow_control.apply_rate_tps(appliers, thresholds)
        fc_limit = flow_control.galera_fc_limit(rate, inp.cluster_size, thresholds)
        queue_bound = flow_control.galera_effective_queue(fc_limit, inp.cluster_size)
        options[PROVIDER_OPTIONS] = render_provider_options({
            "gcache.size": _retention_cache_bytes(limit),
            "gcache.recover": "yes",
            "gcs.fc_limit": fc_limit,
            # Galera 4's default: resume as soon as the queue is back under the limit; the bound on
            # the queue (and so on failover) is fc_limit.
            "gcs.fc_factor": "1.0",
        })
        options["wsrep_applier_threads"] = str(appliers)
        options["wsrep_sync_wait"] = "1"
    brownout = flow_control.brownout_seconds(queue_bound, rate)

    memory = _evaluate(inp, options, limit, thresholds, mysqld_cpu)
    if not memory.fits or memory.buffer_pool_rounded != pool:
        raise AssertionError(f"sizing produced a model that does not fit: {memory}")  # an engine bug, not input

    containers = dict(fixed)
    containers["mysqld"] = ContainerSize(mysqld_cpu, limit)
    containers[inp.proxy] = proxy_container(inp.proxy, connections, mysqld_cpu)
    component_probes = {"mysqld": probes.probes_for(inp.engine, "mysqld", brownout)}
    component_probes[inp.proxy] = probes.probes_for(inp.engine, inp.proxy, brownout)

    notes = []
    if node is not None:
        notes.extend(node.notes)
    notes.append(f"K6: innodb_redo_log_capacity {redo // MIB} MiB, set by the {redo_bound}")
    if inp.backup and inp.engine == PXC:
        notes.append("PXC runs backups as separate jobs: no backup sidecar is budgeted in the member.")
    if inp.proxy == ROUTER:
        notes.append("T2: MySQL Router saturates at ~16 client threads (seed 004); prefer haproxy under high concurrency.")
    if inp.cluster_size < min(CLUSTER_SIZES[inp.engine]):
        notes.append(f"T1: a {inp.cluster_size}-member cluster needs the operator's unsafe size flag: ephemeral use only.")

    return SizingResult(
        input=inp,
        thresholds=thresholds,
        budget_cpu_millicores=budget_cpu,
        budget_memory_bytes=budget_memory,
        node=node,
        containers=containers,
        pods=_pods(inp, fixed),
        mysqld=options,
        memory=memory,
        buffer_pool_raw_bytes=raw,
        connections=connections,
        queue_bound=queue_bound,
        apply_rate_tps=rate,
        brownout_seconds=brownout,
        probes=component_probes,
        rules=_rules_behind(options, containers),
        notes=tuple(notes),
    )


def _two_significant_figures(value: int) -> int:
    """12764 -> 12000, 1362 -> 1300, 87 -> 87."""
    if value < 100:
        return value
    unit = 10 ** (len(str(value)) - 2)
    return value // unit * unit


def _estimate(raw_pool, pool_floor: float, start: int) -> int:
    """Where the buffer pool reaches its floor, extrapolated from two points (the model is near-linear)."""
    probe = start + 1000
    (_, pool_a), (_, pool_b) = raw_pool(start), raw_pool(probe)
    slack_a, slack_b = pool_a - pool_floor, pool_b - pool_floor
    if slack_a <= slack_b:
        return MAX_CONNECTIONS_LIMIT
    return int(start + slack_a * (probe - start) / (slack_a - slack_b))


def _largest_fitting(fits, low: int, guess: int, ceiling: int = MAX_CONNECTIONS_LIMIT) -> int:
    """Largest n in [low, ceiling] with fits(n), given fits(low) and fits monotone (true, then false).

    Gallops from the estimate to bracket the boundary, then bisects: a few evaluations instead of 17.
    """
    guess = max(low, min(ceiling, guess))
    step = 8
    if fits(guess):
        low = guess
        while True:
            high = min(low + step, ceiling)
            if high == low:
                return low
            if not fits(high):
                high -= 1
                break
            low, step = high, step * 2
    else:
        high = guess - 1
        while True:
            probe = max(high - step, low)
            if probe == low:
                break
            if fits(probe):
                low = probe
                break
            high, step = probe - 1, step * 2
    while low < high:
        middle = (low + high + 1) // 2
        low, high = (middle, high) if fits(middle) else (low, middle - 1)
    return low


_RULES_BY_KEY = {
    "innodb_buffer_pool_size": ("M1", "M2"),
    "innodb_buffer_pool_chunk_size": ("M1",),
    "innodb_buffer_pool_instances": ("M1",),
    "max_connections": ("M6", "M1"),
    "sort_buffer_size": ("M1",),
    "join_buffer_size": ("M1",),
    "read_buffer_size": ("M1",),
    "read_rnd_buffer_size": ("M1",),
    "innodb_log_buffer_size": ("M1",),
    "temptable_max_ram": ("M1",),
    "temptable_max_mmap": ("M1",),
    "tmp_table_size": ("M1",),
    "max_heap_table_size": ("M1",),
    "group_replication_message_cache_size": ("M4",),
    "group_replication_flow_control_mode": ("F1",),
    "group_replication_flow_control_applier_threshold": ("F2", "F5"),
    "group_replication_flow_control_certifier_threshold": ("F3", "F5"),
    "group_replication_flow_control_min_quota": ("F4",),
    "group_replication_flow_control_hold_percent": ("F4",),
    "group_replication_flow_control_release_percent": ("F4",),
    "group_replication_flow_control_period": ("F4",),
    "group_replication_consistency": ("F7",),
    "replica_parallel_workers": ("F6", "F5"),
    "wsrep_provider_options": ("G1", "G2", "F5", "M1"),
    "wsrep_applier_threads": ("G3", "F5"),
    "wsrep_sync_wait": ("G4",),
}


def _rules_behind(options: Mapping[str, str], containers: Mapping[str, ContainerSize]) -> dict[str, tuple[str, ...]]:
    rules = {key: _RULES_BY_KEY.get(normalize_key(key), ()) for key in options}
    for name in containers:
        rules[f"resources.{name}"] = ("K1", "K2", "K3", "M1") if name == "mysqld" else ("K1", "K2", "M3")
    rules["probes"] = ("K6", "F5")
    rules["brownout_seconds"] = ("F5",)
    return rules
