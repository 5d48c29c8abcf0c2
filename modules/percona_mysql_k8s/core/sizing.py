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
from functools import partial

from . import flow_control, probes
from .allocatable import NodeBudget, node_budget
from .bounds import MAX_DISK_IOPS, MAX_MACHINE_CPU_MILLICORES, MAX_MACHINE_MEMORY_BYTES, MAX_VOLUME_BYTES, MIN_DISK_IOPS
from .connection_cost import connection_costs, thread_pool_options
from .connections import (
    buffer_pool_floor_bytes,
    deliverable_connections,
    estimate_crossing,
    fewest_connections,
    largest_fitting,
    proxy_limits,
    service_connections,
    two_significant_figures,
)
from .errors import InputError
from .memory import (
    ENGINES,
    GROUP_REPLICATION,
    MYSQL_VERSIONS,
    PXC,
    MemoryModel,
    instrumented_thread_demand,
    model,
    pool_within,
    temptable_for_container,
)
from .mycnf import PROVIDER_OPTIONS, normalize_key, render_provider_options
from .profiles import LOADS, PROFILES, LoadProfile
from .proxy_limits import ProxyLimits, shipped
from .redo import redo_capacity
from .rules import MYSQLD_MAX_CONNECTIONS, THRESHOLD_RULE, ThresholdError, resolve_thresholds
from .sidecars import (
    BACKUP_SIDECAR,
    HAPROXY,
    LOG_COLLECTOR_CONTAINERS,
    PROXIES,
    PROXY_CPU_SHARE,
    PROXYSQL,
    ROUTER,
    ContainerSize,
    log_collector_container,
    monitor_container,
    pmm_client,
    proxy_container,
    proxy_has_pmm,
    proxy_monitor_containers,
)
from .units import GIB, MIB

MAX_CONNECTIONS_LIMIT = MYSQLD_MAX_CONNECTIONS  # mysqld's maximum max_connections (core/rules.py)
MIN_MYSQLD_CPU = 250  # below a quarter core the probes' queries time out under any load
MIN_BUFFER_POOL = 5 * MIB  # InnoDB's minimum innodb_buffer_pool_size: below it mysqld does not start
MAX_QUANTITY = 2**63 - 1  # Kubernetes quantities are int64 (bytes, millicores)
GALERA_MAX_APPLIERS = 512  # wsrep_applier_threads range 1..512
MAX_REPLICA_WORKERS = 1024  # replica_parallel_workers range 0..1024
# Per-connection buffers (sort, join, read, read_rnd) are scaled in 1/256 steps of the load profile's
# value, down to 1/64: the ratio that takes the largest profile sort buffer (write-heavy, 2 MiB) to
# mysqld's 32 KiB minimum. Each is a multiple of 4 KiB and at least mysqld's own minimum.
BUFFER_SCALE_FULL, BUFFER_SCALE_MIN = 256, 4
BUFFER_MINIMUMS = {"sort_buffer_size": 32 * 1024, "join_buffer_size": 4096, "read_buffer_size": 8192,
                   "read_rnd_buffer_size": 4096}
DEFAULT_DISK_IOPS = 3000  # seed 000's volumes (~3k IOPS), also the gp3 baseline
CLUSTER_SIZES = {PXC: (3, 5), GROUP_REPLICATION: (3, 5, 7)}  # T1
MAX_POOL_CHUNKS = 1000  # InnoDB's guidance; _buffer_pool_layout never uses more


@dataclass(frozen=True)
class SizingInput:
    engine: str
    load: str = "light-oltp"
    connections: int = 0
    proxy: str = HAPROXY
    thread_pool: bool = True  # Percona Server's thread pool (M6): idle connections hold no thread
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
    proxy_connections: int  # each proxy pod's client limit (HAProxy maxconn, ProxySQL / Router max connections)
    proxy_limits: ProxyLimits  # each proxy pod's settings, clients and backend connections (T5)
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
    if not isinstance(inp.thread_pool, bool):
        raise InputError("thread_pool", f"must be true or false, got {inp.thread_pool!r}", "M6")
    if _require_int("disk_iops", inp.disk_iops, MIN_DISK_IOPS) > MAX_DISK_IOPS:
        raise InputError("disk_iops", f"{inp.disk_iops} is above {MAX_DISK_IOPS}, the most IOPS any volume offers "
                                      "(GCE Hyperdisk Extreme)")
    if inp.volume_bytes is not None and _require_int("volume_bytes", inp.volume_bytes, GIB, "K6") > MAX_VOLUME_BYTES:
        raise InputError("volume_bytes", f"{inp.volume_bytes} bytes is above 64Ti, the largest persistent disk", "K6")
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
        for key, value, most, what in (("cpu", inp.cpu_millicores, MAX_MACHINE_CPU_MILLICORES, "8192 CPUs, Linux's most"),
                                       ("memory", inp.memory_bytes, MAX_MACHINE_MEMORY_BYTES, "4 PiB, x86-64's most")):
            if _require_int(key, value, 1, "K1") > most:
                raise InputError(key, f"{value} is more than any machine has ({what}): a member's budget is at most one node", "K1")
        # Node facts apply only to a node type's budget: beside an explicit one they would be ignored.
        for key, value in (("provider", inp.provider), ("daemonset_cpu", inp.daemonset_cpu_millicores),
                           ("daemonset_memory", inp.daemonset_memory_bytes)):
            if value is not None:
                raise InputError(key, "applies only when sizing from a node type (with its provider): beside an explicit "
                                      "cpu + memory budget it would be ignored; drop it, or size from the node type", "K1")
    elif inp.node_type is None:
        raise InputError("node_type", "give a per-member budget (cpu + memory) or a node type with its provider", "K1")
    elif inp.provider is None:
        raise InputError("provider", "a node type needs its provider (gke or eks)", "K1")
    if not isinstance(inp.thresholds, Mapping):
        raise InputError("thresholds", f"must be a mapping of threshold names to numbers, got {inp.thresholds!r}")
    try:
        return resolve_thresholds(inp.thresholds)
    except ThresholdError as error:
        raise InputError("thresholds", str(error), THRESHOLD_RULE[error.name]) from None
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
    """Containers whose size does not depend on mysqld's share (M3); their CPU shrinks on small members."""
    fixed: dict[str, ContainerSize] = {}
    if inp.pmm:
        fixed["pmm-client"] = pmm_client(budget_memory, budget_cpu)
    if inp.log_collector_enabled:
        for name in LOG_COLLECTOR_CONTAINERS:
            fixed[name] = log_collector_container(budget_cpu)
    if inp.backup and inp.engine == GROUP_REPLICATION:
        fixed["xtrabackup"] = BACKUP_SIDECAR
    for name in proxy_monitor_containers(inp.proxy, inp.engine):
        fixed[name] = monitor_container(budget_cpu)
    return fixed


def _pods(inp: SizingInput, fixed: Mapping[str, ContainerSize]) -> dict[str, tuple[str, ...]]:
    mysqld_pod = ("mysqld",) + tuple(name for name in ("pmm-client", *LOG_COLLECTOR_CONTAINERS, "xtrabackup") if name in fixed)
    proxy_pod = (inp.proxy,) + proxy_monitor_containers(inp.proxy, inp.engine)
    if inp.pmm and proxy_has_pmm(inp.proxy):
        proxy_pod += ("pmm-client",)
    return {"mysqld": mysqld_pod, "proxy": proxy_pod}


def _pod_sum(pods: Mapping[str, tuple[str, ...]], sizes: Mapping[str, ContainerSize], attribute: str) -> int:
    return sum(getattr(sizes[name], attribute) for pod in pods.values() for name in pod if name in sizes)


def _mysqld_cpu(inp: SizingInput, budget_cpu: int, fixed: Mapping[str, ContainerSize], pods) -> int:
    """mysqld CPU: what is left after fixed sidecars and the proxy, which takes a share of mysqld's."""
    available = budget_cpu - _pod_sum(pods, fixed, "cpu_millicores")
    share = PROXY_CPU_SHARE[inp.proxy]
    mysqld = int(available / (1 + share)) // 10 * 10 + 10  # estimate, then step down to the exact fit
    while mysqld > 0 and mysqld + proxy_container(inp.proxy, 0, mysqld, budget_cpu).cpu_millicores > available:
        mysqld -= 10
    return mysqld


def _split_cpu(inp: SizingInput, budget_cpu: int, budget_memory: int) -> int:
    """mysqld's CPU, or an InputError (M3) naming the smallest CPU budget that leaves it enough."""

    def mysqld_at(cpu: int) -> int:
        fixed = _fixed_containers(inp, budget_memory, cpu)
        return _mysqld_cpu(inp, cpu, fixed, _pods(inp, fixed))

    mysqld = mysqld_at(budget_cpu)
    if mysqld < MIN_MYSQLD_CPU:
        # Sidecars grow with the budget, never faster than it: the smallest fitting budget is found by bisection.
        low, high = budget_cpu, max(budget_cpu * 2, 1000)
        while mysqld_at(high) < MIN_MYSQLD_CPU:
            low, high = high, high * 2
        while high - low > 10:
            middle = (low + high) // 2
            low, high = (low, middle) if mysqld_at(middle) >= MIN_MYSQLD_CPU else (middle, high)
        raise InputError(
            "cpu",
            f"the member budget of {budget_cpu}m leaves {max(mysqld, 0)}m for mysqld after sidecars and the "
            f"proxy; at least {MIN_MYSQLD_CPU}m is needed: give the member at least {math.ceil(high / 10) * 10}m",
            "M3",
        )
    return mysqld


# --------------------------------------------------------------------------------------------------
# mysqld options


def _per_connection_options(profile: LoadProfile, scale: int = BUFFER_SCALE_FULL) -> dict[str, str]:
    """The profile's per-connection buffers at ``scale``/256 of their size (4 KiB multiples, mysqld's minimums)."""
    sizes = {
        "sort_buffer_size": profile.sort_buffer_size,
        "join_buffer_size": profile.join_buffer_size,
        "read_buffer_size": profile.read_buffer_size,
        "read_rnd_buffer_size": profile.read_rnd_buffer_size,
    }
    if scale >= BUFFER_SCALE_FULL:
        return {key: str(value) for key, value in sizes.items()}
    return {
        key: str(max(BUFFER_MINIMUMS[key], value * scale // BUFFER_SCALE_FULL // 4096 * 4096))
        for key, value in sizes.items()
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
    appliers = min(MAX_REPLICA_WORKERS, flow_control.replica_workers(cpu, thresholds))
    threshold = flow_control.gr_applier_threshold(flow_control.apply_rate_tps(appliers, thresholds), thresholds)
    return {
        "replica_parallel_workers": str(appliers),
        "loose_group_replication_flow_control_applier_threshold": str(threshold),
        "loose_group_replication_flow_control_certifier_threshold": str(threshold),
    }


def _memory_options(inp: SizingInput, profile: LoadProfile, limit: int, connections: int, cpu: int,
                    thresholds: Mapping[str, float], scale: int = BUFFER_SCALE_FULL) -> dict[str, str]:
    """Everything that enters the memory model except the buffer pool."""
    log_buffer = max(MIB, min(profile.log_buffer_bytes, limit // 64 // 1024 * 1024))
    # MySQL 8.4's own temptable_max_ram rule (3% of memory, at most 4 GiB), applied to the container limit.
    temptable = temptable_for_container(limit)
    tmp_table = min(16 * MIB, temptable)
    options = {
        "max_connections": str(connections),
        **_per_connection_options(profile, scale),
        "innodb_log_buffer_size": str(log_buffer),
        "temptable_max_ram": str(temptable),
        "tmp_table_size": str(tmp_table),
        "max_heap_table_size": str(tmp_table),
    }
    if inp.mysql_version == "8.0":
        options["temptable_max_mmap"] = "0"  # overflow to InnoDB on disk, not to page-cache mmap files
    if inp.thread_pool:  # M6: idle connections hold no thread; the cap admits a thread for every connection
        options.update(thread_pool_options(cpu, connections))
    if inp.engine == GROUP_REPLICATION:
        options["loose_group_replication_message_cache_size"] = str(_retention_cache_bytes(limit))
        options.update(_gr_queue_options(cpu, thresholds))  # they size the certification reserve (M5)
    else:
        options[PROVIDER_OPTIONS] = render_provider_options({"gcache.size": _retention_cache_bytes(limit)})
        options["wsrep_applier_threads"] = str(_galera_appliers(cpu, thresholds))
    # M1: performance_schema's per-thread slots for every thread that can exist, not whole pages of 256
    costs = connection_costs({normalize_key(k): v for k, v in options.items()}, thresholds)
    options["performance_schema_max_thread_instances"] = str(instrumented_thread_demand(options, costs))
    return options


def _galera_appliers(cpu: int, thresholds: Mapping[str, float]) -> int:
    return min(GALERA_MAX_APPLIERS, flow_control.galera_applier_threads(cpu, thresholds))


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


@dataclass(frozen=True)
class _Split:
    """The memory split of one member for a given memory budget, connection count and buffer scale."""

    inp: SizingInput
    profile: LoadProfile
    thresholds: Mapping[str, float]
    budget_cpu: int
    mysqld_cpu: int

    @property
    def proxies(self) -> int:
        return self.inp.cluster_size  # one proxy pod per member

    def proxy(self, connections: int) -> ContainerSize:
        """The proxy sized for its own client limit, from its share of ``connections`` (M6, T5)."""
        limits = proxy_limits(self.inp.proxy, connections, self.proxies, self.thresholds)
        return proxy_container(self.inp.proxy, limits.client_limit, self.mysqld_cpu, self.budget_cpu)

    def limit(self, budget_memory: int, connections: int) -> int:
        fixed = _fixed_containers(self.inp, budget_memory, self.budget_cpu)
        fixed_memory = _pod_sum(_pods(self.inp, fixed), fixed, "memory_bytes")
        return (budget_memory - fixed_memory - self.proxy(connections).memory_bytes) // MIB * MIB

    def raw_pool(self, budget_memory: int, connections: int, scale: int = BUFFER_SCALE_FULL) -> tuple[int, int]:
        """(mysqld limit, what the other M1 terms leave for the buffer pool)."""
        limit = self.limit(budget_memory, connections)
        if limit <= 0:
            return limit, -1
        options = _memory_options(self.inp, self.profile, limit, connections, self.mysqld_cpu, self.thresholds, scale)
        others = _evaluate(self.inp, {**options, "innodb_buffer_pool_size": "0"}, limit, self.thresholds, self.mysqld_cpu)
        # M1: the pool's block descriptors come on top of it; the layout keeps at most MAX_POOL_CHUNKS chunks
        return limit, pool_within(limit - others.peak_bytes, int(self.thresholds["buffer_pool_descriptor_bytes"]),
                                  MAX_POOL_CHUNKS)

    def runs(self, budget_memory: int, connections: int) -> bool:
        """Physically possible: the smallest buffers leave mysqld at least InnoDB's minimum pool (M1)."""
        limit, raw = self.raw_pool(budget_memory, connections, BUFFER_SCALE_MIN)
        return limit > 0 and _buffer_pool_bytes(raw, self.mysqld_cpu) >= MIN_BUFFER_POOL


def _pool_target(floor: float, cpu: int) -> int:
    """The smallest buffer pool :func:`_buffer_pool_layout` can emit that is at least ``floor``."""
    floor_mib = max(1, math.ceil(floor / MIB))
    instances = _buffer_pool_instances(floor_mib, cpu)
    return math.ceil(floor_mib / instances) * instances * MIB


def _floor(engine: str, budget_memory: int, thresholds: Mapping[str, float]) -> float:
    """The M6 floor on the member budget, never below the pool mysqld needs to start."""
    return max(MIN_BUFFER_POOL, buffer_pool_floor_bytes(engine, budget_memory, thresholds))


def _floor_fraction(engine: str, thresholds: Mapping[str, float]) -> float:
    return thresholds["min_buffer_pool_fraction_gr" if engine == GROUP_REPLICATION else "min_buffer_pool_fraction_pxc"]


def _connection_ceiling(split: _Split) -> int:
    """The most connections M6 derives: what the proxies open at the limits the operators ship (plus mysqld's own
    users). With one thread per connection every connection may run at once, so the cores bound them too (the peer
    calculator's connections per core by load); the thread pool bounds the running statements instead."""
    deliverable = deliverable_connections(split.inp.proxy, split.proxies, split.thresholds)
    if split.inp.thread_pool:
        return deliverable
    return min(deliverable, max(fewest_connections(split.inp.proxy, split.proxies, split.thresholds),
                                split.mysqld_cpu * split.profile.connections_per_core // 1000))


def _derived_connections(split: _Split, budget_memory: int, fits, fewest: int) -> tuple[int, bool]:
    """connections = 0 (M6): (what the proxies open at their shipped limits, fewer where the buffer pool would fall
    below ``derived_min_buffer_pool_share`` of the mysqld limit or its floor on the member budget; whether the floor
    on the member budget holds).

    Where even the fewest connections leave less than that share, the floor on the member budget alone decides;
    on a member too small for that floor too (its sidecars take the difference), the same fraction is kept of
    the mysqld limit instead, with per-connection buffers at their smallest: the count stays useful and the pool
    stays the larger part.
    """
    ceiling = _connection_ceiling(split)
    keeps_floor = fits(fewest)
    share = split.thresholds["derived_min_buffer_pool_share"]

    def keeps_share(connections: int) -> bool:
        limit, raw = split.raw_pool(budget_memory, connections)
        return fits(connections) and _buffer_pool_bytes(raw, split.mysqld_cpu) >= share * limit

    if keeps_floor and keeps_share(fewest):
        if keeps_share(ceiling):
            return ceiling, True
        return max(fewest, two_significant_figures(largest_fitting(keeps_share, fewest, fewest, ceiling))), True
    if keeps_floor and fits(ceiling):
        return ceiling, True
    if not keeps_floor:
        fraction = _floor_fraction(split.inp.engine, split.thresholds)

        def keeps_share_of_limit(connections: int) -> bool:
            limit, raw = split.raw_pool(budget_memory, connections, BUFFER_SCALE_MIN)
            pool = _buffer_pool_bytes(raw, split.mysqld_cpu)
            return limit > 0 and raw > 0 and pool >= max(MIN_BUFFER_POOL, fraction * limit)

        if not keeps_share_of_limit(fewest):
            return fewest, False
        largest = largest_fitting(keeps_share_of_limit, fewest, fewest, ceiling)
    else:
        floor = _floor(split.inp.engine, budget_memory, split.thresholds)
        guess = estimate_crossing(lambda n: split.raw_pool(budget_memory, n)[1], floor, fewest, ceiling)
        largest = largest_fitting(fits, fewest, guess, ceiling)
    # Rounded down to two significant figures so the value reads as chosen and the pool keeps a margin.
    return max(fewest, two_significant_figures(largest)), keeps_floor


def _buffer_scale(split: _Split, budget_memory: int, connections: int, notes: list[str]) -> tuple[int, int | None]:
    """(buffer scale, pool target or None): per-connection buffers sized to the budget before refusing (M6).

    At the profile's buffers the pool is what the other terms leave. When that is below the M6 floor
    the buffers shrink (largest scale that still leaves the floor) and the pool is the floor itself, so
    the pool never shrinks as the budget grows. When even the smallest buffers cannot keep the floor,
    the pool is what they leave, as long as mysqld can start (InnoDB's 5 MiB minimum); else InputError.
    """
    inp, thresholds, cpu = split.inp, split.thresholds, split.mysqld_cpu
    floor = _floor(inp.engine, budget_memory, thresholds)
    limit, raw = split.raw_pool(budget_memory, connections)
    if limit > 0 and _buffer_pool_bytes(raw, cpu) >= floor:
        return BUFFER_SCALE_FULL, None
    target = _pool_target(floor, cpu)

    def reaches(scale: int) -> bool:
        limit, raw = split.raw_pool(budget_memory, connections, scale)
        return limit > 0 and raw >= target

    fraction = _floor_fraction(inp.engine, thresholds)
    if reaches(BUFFER_SCALE_MIN):
        low, high = BUFFER_SCALE_MIN, BUFFER_SCALE_FULL - 1
        while low < high:
            middle = (low + high + 1) // 2
            low, high = (middle, high) if reaches(middle) else (low, middle - 1)
        notes.append(f"M6: per-connection buffers scaled to {low}/256 of the {inp.load} profile so {connections} "
                     f"connections leave the buffer pool {fraction:.0%} of the member budget.")
        return low, target
    if split.runs(budget_memory, connections):
        _, raw = split.raw_pool(budget_memory, connections, BUFFER_SCALE_MIN)
        share = _buffer_pool_bytes(raw, cpu) / budget_memory
        notes.append(f"M6: the buffer pool is {share:.0%} of the member budget, below the {fraction:.0%} floor, even "
                     f"with per-connection buffers at their smallest: the member is small for its sidecars and "
                     f"{connections} connections.")
        return BUFFER_SCALE_MIN, None
    raise _too_small(split, budget_memory, connections)


def _too_small(split: _Split, budget_memory: int, connections: int) -> InputError:
    """The refusal (M1) with the nearest input that would run: fewer connections or more memory."""
    low, high = budget_memory, min(MAX_QUANTITY, max(2 * budget_memory, GIB))
    while high < MAX_QUANTITY and not split.runs(high, connections):
        low, high = high, min(MAX_QUANTITY, high * 2)
    if split.runs(high, connections):
        while high - low > MIB:
            middle = (low + high) // 2
            low, high = (low, middle) if split.runs(middle, connections) else (middle, high)
        needed = f"at least {math.ceil(high / MIB)} MiB"
    else:
        needed = "a budget beyond the largest Kubernetes quantity: lower the thresholds"
    fewest = fewest_connections(split.inp.proxy, split.proxies, split.thresholds)
    if split.inp.connections and split.runs(budget_memory, fewest):
        runs = partial(split.runs, budget_memory)
        at_most = largest_fitting(runs, fewest, fewest, MAX_CONNECTIONS_LIMIT)
        return InputError(
            "connections",
            f"{connections} connections do not fit a member budget of {budget_memory // MIB} MiB even with the "
            f"smallest per-connection buffers: at most {at_most} fit, or give the member {needed}",
            "M1",
        )
    return InputError(
        "memory",
        f"the member budget of {budget_memory // MIB} MiB is too small: beside its sidecars, the proxy and "
        f"{connections} connections, mysqld cannot hold InnoDB's minimum {MIN_BUFFER_POOL // MIB} MiB buffer pool; "
        f"give the member {needed}",
        "M1",
    )


def size(inp: SizingInput) -> SizingResult:
    thresholds = validate(inp)
    profile = PROFILES[inp.load]
    budget_cpu, budget_memory, node = _budget(inp)
    mysqld_cpu = _split_cpu(inp, budget_cpu, budget_memory)
    fixed = _fixed_containers(inp, budget_memory, budget_cpu)
    split = _Split(inp, profile, thresholds, budget_cpu, mysqld_cpu)
    pool_floor = _floor(inp.engine, budget_memory, thresholds)  # M6
    notes: list[str] = []

    # M6: connections may grow until the buffer pool would fall below its share of the member budget;
    # the proxies' memory grows with them too, so the limit is recomputed for every count.
    def fits(connections: int) -> bool:
        limit, pool = split.raw_pool(budget_memory, connections)
        return limit > 0 and pool > 0 and _buffer_pool_bytes(pool, mysqld_cpu) >= pool_floor

    fewest = fewest_connections(inp.proxy, split.proxies, thresholds)
    keeps_floor = True
    if inp.connections == 0:
        connections, keeps_floor = _derived_connections(split, budget_memory, fits, fewest)
    elif inp.connections < fewest:
        raise InputError(
            "connections",
            f"must be 0 (derive) or at least {fewest} (min_connections = {service_connections(thresholds)} for "
            f"mysqld's own users plus the fewest backend connections of {split.proxies} {inp.proxy} pods), "
            f"got {inp.connections}",
            "M6",
        )
    elif inp.connections > MAX_CONNECTIONS_LIMIT:
        raise InputError("connections", f"mysqld accepts at most {MAX_CONNECTIONS_LIMIT}, got {inp.connections}", "M6")
    else:
        connections = inp.connections
    if not keeps_floor and split.runs(budget_memory, connections):
        fraction = _floor_fraction(inp.engine, thresholds)
        limit, raw = split.raw_pool(budget_memory, connections, BUFFER_SCALE_MIN)
        kept = _buffer_pool_bytes(raw, mysqld_cpu) / limit
        outcome = (f"to keep {fraction:.0%} of the mysqld limit instead" if kept >= fraction else
                   f"and even the fewest ({connections}) leave the pool {kept:.0%} of the mysqld limit: its fixed terms "
                   "(server overhead, performance_schema, the gcache or XCom cache) take the rest")
        notes.append(f"M6: beside its sidecars the member cannot keep {fraction:.0%} of its budget for the buffer pool; "
                     f"connections are derived with the smallest per-connection buffers {outcome}.")
        scale, pool_target = BUFFER_SCALE_MIN, None
    else:
        scale, pool_target = _buffer_scale(split, budget_memory, connections, notes)
    limits = proxy_limits(inp.proxy, connections, split.proxies, thresholds)  # T5: both ends from one number
    if limits.backend_limit > shipped(inp.proxy).backend_limit:
        notes.append(f"M6: each {inp.proxy} pod may open {limits.backend_limit} connections to mysqld (shipped: "
                     f"{shipped(inp.proxy).backend_limit}), so the {split.proxies} proxies can use {connections} connections.")

    limit, raw = split.raw_pool(budget_memory, connections, scale)
    pool, chunk, instances = _buffer_pool_layout(raw if pool_target is None else pool_target, mysqld_cpu)
    options = _memory_options(inp, profile, limit, connections, mysqld_cpu, thresholds, scale)
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
        appliers = min(MAX_REPLICA_WORKERS, flow_control.replica_workers(mysqld_cpu, thresholds))
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
        appliers = _galera_appliers(mysqld_cpu, thresholds)
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
    _check_brownout_budget(inp, brownout, queue_bound, rate, thresholds)

    memory = _evaluate(inp, options, limit, thresholds, mysqld_cpu)
    if not memory.fits or memory.buffer_pool_rounded != pool:
        raise AssertionError(f"sizing produced a model that does not fit: {memory}")  # an engine bug, not input

    containers = dict(fixed)
    containers["mysqld"] = ContainerSize(mysqld_cpu, limit)
    containers[inp.proxy] = split.proxy(connections)
    component_probes = {"mysqld": probes.probes_for(inp.engine, "mysqld", brownout)}
    component_probes[inp.proxy] = probes.probes_for(inp.engine, inp.proxy, brownout)

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
        proxy_connections=limits.client_limit,
        proxy_limits=limits,
        probes=component_probes,
        rules=_rules_behind(options, containers),
        notes=tuple(notes),
    )


def _check_brownout_budget(inp: SizingInput, brownout: float, queue_bound: float, rate: float,
                           thresholds: Mapping[str, float]) -> None:
    """F5: the smallest queue bound flow control allows (a threshold of 1, and for group replication one
    period's overshoot) must drain within the budget; a budget no setting meets is refused, never exceeded."""
    budget = thresholds["max_failover_brownout_seconds"]
    if brownout <= budget * (1 + 1e-12):  # the chosen bound meets it (up to float rounding of queue / rate)
        return
    if inp.engine == GROUP_REPLICATION:
        why = (f"even a flow-control threshold of 1 lets the queue reach {queue_bound:.0f} transactions (one "
               f"period's overshoot at primary_to_applier_rate_ratio {thresholds['primary_to_applier_rate_ratio']:g})")
        fix = "lower primary_to_applier_rate_ratio, or give mysqld more CPU (more appliers)"
    else:
        why = f"even gcs.fc_limit 1 lets {inp.cluster_size} members queue {queue_bound:.1f} write-sets"
        fix = "give mysqld more CPU (more appliers)"
    raise InputError(
        "thresholds",
        f"max_failover_brownout_seconds = {budget:g} s cannot be met: {why}, which the appliers drain at ~{rate:g} tps "
        f"in {brownout:.4g} s; raise max_failover_brownout_seconds to at least {math.ceil(brownout * 1000) / 1000:g}, or {fix}",
        "F5",
    )


_RULES_BY_KEY = {
    "innodb_buffer_pool_size": ("M1", "M2"),
    "innodb_buffer_pool_chunk_size": ("M1",),
    "innodb_buffer_pool_instances": ("M1",),
    "max_connections": ("M6", "M1", "T5"),
    "thread_handling": ("M6", "M1"),
    "thread_pool_size": ("M6",),
    "thread_pool_oversubscribe": ("M6",),
    "thread_pool_max_threads": ("M6", "M1"),
    "performance_schema_max_thread_instances": ("M1",),
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
