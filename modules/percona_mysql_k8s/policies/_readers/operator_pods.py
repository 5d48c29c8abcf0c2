"""The pods an operator renders from a database custom resource, as the pack models them (K2-K5, M3).

For each pod type the operator runs (``DatabaseView.pods``): its containers (``DatabaseView.containers``), its init
containers, the QoS class the API server gives the pod (percona_mysql_k8s.core.qos), and where it may run: the
``nodeSelector`` and ``tolerations`` the operator copies, and the ``affinity`` it writes, either the user's
``affinity.advanced`` verbatim or a required pod anti-affinity over the pod's own labels on the topology key the
operator settles on. Read from the operators' source (PXC 1.20.0 at b3b0b10a7, PS v1.2.0), cited per decision, and
compared field by field with what the real operators render (tests/operators/test_operator_differential.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from percona_mysql_k8s.core.memory import GROUP_REPLICATION, PXC
from percona_mysql_k8s.core.qos import ContainerAmounts, pod_qos_class
from percona_mysql_k8s.core.sidecars import HAPROXY, LOG_COLLECTOR_CONTAINERS, PROXYSQL, proxy_has_pmm, proxy_monitor_containers

from .database import Component, Container, DatabaseView
from .deferred import Pending, deferred
from .placement import Placement, read_placement
from .values import MISSING, NotKnown, as_list, as_map, as_str, join

# crVersion absent: the operators take their own version (PXC pkg/apis/pxc/v1 ``setVersion``; PS ``CompareVersion``
# against its version.txt). The versions the pack models.
OPERATOR_VERSIONS = {"pxc": (1, 20, 0), "ps": (1, 2, 0)}
# PXC pkg/apis/pxc/v1/pxc_types.go CheckNSetDefaults: from crVersion 1.14.0 an unset initContainer.resources is
# ``limits: {memory: 50M, cpu: 50m}`` (the API server then defaults the requests to them).
PXC_INIT_DEFAULT = {"limits": {"memory": "50M", "cpu": "50m"}}
HOSTNAME = "kubernetes.io/hostname"
# The topology keys the operators accept for their generated anti-affinity; any other is replaced by the hostname
# (PXC pxc_types.go / PS perconaservermysql_types.go ``affinityValidTopologyKeys``, ``reconcileAffinityOpts``).
VALID_TOPOLOGY_KEYS = {
    "pxc": frozenset(
        {
            "none",
            HOSTNAME,
            "failure-domain.beta.kubernetes.io/zone",
            "failure-domain.beta.kubernetes.io/region",
            "topology.kubernetes.io/zone",
            "topology.kubernetes.io/region",
        }
    ),
    "ps": frozenset({"none", HOSTNAME, "topology.kubernetes.io/zone", "topology.kubernetes.io/region"}),
}


def _container(view: DatabaseView, component: Component, name: str, role: str, rel: str) -> Container:
    return Container(component.key, name, role, view.path(rel), deferred(lambda: view.get(rel)))


def _add(result: list[Container], present, view: DatabaseView, component: Component, name: str, role: str, rel: str) -> None:
    """The container when ``present``: a bool, or Pending when that is unknown at preview (then the container is
    kept with that Pending as its ``raw``: judging its budget names the field that decides whether it runs)."""
    if isinstance(present, Pending):
        result.append(Container(component.key, name, role, view.path(rel), present))
    elif present:
        result.append(_container(view, component, name, role, rel))


def _mysqld_pod(view: DatabaseView, component: Component) -> list[Container]:
    """mysqld and its sidecars (PXC pkg/pxc/statefulset.go StatefulSet: pmm-client, logs and logrotate on
    ``logcollector.resources`` (node.go LogCollectorContainer); PS pkg/mysql/mysql.go containers: xtrabackup while
    backups are on, pt-heartbeat on async with the orchestrator and a toolkit, pmm-client)."""
    result = [view.mysqld_container()]
    logcollector = deferred(view.logcollector_enabled)
    for name in LOG_COLLECTOR_CONTAINERS:
        _add(result, logcollector, view, component, name, "sidecar", "logcollector.resources")
    _add(result, deferred(view.backup_sidecar), view, component, "xtrabackup", "sidecar", "backup.resources")
    _add(result, deferred(view.toolkit), view, component, "pt-heartbeat", "sidecar", "toolkit.resources")
    _add(result, deferred(view.pmm_enabled), view, component, "pmm-client", "sidecar", "pmm.resources")
    return result


def _proxy_pod(view: DatabaseView, component: Component) -> list[Container]:
    """The proxy, its monitor sidecars and pmm-client (core.sidecars.proxy_monitor_containers). The monitors' budget:
    PXC ``sidecarResources`` (haproxy.go / proxysql.go SidecarContainers); PS a map keyed by container name, or
    HAProxy's own resources below crVersion 1.2.0 (DatabaseView.monit_inherits_haproxy). What decides a monitor
    (the ProxySQL scheduler, PS's crVersion) unknown at preview: the monitor is kept, its budget named as unknown."""
    rel = f"{component.rel}.resources"
    result = [_container(view, component, component.key, "proxy", rel)]
    engine = PXC if view.operator == "pxc" else GROUP_REPLICATION
    scheduler = False
    if view.operator == "pxc" and component.key == PROXYSQL:
        scheduler = deferred(lambda: view.flag("proxysql.scheduler.enabled"))
    monitors = proxy_monitor_containers(component.key, engine, proxysql_scheduler=scheduler is True)
    without_scheduler = set(proxy_monitor_containers(component.key, engine, proxysql_scheduler=True))
    inherits = deferred(view.monit_inherits_haproxy) if view.operator == "ps" and component.key == HAPROXY else False
    for name in monitors:
        present = scheduler if isinstance(scheduler, Pending) and name not in without_scheduler else True
        if isinstance(inherits, Pending):
            _add(result, inherits, view, component, name, "sidecar", f"{component.rel}.sidecarResources.{name}")
        elif inherits:
            _add(result, present, view, component, name, "sidecar", rel)
        elif view.operator == "ps":
            _add(result, present, view, component, name, "sidecar", f"{component.rel}.sidecarResources.{name}")
        else:
            _add(result, present, view, component, name, "sidecar", f"{component.rel}.sidecarResources")
    if proxy_has_pmm(component.key):
        _add(result, deferred(view.pmm_enabled), view, component, "pmm-client", "sidecar", "pmm.resources")
    return result


def _user_sidecars(view: DatabaseView, component: Component, taken: set[str]) -> list[Container]:
    """``<component>.sidecars`` as the operator appends them: never under the name of one of its own containers
    (PXC pkg/apis/pxc/v1 AddSidecarContainers, "Wrong sidecar container name, it is skipped"; PS pkg/mysql/mysql.go
    appendUniqueContainers, which also skips a second sidecar of one name; PXC keeps both, and the API server then
    refuses the StatefulSet). PS adds them to the mysql pods only (its orchestrator, HAProxy and Router pods take
    none). At preview the list, a sidecar or its name may be unknown: a container whose ``raw`` is Pending, named
    by its index (or ``sidecars``)."""
    if view.operator == "ps" and component.role != "mysqld":
        return []
    rel = f"{component.rel}.sidecars"
    entries = deferred(lambda: as_list(view.get(rel), view.path(rel)))
    if isinstance(entries, Pending):
        return [Container(component.key, "sidecars", "sidecar", view.path(rel), entries)]
    sidecars = []
    for index, sidecar in enumerate(entries):
        path = f"{view.path(rel)}[{index}]"
        sidecar = deferred(lambda sidecar=sidecar, path=path: as_map(sidecar, path))
        if isinstance(sidecar, Pending):
            sidecars.append(Container(component.key, f"sidecar-{index}", "sidecar", join(path, "resources"), sidecar))
            continue
        name = deferred(
            lambda sidecar=sidecar, path=path, index=index: as_str(
                sidecar.get("name", MISSING), join(path, "name"), f"sidecar-{index}"
            )
        )
        if isinstance(name, Pending):  # which name it takes is unknown: judged as its own container
            name = name.error.placeholder() if isinstance(name.error, NotKnown) else f"sidecar-{index}"
        elif name in taken:
            continue
        if view.operator == "ps":
            taken.add(name)
        sidecars.append(Container(component.key, name, "sidecar", join(path, "resources"), sidecar.get("resources", MISSING)))
    return sidecars


def containers(view: DatabaseView, component: Component) -> list[Container]:
    """Every container of one pod type, each with the path of its budget (INTERFACES §2.3, §3.3). NotKnown when
    whether the pod type runs is unknown at preview; a container whose presence is unknown has a Pending ``raw``."""
    if not component.enabled:
        return []
    if component.role == "mysqld":
        result = _mysqld_pod(view, component)
    elif component.role == "proxy":
        result = _proxy_pod(view, component)
    else:  # PS pkg/orchestrator/orchestrator.go containers: the orchestrator and mysql-monit, both on its resources
        rel = f"{component.rel}.resources"
        result = [_container(view, component, component.key, "orchestrator", rel)]
        result.append(_container(view, component, "mysql-monit", "sidecar", rel))
    return result + _user_sidecars(view, component, {container.name for container in result})


def version(view: DatabaseView) -> tuple[int, int, int]:
    return view.cr_version() or OPERATOR_VERSIONS[view.operator]


def _init(view: DatabaseView, component: Component, name: str, rel: str, raw: Any) -> Container:
    return Container(component.key, name, "init", view.path(rel), raw)


def _declared(view: DatabaseView, rel: str) -> Any:
    """The block at ``rel`` (MISSING or None when unset), or a Pending when it is unknown at preview."""
    return deferred(lambda: view.get(rel))


def _is_set(raw: Any) -> bool:
    return isinstance(raw, Pending) or (raw is not MISSING and raw is not None)


def _pxc_init_block(view: DatabaseView, component: Component, name: str, fallback: bool) -> Container:
    """``spec.initContainer.resources``; unset: the 1.14.0+ default, else (``fallback``) the pxc container's own
    (pkg/pxc/app/statefulset/init.go ``EntrypointInitContainer``: ``initResources := cr.Spec.PXC.Resources``)."""
    declared = _declared(view, "initContainer.resources")
    if _is_set(declared):
        return _init(view, component, name, "initContainer.resources", declared)
    if version(view) >= (1, 14, 0):
        return Container(
            component.key,
            name,
            "init",
            f"{view.path('initContainer.resources')} (unset: the operator's default)",
            PXC_INIT_DEFAULT,
        )
    if fallback:
        return _init(view, component, name, "pxc.resources", _declared(view, "pxc.resources"))
    return _init(view, component, name, "initContainer.resources", declared)


def _init_containers(view: DatabaseView, component: Component) -> list[Container]:
    if view.operator == "pxc":
        # node.go InitContainers: pxc-init; haproxy.go / proxysql.go InitContainers: pxc-init from 1.13.0
        # (proxyInitContainers), then haproxy-init / proxysql-init from 1.15.0 with *initContainer.resources
        if component.key == "pxc":
            return [_pxc_init_block(view, component, "pxc-init", fallback=True)]
        result = []
        if version(view) >= (1, 13, 0):
            result.append(_pxc_init_block(view, component, "pxc-init", fallback=True))
        if version(view) >= (1, 15, 0):
            result.append(_pxc_init_block(view, component, f"{component.key}-init", fallback=False))
        return result
    # PS pkg/k8s/init_image.go InitContainer, called by every component with its own resources: the component's
    # initContainer.resources, else the top-level initContainer.resources, else the component's resources
    for rel in (f"{component.rel}.initContainer.resources", "initContainer.resources"):
        declared = _declared(view, rel)
        if _is_set(declared):
            return [_init(view, component, f"{component.key}-init", rel, declared)]
    rel = f"{component.rel}.resources"
    return [_init(view, component, f"{component.key}-init", rel, _declared(view, rel))]


def init_containers(view: DatabaseView, component: Component) -> list[Container]:
    """The init containers of one pod type, each with the ``resources`` block the operator gives it. The crVersion
    that decides them unknown at preview: one init container whose ``raw`` is that Pending."""
    try:
        return _init_containers(view, component)
    except NotKnown as error:
        return [Container(component.key, f"{component.key} init containers", "init", view.path("crVersion"), Pending(error))]


def every_container(view: DatabaseView, component: Component) -> list[Container]:
    """The pod's containers, then its init containers: every container K2 and K3 budget."""
    return containers(view, component) + init_containers(view, component)


def anti_affinity_key(view: DatabaseView, component: Component) -> str | None:
    """The topology key of the required pod anti-affinity the operator generates, None when it writes none.

    ``reconcileAffinityOpts`` (both operators): no affinity or no key: the hostname; a key outside the valid ones:
    the hostname; ``advanced`` set: the user's affinity instead (PodAffinity / GetAffinity return it). The key
    ``none``, compared lower-cased, turns it off; other spellings of it are invalid keys, hence the hostname."""
    affinity = as_map(component.raw.get("affinity", MISSING), view.path(f"{component.rel}.affinity"))
    if affinity.get("advanced") not in (MISSING, None):
        return None
    key = as_str(affinity.get("antiAffinityTopologyKey", MISSING), view.path(f"{component.rel}.affinity.antiAffinityTopologyKey"))
    if key is None or key not in VALID_TOPOLOGY_KEYS[view.operator]:
        key = HOSTNAME
    return None if key.lower() == "none" else key


def advanced_affinity(view: DatabaseView, component: Component) -> Any:
    """``affinity.advanced``: written into the pod verbatim (MISSING when unset)."""
    affinity = as_map(component.raw.get("affinity", MISSING), view.path(f"{component.rel}.affinity"))
    return affinity.get("advanced", MISSING)


def placement(view: DatabaseView, component: Component) -> Placement:
    """nodeSelector and tolerations as the operator copies them, and the advanced affinity's node affinity."""
    return read_placement(
        component.raw.get("nodeSelector", MISSING),
        component.raw.get("tolerations", MISSING),
        advanced_affinity(view, component),
        view.path(component.rel),
        affinity_path=view.path(f"{component.rel}.affinity.advanced"),
    )


def _amounts(container: Container) -> ContainerAmounts:
    resources = container.resources()
    return ContainerAmounts(resources.cpu_request, resources.cpu_limit, resources.memory_request, resources.memory_limit)


@dataclass(frozen=True)
class PodModel:
    """One pod type as the operator renders it."""

    component: Component
    containers: tuple[Container, ...]
    init_containers: tuple[Container, ...]
    placement: Placement
    anti_affinity_key: str | None
    advanced_affinity: Any

    def qos_class(self) -> str:
        return pod_qos_class(_amounts(c) for c in (*self.containers, *self.init_containers))

    @property
    def one_per_node(self) -> bool:
        """A generated anti-affinity keeps the pods on distinct nodes: one per host, zone or region (a node is in
        one zone and one region)."""
        return self.anti_affinity_key is not None


def pod_model(view: DatabaseView, component: Component) -> PodModel:
    return PodModel(
        component,
        tuple(containers(view, component)),
        tuple(init_containers(view, component)),
        placement(view, component),
        anti_affinity_key(view, component),
        advanced_affinity(view, component),
    )


def pod_models(view: DatabaseView) -> list[PodModel]:
    return [pod_model(view, component) for component in view.pods()]
