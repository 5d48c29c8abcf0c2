"""The existing target's plan: a cluster made elsewhere, its two pools selected by node labels (and the
database pool's taint), sized from its Nodes as the kubelet reports them (``existingNodeSource=cluster``, read
at preview/up through :mod:`percona_mysql_k8s.plan.clusters.inventory`) or from config, offline (``config``)."""

from __future__ import annotations

import os
from dataclasses import dataclass, replace

from percona_mysql_k8s.core.allocatable import DEFAULT_MAX_PODS, NodeBudget, reported_node_budget
from percona_mysql_k8s.core.bounds import MAX_MACHINE_CPU_MILLICORES
from percona_mysql_k8s.core.errors import InputError
from percona_mysql_k8s.core.names import label_value_problem
from percona_mysql_k8s.core.node_inventory import ObservedNode, ObservedPool, observe_all, select_pool
from percona_mysql_k8s.core.pools import DATABASE_POOL, MONITORING_POOL, POOL_LABEL, PoolShape, Taint
from percona_mysql_k8s.core.scheduling import ZONE_LABEL
from percona_mysql_k8s.core.units import cpu_to_millicores, format_cpu, format_memory, memory_to_bytes
from percona_mysql_k8s.core.zones import ZoneLayout, even_layout, layout_of

from .common import catalog_budget, check_node_count, no_machine_has_more, pool_pair, quantity
from .inventory import ClusterReader
from .keys import Values, parse_labels, parse_taint
from .shape import ClusterSettings, ExistingSettings

EXISTING_NODE_SOURCES = ("cluster", "config")


@dataclass(frozen=True)
class _Selection:
    """How the two pools are told apart: node labels (and the database pool's taint)."""

    database_labels: dict[str, str]
    monitoring_labels: dict[str, str]
    taints: tuple[Taint, ...]
    taint_text: str


@dataclass(frozen=True)
class _Sized:
    """What the Nodes (or the config) say of the pools."""

    counts: tuple[int, int]
    budgets: tuple[NodeBudget, NodeBudget]
    monitoring_taints: tuple[Taint, ...]
    notes: tuple[str, ...]
    zones: ZoneLayout | None = None  # the database nodes per zone (K7)
    zones_key: str = ""


def cluster_settings(
    v: Values, common: dict, database_count: int, monitoring_count: int, daemonset: tuple[int, int], read: ClusterReader
) -> ClusterSettings:
    selection = _selection(v)
    existing = _existing_settings(v)
    source = v.text("existingNodeSource").lower()
    if source not in EXISTING_NODE_SOURCES:
        raise InputError(
            "existingNodeSource",
            f"{source!r} is not one of {', '.join(EXISTING_NODE_SOURCES)}: 'cluster' "
            "reads the pools' Nodes at preview/up, 'config' plans offline from config",
            rule="K1",
        )
    zones = v.strings("existingNodeZones")
    if source == "cluster" and zones:
        raise InputError(
            "existingNodeZones", "is for existingNodeSource config: with cluster the Nodes' zone labels are read", rule="K7"
        )
    bad = [zone for zone in zones if label_value_problem(zone)]
    if bad:
        raise InputError("existingNodeZones", f"{', '.join(map(repr, bad))} not zone label values", rule="K7")
    if source == "config":
        check_node_count(database_count, common["cluster_size"])
        sized = _sized_from_config(v, (database_count, monitoring_count), daemonset)
    else:
        sized = _sized_from_cluster(v, selection, read(existing.kubeconfig, existing.context), common["cluster_size"], daemonset)
    database, monitoring = _pools(v, common["cluster_name"], selection, sized)
    notes = sized.notes
    if not selection.taints:
        notes += ("databasePoolTaint is empty: other pods may be scheduled on the database nodes (K4 asks for a taint)",)
    return ClusterSettings(**common, database_pool=database, monitoring_pool=monitoring, existing=existing, notes=notes)


def _selection(v: Values) -> _Selection:
    database_labels = _pool_labels(
        v, "databasePoolLabels", DATABASE_POOL, "without them database pods cannot be placed on the pool"
    )
    monitoring_labels = _pool_labels(
        v, "monitoringPoolLabels", MONITORING_POOL, "the PMM server and sysbench run only there (K4, B1)"
    )
    if monitoring_labels == database_labels:
        raise InputError(
            "monitoringPoolLabels", "the monitoring pool must not be selected by the database pool's labels", rule="K4"
        )
    taint_text = v.text("databasePoolTaint")
    taints = (parse_taint(taint_text, "databasePoolTaint"),) if taint_text else ()
    return _Selection(database_labels, monitoring_labels, taints, taint_text)


def _pool_labels(v: Values, key: str, pool: str, why: str) -> dict[str, str]:
    """The node labels that select ``pool`` (K4), required: the pods cannot be placed without them. ``pool``
    ("database", "monitoring") is also the POOL_LABEL value our own clusters give the pool: the example."""
    labels = parse_labels(v.text(key), key)
    if not labels:
        raise InputError(
            key, f"the existing target needs the node labels of its {pool} pool (e.g. {POOL_LABEL}={pool}): {why}", rule="K4"
        )
    return labels


def _existing_settings(v: Values) -> ExistingSettings:
    kubeconfig = v.text("kubeconfig")
    if kubeconfig:
        kubeconfig = os.path.abspath(os.path.expanduser(kubeconfig))
        if not os.path.isfile(kubeconfig):
            raise InputError("kubeconfig", f"{kubeconfig} does not exist (leave it empty to use $KUBECONFIG or ~/.kube/config)")
    return ExistingSettings(kubeconfig, v.text("kubeContext"))


def _sized_from_config(v: Values, counts: tuple[int, int], daemonset: tuple[int, int]) -> _Sized:
    database_type, monitoring_type = v.text("databaseNodeType"), v.text("monitoringNodeType")
    database_budget = (
        catalog_budget(database_type, "databaseNodeType", daemonset) if database_type else _configured_budget(v, daemonset)
    )
    monitoring_budget = catalog_budget(monitoring_type, "monitoringNodeType", daemonset) if monitoring_type else database_budget
    notes = (
        "existingNodeSource=config: sized from config, not from the cluster's Nodes; the plan holds only if the "
        "cluster's database nodes match it (K1, K5)",
    )
    zones = v.strings("existingNodeZones")  # the Nodes' topology.kubernetes.io/zone, as the user lists them
    layout = even_layout(counts[0], len(zones))
    return _Sized(counts, (database_budget, monitoring_budget), (), notes, layout, "existingNodeZones")


def _sized_from_cluster(v: Values, selection: _Selection, read: tuple, cluster_size: int, daemonset: tuple[int, int]) -> _Sized:
    observed = observe_all(*read)
    taints = selection.taints
    database_nodes = select_pool(
        observed,
        selection.database_labels,
        [taint.as_toleration() for taint in taints],
        key="databasePoolTaint" if taints else "databasePoolLabels",
    )
    monitoring_nodes, monitoring_taints = _monitoring_nodes(observed, selection.monitoring_labels)
    _check_disjoint(database_nodes, monitoring_nodes)
    database_count = _observed_count(v, database_nodes, cluster_size, selection.database_labels)
    database_budget = _observed_budget(v, database_nodes, daemonset, v.text("databaseNodeType"))
    monitoring_budget = _observed_budget(v, monitoring_nodes, daemonset, v.text("monitoringNodeType"), monitoring=True)
    notes = (
        f"existing cluster: database pool read from the cluster: {database_nodes.describe()}",
        f"existing cluster: monitoring pool read from the cluster: {monitoring_nodes.describe()}",
    )
    notes += tuple(
        f"node {node.name} carries the pool's labels but is {node.why_not_schedulable}: not counted"
        for node in database_nodes.skipped + monitoring_nodes.skipped
    )
    if taints and not all(taints[0].as_k8s() in node.taints for node in database_nodes.nodes):
        notes += (f"databasePoolTaint {selection.taint_text} is not on every database node: other pods may land there (K4)",)
    layout = layout_of([node.labels.get(ZONE_LABEL) for node in database_nodes.nodes])  # as kube-scheduler reads them
    notes += (f"existing cluster: database nodes over {layout.describe()}",)
    return _Sized(
        (database_count, monitoring_nodes.count),
        (database_budget, monitoring_budget),
        monitoring_taints,
        notes,
        layout,
        "databasePoolLabels",
    )


def _pools(v: Values, cluster_name: str, selection: _Selection, sized: _Sized) -> tuple[PoolShape, PoolShape]:
    """The two pools; the monitoring pool's pods must not be able to land on the database pool (K4)."""
    database_type, monitoring_type = v.text("databaseNodeType"), v.text("monitoringNodeType")
    database_labels, monitoring_labels = selection.database_labels, selection.monitoring_labels
    database, monitoring = pool_pair(
        cluster_name,
        (database_labels, monitoring_labels),
        sized.counts,
        sized.budgets,
        (selection.taints, sized.monitoring_taints),
        (database_type or None, monitoring_type or database_type or None),
    )
    database = replace(database, zones=sized.zones, zones_key=sized.zones_key)
    if monitoring.placement().can_land_on(database.nodes()):
        raise InputError(
            "monitoringPoolLabels",
            f"pods selecting {','.join(f'{k}={v}' for k, v in monitoring_labels.items())} can land on the database pool "
            f"(its labels {','.join(f'{k}={v}' for k, v in database_labels.items())} include them and no databasePoolTaint "
            "keeps them off): the PMM server and sysbench would run beside mysqld; give the monitoring pool a label of its own "
            "or taint the database pool",
            rule="K4",
        )
    return database, monitoring


def _monitoring_nodes(observed: tuple[ObservedNode, ...], labels: dict[str, str]) -> tuple[ObservedPool, tuple[Taint, ...]]:
    """The monitoring pool and the taints all its nodes carry: its pods tolerate exactly those."""
    candidates = select_pool(observed, labels, [{"operator": "Exists"}], key="monitoringPoolLabels")
    taints = tuple(
        Taint(str(t.get("key")), str(t.get("value") or ""), str(t.get("effect"))) for t in candidates.common_blocking_taints()
    )
    pool = select_pool(observed, labels, [taint.as_toleration() for taint in taints], key="monitoringPoolLabels")
    return pool, taints


def _check_disjoint(database: ObservedPool, monitoring: ObservedPool) -> None:
    shared = sorted({node.name for node in database.nodes} & {node.name for node in monitoring.nodes})
    if shared:
        raise InputError(
            "monitoringPoolLabels",
            f"node(s) {', '.join(shared)} carry both pools' labels: PMM and sysbench would run beside mysqld",
            rule="K4",
        )


def _observed_count(v: Values, pool: ObservedPool, cluster_size: int, labels: dict[str, str]) -> int:
    wanted = ",".join(f"{k}={val}" for k, val in labels.items())
    if pool.count < cluster_size:
        raise InputError(
            "clusterSize",
            f"{cluster_size} members need {cluster_size} database nodes (one member per node, "
            f"required anti-affinity); the cluster has {pool.count} schedulable node(s) "
            f"carrying {wanted}",
            rule="K5",
        )
    if v.explicit("databaseNodeCount") and v.integer("databaseNodeCount", 1) > pool.count:
        raise InputError(
            "databaseNodeCount",
            f"{v.integer('databaseNodeCount', 1)} database nodes configured, but the "
            f"cluster has {pool.count} schedulable node(s) carrying {wanted}",
            rule="K5",
        )
    return pool.count


def _observed_budget(
    v: Values, pool: ObservedPool, daemonset: tuple[int, int], machine_type: str, monitoring: bool = False
) -> NodeBudget:
    """The smallest node of ``pool`` as a K1 budget; configured values may only be smaller (they are checked)."""
    cpu_node, memory_node = pool.smallest_cpu(), pool.smallest_memory()
    # A configured DaemonSet reserve is a floor: it may cover DaemonSets not installed yet.
    daemonset_cpu = max(cpu_node.daemonset_cpu_millicores, daemonset[0] or 0)
    daemonset_memory = max(memory_node.daemonset_memory_bytes, daemonset[1] or 0)
    observed = reported_node_budget(
        cpu_node.allocatable_cpu_millicores,
        memory_node.allocatable_memory_bytes,
        daemonset_cpu,
        daemonset_memory,
        min(node.allocatable_pods for node in pool.nodes) or DEFAULT_MAX_PODS,
        f"existing cluster: allocatable of node {cpu_node.name} (CPU) and {memory_node.name} (memory), the smallest "
        "of the pool as the kubelet reports them, minus the requests of their DaemonSet pods",
    )
    if observed.usable_cpu_millicores <= 0 or observed.usable_memory_bytes <= 0:
        raise InputError(
            "daemonsetCpu" if observed.usable_cpu_millicores <= 0 else "daemonsetMemory",
            f"DaemonSets leave nothing of node {memory_node.name}'s allocatable",
            rule="K1",
        )
    key = "monitoringNodeType" if monitoring else "databaseNodeType"
    if machine_type:
        claimed = catalog_budget(machine_type, key, daemonset)
        _no_larger(key, claimed, observed, pool)
        return claimed
    if not monitoring and (v.text("existingNodeCpu") or v.text("existingNodeMemory")):
        claimed = _configured_budget(v, daemonset)
        _no_larger(
            "existingNodeMemory" if claimed.capacity_memory_bytes > observed.capacity_memory_bytes else "existingNodeCpu",
            claimed,
            observed,
            pool,
        )
        return claimed
    return observed


def _no_larger(key: str, claimed: NodeBudget, observed: NodeBudget, pool: ObservedPool) -> None:
    """Config may plan for less than the cluster has, never for more (the pods would stay Pending)."""
    if claimed.usable_cpu_millicores > observed.usable_cpu_millicores:
        raise InputError(
            key,
            f"plans {format_cpu(claimed.usable_cpu_millicores)} CPU per node but the cluster's smallest "
            f"node offers {format_cpu(observed.usable_cpu_millicores)} after DaemonSets ({pool.describe()})",
            rule="K5",
        )
    if claimed.usable_memory_bytes > observed.usable_memory_bytes:
        raise InputError(
            key,
            f"plans {format_memory(claimed.usable_memory_bytes)} per node but the cluster's smallest node "
            f"offers {format_memory(observed.usable_memory_bytes)} after DaemonSets ({pool.describe()})",
            rule="K5",
        )


def _configured_budget(v: Values, daemonset: tuple[int | None, int | None]) -> NodeBudget:
    """A node budget from allocatable as ``kubectl describe node`` reports it (existingNodeCpu/Memory).

    An existing cluster's DaemonSets are unknown when planning offline: unset requests count as 0 (declare them).
    """
    daemonset = (daemonset[0] or 0, daemonset[1] or 0)
    hint = "set databaseNodeType (a catalog machine) or existingNodeCpu and existingNodeMemory (one database node's allocatable)"
    if not v.text("existingNodeCpu"):
        raise InputError("existingNodeCpu", f"the existing target cannot size against an unknown node: {hint}", rule="K1")
    if not v.text("existingNodeMemory"):
        raise InputError("existingNodeMemory", f"the existing target cannot size against an unknown node: {hint}", rule="K1")
    cpu = quantity(v, "existingNodeCpu", cpu_to_millicores)
    memory = quantity(v, "existingNodeMemory", memory_to_bytes)
    if cpu <= 0:
        raise InputError("existingNodeCpu", "allocatable CPU must be positive", rule="K1")
    if memory <= 0:
        raise InputError("existingNodeMemory", "allocatable memory must be positive", rule="K1")
    if cpu > MAX_MACHINE_CPU_MILLICORES:
        raise InputError(
            "existingNodeCpu", f"{format_cpu(cpu)} is more CPU than any node has (8192 CPUs, Linux's most)", rule="K1"
        )
    no_machine_has_more(memory, "existingNodeMemory", v.text("existingNodeMemory"))
    if daemonset[0] > cpu:
        raise InputError("daemonsetCpu", f"{daemonset[0]}m exceeds the {cpu}m allocatable of existingNodeCpu", rule="K1")
    if daemonset[1] > memory:
        raise InputError(
            "daemonsetMemory", f"{daemonset[1]} bytes exceed the {memory} bytes allocatable of existingNodeMemory", rule="K1"
        )
    return reported_node_budget(
        cpu,
        memory,
        *daemonset,
        DEFAULT_MAX_PODS,
        "existing cluster: allocatable from existingNodeCpu/existingNodeMemory as the kubelet reports it "
        "(reserves and eviction threshold already subtracted)",
    )
