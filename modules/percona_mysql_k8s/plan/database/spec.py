"""What one database cluster should be, and where its members go: decided before any resource exists.

Pure (no Pulumi). A :class:`DatabaseSpec` (what the user asked for; every error names the stack config key),
its :class:`Placement` on the database pool (one member per node, K4, K5), the sizing engine's answer for a
member on that pool (:func:`size_for_pool`, K1) and the writer endpoint clients use (T3). The custom resource
is written from them (:mod:`percona_mysql_k8s.plan.database.manifests`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from percona_mysql_k8s.core import operator_validation
from percona_mysql_k8s.core.errors import InputError
from percona_mysql_k8s.core.memory import ENGINES, GROUP_REPLICATION, MYSQL_VERSIONS, PXC
from percona_mysql_k8s.core.names import dns1123_label_problem
from percona_mysql_k8s.core.pools import PoolShape
from percona_mysql_k8s.core.profiles import LOADS
from percona_mysql_k8s.core.sidecars import HAPROXY, PROXIES, PROXYSQL, ROUTER
from percona_mysql_k8s.core.sizing import CLUSTER_SIZES, SizingInput, SizingResult, size
from percona_mysql_k8s.core.units import memory_to_bytes

from . import versions
from .zones import zone_decision

# The PXC operator's clusterNameMaxLen (rule C2's definition, core.operator_validation); applied to PS as well, so a
# stack keeps its name when it changes engine.
CLUSTER_NAME_MAX = operator_validation.CLUSTER_NAME_MAX
HOSTNAME_TOPOLOGY = "kubernetes.io/hostname"
NO_ANTI_AFFINITY = "none"
PXC_SECRET_KEYS = ("root", "xtrabackup", "monitor", "proxyadmin", "operator", "replication")
PS_SECRET_KEYS = ("root", "xtrabackup", "monitor", "operator", "replication", "orchestrator", "heartbeat", "clusterset")
PMM_TOKEN_KEY = "pmmservertoken"  # PMM 3 service-account token (INTERFACES §2.8, §3.7; S5)
# What `pulumi up` waits for on the custom resource (databaseAwait; the annotation: manifests.AWAIT_FOR):
# the operator reports the cluster ready, or the operator has reconciled it once and written a state.
AWAIT_READY, AWAIT_RECONCILED = "ready", "reconciled"
DATABASE_AWAITS = (AWAIT_READY, AWAIT_RECONCILED)


@dataclass(frozen=True)
class DatabaseSpec:
    """What one database cluster should be. Errors name the stack config key they come from."""

    name: str
    namespace: str
    engine: str = PXC
    cluster_size: int = 3
    proxy: str = HAPROXY
    mysql_version: str = "8.4"
    load: str = "light-oltp"
    connections: int = 0
    storage_class: str = ""
    storage_size: str = "100Gi"
    disk_iops: int = 3000
    log_collector: bool = True  # PXC only; group replication has no log collector
    backup: bool = False
    pmm_enabled: bool = True
    ephemeral: bool = False
    database_await: str = AWAIT_READY
    labels: Mapping[str, str] = field(default_factory=dict)
    accept_zone_loss: bool = False  # acceptZoneLoss: a zone's loss may stop it (K7, plan.database.zones)

    def __post_init__(self) -> None:
        validate_spec(self)

    @property
    def release(self) -> versions.OperatorRelease:
        return versions.operator_for(self.engine)

    @property
    def secret_name(self) -> str:
        return f"{self.name}-secrets"

    @property
    def secret_keys(self) -> tuple[str, ...]:
        return PXC_SECRET_KEYS if self.engine == PXC else PS_SECRET_KEYS

    @property
    def storage_bytes(self) -> int:
        return memory_to_bytes(self.storage_size)

    @property
    def proxy_size(self) -> int:
        """One proxy pod per member (T2 asks for at least 2; fewer only on an ephemeral stack)."""
        return self.cluster_size

    @property
    def log_collector_enabled(self) -> bool:
        return self.engine == PXC and self.log_collector


def _bool(key: str, value: object) -> None:
    if not isinstance(value, bool):
        raise InputError(key, f"must be true or false, got {value!r}")


def validate_spec(spec: DatabaseSpec) -> None:
    """Everything that can be checked before any resource exists (T1, T2, S-rules, name limits)."""
    # An RFC 1035 label (a DNS-1123 label starting with a letter): the operators name the cluster's Services
    # after it, and a Service's name is one (Kubernetes ValidateServiceName = NameIsDNS1035Label).
    refused = operator_validation.cluster_name_problem(spec.name)
    if refused:
        raise InputError(
            "dbClusterName",
            f"{spec.name!r} is {len(spec.name)} characters: the PXC operator refuses the cluster and reconciles "
            f"nothing ({refused}); use at most {CLUSTER_NAME_MAX}, e.g. "
            f"{operator_validation.shorten_cluster_name(spec.name)!r}",
            "C2",
        )
    if dns1123_label_problem(spec.name) or not spec.name[0].isalpha():
        raise InputError(
            "dbClusterName",
            f"{spec.name!r} must be a DNS label (lowercase letters, digits, '-', starting with a letter) of at most "
            f"{CLUSTER_NAME_MAX} characters (the PXC operator's limit)",
        )
    if dns1123_label_problem(spec.namespace):
        raise InputError("namespace", f"{spec.namespace!r} is not a valid namespace name")
    if spec.engine not in ENGINES:
        raise InputError("engine", f"must be one of {', '.join(ENGINES)}; got {spec.engine!r}")
    if spec.database_await not in DATABASE_AWAITS:
        raise InputError(
            "databaseAwait",
            f"must be {' or '.join(DATABASE_AWAITS)} (what `pulumi up` waits for on the custom resource); "
            f"got {spec.database_await!r}",
        )
    if spec.proxy not in PROXIES:
        raise InputError("proxy", f"must be one of {', '.join(PROXIES)}; got {spec.proxy!r}", "T2")
    if spec.proxy == PROXYSQL and spec.engine != PXC:
        raise InputError("proxy", "ProxySQL is supported only with PXC; use haproxy or router", "T2")
    if spec.proxy == ROUTER and spec.engine != GROUP_REPLICATION:
        raise InputError("proxy", "MySQL Router is supported only with group replication; use haproxy or proxysql", "T2")
    if spec.mysql_version not in MYSQL_VERSIONS:
        raise InputError("mysqlVersion", f"must be one of {', '.join(MYSQL_VERSIONS)}; got {spec.mysql_version!r}")
    if spec.load not in LOADS:
        raise InputError("load", f"must be one of {', '.join(LOADS)}; got {spec.load!r}")
    for key, value in (("clusterSize", spec.cluster_size), ("connections", spec.connections), ("diskIops", spec.disk_iops)):
        if isinstance(value, bool) or not isinstance(value, int):
            raise InputError(key, f"must be a whole number, got {value!r}")
    if spec.connections < 0:
        raise InputError("connections", f"must be >= 0 (0 derives the largest that fits), got {spec.connections}", "M6")
    if spec.disk_iops < 100:
        raise InputError("diskIops", f"must be >= 100, got {spec.disk_iops}")
    for key, value in (
        ("logCollector", spec.log_collector),
        ("backup", spec.backup),
        ("pmmEnabled", spec.pmm_enabled),
        ("ephemeral", spec.ephemeral),
    ):
        _bool(key, value)
    allowed = CLUSTER_SIZES[spec.engine]
    if spec.cluster_size not in allowed:
        if spec.cluster_size < 1 or spec.cluster_size > min(allowed) or not spec.ephemeral:
            hint = (
                " (fewer members only on an ephemeral stack, with the operator's unsafe flag)"
                if 1 <= spec.cluster_size < min(allowed)
                else ""
            )
            raise InputError(
                "clusterSize",
                f"{spec.engine} clusters have {' or '.join(map(str, allowed))} members, got {spec.cluster_size}{hint}",
                "T1",
            )
    if not isinstance(spec.storage_class, str):
        raise InputError("storageClass", f"must be a string, got {spec.storage_class!r}")
    try:
        volume = memory_to_bytes(spec.storage_size)
    except ValueError as error:
        raise InputError("storageSize", str(error)) from None
    if volume < 1 << 30:
        raise InputError(
            "storageSize", f"{spec.storage_size!r} is below 1Gi; a data volume needs room for data, redo and binary logs"
        )


# --------------------------------------------------------------------------------------------------
# placement and sizing on the database pool


@dataclass(frozen=True)
class Placement:
    """Where the database and proxy pods go: the database pool, one member per node (K4, K5), spread over its zones
    (K7, plan.database.zones)."""

    node_selector: Mapping[str, str]
    tolerations: tuple[Mapping[str, str], ...]
    anti_affinity_key: str
    members_per_node: int
    spread: tuple[Mapping[str, object], ...] = ()
    notes: tuple[str, ...] = ()  # what the zones cannot keep, on a stack that accepts it (warnings)
    remarks: tuple[str, ...] = ()  # the kind target's one machine (notes)

    def scheduling(self) -> dict[str, Any]:
        scheduling: dict[str, Any] = {"nodeSelector": dict(self.node_selector)}
        if self.tolerations:  # an empty list would be dropped by the API server: a false diff
            scheduling["tolerations"] = [dict(t) for t in self.tolerations]
        scheduling["affinity"] = {"antiAffinityTopologyKey": self.anti_affinity_key}
        if self.spread:
            scheduling["topologySpreadConstraints"] = [dict(constraint) for constraint in self.spread]
        return scheduling


def placement(spec: DatabaseSpec, pool: PoolShape) -> Placement:
    """One member per node with the operators' required hostname anti-affinity.

    When the pool has fewer nodes than members (an ephemeral kind cluster), the anti-affinity is
    ``none`` and each node's budget is shared by the members placed on it; a persistent stack with too
    few nodes is refused (K5: the pods would stay Pending).
    """
    if not pool.labels:
        raise InputError("databasePoolLabels", f"the database pool {pool.name!r} has no node labels to select it by", "K4")
    if pool.node_count >= spec.cluster_size:
        per_node, key = 1, HOSTNAME_TOPOLOGY
    elif spec.ephemeral:
        per_node, key = math.ceil(spec.cluster_size / max(pool.node_count, 1)), NO_ANTI_AFFINITY
    else:
        raise InputError(
            "databaseNodeCount",
            f"the database pool has {pool.node_count} nodes for {spec.cluster_size} members; the operators place one member "
            "per node (required anti-affinity), so at least clusterSize nodes are needed",
            "K5",
        )
    pinned = pool.placement()  # core.scheduling: the same reader the policy pack judges placements with
    zones = zone_decision(spec.cluster_size, pool, ephemeral=spec.ephemeral, accepted=spec.accept_zone_loss)
    if per_node > 1:  # members share nodes (kind): no zone to spread them over either
        zones = replace(zones, spread=())
    return Placement(pinned.node_selector, tuple(pinned.tolerations), key, per_node, zones.spread, zones.notes, zones.remarks)


def sizing_input(spec: DatabaseSpec, pool: PoolShape, members_per_node: int = 1) -> SizingInput:
    """The sizing engine's input for a member on this pool: a node's usable allocatable (K1)."""
    return SizingInput(
        engine=spec.engine,
        load=spec.load,
        connections=spec.connections,
        proxy=spec.proxy,
        pmm=spec.pmm_enabled,
        log_collector=spec.log_collector if spec.engine == PXC else None,
        backup=spec.backup,
        mysql_version=spec.mysql_version,
        cluster_size=spec.cluster_size,
        allow_unsafe_size=spec.ephemeral,
        disk_iops=spec.disk_iops,
        volume_bytes=spec.storage_bytes,
        cpu_millicores=pool.node.usable_cpu_millicores // members_per_node,
        memory_bytes=pool.node.usable_memory_bytes // members_per_node,
    )


def size_for_pool(spec: DatabaseSpec, pool: PoolShape) -> tuple[Placement, SizingResult]:
    place = placement(spec, pool)
    return place, size(sizing_input(spec, pool, place.members_per_node))


@dataclass(frozen=True)
class Endpoint:
    service: str
    namespace: str
    port: int

    @property
    def host(self) -> str:
        return f"{self.service}.{self.namespace}.svc"


def writer_endpoint(spec: DatabaseSpec) -> Endpoint:
    """The writer endpoint (T3): never the replicas service."""
    if spec.proxy == ROUTER:
        return Endpoint(f"{spec.name}-router", spec.namespace, 6446)  # read-write port
    return Endpoint(f"{spec.name}-{spec.proxy}", spec.namespace, 3306)
