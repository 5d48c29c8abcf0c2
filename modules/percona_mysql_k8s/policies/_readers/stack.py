"""A stack's pods and pools, for the stack policies (K4, K5, B1, S5).

Every resource that declares pods becomes one or more :class:`PodGroup` (a database cluster one per pod
type: mysqld, each enabled proxy, the orchestrator, and with backups on the backup Job of each scheduled
storage and the PITR collector / binlog server; the pmm chart one; a workload one), with its per-pod
requests, replica count, placement and whether the operators' *required* hostname anti-affinity keeps
its pods one per node. Node pools come from the pool reader. Resources that cannot be read are skipped
here: their resource policies report them.
"""

from __future__ import annotations

from dataclasses import dataclass

from percona_mysql_k8s.core.units import Schema

from .admission import admission
from .backup import backup_section
from .database import DatabaseView, database_view
from .helm import PMM, chart_name, chart_values, is_helm
from .operator_pods import pod_models
from .placement import Placement, read_placement
from .pools import NodePool, pool_views
from .resources import read_resources
from .values import MISSING, Malformed, NotKnown, as_int, as_map, at
from .workloads import LOAD_GENERATOR, PMM_SERVER, Workload, workload_view

DATABASE, PMM_ROLE, DAEMONSET, BACKUP = "database", PMM_SERVER, "DaemonSet", "backup"
HOSTNAME = "kubernetes.io/hostname"


@dataclass(frozen=True)
class PodGroup:
    urn: str
    label: str  # "PerconaXtraDBCluster shop: pxc pods"
    role: str  # database | PMM server | load generator | workload | DaemonSet
    replicas: int
    cpu: int  # per pod, millicores
    memory: int  # per pod, bytes
    placement: Placement
    one_per_node: bool


def _database_groups(resource, view: DatabaseView) -> list[PodGroup]:
    """One group per pod type, as the operator renders it (operator_pods): what the scheduler reserves for one pod
    (its containers, or its largest init container), where it may run, and whether it runs one per node."""
    groups = []
    for model in pod_models(view):
        component = model.component
        cpu = memory = 0
        for container in model.containers:
            resources = read_resources(container.raw, container.path)
            cpu += resources.scheduled_cpu
            memory += resources.scheduled_memory
        for container in model.init_containers:
            resources = read_resources(container.raw, container.path)
            cpu, memory = max(cpu, resources.scheduled_cpu), max(memory, resources.scheduled_memory)
        size = view.size(component.rel)
        if size is None:
            size = 3 if view.chart else 0
        groups.append(
            PodGroup(
                resource.urn,
                f"{resource.label}: {component.key} pods",
                DATABASE,
                size,
                cpu,
                memory,
                model.placement,
                model.one_per_node,
            )
        )
    return groups


def _backup_group(resource, label: str, raw: dict, path: str, resources_rel: str = "resources") -> PodGroup:
    resources = read_resources(raw.get(resources_rel, MISSING), f"{path}.{resources_rel}")
    placement = read_placement(
        raw.get("nodeSelector", MISSING), raw.get("tolerations", MISSING), raw.get("affinity", MISSING), path
    )
    return PodGroup(
        resource.urn,
        f"{resource.label}: {label}",
        BACKUP,
        1,
        resources.scheduled_cpu,
        resources.scheduled_memory,
        placement,
        False,
    )


def _backup_groups(resource, view: DatabaseView) -> list[PodGroup]:
    """The pods backups add (M3, K5): a backup Job per storage a schedule writes to, placed and sized by that
    storage (PXC pkg/pxc/backup/job.go; PS pkg/xtrabackup/xtrabackup.go), and the PITR collector: PXC's
    Deployment sized by ``pitr.resources`` and placed by its storage (binlog-collector.go), PS's binlog server
    by its own ``binlogServer`` block (pkg/binlogserver). The PS xtrabackup sidecar is in the mysqld pod."""
    section = backup_section(view)
    if section.off:
        return []
    backup = as_map(view.get("backup"), section.path)
    storages = as_map(backup.get("storages", MISSING), f"{section.path}.storages")
    groups = []
    for name in sorted({schedule.storage_name for schedule in section.schedules} & set(storages)):
        groups.append(
            _backup_group(
                resource,
                f"backup Job ({name})",
                as_map(storages[name], f"{section.path}.storages.{name}"),
                f"{section.path}.storages.{name}",
            )
        )
    if section.pitr_enabled and section.pitr_problem is None:
        pitr = as_map(backup.get("pitr", MISSING), section.pitr_path)
        if view.operator == "pxc":
            storage = as_map(storages[section.pitr_storage.name], section.pitr_storage.path)
            placed = {**storage, "resources": pitr.get("resources", MISSING)}
            groups.append(_backup_group(resource, "PITR collector", placed, section.pitr_path))
        else:
            server_path = f"{section.pitr_path}.binlogServer"
            server = as_map(pitr.get("binlogServer", MISSING), server_path)
            # the operator's affinity wrapper, as for its other pods: only ``advanced`` is a Kubernetes affinity
            advanced = as_map(server.get("affinity", MISSING), f"{server_path}.affinity").get("advanced", MISSING)
            groups.append(_backup_group(resource, "binlog server", {**server, "affinity": advanced}, server_path))
    return groups


def _workload_group(resource, workload: Workload) -> PodGroup:
    cpu, memory = workload.pod_request()
    affinity = as_map(workload.spec.get("affinity", MISSING), f"{workload.path}.affinity")
    anti = as_map(affinity.get("podAntiAffinity", MISSING), f"{workload.path}.affinity.podAntiAffinity")
    required = anti.get("requiredDuringSchedulingIgnoredDuringExecution")
    one_per_node = isinstance(required, list) and any(isinstance(t, dict) and t.get("topologyKey") == HOSTNAME for t in required)
    role = DAEMONSET if workload.daemonset else workload.role()
    return PodGroup(
        resource.urn, f"{workload.kind} {workload.name}", role, workload.replicas, cpu, memory, workload.placement(), one_per_node
    )


def _pmm_group(resource, values: dict) -> PodGroup:
    resources = read_resources(at(values, "pmmResources"), "values.pmmResources", Schema.BUILTIN)  # a StatefulSet
    placement = read_placement(at(values, "nodeSelector"), at(values, "tolerations"), at(values, "affinity"), "values")
    return PodGroup(
        resource.urn,
        f"{resource.label}: PMM server",
        PMM_ROLE,
        1,
        resources.scheduled_cpu,
        resources.scheduled_memory,
        placement,
        False,
    )


@dataclass
class StackView:
    groups: list[PodGroup]
    pools: list[tuple[object, NodePool]]
    databases: list[tuple[object, DatabaseView]]
    pmm_servers: list[tuple[object, str | None]]  # (resource, image tag or chart version)


def read_stack(resources) -> StackView:
    view = StackView([], [], [], [])
    for resource in resources:
        try:
            answer = admission(resource.type, resource.props)
            if answer is not None and answer.refused:  # no pods: the API server refuses it (C1 reports it)
                continue
            props = answer.stored if answer is not None else resource.props
            database = database_view(resource.type, props, resource.name)
            if database is not None:
                view.databases.append((resource, database))
                view.groups.extend(_database_groups(resource, database))
                try:
                    view.groups.extend(_backup_groups(resource, database))
                except (Malformed, NotKnown):  # the backup policies report an unreadable backup section
                    pass
                continue
            pools = pool_views(resource.type, resource.props, resource.name)
            if pools:
                view.pools.extend((resource, pool) for pool in pools)
                continue
            if is_helm(resource.type) and chart_name(resource.props) == PMM:
                values = chart_values(resource.props, PMM)
                view.groups.append(_pmm_group(resource, values))
                tag = at(values, "image.tag")
                view.pmm_servers.append((resource, str(tag) if tag is not MISSING else None))
                continue
            workload = workload_view(resource.type, resource.props, resource.name)
            if workload is not None:
                group = _workload_group(resource, workload)
                view.groups.append(group)
                if group.role == PMM_SERVER:
                    image = next(i for i in workload.images() if "pmm-server" in i)
                    view.pmm_servers.append((resource, image.rpartition(":")[2] if ":" in image else None))
        except (Malformed, NotKnown, Exception):  # noqa: BLE001 - unreadable resources are their resource policies' to report
            continue
    return view


def can_run_on(group: PodGroup, pool: NodePool) -> bool:
    """As kube-scheduler decides it: labels (the pool's own and the provider's) and taints."""
    return group.placement.can_land_on(pool.nodes)


def candidates(group: PodGroup, pools) -> list[NodePool]:
    return [pool for _, pool in pools if can_run_on(group, pool)]


def database_pools(stack: StackView, labels: dict[str, str], taint) -> list[NodePool]:
    """The database pool(s): where the stack's database pods can land (K4, K5, B1).

    A stack that declares no database pods, or whose database pods land on none of its pools (they go
    to a pool declared elsewhere), falls back to the configured labels or taint (``database_pool_labels``,
    ``database_pool_taint``)."""
    found: list[NodePool] = []
    for group in stack.groups:
        if group.role == DATABASE and group.replicas > 0:
            found += [pool for pool in candidates(group, stack.pools) if all(pool is not other for other in found)]
    if found:
        return found
    return [pool for _, pool in stack.pools if pool.nodes.carries(labels) or pool.nodes.carries_taint(taint.as_k8s())]


def on_database_pools(stack: StackView, labels: dict[str, str], taint, picked) -> list[tuple[PodGroup, str]]:
    """The groups ``picked`` chooses that can land on the database pool(s) (``database_pools``), each with those
    pools' names: what K4 (every other workload) and B1 (load generators) refuse."""
    groups = [group for group in stack.groups if picked(group)]
    database = database_pools(stack, labels, taint) if groups else []
    found = []
    for group in groups:
        inside = [pool.name for pool in candidates(group, stack.pools) if any(pool is other for other in database)]
        if inside:
            found.append((group, ", ".join(inside)))
    return found


__all__ = [
    "DATABASE",
    "DAEMONSET",
    "LOAD_GENERATOR",
    "PMM_ROLE",
    "PodGroup",
    "StackView",
    "as_int",
    "can_run_on",
    "candidates",
    "database_pools",
    "on_database_pools",
    "read_stack",
]
