"""A stack's pods and pools, for the stack policies (K4, K5, B1, S5).

Every resource that declares pods becomes one or more :class:`PodGroup` (a database cluster one per pod
type: mysqld, each enabled proxy, the orchestrator, and with backups on the backup Job of each scheduled
storage and the PITR collector / binlog server; the pmm chart one; a workload one), with its per-pod
requests, replica count, placement and whether the operators' *required* hostname anti-affinity keeps
its pods one per node. Node pools come from the pool reader. Resources that cannot be read are skipped
here: their resource policies report them. What is unknown at preview is kept apart, per pod group: a group
whose requests, size or role are unknown is listed in ``unknowns`` (with its kind), a placement or a pool with
an unknown part raises NotKnown for the questions that part decides; the stack policies judge the rest and
name what they could not judge (docs/preview-unknowns.md).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from percona_mysql_k8s.core.units import Schema

from .._sdk import per_request
from .admission import admission
from .backup import backup_section
from .database import DatabaseView, database_view
from .deferred import KnownOnRead, Pending, deferred
from .helm import PMM, chart_name, chart_values, is_helm
from .node_pools import NODE, node_pools
from .operator_pods import anti_affinity_key, containers, init_containers
from .operator_pods import placement as pod_placement
from .placement import Placement, read_placement
from .pools import NodePool, pool_views
from .resources import read_resources
from .values import MISSING, Malformed, NotKnown, as_int, as_map, at, known
from .workloads import LOAD_GENERATOR, PMM_SERVER, Workload, workload_view

DATABASE, PMM_ROLE, DAEMONSET, BACKUP = "database", PMM_SERVER, "DaemonSet", "backup"
ANY = "resource"  # a resource whose kind is unknown at preview (a Helm release whose chart is)
HOSTNAME = "kubernetes.io/hostname"


@dataclass(frozen=True, eq=False)  # identity: reading a Pending field raises (values.KnownOnRead)
class PodGroup(KnownOnRead):
    """Pods of one kind. At preview ``replicas``, ``cpu``, ``memory`` or ``one_per_node`` may be Pending (reading
    one raises NotKnown), and the placement may have an unknown part."""

    urn: str
    label: str  # "PerconaXtraDBCluster shop: pxc pods"
    role: str  # database | PMM server | load generator | workload | DaemonSet
    replicas: int
    cpu: int  # per pod, millicores
    memory: int  # per pod, bytes
    placement: Placement
    one_per_node: bool


def _database_groups(resource, view: DatabaseView, unknowns: list) -> list[PodGroup]:
    groups = []
    for component in view.pods():
        try:
            groups.append(_database_group(resource, view, component))
        except NotKnown as error:  # this pod type only
            unknowns.append((resource, DATABASE, error))
    return groups


def _database_group(resource, view: DatabaseView, component) -> PodGroup:
    """One pod type's group, as the operator renders it (operator_pods): what the scheduler reserves for one pod
    (its containers, or its largest init container), where it may run and whether it runs one per node, each
    Pending while unknown at preview."""

    def requests() -> tuple[int, int]:
        cpu = memory = 0
        for container in containers(view, component):
            resources = read_resources(container.raw, container.path)
            cpu += resources.scheduled_cpu
            memory += resources.scheduled_memory
        for container in init_containers(view, component):  # the scheduler reserves the largest of them
            resources = read_resources(container.raw, container.path)
            cpu, memory = max(cpu, resources.scheduled_cpu), max(memory, resources.scheduled_memory)
        return cpu, memory

    def size() -> int:
        found = view.size(component.rel)
        return (3 if view.chart else 0) if found is None else found

    cpu, memory = _pair(deferred(requests))
    one_per_node = deferred(lambda: anti_affinity_key(view, component) is not None)
    placement = pod_placement(view, component)
    label = f"{resource.label}: {component.key} pods"
    return _owned(resource, PodGroup(resource.urn, label, DATABASE, deferred(size), cpu, memory, placement, one_per_node))


def _owned(resource, group: PodGroup) -> PodGroup:
    """``group``, its unknown fields (and placement parts) named as ``resource``'s: a stack policy that reads them
    while judging a pool names the resource they belong to. A malformed field makes the resource unreadable here,
    as before: its resource policies report it."""
    fields = [object.__getattribute__(group, name) for name in ("replicas", "cpu", "memory", "one_per_node")]
    _readable(fields)
    errors = [value.error for value in fields if isinstance(value, Pending)]
    errors += [error for error in (group.placement.unknown_selection, group.placement.unknown_tolerations) if error]
    for error in errors:
        if isinstance(error, NotKnown):
            error.subject = error.subject or resource.label
    return group


def _readable(fields) -> None:
    """Raise the Malformed a field holds (the stack skips what it cannot read); unknown ones stay Pending."""
    for value in fields:
        if isinstance(value, Pending) and isinstance(value.error, Malformed):
            value.raise_error()


def _pair(found):
    """A pair, or the Pending that stands for both of its values."""
    return (found, found) if isinstance(found, Pending) else found


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
    cpu, memory = _pair(deferred(workload.pod_request))

    def spread() -> bool:
        affinity = as_map(workload.spec.get("affinity", MISSING), f"{workload.path}.affinity")
        anti = as_map(affinity.get("podAntiAffinity", MISSING), f"{workload.path}.affinity.podAntiAffinity")
        path = f"{workload.path}.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution"
        required = known(anti.get("requiredDuringSchedulingIgnoredDuringExecution"), path)
        return isinstance(required, list) and any(
            isinstance(term, dict) and known(term.get("topologyKey"), f"{path}[{index}].topologyKey") == HOSTNAME
            for index, term in enumerate(required)
        )

    role = DAEMONSET if workload.daemonset else workload.role()
    label = f"{workload.kind} {partial_name(workload)}"
    replicas = deferred(lambda: workload.replicas)
    return _owned(resource, PodGroup(resource.urn, label, role, replicas, cpu, memory, workload.placement(), deferred(spread)))


def partial_name(workload: Workload) -> str:
    """The workload's name for messages; its placeholder while unknown at preview."""
    found = deferred(lambda: workload.name)
    return found.error.placeholder() if isinstance(found, Pending) and isinstance(found.error, NotKnown) else str(found)


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
    # (resource, what it would have been: DATABASE, "pool", PMM_ROLE, "workload", BACKUP, why) unknown at preview
    unknowns: list[tuple[object, str, NotKnown]] = field(default_factory=list)

    def not_judged(self, ctx, rule: str, kinds: tuple[str, ...]) -> None:
        """``rule`` names every field of ``kinds`` of resources the stack could not read at preview (and of those
        it cannot even tell the kind of: a chart not known yet)."""
        for resource, kind, error in self.unknowns:
            if kind in kinds or kind == ANY:
                ctx.not_judged(rule, error, resource.label)

    def undecided(self, kinds: tuple[str, ...]) -> NotKnown | None:
        return next((error for _, kind, error in self.unknowns if kind in kinds or kind == ANY), None)


def read_stack(resources) -> StackView:
    """The stack as the stack policies read it: once per AnalyzeStack request (they share one list of inputs)."""
    return per_request("stack view", resources, lambda: _read_stack(resources))


def _read_stack(resources) -> StackView:
    view = StackView([], [], [], [])
    cluster_nodes = []
    for resource in resources:
        if resource.type == NODE:  # the cluster's own Nodes: pools once all of them are read (node_pools)
            cluster_nodes.append(resource)
            continue
        kind = ANY if is_helm(resource.type) else DATABASE  # a chart not known yet may be anything
        try:
            answer = admission(resource.type, resource.props)
            if answer is not None and answer.refused:  # no pods: the API server refuses it (C1 reports it)
                continue
            props = answer.stored if answer is not None else resource.props
            database = database_view(resource.type, props, resource.name)
            if database is not None:
                view.databases.append((resource, database))
                view.groups.extend(_database_groups(resource, database, view.unknowns))
                kind = BACKUP
                try:
                    view.groups.extend(_backup_groups(resource, database))
                except Malformed:  # the backup policies report an unreadable backup section
                    pass
                continue
            kind = PMM_ROLE if is_helm(resource.type) else "pool"
            pools = pool_views(resource.type, resource.props, resource.name)
            for pool in pools:
                _readable(object.__getattribute__(pool, name) for name in ("machine_type", "nodes", "max_nodes"))
            if pools:
                view.pools.extend((resource, pool) for pool in pools)
                for pool in pools:  # its labels or taints unknown: where any pod can land is unknown
                    nodes = deferred(lambda pool=pool: pool.nodes)
                    if isinstance(nodes, Pending) and isinstance(nodes.error, NotKnown):
                        view.unknowns.append((resource, "pool", nodes.error))
                continue
            kind = PMM_ROLE
            if is_helm(resource.type) and chart_name(resource.props) == PMM:
                values = chart_values(resource.props, PMM)
                view.groups.append(_pmm_group(resource, values))
                tag = at(values, "image.tag")
                view.pmm_servers.append((resource, str(tag) if tag is not MISSING else None))
                continue
            kind = "workload"
            workload = workload_view(resource.type, resource.props, resource.name)
            if workload is not None:
                group = _workload_group(resource, workload)
                view.groups.append(group)
                if group.role == PMM_SERVER:
                    kind = PMM_ROLE
                    image = next(i for i in workload.images() if "pmm-server" in i)
                    view.pmm_servers.append((resource, image.rpartition(":")[2] if ":" in image else None))
        except NotKnown as error:  # named by the stack policies that would have read it
            view.unknowns.append((resource, kind, error))
        except (Malformed, Exception):  # noqa: BLE001 - unreadable resources are their resource policies' to report
            continue
    view.pools.extend(node_pools((resource, resource.props) for resource in cluster_nodes))  # a pool's findings: its first Node's
    return view


def can_run_on(group: PodGroup, pool: NodePool) -> bool:
    """As kube-scheduler decides it: labels (the pool's own and the provider's) and taints. NotKnown, naming the
    group, when its placement is unknown at preview where it decides."""
    try:
        return group.placement.can_land_on(pool.nodes)
    except NotKnown as error:
        error.subject = error.subject or group.label
        raise


def candidates(group: PodGroup, pools) -> list[NodePool]:
    return [pool for _, pool in pools if can_run_on(group, pool)]


def database_pools(stack: StackView, labels: dict[str, str], taint) -> list[NodePool]:
    """The database pool(s): where the stack's database pods can land (K4, K5, B1).

    A stack that declares no database pods, or whose database pods land on none of its pools (they go
    to a pool declared elsewhere), falls back to the configured labels or taint (``database_pool_labels``,
    ``database_pool_taint``)."""
    undecided = stack.undecided((DATABASE,))  # a database pod unknown at preview may land anywhere
    if undecided is not None:
        raise undecided
    found: list[NodePool] = []
    for group in stack.groups:
        if group.role == DATABASE and group.replicas > 0:
            found += [pool for pool in candidates(group, stack.pools) if all(pool is not other for other in found)]
    if found:
        return found
    return [pool for _, pool in stack.pools if pool.nodes.carries(labels) or pool.nodes.carries_taint(taint.as_k8s())]


def on_database_pools(stack: StackView, labels: dict[str, str], taint, picked) -> list[tuple[PodGroup, str | NotKnown]]:
    """The groups ``picked`` chooses that can land on the database pool(s) (``database_pools``), each with those
    pools' names: what K4 (every other workload) and B1 (load generators) refuse. A group whose placement is
    unknown at preview comes with its NotKnown instead; NotKnown when the database pools themselves are."""
    groups = [group for group in stack.groups if picked(group)]
    database = database_pools(stack, labels, taint) if groups else []
    found: list[tuple[PodGroup, str | NotKnown]] = []
    for group in groups:
        try:
            inside = [pool.name for pool in candidates(group, stack.pools) if any(pool is other for other in database)]
        except NotKnown as error:
            found.append((group, error))
            continue
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
