"""The custom resources, as plain data: every size from the sizing engine, every field the CRDs know.

Pure (no Pulumi): a :class:`DatabaseSpec` (what the user asked for), the database pool's
:class:`~percona_mysql_k8s.core.pools.PoolShape` and a :class:`~percona_mysql_k8s.core.sizing.SizingResult` go in; the
``PerconaXtraDBCluster`` / ``PerconaServerMySQL`` object comes out. The components in this package
register it; the tests validate it against the CRDs' ``openAPIV3Schema`` and the PS CEL rules.

Field names follow INTERFACES.md exactly (the structural schema silently drops a misspelt field,
§7.5): PXC probes are ``readinessProbes``/``livenessProbes``, PS probes ``readinessProbe``/
``livenessProbe``; PS always carries ``unsafeFlags`` (all six), ``proxy.haproxy``, ``proxy.router``,
``orchestrator`` and ``updateStrategy`` because its v1.2.0 CEL rules dereference them unguarded (§4.4).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from percona_mysql_k8s.core.backup import BackupPlan
from percona_mysql_k8s.core.errors import InputError
from percona_mysql_k8s.core.memory import ENGINES, GROUP_REPLICATION, MYSQL_VERSIONS, PXC
from percona_mysql_k8s.core.mycnf import render
from percona_mysql_k8s.core.pools import PoolShape
from percona_mysql_k8s.core.profiles import LOADS
from percona_mysql_k8s.core.scheduling import PodPlacement
from percona_mysql_k8s.core.sidecars import HAPROXY, PROXIES, PROXYSQL, ROUTER, ContainerSize
from percona_mysql_k8s.core.sizing import CLUSTER_SIZES, SizingInput, SizingResult, size
from percona_mysql_k8s.core.units import format_cpu, format_memory, memory_to_bytes

from . import backup_manifests, versions
from .proxy_config import proxy_configuration

CLUSTER_NAME_MAX = 22  # the PXC operator's clusterNameMaxLen (INTERFACES §1); applied to PS as well
HOSTNAME_TOPOLOGY = "kubernetes.io/hostname"
NO_ANTI_AFFINITY = "none"
WAIT_FOR_READY = "jsonpath={.status.state}=ready"  # INTERFACES §7.4; both operators write "ready"
PROXYSQL_VOLUME = "2Gi"
PXC_SECRET_KEYS = ("root", "xtrabackup", "monitor", "proxyadmin", "operator", "replication")
PS_SECRET_KEYS = ("root", "xtrabackup", "monitor", "operator", "replication", "orchestrator", "heartbeat", "clusterset")
PMM_TOKEN_KEY = "pmmservertoken"  # PMM 3 service-account token (INTERFACES §2.8, §3.7; S5)
MANAGED_BY = {"app.kubernetes.io/managed-by": "pulumi", "app.kubernetes.io/part-of": "percona-mysql"}

# A storageSize change resizes the members' PVCs in place: without this flag both operators ignore a new
# volumeSpec size (the StatefulSet's volumeClaimTemplates are immutable). The field is in both CRDs (PXC
# 1.19/1.20, PS 1.2.0; INTERFACES §2.1, §2.7, §3.1); the PS operator's own e2e test pvc-resize sets it. The
# StorageClass must allow expansion too (allowVolumeExpansion: docs/database.md "Growing the volumes").
VOLUME_EXPANSION = {"enableVolumeExpansion": True}

_DNS_LABEL = re.compile(r"^[a-z]([-a-z0-9]*[a-z0-9])?$")
_DNS_1123_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")


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
    labels: Mapping[str, str] = field(default_factory=dict)

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
    if not isinstance(spec.name, str) or not _DNS_LABEL.fullmatch(spec.name) or len(spec.name) > CLUSTER_NAME_MAX:
        raise InputError(
            "dbClusterName",
            f"{spec.name!r} must be a DNS label (lowercase letters, digits, '-', starting with a letter) of at most "
            f"{CLUSTER_NAME_MAX} characters (the PXC operator's limit)",
        )
    if not isinstance(spec.namespace, str) or not _DNS_1123_LABEL.match(spec.namespace) or len(spec.namespace) > 63:
        raise InputError("namespace", f"{spec.namespace!r} is not a valid namespace name")
    if spec.engine not in ENGINES:
        raise InputError("engine", f"must be one of {', '.join(ENGINES)}; got {spec.engine!r}")
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
    for key, value in (("logCollector", spec.log_collector), ("backup", spec.backup), ("pmmEnabled", spec.pmm_enabled),
                       ("ephemeral", spec.ephemeral)):
        _bool(key, value)
    allowed = CLUSTER_SIZES[spec.engine]
    if spec.cluster_size not in allowed:
        if spec.cluster_size < 1 or spec.cluster_size > min(allowed) or not spec.ephemeral:
            hint = " (fewer members only on an ephemeral stack, with the operator's unsafe flag)" if 1 <= spec.cluster_size < min(allowed) else ""
            raise InputError("clusterSize", f"{spec.engine} clusters have {' or '.join(map(str, allowed))} members, got {spec.cluster_size}{hint}", "T1")
    if not isinstance(spec.storage_class, str):
        raise InputError("storageClass", f"must be a string, got {spec.storage_class!r}")
    try:
        volume = memory_to_bytes(spec.storage_size)
    except ValueError as error:
        raise InputError("storageSize", str(error)) from None
    if volume < 1 << 30:
        raise InputError("storageSize", f"{spec.storage_size!r} is below 1Gi; a data volume needs room for data, redo and binary logs")


# --------------------------------------------------------------------------------------------------
# placement and sizing on the database pool


@dataclass(frozen=True)
class Placement:
    """Where the database and proxy pods go: the database pool, one member per node (K4, K5)."""

    node_selector: Mapping[str, str]
    tolerations: tuple[Mapping[str, str], ...]
    anti_affinity_key: str
    members_per_node: int

    def scheduling(self) -> dict[str, Any]:
        scheduling: dict[str, Any] = {"nodeSelector": dict(self.node_selector)}
        if self.tolerations:  # an empty list would be dropped by the API server: a false diff
            scheduling["tolerations"] = [dict(t) for t in self.tolerations]
        scheduling["affinity"] = {"antiAffinityTopologyKey": self.anti_affinity_key}
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
    return Placement(pinned.node_selector, tuple(pinned.tolerations), key, per_node)


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


# --------------------------------------------------------------------------------------------------
# pieces


def resources(container: ContainerSize, cpu_limit: bool = True) -> dict[str, dict[str, str]]:
    """Request = limit (K2, K3; Guaranteed QoS)."""
    amounts = {"cpu": format_cpu(container.cpu_millicores), "memory": format_memory(container.memory_bytes)}
    limits = dict(amounts) if cpu_limit else {"memory": amounts["memory"]}
    return {"requests": dict(amounts), "limits": limits}


def _same(sizing: SizingResult, names: tuple[str, ...]) -> ContainerSize:
    """One CR field sizes several containers (logs+logrotate, pxc-monit+proxysql-monit): take the largest."""
    sizes = [sizing.containers[name] for name in names if name in sizing.containers]
    return ContainerSize(max(s.cpu_millicores for s in sizes), max(s.memory_bytes for s in sizes))


def _probes(sizing: SizingResult, component: str, plural: bool) -> dict[str, dict[str, int]]:
    suffix = "Probes" if plural else "Probe"
    found = sizing.probes.get(component, {})
    return {f"{kind}{suffix}": probe.as_dict() for kind, probe in found.items()}


def volume_spec(storage_class: str, storage: str) -> dict[str, Any]:
    claim: dict[str, Any] = {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": storage}}}
    if storage_class:
        claim["storageClassName"] = storage_class
    return {"persistentVolumeClaim": claim}


def metadata(spec: DatabaseSpec) -> dict[str, Any]:
    return {
        "name": spec.name,
        "namespace": spec.namespace,
        "labels": {**MANAGED_BY, **spec.labels},
        # Only the pods-in-order finalizer: PVCs outlive the cluster (S4).
        "finalizers": [spec.release.finalizer],
        "annotations": {"pulumi.com/waitFor": WAIT_FOR_READY},
    }


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


# --------------------------------------------------------------------------------------------------
# PerconaXtraDBCluster


def _pxc_proxy(spec: DatabaseSpec, sizing: SizingResult, place: Placement, proxy: str) -> dict[str, Any]:
    if spec.proxy != proxy:
        return {"enabled": False}
    monitors = ("pxc-monit", "proxysql-monit") if proxy == PROXYSQL else ("pxc-monit",)
    block: dict[str, Any] = {
        "enabled": True,
        "size": spec.proxy_size,
        "image": spec.release.image(spec.mysql_version, proxy),
        "resources": resources(sizing.containers[proxy]),
        "sidecarResources": resources(_same(sizing, monitors)),
        # M6, T5: the proxy's limits from the same number as mysqld's max_connections
        "configuration": proxy_configuration(PXC, proxy, sizing.proxy_limits),
        **place.scheduling(),
        "podDisruptionBudget": {"maxUnavailable": 1},
        "gracePeriod": 30,
        **_probes(sizing, proxy, plural=True),
    }
    if proxy == PROXYSQL:
        block["volumeSpec"] = volume_spec(spec.storage_class, PROXYSQL_VOLUME)
        block["scheduler"] = proxysql_scheduler(sizing)
    return block


def proxysql_scheduler(sizing: SizingResult) -> dict[str, Any]:
    """T5: ProxySQL's per-server backend limit. proxysql-admin inserts the servers with the image's fixed
    MAX_CONNECTIONS=1000 (PXC operator build/proxysql-admin.cnf); with the scheduler on, the operator's
    percona-scheduler-admin inserts them with ``maxConnections`` (PXC operator v1.19.0 pkg/apis/pxc/v1/pxc_types.go
    ``ProxySQLSchedulerSpec``, build/proxysql_scheduler_config.tmpl), so it is the one way to write it."""
    return {"enabled": True, "maxConnections": sizing.proxy_limits.settings["scheduler.maxConnections"]}


def _pmm(spec: DatabaseSpec, sizing: SizingResult, pmm_host: str | None, release: versions.OperatorRelease) -> dict[str, Any]:
    if not spec.pmm_enabled:
        return {"enabled": False}
    if not pmm_host:
        raise InputError("pmmServerHost", "PMM is enabled but no PMM server host is known", "S5")
    return {
        "enabled": True,
        "image": release.image(spec.mysql_version, "pmm-client"),
        "serverHost": pmm_host,
        "resources": resources(sizing.containers["pmm-client"]),
    }


def pxc_spec(spec: DatabaseSpec, sizing: SizingResult, place: Placement, pmm_host: str | None,
             backup: BackupPlan | None = None, backup_placement: PodPlacement | None = None) -> dict[str, Any]:
    release = versions.PXC
    size_unsafe = spec.cluster_size not in CLUSTER_SIZES[PXC]
    body: dict[str, Any] = {
        "crVersion": release.cr_version,
        "secretsName": spec.secret_name,
        "tls": {"enabled": True},  # S2
        "unsafeFlags": {
            "tls": False,
            "pxcSize": size_unsafe,
            "proxySize": spec.proxy_size < 2,
            "backupIfUnhealthy": False,
        },
        "updateStrategy": "SmartUpdate",
        # The version service would rewrite images behind Pulumi's back (INTERFACES §2.11).
        "upgradeOptions": {"apply": "disabled"},
        **VOLUME_EXPANSION,
        "pxc": {
            "size": spec.cluster_size,
            "image": release.image(spec.mysql_version, "mysql"),
            "autoRecovery": True,
            "resources": resources(sizing.containers["mysqld"]),
            "configuration": render(sizing.mysqld, "mysqld"),
            **place.scheduling(),
            "podDisruptionBudget": {"maxUnavailable": 1},
            "gracePeriod": 600,
            **_probes(sizing, "mysqld", plural=True),
            "volumeSpec": volume_spec(spec.storage_class, spec.storage_size),
        },
        "haproxy": _pxc_proxy(spec, sizing, place, HAPROXY),
        "proxysql": _pxc_proxy(spec, sizing, place, PROXYSQL),
        "logcollector": (
            {
                "enabled": True,
                "image": release.image(spec.mysql_version, "logcollector"),
                "resources": resources(_same(sizing, ("logs", "logrotate"))),
            }
            if spec.log_collector_enabled
            else {"enabled": False}
        ),
        "pmm": _pmm(spec, sizing, pmm_host, release),
    }
    if spec.backup:
        # Backups run as separate Jobs on PXC, placed and sized from the storage (backup_manifests).
        body["backup"] = backup_manifests.pxc_backup(spec, backup, backup_placement)
    return body


# --------------------------------------------------------------------------------------------------
# PerconaServerMySQL (group replication)


def _ps_proxy(spec: DatabaseSpec, sizing: SizingResult, place: Placement, proxy: str) -> dict[str, Any]:
    block: dict[str, Any] = {
        "enabled": spec.proxy == proxy,
        "size": spec.proxy_size,
        "image": spec.release.image(spec.mysql_version, proxy),
    }
    if spec.proxy != proxy:
        return block
    block.update({
        "resources": resources(sizing.containers[proxy]),
        # M6, T5: the proxy's limits from the same number as mysqld's max_connections
        "configuration": proxy_configuration(GROUP_REPLICATION, proxy, sizing.proxy_limits),
        **place.scheduling(),
        "podDisruptionBudget": {"maxUnavailable": 1},
        "gracePeriod": 30,
        **_probes(sizing, proxy, plural=False),
    })
    if proxy == HAPROXY:
        block["sidecarResources"] = {"mysql-monit": resources(sizing.containers["mysql-monit"])}
    return block


def ps_spec(spec: DatabaseSpec, sizing: SizingResult, place: Placement, pmm_host: str | None,
            backup: BackupPlan | None = None, backup_placement: PodPlacement | None = None) -> dict[str, Any]:
    release = versions.PS
    size = spec.cluster_size
    body: dict[str, Any] = {
        "crVersion": release.cr_version,
        "secretsName": spec.secret_name,
        "updateStrategy": "SmartUpdate",
        "upgradeOptions": {"apply": "disabled"},
        **VOLUME_EXPANSION,
        # All six, always: the v1.2.0 CEL rules read them without has() guards (INTERFACES §4.4).
        "unsafeFlags": {
            "mysqlSize": size < 3 or size % 2 == 0 or size >= 9,
            "backupNonReadyCluster": False,
            "proxy": False,
            "proxySize": spec.proxy_size < 2,
            "orchestrator": False,
            "orchestratorSize": False,
        },
        "mysql": {
            "clusterType": "group-replication",
            "size": size,
            "image": release.image(spec.mysql_version, "mysql"),
            "autoRecovery": True,
            "resources": resources(sizing.containers["mysqld"]),
            "configuration": render(sizing.mysqld, None),
            **place.scheduling(),
            "podDisruptionBudget": {"maxUnavailable": 1},
            "gracePeriod": 600,
            **_probes(sizing, "mysqld", plural=False),
            "volumeSpec": volume_spec(spec.storage_class, spec.storage_size),
        },
        "proxy": {
            "haproxy": _ps_proxy(spec, sizing, place, HAPROXY),
            "router": _ps_proxy(spec, sizing, place, ROUTER),
        },
        # Unused in group replication, present because the CEL rules dereference it.
        "orchestrator": {"enabled": False, "size": 3, "image": release.image(spec.mysql_version, "orchestrator")},
        "pmm": _pmm(spec, sizing, pmm_host, release),
        "backup": {"enabled": False, "image": release.image(spec.mysql_version, "backup")},
    }
    if spec.backup:
        # The xtrabackup sidecar in every mysqld pod stays in the member budget (M3).
        body["backup"] = backup_manifests.ps_backup(spec, backup, backup_placement, sizing.containers["xtrabackup"])
    return body


def custom_resource(spec: DatabaseSpec, sizing: SizingResult, place: Placement, pmm_host: str | None = None,
                    backup: BackupPlan | None = None, backup_placement: PodPlacement | None = None) -> dict[str, Any]:
    """The whole object: apiVersion, kind, metadata, spec.

    ``backup`` is the plan ``spec.backup`` is written from (R1) and ``backup_placement`` where its Jobs, the PXC
    binlog collector and the PS binlog server run (the monitoring pool's, K5); both are needed when
    ``spec.backup`` is on, and a plan without ``spec.backup`` would be silently dropped, so it is refused too.
    """
    if sizing.input.engine != spec.engine or sizing.input.cluster_size != spec.cluster_size or sizing.input.proxy != spec.proxy:
        raise ValueError("the sizing result was computed for a different cluster than this spec")
    if spec.backup and backup is None:
        raise InputError("backup", "backups are on but no backup plan (storage, schedule, retention) is given", "R1")
    if backup is not None and not spec.backup:
        raise InputError("backup", "a backup plan is given but backups are off", "R1")
    if spec.backup and backup_placement is None:
        raise InputError("backup", "backups are on but no placement is given for the backup pods (the monitoring pool)", "K5")
    build = pxc_spec if spec.engine == PXC else ps_spec
    return {
        "apiVersion": spec.release.api_version,
        "kind": spec.release.kind,
        "metadata": metadata(spec),
        "spec": build(spec, sizing, place, pmm_host, backup, backup_placement),
    }


def sizing_summary(sizing: SizingResult, place: Placement) -> dict[str, Any]:
    """A short, JSON-able account of the sizes (a stack output)."""
    return {
        "memberBudget": {"cpu": format_cpu(sizing.budget_cpu_millicores), "memory": format_memory(sizing.budget_memory_bytes)},
        "membersPerNode": place.members_per_node,
        "containers": {
            name: {"cpu": format_cpu(c.cpu_millicores), "memory": format_memory(c.memory_bytes)}
            for name, c in sizing.containers.items()
        },
        "innodbBufferPoolSize": format_memory(int(sizing.mysqld["innodb_buffer_pool_size"])),
        "maxConnections": sizing.connections,
        "failoverBrownoutSeconds": round(sizing.brownout_seconds, 1) if math.isfinite(sizing.brownout_seconds) else None,
        "notes": list(sizing.notes),
    }
