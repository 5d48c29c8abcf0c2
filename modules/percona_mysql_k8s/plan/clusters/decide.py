"""The cluster plan's entry: the stack config, validated for the chosen target, to a :class:`ClusterSettings`.

Checks run in the order a user reads them: the target, keys set for another target, bounds, then the
cluster's name and size, then the target's own module (:mod:`.gke`, :mod:`.eks`, :mod:`.kind`, :mod:`.existing`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from percona_mysql_k8s.core.errors import InputError
from percona_mysql_k8s.core.units import cpu_to_millicores, memory_to_bytes

from . import eks, existing, gke, inventory, kind
from .common import (
    CLUSTER_NAME,
    DEFAULT_MONITORING_NODE_TYPES,
    MAX_CLUSTER_NAME,
    MIN_DISK_SIZE_GB,
    budget,
    check_node_count,
    check_pool_bounds,
    daemonset_request,
    machine_name,
)
from .inventory import ClusterReader
from .keys import Values, check_target_keys
from .shape import TARGETS, ClusterSettings

_TARGET_BOUNDS = {"gke": gke.check_bounds, "eks": eks.check_bounds, "kind": kind.check_bounds}


def check_bounds(values: Mapping[str, object], target: str) -> None:
    """Ranges and patterns the target paths do not check themselves."""
    v = Values(values)
    if target != "kind":
        check_pool_bounds(v)
    if target in _TARGET_BOUNDS:
        _TARGET_BOUNDS[target](v)


def cluster_settings_from_config(
    values: Mapping[str, object],
    host: Callable[[], tuple[int, int]] | None = None,
    cluster_reader: ClusterReader | None = None,
) -> ClusterSettings:
    """Validate the cluster layer's stack config for the chosen target and decide its pools.

    ``values`` maps Pulumi.yaml key names (``"target"``, ``"gcpZones"``; no project prefix) to decoded
    values; absent keys take Pulumi.yaml's defaults. ``host`` tells a kind cluster the machine it runs on
    (default: :func:`percona_mysql_k8s.plan.clusters.kind.host_resources`, looked up at call time);
    ``cluster_reader`` reads an existing cluster's Nodes and pods (default:
    :func:`percona_mysql_k8s.plan.clusters.inventory.read_cluster`, called only for ``existingNodeSource=cluster``).
    """
    v = Values(values)
    target = v.text("target").lower()
    if target not in TARGETS:
        raise InputError("target", f"{target!r} is not one of {', '.join(TARGETS)}")
    check_target_keys(values, target)
    check_bounds(values, target)
    common = _common(v, target)
    monitoring_count = v.integer(
        "monitoringNodeCount", 1, rule="K4", why=": the PMM server and sysbench need a monitoring node to run on (K4, B1)"
    )
    daemonset = (
        daemonset_request(v, "daemonsetCpu", cpu_to_millicores),
        daemonset_request(v, "daemonsetMemory", memory_to_bytes),
    )

    if target == "kind":
        return kind.cluster_settings(v, common, monitoring_count, daemonset, host or kind.host_resources)
    database_count = v.integer("databaseNodeCount", 1, rule="K5")
    if target == "existing":  # with existingNodeSource=cluster the count is read from the cluster
        return existing.cluster_settings(
            v, common, database_count, monitoring_count, daemonset, cluster_reader or inventory.read_cluster
        )
    check_node_count(database_count, common["cluster_size"])
    machines = _cloud_machines(v, target)
    budgets = (
        budget(machines[0], target, "databaseNodeType", daemonset),
        budget(machines[1], target, "monitoringNodeType", daemonset),
    )
    module = gke if target == "gke" else eks
    return module.cluster_settings(v, common, (database_count, monitoring_count), machines, budgets)


def _common(v: Values, target: str) -> dict:
    """What every target's ClusterSettings carries: name, size, ephemeral, boot disk."""
    name = v.text("clusterName")
    if len(name) > MAX_CLUSTER_NAME or not CLUSTER_NAME.fullmatch(name):
        raise InputError(
            "clusterName",
            f"{name!r} must be 1 to {MAX_CLUSTER_NAME} lowercase letters, digits and hyphens, starting with a letter "
            "(it prefixes node pool names, which GKE and EKS limit in length)",
        )
    ephemeral = v.flag("ephemeral")
    cluster_size = v.integer("clusterSize", 1, rule="T1", why=": a database cluster has at least one member")
    if cluster_size < 3 and not ephemeral:
        raise InputError(
            "clusterSize", f"{cluster_size} members have no quorum; fewer than 3 only with ephemeral: true", rule="T1"
        )
    disk = v.integer("databaseDiskSizeGb", MIN_DISK_SIZE_GB, why=" GB for a node boot disk")
    return {
        "target": target,
        "cluster_name": name,
        "cluster_size": cluster_size,
        "ephemeral": ephemeral,
        "database_disk_size_gb": disk,
        "accept_zone_loss": v.flag("acceptZoneLoss"),
    }


def _cloud_machines(v: Values, target: str) -> tuple[str, str]:
    """The machine types of a cloud cluster's two pools, each of the target's cloud (K1)."""
    database_type = v.text("databaseNodeType")
    if not database_type:
        example = "n2-standard-16" if target == "gke" else "m6i.4xlarge"
        raise InputError(
            "databaseNodeType", f"the {target} target needs the database pool's machine type (e.g. {example})", rule="K1"
        )
    database_type = machine_name(database_type, "databaseNodeType", target)
    monitoring_type = v.text("monitoringNodeType") or DEFAULT_MONITORING_NODE_TYPES[target]
    return database_type, machine_name(monitoring_type, "monitoringNodeType", target)
