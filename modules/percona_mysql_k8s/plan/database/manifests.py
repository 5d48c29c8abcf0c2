"""The custom resources, as plain data: every size from the sizing engine, every field the CRDs know.

Pure (no Pulumi): a :class:`DatabaseSpec` (what the user asked for), the database pool's
:class:`~percona_mysql_k8s.core.pools.PoolShape` and a :class:`~percona_mysql_k8s.core.sizing.SizingResult` go in; the
``PerconaXtraDBCluster`` / ``PerconaServerMySQL`` object comes out. The DatabaseCluster component
(percona_mysql_k8s.database.cluster) registers it; the tests validate it against the CRDs' ``openAPIV3Schema`` and the PS CEL rules.

Field names follow INTERFACES.md exactly (the structural schema silently drops a misspelt field,
§7.5): PXC probes are ``readinessProbes``/``livenessProbes``, PS probes ``readinessProbe``/
``livenessProbe``; PS always carries ``unsafeFlags`` (all six), ``proxy.haproxy``, ``proxy.router``,
``orchestrator`` and ``updateStrategy`` because its v1.2.0 CEL rules dereference them unguarded (§4.4).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from percona_mysql_k8s.core.backup import BackupPlan
from percona_mysql_k8s.core.errors import InputError
from percona_mysql_k8s.core.memory import GROUP_REPLICATION, PXC
from percona_mysql_k8s.core.mycnf import render
from percona_mysql_k8s.core.scheduling import PodPlacement
from percona_mysql_k8s.core.sidecars import HAPROXY, PROXYSQL, ROUTER, ContainerSize, proxy_monitor_containers
from percona_mysql_k8s.core.sizing import CLUSTER_SIZES, SizingResult
from percona_mysql_k8s.core.sizing.containers import PROXYSQL_SCHEDULER
from percona_mysql_k8s.core.units import format_cpu, format_memory

from . import backup_manifests, versions
from .pods import resources
from .proxy_config import proxy_configuration
from .spec import AWAIT_READY, AWAIT_RECONCILED, DatabaseSpec, Placement

# The custom resource's pulumi.com/waitFor, per databaseAwait. pulumi-kubernetes reads it as a JSONPath that must
# select a value, equal to the one after "=" when one is given (provider/pkg/metadata/overrides.go ReadyCondition,
# provider/pkg/jsonpath Parsed.Matches). Both operators write status.state (PXC pkg/apis/pxc/v1/pxc_types.go
# AppState: initializing, ready, error, paused, stopping; INTERFACES §7.4), the API server never stores a status
# given at create, so a state is there only once the operator has reconciled the resource.
AWAIT_FOR = {
    AWAIT_READY: "jsonpath={.status.state}=ready",  # every member joined, the proxies up
    AWAIT_RECONCILED: "jsonpath={.status.state}",  # any state: the operator has taken the resource and rendered it
}
PROXYSQL_VOLUME = "2Gi"
MANAGED_BY = {"app.kubernetes.io/managed-by": "pulumi", "app.kubernetes.io/part-of": "percona-mysql"}

# A storageSize change resizes the members' PVCs in place: without this flag both operators ignore a new
# volumeSpec size (the StatefulSet's volumeClaimTemplates are immutable). The field is in both CRDs (PXC
# 1.19/1.20, PS 1.2.0; INTERFACES §2.1, §2.7, §3.1); the PS operator's own e2e test pvc-resize sets it. The
# StorageClass must allow expansion too (allowVolumeExpansion: docs/database.md "Growing the volumes").
VOLUME_EXPANSION = {"enableVolumeExpansion": True}


@dataclass(frozen=True)
class ResourceInputs:
    """What one custom resource is written from, checked together when built (:func:`custom_resource` builds
    it once; :func:`pxc_spec` and :func:`ps_spec` read it).

    ``backup`` is the plan ``spec.backup`` is written from (R1) and ``backup_placement`` where its Jobs, the PXC
    binlog collector and the PS binlog server run (the monitoring pool's, K5); both are needed when
    ``spec.backup`` is on, and a plan without ``spec.backup`` would be silently dropped, so it is refused too.
    """

    spec: DatabaseSpec
    sizing: SizingResult
    place: Placement
    pmm_host: str | None = None
    backup: BackupPlan | None = None
    backup_placement: PodPlacement | None = None

    def __post_init__(self) -> None:
        spec, sized = self.spec, self.sizing.input
        if (sized.engine, sized.cluster_size, sized.proxy) != (spec.engine, spec.cluster_size, spec.proxy):
            raise ValueError("the sizing result was computed for a different cluster than this spec")
        if spec.backup and self.backup is None:
            raise InputError("backup", "backups are on but no backup plan (storage, schedule, retention) is given", "R1")
        if self.backup is not None and not spec.backup:
            raise InputError("backup", "a backup plan is given but backups are off", "R1")
        if spec.backup and self.backup_placement is None:
            raise InputError("backup", "backups are on but no placement is given for the backup pods (the monitoring pool)", "K5")


# --------------------------------------------------------------------------------------------------
# pieces


def _same(sizing: SizingResult, names: tuple[str, ...]) -> ContainerSize:
    """One CR field sizes several containers (logs+logrotate; pxc-monit+proxysql-monit without the ProxySQL
    scheduler): take the largest."""
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
        "annotations": {"pulumi.com/waitFor": AWAIT_FOR[spec.database_await]},
    }


# --------------------------------------------------------------------------------------------------
# PerconaXtraDBCluster


def _pxc_proxy(spec: DatabaseSpec, sizing: SizingResult, place: Placement, proxy: str) -> dict[str, Any]:
    if spec.proxy != proxy:
        return {"enabled": False}
    monitors = proxy_monitor_containers(proxy, PXC, proxysql_scheduler=PROXYSQL_SCHEDULER)
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


def _pmm(inputs: ResourceInputs, release: versions.OperatorRelease) -> dict[str, Any]:
    if not inputs.spec.pmm_enabled:
        return {"enabled": False}
    if not inputs.pmm_host:
        raise InputError("pmmServerHost", "PMM is enabled but no PMM server host is known", "S5")
    return {
        "enabled": True,
        "image": release.image(inputs.spec.mysql_version, "pmm-client"),
        "serverHost": inputs.pmm_host,
        "resources": resources(inputs.sizing.containers["pmm-client"]),
    }


def pxc_spec(inputs: ResourceInputs) -> dict[str, Any]:
    spec, sizing, place = inputs.spec, inputs.sizing, inputs.place
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
        "pmm": _pmm(inputs, release),
    }
    if spec.backup:
        # Backups run as separate Jobs on PXC, placed and sized from the storage (backup_manifests).
        body["backup"] = backup_manifests.pxc_backup(spec, inputs.backup, inputs.backup_placement)
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
    block.update(
        {
            "resources": resources(sizing.containers[proxy]),
            # M6, T5: the proxy's limits from the same number as mysqld's max_connections
            "configuration": proxy_configuration(GROUP_REPLICATION, proxy, sizing.proxy_limits),
            **place.scheduling(),
            "podDisruptionBudget": {"maxUnavailable": 1},
            "gracePeriod": 30,
            **_probes(sizing, proxy, plural=False),
        }
    )
    if proxy == HAPROXY:
        block["sidecarResources"] = {"mysql-monit": resources(sizing.containers["mysql-monit"])}
    return block


def ps_spec(inputs: ResourceInputs) -> dict[str, Any]:
    spec, sizing, place = inputs.spec, inputs.sizing, inputs.place
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
        "pmm": _pmm(inputs, release),
        "backup": {"enabled": False, "image": release.image(spec.mysql_version, "backup")},
    }
    if spec.backup:
        # The xtrabackup sidecar in every mysqld pod stays in the member budget (M3).
        body["backup"] = backup_manifests.ps_backup(spec, inputs.backup, inputs.backup_placement, sizing.containers["xtrabackup"])
    return body


def custom_resource(
    spec: DatabaseSpec,
    sizing: SizingResult,
    place: Placement,
    pmm_host: str | None = None,
    backup: BackupPlan | None = None,
    backup_placement: PodPlacement | None = None,
) -> dict[str, Any]:
    """The whole object: apiVersion, kind, metadata, spec; the arguments are checked together
    (:class:`ResourceInputs`)."""
    inputs = ResourceInputs(spec, sizing, place, pmm_host, backup, backup_placement)
    build = pxc_spec if spec.engine == PXC else ps_spec
    return {
        "apiVersion": spec.release.api_version,
        "kind": spec.release.kind,
        "metadata": metadata(spec),
        "spec": build(inputs),
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
