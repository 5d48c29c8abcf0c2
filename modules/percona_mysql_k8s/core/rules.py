"""The rule catalogue: every rule of RULES.md as data, and every threshold with its default.

This is the single definition that the sizing engine, the reports and the policy pack all read.
Where RULES.md gives no number, the default below is the project's choice and is exposed as a policy
configuration value (``Threshold.name``) rather than buried in code.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from types import MappingProxyType


class Level(StrEnum):
    MANDATORY = "mandatory"
    ADVISORY = "advisory"


@dataclass(frozen=True)
class Threshold:
    """A tunable number: policy config key ``name``, its default, JSON-schema type and meaning."""

    name: str
    default: float | int
    description: str
    kind: str = "number"  # JSON-schema type: "number" or "integer"
    minimum: float | int | None = 0


@dataclass(frozen=True)
class Rule:
    id: str
    title: str
    text: str
    level: Level
    sources: tuple[str, ...]
    thresholds: tuple[Threshold, ...] = field(default=())

    @property
    def mandatory(self) -> bool:
        return self.level is Level.MANDATORY


M, A = Level.MANDATORY, Level.ADVISORY

_RULES = (
    # K. Kubernetes capacity
    Rule("K1", "Size against allocatable",
         "Size against node allocatable, never capacity: usable = capacity - kube/system reserved - "
         "eviction threshold - DaemonSet requests.", M, ("000",)),
    Rule("K2", "Memory limit = request",
         "Every database container has a memory limit, and its memory request equals its limit "
         "(no swap: over memory.max the kernel OOMKills).", M, ("000",)),
    Rule("K3", "CPU request from sizing",
         "Request the CPU sizing computes; a CPU limit is optional and, if set, equals the request.",
         A, ("002",)),
    Rule("K4", "Dedicated pools",
         "mysqld and proxy pods run only on the database pool (node selector + toleration of its "
         "taint); the monitoring server and load generators only on the monitoring pool; nothing "
         "else tolerates the database taint.", M, ("002", "004")),
    Rule("K5", "Pods fit the pool",
         "On every pool, per node, the requests of the pods placed there (one database pod per node "
         "under the operators' required anti-affinity) plus DaemonSets fit the allocatable.",
         M, ("000", "INTERFACES §7")),
    Rule("K6", "Probes never shorter than operator defaults",
         "Probe timeouts are never shorter than the operator defaults; under load a slow but healthy "
         "pod must not be killed.", A, ("000", "002")),
    # M. Memory split
    Rule("M1", "Modeled peak fits the limit",
         "Modeled peak <= container memory limit: buffer pool (rounded up to chunk x instances), log "
         "buffer, per-connection buffers x max_connections, temporary tables, fixed server overhead, "
         "a page-cache reserve, and for group replication the M4-M5 terms.", M, ("000",),
         (Threshold("fixed_server_overhead_bytes", 300 * 1024**2,
                    "Fixed mysqld overhead (performance schema, dictionary, table caches): ~300 MB "
                    "measured on a 16-core node (seed 000).", "integer"),
          Threshold("page_cache_reserve_fraction", 0.05,
                    "Share of the mysqld limit kept for page cache that counts against memory.max "
                    "(binary and relay logs, active file pages; seed 000 on working set size).",
                    "number"))),
    Rule("M2", "No bare-metal rule of thumb",
         "The buffer pool is what is left of the container limit after every other term; the "
         "operators' auto-tuning (PXC 75% / PS 50% of the limit) is replaced by an explicit value.",
         M, ("000", "INTERFACES")),
    Rule("M3", "Sidecars budgeted separately",
         "PMM client, log collector, backup sidecar and proxies each have their own request = limit.",
         M, ("000", "004")),
    Rule("M4", "XCom message cache reserved",
         "group_replication_message_cache_size (default 1 GiB, minimum 128 MiB) plus ~50 MB of "
         "structures is reserved.", M, ("000", "001"),
         (Threshold("xcom_structures_bytes", 50 * 1024**2,
                    "XCom structures beside the message cache (seed 000).", "integer"),)),
    Rule("M5", "Certification info reserved",
         "Group replication certification info grows while a member lags and is bounded only by "
         "bounding the apply queue; reserve for it (GR uses 9-11% more memory than PXC).",
         M, ("000",),
         (Threshold("gr_memory_premium_fraction", 0.11,
                    "Share of the mysqld limit reserved for certification info (upper end of the "
                    "measured 9-11% group replication premium).", "number"),)),
    Rule("M6", "Derive max_connections",
         "connections = 0 means: derive the largest max_connections the memory model allows.",
         A, ("000",),
         (Threshold("min_buffer_pool_fraction_pxc", 0.5,
                    "Smallest share of the member's memory budget left to the buffer pool when "
                    "deriving connections (PXC; the peer calculator's floor, ALGORITHM §4).", "number"),
          Threshold("min_buffer_pool_fraction_gr", 0.4,
                    "Same for group replication, which reserves the M4/M5 terms.", "number"),
          Threshold("min_connections", 20,
                    "Fewest connections a member may be sized for (operator, monitor, proxy "
                    "checks, PMM and replication users need some).", "integer"))),
    # F. Flow control
    Rule("F1", "GR flow control on",
         "group_replication_flow_control_mode is QUOTA; DISABLED is rejected.", M, ("000",)),
    Rule("F2", "GR applier threshold bounded",
         "group_replication_flow_control_applier_threshold <= max_applier_threshold (the server "
         "default 25000 is rejected; 500 is a good strict value).", M, ("000", "003"),
         (Threshold("max_applier_threshold", 1000,
                    "Largest accepted applier/certifier threshold (transactions).", "integer", 1),
          Threshold("strict_applier_threshold", 500,
                    "The strict value sizing chooses when the brownout budget allows it.",
                    "integer", 1))),
    Rule("F3", "GR certifier threshold bounded",
         "group_replication_flow_control_certifier_threshold <= max_applier_threshold and equal to "
         "the applier threshold.", M, ("000",)),
    Rule("F4", "Aggressive quota",
         "group_replication_flow_control_min_quota = 0, hold_percent = 100, release_percent = 5; "
         "period stays 1 s.", A, ("000",)),
    Rule("F5", "Failover brownout bounded",
         "Worst-case write outage after failover ~ queue bound / apply rate must not exceed "
         "max_failover_brownout_seconds.", M, ("000",),
         (Threshold("max_failover_brownout_seconds", 30,
                    "Longest accepted estimated write outage after a failover (seconds).", "number"),
          Threshold("applier_tps_per_worker", 12.5,
                    "Assumed apply rate per applier thread: seed 002 sustained 400 tps without "
                    "flow control with 32 applier threads on n2-standard-16.", "number", 0.001))),
    Rule("F6", "Parallel appliers per core",
         "replica_parallel_workers ~ 2.5 per CPU core of the mysqld container (14000m -> 35); more is "
         "rejected. No effect on PXC, which uses wsrep_applier_threads.", M, ("000", "002"),
         (Threshold("replica_workers_per_core", 2.5,
                    "Parallel applier workers per mysqld core.", "number", 0.001),)),
    Rule("F7", "Consistency per session",
         "A global group_replication_consistency of AFTER or BEFORE_AND_AFTER costs ~75% of "
         "throughput; use it per session.", A, ("000",)),
    Rule("G1", "Galera fc_limit bounded",
         "gcs.fc_limit <= max_fc_limit (the effective limit scales with sqrt(cluster size)); raising "
         "it was the worst configuration measured and lengthens failover.", M, ("002",),
         (Threshold("max_fc_limit", 100, "Largest accepted gcs.fc_limit (the PXC default).",
                    "integer", 1),)),
    Rule("G2", "Galera fc_factor in (0, 1]", "gcs.fc_factor is in (0, 1].", M, ("002",)),
    Rule("G3", "Galera applier threads from cores",
         "wsrep_applier_threads is set from the cores (default 2 is too low; 64 was best on 16 vCPU).",
         A, ("002",),
         (Threshold("galera_applier_threads_per_core", 4,
                    "wsrep_applier_threads per mysqld core (seed 002: 64 best on 16 vCPU).",
                    "number", 0.001),)),
    Rule("G4", "wsrep_sync_wait", "wsrep_sync_wait = 1 is enough to avoid stale reads.", A, ("000",)),
    # T. Topology and proxies
    Rule("T1", "Cluster size",
         "PXC 3 or 5; group replication 3, 5 or 7. Smaller only for an explicitly ephemeral stack "
         "with the operator's unsafe flag.", M, ("001", "004", "INTERFACES")),
    Rule("T2", "Proxy choice",
         "HAProxy is the default; ProxySQL only on PXC; MySQL Router only on group replication "
         "(warned about under high concurrency); never HAProxy and ProxySQL together; at least 2 "
         "proxy pods.", M, ("004", "INTERFACES"),
         (Threshold("min_proxy_pods", 2, "Fewest proxy pods.", "integer", 1),)),
    Rule("T3", "Writes to the writer endpoint",
         "Writes go to the writer endpoint only; the HAProxy replicas endpoint is read-only.",
         M, ("004",)),
    Rule("T4", "Semi-sync after sync",
         "Semi-sync (PS async): wait point AFTER_SYNC only; at least 2 semi-sync replicas.",
         M, ("004",)),
    # B. Benchmarks
    Rule("B1", "Load generators on the monitoring pool",
         "Load generators run on the monitoring pool, never on the database pool.", M, ("002", "004")),
    Rule("B2", "Warm up", "Warm up before measured runs.", A, ("000",)),
    Rule("B3", "sysbench reporting",
         "Report every second with --histogram, CSV stats, --mysql-ignore-errors=all, "
         "--db-ps-mode=disable; thread ladders and rate-limited runs.", A, ("000", "002", "004")),
    Rule("B4", "Data size against the buffer pool",
         "An IO-bound profile has more data than the buffer pool, a CPU-bound one fits in it.",
         A, ("000",)),
    # S. Safety
    Rule("S1", "Passwords are secrets",
         "Every password is generated and kept as a Pulumi secret and a Kubernetes Secret; never in "
         "plain text in a custom resource, a chart value or stack config.", M, ()),
    Rule("S2", "TLS stays on", "TLS stays on (no unsafeFlags.tls).", M, ("INTERFACES",)),
    Rule("S3", "No public database endpoint",
         "No database Service is exposed through a public load balancer unless source ranges are set.",
         M, ()),
    Rule("S4", "Protect data",
         "PVC-deleting finalizers are off by default; production stacks protect database resources.",
         M, ("INTERFACES",)),
    Rule("S5", "PMM versions match",
         "PMM client and server major versions match (3.x uses a service-account token in "
         "pmmservertoken).", M, ("INTERFACES",)),
    # R. Recovery (production stacks; ephemeral stacks are exempt)
    Rule("R1", "Scheduled backups off the cluster",
         "A production database has scheduled backups to object storage outside the cluster (GCS, S3 "
         "or an S3-compatible endpoint), created or referenced by the stack.", M, ("INTERFACES",)),
    Rule("R2", "Point-in-time recovery",
         "Point-in-time recovery (the binlog collector / binlog server) is on wherever the operator "
         "version supports it.", M, ("INTERFACES",)),
    Rule("R3", "Backup retention window",
         "Backup retention keeps at least min_backup_retention_days (default 7) of restore points.", M, ()),
    Rule("R4", "Private, encrypted backup storage",
         "Backup storage is private and encrypted, reached through workload identity or IRSA; no static "
         "cloud keys in stack config.", M, ()),
    Rule("R5", "No benchmark on production by surprise",
         "Load generators are not part of a production stack unless a run is explicitly requested, and a "
         "request runs once.", A, ("000", "002")),
    Rule("R6", "Database pods fenced by NetworkPolicy",
         "Database pods accept traffic only from their proxies, their own members, the operator, "
         "monitoring and backup Jobs.", A, ()),
)

RULES: Mapping[str, Rule] = MappingProxyType({rule.id: rule for rule in _RULES})

THRESHOLDS: Mapping[str, Threshold] = MappingProxyType(
    {threshold.name: threshold for rule in _RULES for threshold in rule.thresholds}
)

# Which rule owns each threshold: the policy pack names the rule in violation messages.
THRESHOLD_RULE: Mapping[str, str] = MappingProxyType(
    {threshold.name: rule.id for rule in _RULES for threshold in rule.thresholds}
)


def rule(rule_id: str) -> Rule:
    return RULES[rule_id]


def default_thresholds() -> dict[str, float | int]:
    """Every threshold at its default; sizing and policies start from this and apply overrides."""
    return {name: threshold.default for name, threshold in THRESHOLDS.items()}


def resolve_thresholds(overrides: Mapping[str, object] | None = None) -> dict[str, float | int]:
    """Defaults with ``overrides`` applied; unknown names or non-numbers raise ``KeyError``/``ValueError``."""
    values = default_thresholds()
    for name, value in (overrides or {}).items():
        if name not in THRESHOLDS:
            raise KeyError(f"unknown threshold {name!r}; known: {', '.join(sorted(THRESHOLDS))}")
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ValueError(f"threshold {name!r} must be a number, got {value!r}")
        minimum = THRESHOLDS[name].minimum
        if minimum is not None and value < minimum:
            raise ValueError(f"threshold {name!r} must be >= {minimum}, got {value!r}")
        values[name] = value
    return values
