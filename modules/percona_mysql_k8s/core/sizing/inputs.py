"""What the sizing engine is asked: one member's input, and its validation before any arithmetic.

Every bad input is an :class:`~percona_mysql_k8s.core.errors.InputError` naming the key and the rule; the
checks run in a fixed order, so the first error a user sees does not depend on the rest of the input.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from ..bounds import MAX_DISK_IOPS, MAX_MACHINE_CPU_MILLICORES, MAX_MACHINE_MEMORY_BYTES, MAX_VOLUME_BYTES, MIN_DISK_IOPS
from ..errors import InputError
from ..memory import ENGINES, GROUP_REPLICATION, MYSQL_VERSIONS, PXC
from ..profiles import LOADS
from ..rules import THRESHOLD_RULE, ThresholdError, resolve_thresholds
from ..sidecars import HAPROXY, PROXIES, PROXYSQL, ROUTER
from ..units import GIB

DEFAULT_DISK_IOPS = 3000  # seed 000's volumes (~3k IOPS), also the gp3 baseline
CLUSTER_SIZES = {PXC: (3, 5), GROUP_REPLICATION: (3, 5, 7)}  # T1


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
        raise InputError(
            "disk_iops", f"{inp.disk_iops} is above {MAX_DISK_IOPS}, the most IOPS any volume offers (GCE Hyperdisk Extreme)"
        )
    if inp.volume_bytes is not None and _require_int("volume_bytes", inp.volume_bytes, GIB, "K6") > MAX_VOLUME_BYTES:
        raise InputError("volume_bytes", f"{inp.volume_bytes} bytes is above 64Ti, the largest persistent disk", "K6")
    size = _require_int("cluster_size", inp.cluster_size, 1, "T1")
    allowed = CLUSTER_SIZES[inp.engine]
    if size not in allowed and not (inp.allow_unsafe_size and size < min(allowed)):
        hint = " (smaller sizes need allow_unsafe_size for an ephemeral stack)" if size < min(allowed) else ""
        raise InputError(
            "cluster_size", f"{inp.engine} clusters have {' or '.join(map(str, allowed))} members, got {size}{hint}", "T1"
        )
    _validate_budget(inp)
    if not isinstance(inp.thresholds, Mapping):
        raise InputError("thresholds", f"must be a mapping of threshold names to numbers, got {inp.thresholds!r}")
    try:
        return resolve_thresholds(inp.thresholds)
    except ThresholdError as error:
        raise InputError("thresholds", str(error), THRESHOLD_RULE[error.name]) from None
    except (KeyError, ValueError) as error:
        raise InputError("thresholds", str(error).strip('"')) from None


def _validate_budget(inp: SizingInput) -> None:
    """K1: either an explicit per-member budget (cpu + memory, each at most one machine) or a node type with its
    provider; never both, and no node facts beside an explicit budget, where they would be ignored."""
    explicit = inp.cpu_millicores is not None or inp.memory_bytes is not None
    if explicit and inp.node_type is not None:
        raise InputError("node_type", "give either a per-member budget (cpu + memory) or a node type, not both")
    if explicit:
        if inp.cpu_millicores is None or inp.memory_bytes is None:
            missing = "memory" if inp.memory_bytes is None else "cpu"
            raise InputError(missing, "a per-member budget needs both cpu and memory", "K1")
        for key, value, most, what in (
            ("cpu", inp.cpu_millicores, MAX_MACHINE_CPU_MILLICORES, "8192 CPUs, Linux's most"),
            ("memory", inp.memory_bytes, MAX_MACHINE_MEMORY_BYTES, "4 PiB, x86-64's most"),
        ):
            if _require_int(key, value, 1, "K1") > most:
                raise InputError(
                    key, f"{value} is more than any machine has ({what}): a member's budget is at most one node", "K1"
                )
        # Node facts apply only to a node type's budget: beside an explicit one they would be ignored.
        for key, value in (
            ("provider", inp.provider),
            ("daemonset_cpu", inp.daemonset_cpu_millicores),
            ("daemonset_memory", inp.daemonset_memory_bytes),
        ):
            if value is not None:
                raise InputError(
                    key,
                    "applies only when sizing from a node type (with its provider): beside an explicit "
                    "cpu + memory budget it would be ignored; drop it, or size from the node type",
                    "K1",
                )
    elif inp.node_type is None:
        raise InputError("node_type", "give a per-member budget (cpu + memory) or a node type with its provider", "K1")
    elif inp.provider is None:
        raise InputError("provider", "a node type needs its provider (gke or eks)", "K1")
