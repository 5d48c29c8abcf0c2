"""What every target decides alike: the cluster's name and size, the bounds of counts and disks, machine
budgets (K1), the two pools of our own clusters (K4) and one member per database node (K5)."""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Callable, Mapping

from percona_mysql_k8s.core.allocatable import NodeBudget, node_budget
from percona_mysql_k8s.core.bounds import MAX_MACHINE_MEMORY_BYTES
from percona_mysql_k8s.core.errors import InputError
from percona_mysql_k8s.core.machines import MachineType, lookup
from percona_mysql_k8s.core.pools import DATABASE_POOL, DATABASE_TAINT, MONITORING_POOL, POOL_LABEL, PoolShape, Taint
from percona_mysql_k8s.core.rules import MAX_POOL_NODES

from .keys import Values, rekey

# Used when monitoringNodeType is empty: 4 vCPU / 16 GiB holds the PMM server or a sysbench client.
DEFAULT_MONITORING_NODE_TYPES = {"gke": "n2-standard-4", "eks": "m6i.xlarge"}

# Cluster names end up in node pool names: GKE allows 40 characters for "<cluster>-monitoring-<hash4>",
# an EKS node group name prefix at most 37 (the provider appends a 26-character unique suffix).
MAX_CLUSTER_NAME = 24
MIN_DISK_SIZE_GB = 10
CLUSTER_NAME = re.compile(r"^[a-z]([-a-z0-9]*[a-z0-9])?$")

# Upper bounds: beyond them a value is a typo, not a plan.
MAX_NODES_PER_POOL = MAX_POOL_NODES  # far above any database topology (7 members at most, T1); GKE allows 1000 per pool
MAX_DISK_SIZE_GB = 65536  # the largest GCE persistent disk is 64 TiB (EBS volumes stop at 16 TiB)
_NO_MINIMUM = -(2**63)


def check_pool_bounds(v: Values) -> None:
    """The upper bounds of node counts and the boot disk (targets with node pools; the lower bounds are checked
    where the values are used, with the reason)."""
    for key, rule in (("databaseNodeCount", "K5"), ("monitoringNodeCount", "K4")):
        count = v.integer(key, _NO_MINIMUM, rule=rule)
        if count > MAX_NODES_PER_POOL:
            raise InputError(key, f"{count} nodes is above the bound of {MAX_NODES_PER_POOL} for one pool", rule=rule)
    disk = v.integer("databaseDiskSizeGb", _NO_MINIMUM)
    if disk > MAX_DISK_SIZE_GB:
        raise InputError("databaseDiskSizeGb", f"{disk} GB is above the largest boot disk ({MAX_DISK_SIZE_GB} GB)")


def check_node_count(database_count: int, cluster_size: int) -> None:
    if database_count < cluster_size:
        raise InputError(
            "databaseNodeCount",
            f"{database_count} database nodes cannot hold {cluster_size} members: the operators place one member "
            f"per node (required anti-affinity), so the pool needs at least clusterSize = {cluster_size} nodes",
            rule="K5",
        )


def machine_name(name: str, key: str, provider: str) -> str:
    try:
        machine = lookup(name)
    except InputError as error:
        raise rekey(error, key) from None
    if machine.provider != provider:
        raise InputError(
            key, f"{machine.name} is a {machine.provider} machine type; the {provider} target needs a {provider} one", rule="K1"
        )
    return machine.name


def budget(machine: str, provider: str, key: str, daemonset: tuple[int, int]) -> NodeBudget:
    try:
        return node_budget(machine, provider, *daemonset)
    except InputError as error:
        raise rekey(error, {"daemonset_cpu": "daemonsetCpu", "daemonset_memory": "daemonsetMemory"}.get(error.key, key)) from None


def catalog_budget(name: str, key: str, daemonset: tuple[int, int]) -> NodeBudget:
    machine = machine_lookup(name, key)
    return budget(machine.name, machine.provider, key, daemonset)


def machine_lookup(name: str, key: str) -> MachineType:
    try:
        return lookup(name)
    except InputError as error:
        raise rekey(error, key) from None


def quantity(values: Values, key: str, parse: Callable[[object], int]) -> int:
    text = values.text(key)
    try:
        return parse(text)
    except ValueError as error:
        raise InputError(key, str(error), rule="K1") from None


def daemonset_request(values: Values, key: str, parse: Callable[[object], int]) -> int | None:
    """A DaemonSet request; unset ("") means the provider's default (K1)."""
    return quantity(values, key, parse) if values.text(key) else None


def own_pools(
    cluster_name: str, machine: tuple[str | None, str | None], counts: tuple[int, int], budgets: tuple[NodeBudget, NodeBudget]
) -> tuple[PoolShape, PoolShape]:
    """The two pools our own clusters have: labeled and tainted with the core's constants (K4)."""
    labels = ({POOL_LABEL: DATABASE_POOL}, {POOL_LABEL: MONITORING_POOL})
    return pool_pair(cluster_name, labels, counts, budgets, ((DATABASE_TAINT,), ()), machine)


def pool_pair(
    cluster_name: str,
    labels: tuple[Mapping[str, str], Mapping[str, str]],
    counts: tuple[int, int],
    budgets: tuple[NodeBudget, NodeBudget],
    taints: tuple[tuple[Taint, ...], tuple[Taint, ...]],
    machines: tuple[str | None, str | None],
) -> tuple[PoolShape, PoolShape]:
    """The database pool and the monitoring pool of every target, named ``<cluster>-database`` and
    ``<cluster>-monitoring``; each argument is a (database, monitoring) pair."""
    database, monitoring = (
        PoolShape(name=f"{cluster_name}-{role}", labels=label, node_count=count, node=node, taints=taint, machine_type=machine)
        for role, label, count, node, taint, machine in zip(
            ("database", "monitoring"), labels, counts, budgets, taints, machines, strict=True
        )
    )
    return database, monitoring


def no_machine_has_more(memory: int, key: str, text: str) -> None:
    if memory > MAX_MACHINE_MEMORY_BYTES:
        raise InputError(key, f"{text!r} is more memory than any machine has (4Pi, x86-64's physical address space)", rule="K1")


def ipv4_cidrs(v: Values, key: str, maximum: int) -> tuple[str, ...]:
    """IPv4 CIDR blocks with the host bits zero (as the cloud APIs reject them otherwise), never 0.0.0.0/0."""
    cidrs: list[str] = []
    for text in v.strings(key):
        try:
            network = ipaddress.IPv4Network(text.strip(), strict=True)
        except ValueError as error:
            raise InputError(key, f"{text!r} is not an IPv4 CIDR block ({error})") from None
        if network.prefixlen == 0:
            raise InputError(key, f"{text!r} authorizes every address: list your networks, or leave the list empty")
        cidrs.append(str(network))
    if len(cidrs) > maximum:
        raise InputError(key, f"{len(cidrs)} networks: at most {maximum} are accepted")
    return tuple(dict.fromkeys(cidrs))
