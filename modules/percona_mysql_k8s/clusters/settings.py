"""Cluster settings: the stack configuration of the cluster layer, validated before anything is registered.

Pure Python (no Pulumi import), so every bad input is an :class:`InputError` that names the config key
of ``Pulumi.yaml`` and the rule behind it, raised before a single resource exists:

* ``databaseNodeType`` / ``monitoringNodeType``: unknown or wrong-cloud machine types (K1);
* ``databaseNodeCount``: fewer database nodes than ``clusterSize`` members (K5: one member per node);
* ``databasePoolLabels`` / ``monitoringPoolLabels``: a pool with no label to place pods by (K4);
* ``gcpProject`` / ``gcpRegion`` / ``gcpZones`` / ``awsRegion``: where a cloud cluster goes;
* ``kindHostShare``: the share of the host one kind node is modeled as, or ``auto`` for the host model of
  :mod:`percona_mysql_k8s.core.kind_host` (K1).

The pools the database layer receives (:class:`~percona_mysql_k8s.core.pools.PoolShape`: labels, taints, machine,
allocatable per node, node count) are decided here, so every target hands over the same description and
the components only turn it into resources.
"""

from __future__ import annotations

import ipaddress
import json
import math
import os
import re
import shutil
import subprocess
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from percona_mysql_k8s.core.allocatable import DEFAULT_MAX_PODS, NodeBudget, kind_node_budget, node_budget
from percona_mysql_k8s.core.bounds import MAX_MACHINE_CPU_MILLICORES, MAX_MACHINE_MEMORY_BYTES
from percona_mysql_k8s.core.errors import InputError
from percona_mysql_k8s.core.kind_host import CONTROL_PLANE, HOST_RESERVE, KindHost, worker_budget
from percona_mysql_k8s.core.machines import MachineType, lookup
from percona_mysql_k8s.core.node_inventory import ObservedNode, ObservedPool, observe_all, select_pool
from percona_mysql_k8s.core.pools import DATABASE_POOL, DATABASE_TAINT, MONITORING_POOL, POOL_LABEL, PoolShape, Taint
from percona_mysql_k8s.core.rules import MAX_POOL_NODES
from percona_mysql_k8s.core.scheduling import KUBERNETES_EFFECTS, cloud_effect
from percona_mysql_k8s.core.units import (
    cpu_to_millicores,
    decimal_number,
    format_cpu,
    format_memory,
    memory_to_bytes,
    whole_number,
)

from .inventory import ClusterReader, read_cluster

TARGETS = ("kind", "gke", "eks", "existing")
GKE_RELEASE_CHANNELS = ("RAPID", "REGULAR", "STABLE", "EXTENDED")
TAINT_EFFECTS = KUBERNETES_EFFECTS
# The cloud APIs (GKE node pools, EKS node groups) spell taint effects in upper snake case (core.scheduling).
CLOUD_TAINT_EFFECTS = {effect: cloud_effect(effect) for effect in KUBERNETES_EFFECTS}

# Used when monitoringNodeType is empty: 4 vCPU / 16 GiB holds the PMM server or a sysbench client.
DEFAULT_MONITORING_NODE_TYPES = {"gke": "n2-standard-4", "eks": "m6i.xlarge"}

# Cluster names end up in node pool names: GKE allows 40 characters for "<cluster>-monitoring-<hash4>",
# an EKS node group name prefix at most 37 (the provider appends a 26-character unique suffix).
MAX_CLUSTER_NAME = 24
MIN_DISK_SIZE_GB = 10

# Every config key this layer reads, with its type and the default declared in Pulumi.yaml (a test keeps
# the two in step). Values arrive decoded: str, int, bool or list[str].
CONFIG_KEYS: dict[str, tuple[type, object]] = {
    "target": (str, "kind"),
    "clusterName": (str, "percona-mysql"),
    "clusterSize": (int, 3),
    "ephemeral": (bool, False),
    "databaseNodeType": (str, ""),
    "databaseNodeCount": (int, 3),
    "databaseDiskSizeGb": (int, 100),
    "monitoringNodeType": (str, ""),
    "monitoringNodeCount": (int, 1),
    # "" = the provider's default DaemonSet requests (core.allocatable.DEFAULT_DAEMONSETS, K1)
    "daemonsetCpu": (str, ""),
    "daemonsetMemory": (str, ""),
    "gcpProject": (str, ""),
    "gcpRegion": (str, ""),
    "gcpZones": (list, []),
    "gkeReleaseChannel": (str, "REGULAR"),
    "gkePrivateNodes": (bool, True),
    "gkeNetwork": (str, "default"),
    "gkeSubnetwork": (str, ""),
    # GKE hardening (issue 11): Cloud NAT for private nodes, control-plane CIDRs, KMS for Secrets in etcd.
    "gkeCloudNat": (bool, True),
    "gkeMasterAuthorizedNetworks": (list, []),
    "gkeSecretsKmsKey": (str, ""),
    "awsRegion": (str, ""),
    "eksVersion": (str, "1.33"),
    "eksVpcId": (str, ""),
    "eksSubnetIds": (list, []),
    "eksPrivateEndpoint": (bool, False),
    # EKS hardening (issue 11): the public endpoint only for these CIDRs; Secrets envelope encryption key.
    "eksPublicAccessCidrs": (list, []),
    "eksSecretsKmsKeyArn": (str, ""),
    "kindHostShare": (str, "auto"),
    "kindHostCpu": (str, ""),
    "kindHostMemory": (str, ""),
    "kindNodeImage": (str, "kindest/node:v1.33.1"),
    "kubeconfig": (str, ""),
    "kubeContext": (str, ""),
    "databasePoolLabels": (str, ""),
    "databasePoolTaint": (str, ""),
    "monitoringPoolLabels": (str, ""),
    "existingNodeCpu": (str, ""),
    "existingNodeMemory": (str, ""),
    "existingNodeSource": (str, "cluster"),
}


# ---- the settings -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class ZonePlacement:
    """Where a GKE node pool's nodes go. GKE's ``node_count`` is *per zone* of ``node_locations``, so a
    regional pool of ``nodes_per_zone`` has ``nodes_per_zone × len(zones)`` nodes."""

    zones: tuple[str, ...]
    nodes_per_zone: int

    @property
    def total(self) -> int:
        return self.nodes_per_zone * len(self.zones)


@dataclass(frozen=True)
class GkeSettings:
    project: str
    region: str
    zones: tuple[str, ...]
    release_channel: str
    private_nodes: bool
    network: str
    subnetwork: str
    database_placement: ZonePlacement
    monitoring_placement: ZonePlacement
    # hardening: see _gke_hardening
    cloud_nat: bool = True
    master_authorized_networks: tuple[str, ...] = ()
    secrets_kms_key: str = ""


@dataclass(frozen=True)
class EksSettings:
    region: str
    version: str
    vpc_id: str  # "" = create a VPC
    subnet_ids: tuple[str, ...]
    private_endpoint: bool
    # hardening: see _eks_hardening
    public_access_cidrs: tuple[str, ...] = ()  # empty: no public endpoint
    secrets_kms_key_arn: str = ""  # empty: a key created by the stack


@dataclass(frozen=True)
class KindSettings:
    node_image: str
    host_share: float | None  # None: ``auto``, the workers share the host as core.kind_host models it
    host_cpu_millicores: int
    host_memory_bytes: int


@dataclass(frozen=True)
class ExistingSettings:
    kubeconfig: str  # absolute path, or "" for the ambient kubeconfig ($KUBECONFIG, ~/.kube/config)
    context: str  # "" = the kubeconfig's current context


@dataclass(frozen=True)
class ClusterSettings:
    """Everything a cluster component needs; exactly one of ``gke``/``eks``/``kind``/``existing`` is set."""

    target: str
    cluster_name: str
    cluster_size: int
    ephemeral: bool
    database_pool: PoolShape
    monitoring_pool: PoolShape
    database_disk_size_gb: int
    gke: GkeSettings | None = None
    eks: EksSettings | None = None
    kind: KindSettings | None = None
    existing: ExistingSettings | None = None
    notes: tuple[str, ...] = field(default=())


# ---- the host a kind cluster runs on ---------------------------------------------------------------


def host_resources() -> tuple[int, int]:
    """(CPU millicores, memory bytes) the kind nodes share: what the Docker engine reports when it answers
    (on Docker Desktop that is its VM, not the host), otherwise this machine's.

    CPUs are the ones this process may run on (``sched_getaffinity``, which honours a cpuset), memory is
    ``MemTotal``: a total, not what is free now, so the sizes do not change from one preview to the next.
    """
    docker = _docker_resources()
    if docker is not None:
        return docker
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    if not cpus:
        raise InputError("kindHostCpu", "cannot tell how many CPUs this machine has: set kindHostCpu and kindHostMemory", rule="K1")
    return cpus * 1000, _memory_bytes()


def _docker_resources() -> tuple[int, int] | None:
    """``docker info``'s NCPU and MemTotal (bytes), or None when Docker is absent or does not answer.

    Docker's view is the one kind's containers get: on Linux the host, on Docker Desktop its VM.
    (``docker info --format '{{json .}}'`` prints the engine's ``/info``; NCPU and MemTotal are fields of
    the Engine API's SystemInfo.)
    """
    if shutil.which("docker") is None:
        return None
    try:
        info = subprocess.run(["docker", "info", "--format", "{{json .}}"], capture_output=True, text=True,
                              timeout=15, check=False)
        data = json.loads(info.stdout) if info.returncode == 0 else {}
    except (OSError, subprocess.SubprocessError, ValueError):
        return None
    cpus, memory = data.get("NCPU"), data.get("MemTotal")
    if isinstance(cpus, int) and isinstance(memory, int) and cpus > 0 and memory > 0:
        return cpus * 1000, memory
    return None


def _memory_bytes() -> int:
    try:
        with open("/proc/meminfo", encoding="ascii") as meminfo:
            for line in meminfo:
                if line.startswith("MemTotal:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError) as error:
        raise InputError("kindHostMemory", "cannot tell how much memory this machine has: set kindHostCpu and kindHostMemory",
                         rule="K1") from error


# ---- decoding raw config strings (what pulumi.Config hands over) ----------------------------------


def decode_config_value(key: str, raw: str) -> object:
    """A raw config string (as the Pulumi CLI passes it) decoded to the key's type."""
    kind, _ = CONFIG_KEYS[key]
    if kind is str:
        return raw
    if kind is bool:
        lowered = raw.strip().lower()
        if lowered in ("true", "false"):
            return lowered == "true"
        raise InputError(key, f"{raw!r} is not true or false")
    if kind is int:
        try:
            return whole_number(raw)
        except ValueError:
            raise InputError(key, f"{raw!r} is not a whole number (ASCII digits)") from None
    try:
        value = json.loads(raw)
    except json.JSONDecodeError:
        value = [item.strip() for item in raw.split(",") if item.strip()]
    return value


# ---- validation helpers -----------------------------------------------------------------------------


def _rekey(error: InputError, key: str) -> InputError:
    """A core error re-issued under the stack config key the user actually set."""
    prefix = (f"{error.rule}: " if error.rule else "") + f"{error.key}: "
    message = str(error)
    return InputError(key, message[len(prefix):] if message.startswith(prefix) else message, error.rule)


class _Values:
    """Typed access to the decoded config, with Pulumi.yaml's defaults for absent keys."""

    def __init__(self, values: Mapping[str, object]):
        self._values = values

    def explicit(self, key: str) -> bool:
        """Whether the stack config sets ``key`` (rather than Pulumi.yaml's default applying)."""
        return self._values.get(key) is not None

    def _get(self, key: str) -> object:
        kind, default = CONFIG_KEYS[key]
        value = self._values.get(key)
        return default if value is None else value

    def text(self, key: str) -> str:
        value = self._get(key)
        if isinstance(value, bool) or not isinstance(value, (str, int, float)):
            raise InputError(key, f"{value!r} is not a string")
        return str(value).strip()

    def integer(self, key: str, minimum: int, rule: str | None = None, why: str = "") -> int:
        value = self._get(key)
        if isinstance(value, float) and value.is_integer():
            value = int(value)  # numbers may round-trip through JSON as floats
        if isinstance(value, str):
            try:
                value = whole_number(value)
            except ValueError:
                pass  # refused below, naming the key
        if isinstance(value, bool) or not isinstance(value, int):
            raise InputError(key, f"{value!r} is not a whole number", rule=rule)
        if value < minimum:
            raise InputError(key, f"{value} is below the minimum of {minimum}{why}", rule=rule)
        return value

    def flag(self, key: str) -> bool:
        value = self._get(key)
        if isinstance(value, str) and value.strip().lower() in ("true", "false"):
            return value.strip().lower() == "true"
        if not isinstance(value, bool):
            raise InputError(key, f"{value!r} is not true or false")
        return value

    def strings(self, key: str) -> tuple[str, ...]:
        value = self._get(key)
        if isinstance(value, str):
            value = decode_config_value(key, value) if value.strip() else []
        if not isinstance(value, (list, tuple)) or not all(isinstance(item, str) for item in value):
            raise InputError(key, f"{value!r} is not a list of strings")
        items = tuple(item.strip() for item in value if item.strip())
        duplicates = sorted({item for item in items if items.count(item) > 1})
        if duplicates:
            raise InputError(key, f"{', '.join(duplicates)} listed more than once")
        return items


_CLUSTER_NAME = re.compile(r"^[a-z]([-a-z0-9]*[a-z0-9])?$")
_GCP_REGION = re.compile(r"^[a-z]+(-[a-z]+)+[0-9]+$")
_GCP_PROJECT = re.compile(r"^[a-z][-a-z0-9]{4,28}[a-z0-9]$")
_AWS_REGION = re.compile(r"^[a-z]{2}(-[a-z]+)+-[0-9]+$")
_EKS_VERSION = re.compile(r"^1\.[0-9]{2}$")
_VPC_ID = re.compile(r"^vpc-[0-9a-f]+$")
_SUBNET_ID = re.compile(r"^subnet-[0-9a-f]+$")
_LABEL_NAME = re.compile(r"^[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$")
_LABEL_PREFIX = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
_LABEL_VALUE = re.compile(r"^([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?$")


# ---- keys of one target: set on another, they would be ignored ---------------------------------------

# Which targets read each target-specific key (every other key is read by all targets).
TARGET_KEYS: dict[str, tuple[str, ...]] = {
    **dict.fromkeys(("gcpProject", "gcpRegion", "gcpZones", "gkeReleaseChannel", "gkePrivateNodes", "gkeNetwork",
                     "gkeSubnetwork"), ("gke",)),
    **dict.fromkeys(("awsRegion", "eksVersion", "eksVpcId", "eksSubnetIds", "eksPrivateEndpoint"), ("eks",)),
    **dict.fromkeys(("kindHostShare", "kindHostCpu", "kindHostMemory", "kindNodeImage"), ("kind",)),
    **dict.fromkeys(("kubeconfig", "kubeContext", "databasePoolLabels", "databasePoolTaint", "monitoringPoolLabels",
                     "existingNodeCpu", "existingNodeMemory", "existingNodeSource"), ("existing",)),
    # kind sizes one worker per member from a share of the host: no machine types, counts or boot disks
    **dict.fromkeys(("databaseNodeType", "monitoringNodeType", "databaseNodeCount", "databaseDiskSizeGb"),
                    ("gke", "eks", "existing")),
}


def check_target_keys(values: Mapping[str, object], target: str) -> None:
    """A key another target reads, set to anything but its default, is an error: it would be ignored."""
    for key, owners in TARGET_KEYS.items():
        value = values.get(key)
        if value is None or target in owners:
            continue
        default = CONFIG_KEYS[key][1]
        decoded = decode_config_value(key, value) if isinstance(value, str) and not isinstance(default, str) else value
        if decoded == default or (isinstance(decoded, str) and decoded.strip() == str(default)):
            continue
        raise InputError(key, f"applies only to target {' or '.join(owners)}, and this stack's target is {target}: it would "
                              "be ignored (remove it from the stack config, or change target)")


# Upper bounds: beyond them a value is a typo, not a plan.
MAX_NODES_PER_POOL = MAX_POOL_NODES  # far above any database topology (7 members at most, T1); GKE allows 1000 per pool
MAX_DISK_SIZE_GB = 65536  # the largest GCE persistent disk is 64 TiB (EBS volumes stop at 16 TiB)
# EKS versions both operators are tested on, from their release notes' platform lists
# (PXC operator 1.19: EKS 1.32-1.34; PS operator 1.2: EKS 1.33-1.36).
EKS_VERSIONS = tuple(f"1.{minor}" for minor in range(32, 37))
# A GCE resource name (RFC 1035), or a network/subnetwork path as the GKE API accepts it.
_GCE_NAME = re.compile(r"^([a-z]([-a-z0-9]{0,61}[a-z0-9])?|projects/[a-z][-a-z0-9]{4,28}[a-z0-9]/(global|regions/[a-z0-9-]+)/(networks|subnetworks)/[a-z]([-a-z0-9]{0,61}[a-z0-9])?)$")
# An image reference as the Docker/OCI distribution grammar reads it: [registry[:port]/]path[:tag][@digest]
# (https://github.com/distribution/reference/blob/main/reference.go).
_IMAGE_REFERENCE = re.compile(
    r"^(?:[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?)*(?::[0-9]+)?/)?"
    r"[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*(?:/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)*"
    r"(?::[A-Za-z0-9_][A-Za-z0-9_.-]{0,127})?(?:@sha256:[a-f0-9]{64})?$")


_NO_MINIMUM = -(2**63)


def check_bounds(values: Mapping[str, object], target: str) -> None:
    """Ranges and patterns the target paths below do not check themselves."""
    v = _Values(values)
    if target != "kind":
        # lower bounds are checked where the values are used, with the reason; only the upper ones here
        for key, rule in (("databaseNodeCount", "K5"), ("monitoringNodeCount", "K4")):
            count = v.integer(key, _NO_MINIMUM, rule=rule)
            if count > MAX_NODES_PER_POOL:
                raise InputError(key, f"{count} nodes is above the bound of {MAX_NODES_PER_POOL} for one pool", rule=rule)
        disk = v.integer("databaseDiskSizeGb", _NO_MINIMUM)
        if disk > MAX_DISK_SIZE_GB:
            raise InputError("databaseDiskSizeGb", f"{disk} GB is above the largest boot disk ({MAX_DISK_SIZE_GB} GB)")
    if target == "gke":
        for key in ("gkeNetwork", "gkeSubnetwork"):
            value = v.text(key)
            if value and not _GCE_NAME.fullmatch(value):
                raise InputError(key, f"{value!r} is not a GCE network name (lowercase letters, digits, hyphens; at most 63) "
                                      "or a projects/…/networks|subnetworks/… path")
    if target == "eks" and v.text("eksVersion") not in EKS_VERSIONS:
        raise InputError("eksVersion", f"{v.text('eksVersion')!r} is not an EKS version the Percona operators are tested on "
                                       f"({', '.join(EKS_VERSIONS)})")
    if target == "kind":
        image = v.text("kindNodeImage")
        if image and not _IMAGE_REFERENCE.fullmatch(image):
            raise InputError("kindNodeImage", f"{image!r} is not an image reference (e.g. kindest/node:v1.33.1)")


def _check_label_key(key: str, config_key: str, rule: str) -> None:
    prefix, _, name = key.rpartition("/")
    if (prefix and (len(prefix) > 253 or not _LABEL_PREFIX.fullmatch(prefix))) or not _LABEL_NAME.fullmatch(name):
        raise InputError(config_key, f"{key!r} is not a valid Kubernetes label key ([prefix/]name)", rule=rule)


def parse_labels(text: str, config_key: str) -> dict[str, str]:
    """``"k=v,k2=v2"`` as a label map; each key and value checked against Kubernetes' label syntax (K4)."""
    labels: dict[str, str] = {}
    for item in (part.strip() for part in text.split(",")):
        if not item:
            continue
        key, sep, value = item.partition("=")
        key, value = key.strip(), value.strip()
        if not sep or not key:
            raise InputError(config_key, f"{item!r} is not key=value (write the labels as k=v,k2=v2)", rule="K4")
        _check_label_key(key, config_key, "K4")
        if not _LABEL_VALUE.fullmatch(value):
            raise InputError(config_key, f"{value!r} is not a valid Kubernetes label value", rule="K4")
        if key in labels:
            raise InputError(config_key, f"label {key!r} is given twice", rule="K4")
        labels[key] = value
    return labels


def parse_taint(text: str, config_key: str) -> Taint:
    """``"key=value:Effect"`` (or ``"key:Effect"``) as a :class:`Taint` (K4)."""
    head, sep, effect = text.strip().rpartition(":")
    if not sep or not head:
        raise InputError(config_key, f"{text!r} is not key=value:Effect (e.g. {DATABASE_TAINT.key}=database:NoSchedule)", rule="K4")
    if effect not in TAINT_EFFECTS:
        raise InputError(config_key, f"taint effect {effect!r} is not one of {', '.join(TAINT_EFFECTS)}", rule="K4")
    key, _, value = head.partition("=")
    _check_label_key(key, config_key, "K4")
    if not _LABEL_VALUE.fullmatch(value):
        raise InputError(config_key, f"{value!r} is not a valid taint value", rule="K4")
    return Taint(key, value, effect)


def spread_over_zones(node_count: int, zones: tuple[str, ...]) -> ZonePlacement:
    """At least ``node_count`` nodes, as evenly as GKE's per-zone ``node_count`` allows.

    With fewer nodes than zones the pool uses the first ``node_count`` zones, one node each; otherwise
    every zone gets ``ceil(node_count / zones)`` nodes, so 5 nodes over 3 zones become 2 per zone = 6.
    """
    used = zones[: min(node_count, len(zones))]
    return ZonePlacement(used, math.ceil(node_count / len(used)))


def _machine(name: str, key: str, provider: str) -> str:
    try:
        machine = lookup(name)
    except InputError as error:
        raise _rekey(error, key) from None
    if machine.provider != provider:
        raise InputError(key, f"{machine.name} is a {machine.provider} machine type; the {provider} target needs a {provider} one", rule="K1")
    return machine.name


def _budget(machine: str, provider: str, key: str, daemonset: tuple[int, int]) -> NodeBudget:
    try:
        return node_budget(machine, provider, *daemonset)
    except InputError as error:
        raise _rekey(error, {"daemonset_cpu": "daemonsetCpu", "daemonset_memory": "daemonsetMemory"}.get(error.key, key)) from None


def _quantity(values: _Values, key: str, parse: Callable[[object], int]) -> int:
    text = values.text(key)
    try:
        return parse(text)
    except ValueError as error:
        raise InputError(key, str(error), rule="K1") from None


def _daemonset(values: _Values, key: str, parse: Callable[[object], int]) -> int | None:
    """A DaemonSet request; unset ("") means the provider's default (K1)."""
    return _quantity(values, key, parse) if values.text(key) else None


def _pools(cluster_name: str, machine: tuple[str | None, str | None], counts: tuple[int, int],
           budgets: tuple[NodeBudget, NodeBudget]) -> tuple[PoolShape, PoolShape]:
    """The two pools our own clusters have: labeled and tainted with the core's constants (K4)."""
    database = PoolShape(
        name=f"{cluster_name}-database",
        labels={POOL_LABEL: DATABASE_POOL},
        node_count=counts[0],
        node=budgets[0],
        taints=(DATABASE_TAINT,),
        machine_type=machine[0],
    )
    monitoring = PoolShape(
        name=f"{cluster_name}-monitoring",
        labels={POOL_LABEL: MONITORING_POOL},
        node_count=counts[1],
        node=budgets[1],
        machine_type=machine[1],
    )
    return database, monitoring


# ---- the entry point --------------------------------------------------------------------------------


def cluster_settings_from_config(
    values: Mapping[str, object],
    host: Callable[[], tuple[int, int]] | None = None,
    cluster_reader: ClusterReader | None = None,
) -> ClusterSettings:
    """Validate the cluster layer's stack config for the chosen target and decide its pools.

    ``values`` maps Pulumi.yaml key names (``"target"``, ``"gcpZones"``; no project prefix) to decoded
    values; absent keys take Pulumi.yaml's defaults. ``host`` tells a kind cluster the machine it runs on
    (default: :func:`host_resources`, looked up at call time);
    ``cluster_reader`` reads an existing cluster's Nodes and pods (default:
    :func:`percona_mysql_k8s.clusters.inventory.read_cluster`, called only for ``existingNodeSource=cluster``).
    """
    host = host or host_resources
    v = _Values(values)
    target = v.text("target").lower()
    if target not in TARGETS:
        raise InputError("target", f"{target!r} is not one of {', '.join(TARGETS)}")
    check_target_keys(values, target)
    check_bounds(values, target)

    name = v.text("clusterName")
    if len(name) > MAX_CLUSTER_NAME or not _CLUSTER_NAME.fullmatch(name):
        raise InputError(
            "clusterName",
            f"{name!r} must be 1 to {MAX_CLUSTER_NAME} lowercase letters, digits and hyphens, starting with a letter "
            "(it prefixes node pool names, which GKE and EKS limit in length)",
        )
    ephemeral = v.flag("ephemeral")
    cluster_size = v.integer("clusterSize", 1, rule="T1", why=": a database cluster has at least one member")
    if cluster_size < 3 and not ephemeral:
        raise InputError("clusterSize", f"{cluster_size} members have no quorum; fewer than 3 only with ephemeral: true", rule="T1")
    disk = v.integer("databaseDiskSizeGb", MIN_DISK_SIZE_GB, why=" GB for a node boot disk")
    monitoring_count = v.integer("monitoringNodeCount", 1, rule="K4",
                             why=": the PMM server and sysbench need a monitoring node to run on (K4, B1)")
    daemonset = (_daemonset(v, "daemonsetCpu", cpu_to_millicores), _daemonset(v, "daemonsetMemory", memory_to_bytes))
    common = {"target": target, "cluster_name": name, "cluster_size": cluster_size, "ephemeral": ephemeral,
              "database_disk_size_gb": disk}

    if target == "kind":
        return _kind(v, common, monitoring_count, daemonset, host)

    database_count = v.integer("databaseNodeCount", 1, rule="K5")
    if target == "existing":  # with existingNodeSource=cluster the count is read from the cluster
        return _existing(v, common, database_count, monitoring_count, daemonset, cluster_reader or read_cluster)
    _check_node_count(database_count, cluster_size)

    database_type = v.text("databaseNodeType")
    if not database_type:
        example = "n2-standard-16" if target == "gke" else "m6i.4xlarge"
        raise InputError("databaseNodeType", f"the {target} target needs the database pool's machine type (e.g. {example})", rule="K1")
    database_type = _machine(database_type, "databaseNodeType", target)
    monitoring_type = v.text("monitoringNodeType") or DEFAULT_MONITORING_NODE_TYPES[target]
    monitoring_type = _machine(monitoring_type, "monitoringNodeType", target)
    budgets = (_budget(database_type, target, "databaseNodeType", daemonset),
               _budget(monitoring_type, target, "monitoringNodeType", daemonset))

    if target == "gke":
        gke = _gke(v, database_count, monitoring_count)
        counts = (gke.database_placement.total, gke.monitoring_placement.total)
        database, monitoring = _pools(name, (database_type, monitoring_type), counts, budgets)
        notes = ()
        if counts[0] != database_count:
            notes = (f"GKE node_count is per zone: {database_count} database nodes over {len(gke.database_placement.zones)} "
                     f"zones become {gke.database_placement.nodes_per_zone} per zone = {counts[0]} nodes",)
        if not gke.master_authorized_networks and not ephemeral:
            notes += ("gkeMasterAuthorizedNetworks is empty: the GKE control plane accepts connections from any "
                      "address (authenticated by Google IAM); list the networks that administer it",)
        return ClusterSettings(**common, database_pool=database, monitoring_pool=monitoring, gke=gke, notes=notes)

    eks = _eks(v)
    database, monitoring = _pools(name, (database_type, monitoring_type), (database_count, monitoring_count), budgets)
    return ClusterSettings(**common, database_pool=database, monitoring_pool=monitoring, eks=eks)


def _check_node_count(database_count: int, cluster_size: int) -> None:
    if database_count < cluster_size:
        raise InputError(
            "databaseNodeCount",
            f"{database_count} database nodes cannot hold {cluster_size} members: the operators place one member "
            f"per node (required anti-affinity), so the pool needs at least clusterSize = {cluster_size} nodes",
            rule="K5",
        )


def _gke(v: _Values, database_count: int, monitoring_count: int) -> GkeSettings:
    project = v.text("gcpProject")
    if not project:
        raise InputError("gcpProject", "the gke target needs the GCP project of the cluster")
    if not _GCP_PROJECT.fullmatch(project):
        raise InputError("gcpProject", f"{project!r} is not a GCP project ID (6-30 lowercase letters, digits, hyphens)")
    region = v.text("gcpRegion")
    if not region:
        raise InputError("gcpRegion", "the gke target needs the region of its regional cluster (e.g. europe-west1)")
    if not _GCP_REGION.fullmatch(region):
        raise InputError("gcpRegion", f"{region!r} is not a GCP region (e.g. europe-west1, us-central1)")
    zones = v.strings("gcpZones")
    if not zones:
        raise InputError("gcpZones", f"the gke target needs the zones its node pools spread over (e.g. {region}-b, {region}-c, {region}-d)")
    foreign = [zone for zone in zones if not re.fullmatch(re.escape(region) + r"-[a-z]", zone)]
    if foreign:
        raise InputError("gcpZones", f"{', '.join(foreign)} not zones of gcpRegion {region} (zones look like {region}-b)")
    channel = v.text("gkeReleaseChannel").upper()
    if channel not in GKE_RELEASE_CHANNELS:
        raise InputError("gkeReleaseChannel", f"{channel!r} is not one of {', '.join(GKE_RELEASE_CHANNELS)}")
    network = v.text("gkeNetwork")
    if not network:
        raise InputError("gkeNetwork", "the gke target needs a VPC network (default: 'default')")
    return GkeSettings(
        project=project,
        region=region,
        zones=zones,
        release_channel=channel,
        private_nodes=v.flag("gkePrivateNodes"),
        network=network,
        subnetwork=v.text("gkeSubnetwork"),
        database_placement=spread_over_zones(database_count, zones),
        monitoring_placement=spread_over_zones(monitoring_count, zones),
        **_gke_hardening(v, region),
    )


# GKE accepts at most 50 authorized networks on a cluster with a public endpoint
# (cloud.google.com/kubernetes-engine/docs/how-to/authorized-networks, "Limitations").
MAX_MASTER_AUTHORIZED_NETWORKS = 50
_KMS_KEY = re.compile(r"^projects/([a-z][-a-z0-9]{4,28}[a-z0-9])/locations/([a-z0-9-]+)/keyRings/([-\w]+)/cryptoKeys/([-\w]+)$")


def _gke_hardening(v: _Values, region: str) -> dict:
    """Control-plane CIDRs (IPv4 networks, host bits zero, as GKE reads cidrBlock) and the KMS key of
    application-layer Secrets encryption, which GKE requires in the cluster's own location."""
    cidrs = _ipv4_cidrs(v, "gkeMasterAuthorizedNetworks", MAX_MASTER_AUTHORIZED_NETWORKS)
    key = v.text("gkeSecretsKmsKey")
    if key:
        match = _KMS_KEY.fullmatch(key)
        if not match:
            raise InputError("gkeSecretsKmsKey", f"{key!r} is not a Cloud KMS key name "
                                                 "(projects/P/locations/L/keyRings/R/cryptoKeys/K)")
        if match.group(2) != region:
            raise InputError("gkeSecretsKmsKey", f"the key is in {match.group(2)}, but GKE needs it in the cluster's "
                                                 f"location gcpRegion {region}")
    return {"cloud_nat": v.flag("gkeCloudNat"), "master_authorized_networks": cidrs, "secrets_kms_key": key}


def _ipv4_cidrs(v: _Values, key: str, maximum: int) -> tuple[str, ...]:
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


# EKS service quota "Public endpoint access CIDR ranges per cluster": 40
# (docs.aws.amazon.com/eks/latest/userguide/service-quotas.html).
MAX_EKS_PUBLIC_ACCESS_CIDRS = 40
_KMS_KEY_ARN = re.compile(r"^arn:aws[-a-z]*:kms:([a-z0-9-]+):[0-9]{12}:key/[-0-9a-f]+$")


def _eks_hardening(v: _Values, region: str, private_endpoint: bool) -> dict:
    """Who may reach the public API endpoint (no CIDRs = no public endpoint) and the KMS key that
    envelope-encrypts Secrets (empty = one created by the stack); EKS needs the key in the cluster's region."""
    cidrs = _ipv4_cidrs(v, "eksPublicAccessCidrs", MAX_EKS_PUBLIC_ACCESS_CIDRS)
    if cidrs and private_endpoint:
        raise InputError("eksPublicAccessCidrs", "eksPrivateEndpoint is true, so there is no public endpoint to open: "
                                                 "clear one of the two")
    arn = v.text("eksSecretsKmsKeyArn")
    if arn:
        match = _KMS_KEY_ARN.fullmatch(arn)
        if not match:
            raise InputError("eksSecretsKmsKeyArn", f"{arn!r} is not a KMS key ARN (arn:aws:kms:REGION:ACCOUNT:key/ID)")
        if match.group(1) != region:
            raise InputError("eksSecretsKmsKeyArn", f"the key is in {match.group(1)}, but EKS needs it in awsRegion {region}")
    return {"public_access_cidrs": cidrs, "secrets_kms_key_arn": arn}


def _eks(v: _Values) -> EksSettings:
    region = v.text("awsRegion")
    if not region:
        raise InputError("awsRegion", "the eks target needs the AWS region of the cluster (e.g. eu-west-1)")
    if not _AWS_REGION.fullmatch(region):
        raise InputError("awsRegion", f"{region!r} is not an AWS region (e.g. eu-west-1, us-east-2)")
    version = v.text("eksVersion")
    if not _EKS_VERSION.fullmatch(version):
        raise InputError("eksVersion", f"{version!r} is not an EKS Kubernetes version (e.g. 1.33)")
    vpc_id, subnet_ids = v.text("eksVpcId"), v.strings("eksSubnetIds")
    if vpc_id and not _VPC_ID.fullmatch(vpc_id):
        raise InputError("eksVpcId", f"{vpc_id!r} is not a VPC ID (vpc-…)")
    if subnet_ids and not vpc_id:
        raise InputError("eksVpcId", "eksSubnetIds are subnets of an existing VPC: set eksVpcId too (or neither, to create a VPC)")
    if vpc_id:
        bad = [subnet for subnet in subnet_ids if not _SUBNET_ID.fullmatch(subnet)]
        if bad:
            raise InputError("eksSubnetIds", f"{', '.join(bad)} not subnet IDs (subnet-…)")
        if len(subnet_ids) < 2:
            raise InputError("eksSubnetIds", "EKS needs subnets in at least two availability zones of eksVpcId: list two or more")
    private_endpoint = v.flag("eksPrivateEndpoint")
    return EksSettings(region, version, vpc_id, subnet_ids, private_endpoint, **_eks_hardening(v, region, private_endpoint))


def _kind_host(v: _Values, host: Callable[[], tuple[int, int]]) -> KindHost:
    """The machine the kind nodes share: kindHostCpu / kindHostMemory when given (a CI runner evaluating
    the stack for a workstation), otherwise the machine running the program as Docker sees it."""
    cpu_text, memory_text = v.text("kindHostCpu"), v.text("kindHostMemory")
    if bool(cpu_text) != bool(memory_text):
        missing = "kindHostMemory" if cpu_text else "kindHostCpu"
        raise InputError(missing, "give both kindHostCpu and kindHostMemory, or neither (this machine's are used)", rule="K1")
    if not cpu_text:
        return KindHost(*host(), source="this machine")
    try:
        cpu = cpu_to_millicores(cpu_text)
    except ValueError as error:
        raise InputError("kindHostCpu", str(error), rule="K1") from None
    try:
        memory = memory_to_bytes(memory_text)
    except ValueError as error:
        raise InputError("kindHostMemory", str(error), rule="K1") from None
    if cpu <= 0 or memory <= 0:
        raise InputError("kindHostCpu" if cpu <= 0 else "kindHostMemory", "must be more than zero", rule="K1")
    if cpu % 1000 or cpu > MAX_MACHINE_CPU_MILLICORES:
        # Docker counts whole CPUs (docker info NCPU; Docker Desktop allots whole CPUs), and no host has more than
        # Linux's 8192 (core.bounds).
        raise InputError("kindHostCpu", f"{cpu_text!r} is no host's CPU count: a host has a whole number of CPUs "
                                        f"from 1 to {MAX_MACHINE_CPU_MILLICORES // 1000} (e.g. 8, as docker info reports)", rule="K1")
    _no_machine_has_more(memory, "kindHostMemory", memory_text)
    declared = KindHost(cpu, memory, source="the declared host (kindHostCpu/kindHostMemory)")
    if v.text("kindHostShare").lower() == AUTO:
        return declared  # the fit (stack.kind_fit) refuses a host too small with the smallest host that works
    for key, free, text, what in (("kindHostCpu", declared.free_cpu_millicores, cpu_text, "CPU"),
                                  ("kindHostMemory", declared.free_memory_bytes, memory_text, "memory")):
        if free <= 0:
            raise InputError(key, f"{text!r} is not enough {what} to run kind at all: the host's own share and the "
                                  f"control plane take {format_cpu(HOST_RESERVE.cpu_millicores + CONTROL_PLANE.cpu_millicores)} "
                                  f"CPU and {format_memory(HOST_RESERVE.memory_bytes + CONTROL_PLANE.memory_bytes)} (core.kind_host)",
                             rule="K1")
    return declared


def _no_machine_has_more(memory: int, key: str, text: str) -> None:
    if memory > MAX_MACHINE_MEMORY_BYTES:
        raise InputError(key, f"{text!r} is more memory than any machine has (4Pi, x86-64's physical address space)", rule="K1")


AUTO = "auto"


def kind_host_from_config(values: Mapping[str, object], host: Callable[[], tuple[int, int]] = host_resources) -> KindHost:
    """The machine a kind cluster of this config runs on: declared (kindHostCpu/kindHostMemory) or measured."""
    return _kind_host(_Values(values), host)


def _kind_share(v: _Values) -> float | None:
    """kindHostShare as a number in (0, 1], or None for ``auto``."""
    text = v.text("kindHostShare")
    if text.lower() == AUTO:
        return None
    try:
        share = decimal_number(text)
    except (ValueError, OverflowError):
        raise InputError("kindHostShare", f"{text!r} is not auto or a number in (0, 1]", rule="K1") from None
    if not math.isfinite(share) or not 0 < share <= 1:
        raise InputError("kindHostShare", f"{text!r} must be auto or a share of the host with 0 < share ≤ 1", rule="K1")
    return share


def _kind(v: _Values, common: dict, monitoring_count: int, daemonset: tuple[int, int],
          host: Callable[[], tuple[int, int]]) -> ClusterSettings:
    share = _kind_share(v)
    image = v.text("kindNodeImage")
    if not image:
        raise InputError("kindNodeImage", "the kind target needs a node image (e.g. kindest/node:v1.33.1)")
    machine = _kind_host(v, host)
    keys = {"daemonset_cpu": "daemonsetCpu", "daemonset_memory": "daemonsetMemory"}
    nodes = common["cluster_size"] + monitoring_count
    notes: tuple[str, ...] = ()
    if share is None:
        # auto: the workers split what the host has left after itself and the control plane (core.kind_host)
        try:
            budget = worker_budget(machine, nodes, *daemonset)
        except InputError as error:
            raise _rekey(error, keys.get(error.key, error.key)) from None
    else:
        try:
            budget = kind_node_budget(machine.cpu_millicores, machine.memory_bytes, share, *daemonset)
        except InputError as error:
            raise _rekey(error, keys.get(error.key, "kindHostShare")) from None
        if share * nodes > 1:
            notes = (f"{nodes} kind workers × kindHostShare {share} = {share * nodes:.0%} of this machine: the nodes overcommit "
                     "the host, so sizing against one node's share overstates what all of them get together (K1)",)
    # One kind worker per database member: kind has no node pools to size separately.
    database, monitoring = _pools(common["cluster_name"], (None, None), (common["cluster_size"], monitoring_count), (budget, budget))
    kind = KindSettings(image, share, machine.cpu_millicores, machine.memory_bytes)
    return ClusterSettings(**common, database_pool=database, monitoring_pool=monitoring, kind=kind, notes=notes)


EXISTING_NODE_SOURCES = ("cluster", "config")


def _existing(v: _Values, common: dict, database_count: int, monitoring_count: int,
              daemonset: tuple[int, int], read: ClusterReader) -> ClusterSettings:
    database_labels = parse_labels(v.text("databasePoolLabels"), "databasePoolLabels")
    if not database_labels:
        raise InputError(
            "databasePoolLabels",
            "the existing target needs the node labels of its database pool (e.g. "
            f"{POOL_LABEL}={DATABASE_POOL}): without them database pods cannot be placed on the pool",
            rule="K4",
        )
    monitoring_labels = parse_labels(v.text("monitoringPoolLabels"), "monitoringPoolLabels")
    if not monitoring_labels:
        raise InputError(
            "monitoringPoolLabels",
            "the existing target needs the node labels of its monitoring pool (e.g. "
            f"{POOL_LABEL}={MONITORING_POOL}): the PMM server and sysbench run only there (K4, B1)",
            rule="K4",
        )
    if monitoring_labels == database_labels:
        raise InputError("monitoringPoolLabels", "the monitoring pool must not be selected by the database pool's labels", rule="K4")
    taint_text = v.text("databasePoolTaint")
    taints = (parse_taint(taint_text, "databasePoolTaint"),) if taint_text else ()

    kubeconfig = v.text("kubeconfig")
    if kubeconfig:
        kubeconfig = os.path.abspath(os.path.expanduser(kubeconfig))
        if not os.path.isfile(kubeconfig):
            raise InputError("kubeconfig", f"{kubeconfig} does not exist (leave it empty to use $KUBECONFIG or ~/.kube/config)")
    existing = ExistingSettings(kubeconfig, v.text("kubeContext"))
    source = v.text("existingNodeSource").lower()
    if source not in EXISTING_NODE_SOURCES:
        raise InputError("existingNodeSource", f"{source!r} is not one of {', '.join(EXISTING_NODE_SOURCES)}: 'cluster' "
                                               "reads the pools' Nodes at preview/up, 'config' plans offline from config", rule="K1")

    database_type = v.text("databaseNodeType")
    monitoring_type = v.text("monitoringNodeType")
    notes: tuple[str, ...] = ()
    monitoring_taints: tuple[Taint, ...] = ()
    if source == "config":
        _check_node_count(database_count, common["cluster_size"])
        database_budget = (_catalog_budget(database_type, "databaseNodeType", daemonset) if database_type
                           else _configured_budget(v, daemonset))
        monitoring_budget = (_catalog_budget(monitoring_type, "monitoringNodeType", daemonset) if monitoring_type
                             else database_budget)
        notes = ("existingNodeSource=config: sized from config, not from the cluster's Nodes; the plan holds only if the "
                 "cluster's database nodes match it (K1, K5)",)
    else:
        observed = observe_all(*read(existing.kubeconfig, existing.context))
        database_nodes = select_pool(observed, database_labels, [taint.as_toleration() for taint in taints],
                                     key="databasePoolTaint" if taints else "databasePoolLabels")
        monitoring_nodes, monitoring_taints = _monitoring_nodes(observed, monitoring_labels)
        _check_disjoint(database_nodes, monitoring_nodes)
        database_count = _observed_count(v, database_nodes, common["cluster_size"], database_labels)
        monitoring_count = monitoring_nodes.count
        database_budget = _observed_budget(v, database_nodes, daemonset, database_type)
        monitoring_budget = _observed_budget(v, monitoring_nodes, daemonset, monitoring_type, monitoring=True)
        notes = (f"existing cluster: database pool read from the cluster: {database_nodes.describe()}",
                 f"existing cluster: monitoring pool read from the cluster: {monitoring_nodes.describe()}")
        notes += tuple(f"node {node.name} carries the pool's labels but is {node.why_not_schedulable}: not counted"
                       for node in database_nodes.skipped + monitoring_nodes.skipped)
        if taints and not all(taints[0].as_k8s() in node.taints for node in database_nodes.nodes):
            notes += (f"databasePoolTaint {taint_text} is not on every database node: other pods may land there (K4)",)

    database = PoolShape(
        name=f"{common['cluster_name']}-database",
        labels=database_labels,
        node_count=database_count,
        node=database_budget,
        taints=taints,
        machine_type=database_type or None,
    )
    monitoring = PoolShape(
        name=f"{common['cluster_name']}-monitoring",
        labels=monitoring_labels,
        node_count=monitoring_count,
        node=monitoring_budget,
        taints=monitoring_taints,
        machine_type=monitoring_type or database_type or None,
    )
    if monitoring.placement().can_land_on(database.nodes()):
        raise InputError(
            "monitoringPoolLabels",
            f"pods selecting {','.join(f'{k}={v}' for k, v in monitoring_labels.items())} can land on the database pool "
            f"(its labels {','.join(f'{k}={v}' for k, v in database_labels.items())} include them and no databasePoolTaint "
            "keeps them off): the PMM server and sysbench would run beside mysqld; give the monitoring pool a label of its own "
            "or taint the database pool",
            rule="K4",
        )
    if not taints:
        notes += ("databasePoolTaint is empty: other pods may be scheduled on the database nodes (K4 asks for a taint)",)
    return ClusterSettings(**common, database_pool=database, monitoring_pool=monitoring, existing=existing, notes=notes)


def _monitoring_nodes(observed: tuple[ObservedNode, ...], labels: dict[str, str]) -> tuple[ObservedPool, tuple[Taint, ...]]:
    """The monitoring pool and the taints all its nodes carry: its pods tolerate exactly those."""
    candidates = select_pool(observed, labels, [{"operator": "Exists"}], key="monitoringPoolLabels")
    taints = tuple(Taint(str(t.get("key")), str(t.get("value") or ""), str(t.get("effect")))
                   for t in candidates.common_blocking_taints())
    pool = select_pool(observed, labels, [taint.as_toleration() for taint in taints], key="monitoringPoolLabels")
    return pool, taints


def _check_disjoint(database: ObservedPool, monitoring: ObservedPool) -> None:
    shared = sorted({node.name for node in database.nodes} & {node.name for node in monitoring.nodes})
    if shared:
        raise InputError("monitoringPoolLabels", f"node(s) {', '.join(shared)} carry both pools' labels: PMM and sysbench "
                                                 "would run beside mysqld", rule="K4")


def _observed_count(v: _Values, pool: ObservedPool, cluster_size: int, labels: dict[str, str]) -> int:
    wanted = ",".join(f"{k}={val}" for k, val in labels.items())
    if pool.count < cluster_size:
        raise InputError("clusterSize", f"{cluster_size} members need {cluster_size} database nodes (one member per node, "
                                        f"required anti-affinity); the cluster has {pool.count} schedulable node(s) "
                                        f"carrying {wanted}", rule="K5")
    if v.explicit("databaseNodeCount") and v.integer("databaseNodeCount", 1) > pool.count:
        raise InputError("databaseNodeCount", f"{v.integer('databaseNodeCount', 1)} database nodes configured, but the "
                                              f"cluster has {pool.count} schedulable node(s) carrying {wanted}", rule="K5")
    return pool.count


def _observed_budget(v: _Values, pool: ObservedPool, daemonset: tuple[int, int], machine_type: str,
                     monitoring: bool = False) -> NodeBudget:
    """The smallest node of ``pool`` as a K1 budget; configured values may only be smaller (they are checked)."""
    cpu_node, memory_node = pool.smallest_cpu(), pool.smallest_memory()
    # A configured DaemonSet reserve is a floor: it may cover DaemonSets not installed yet.
    daemonset_cpu = max(cpu_node.daemonset_cpu_millicores, daemonset[0] or 0)
    daemonset_memory = max(memory_node.daemonset_memory_bytes, daemonset[1] or 0)
    observed = NodeBudget(
        machine=None,
        provider="existing",
        capacity_cpu_millicores=cpu_node.allocatable_cpu_millicores,
        capacity_memory_bytes=memory_node.allocatable_memory_bytes,
        reserved_cpu_millicores=0,
        reserved_memory_bytes=0,
        eviction_memory_bytes=0,
        daemonset_cpu_millicores=daemonset_cpu,
        daemonset_memory_bytes=daemonset_memory,
        max_pods=min(node.allocatable_pods for node in pool.nodes) or DEFAULT_MAX_PODS,
        notes=(f"existing cluster: allocatable of node {cpu_node.name} (CPU) and {memory_node.name} (memory), the smallest "
               "of the pool as the kubelet reports them, minus the requests of their DaemonSet pods",),
    )
    if observed.usable_cpu_millicores <= 0 or observed.usable_memory_bytes <= 0:
        raise InputError("daemonsetCpu" if observed.usable_cpu_millicores <= 0 else "daemonsetMemory",
                         f"DaemonSets leave nothing of node {memory_node.name}'s allocatable", rule="K1")
    key = "monitoringNodeType" if monitoring else "databaseNodeType"
    if machine_type:
        claimed = _catalog_budget(machine_type, key, daemonset)
        _no_larger(key, claimed, observed, pool)
        return claimed
    if not monitoring and (v.text("existingNodeCpu") or v.text("existingNodeMemory")):
        claimed = _configured_budget(v, daemonset)
        _no_larger("existingNodeMemory" if claimed.capacity_memory_bytes > observed.capacity_memory_bytes else "existingNodeCpu",
                   claimed, observed, pool)
        return claimed
    return observed


def _no_larger(key: str, claimed: NodeBudget, observed: NodeBudget, pool: ObservedPool) -> None:
    """Config may plan for less than the cluster has, never for more (the pods would stay Pending)."""
    if claimed.usable_cpu_millicores > observed.usable_cpu_millicores:
        raise InputError(key, f"plans {format_cpu(claimed.usable_cpu_millicores)} CPU per node but the cluster's smallest "
                              f"node offers {format_cpu(observed.usable_cpu_millicores)} after DaemonSets ({pool.describe()})", rule="K5")
    if claimed.usable_memory_bytes > observed.usable_memory_bytes:
        raise InputError(key, f"plans {format_memory(claimed.usable_memory_bytes)} per node but the cluster's smallest node "
                              f"offers {format_memory(observed.usable_memory_bytes)} after DaemonSets ({pool.describe()})", rule="K5")


def _catalog_budget(name: str, key: str, daemonset: tuple[int, int]) -> NodeBudget:
    machine = _lookup(name, key)
    return _budget(machine.name, machine.provider, key, daemonset)


def _lookup(name: str, key: str) -> MachineType:
    try:
        return lookup(name)
    except InputError as error:
        raise _rekey(error, key) from None


def _configured_budget(v: _Values, daemonset: tuple[int | None, int | None]) -> NodeBudget:
    """A node budget from allocatable as ``kubectl describe node`` reports it (existingNodeCpu/Memory).

    An existing cluster's DaemonSets are unknown when planning offline: unset requests count as 0 (declare them).
    """
    daemonset = (daemonset[0] or 0, daemonset[1] or 0)
    hint = "set databaseNodeType (a catalog machine) or existingNodeCpu and existingNodeMemory (one database node's allocatable)"
    if not v.text("existingNodeCpu"):
        raise InputError("existingNodeCpu", f"the existing target cannot size against an unknown node: {hint}", rule="K1")
    if not v.text("existingNodeMemory"):
        raise InputError("existingNodeMemory", f"the existing target cannot size against an unknown node: {hint}", rule="K1")
    cpu = _quantity(v, "existingNodeCpu", cpu_to_millicores)
    memory = _quantity(v, "existingNodeMemory", memory_to_bytes)
    if cpu <= 0:
        raise InputError("existingNodeCpu", "allocatable CPU must be positive", rule="K1")
    if memory <= 0:
        raise InputError("existingNodeMemory", "allocatable memory must be positive", rule="K1")
    if cpu > MAX_MACHINE_CPU_MILLICORES:
        raise InputError("existingNodeCpu", f"{format_cpu(cpu)} is more CPU than any node has (8192 CPUs, Linux's most)", rule="K1")
    _no_machine_has_more(memory, "existingNodeMemory", v.text("existingNodeMemory"))
    if daemonset[0] > cpu:
        raise InputError("daemonsetCpu", f"{daemonset[0]}m exceeds the {cpu}m allocatable of existingNodeCpu", rule="K1")
    if daemonset[1] > memory:
        raise InputError("daemonsetMemory", f"{daemonset[1]} bytes exceed the {memory} bytes allocatable of existingNodeMemory", rule="K1")
    return NodeBudget(
        machine=None,
        provider="existing",
        capacity_cpu_millicores=cpu,
        capacity_memory_bytes=memory,
        reserved_cpu_millicores=0,
        reserved_memory_bytes=0,
        eviction_memory_bytes=0,
        daemonset_cpu_millicores=daemonset[0],
        daemonset_memory_bytes=daemonset[1],
        max_pods=DEFAULT_MAX_PODS,
        notes=("existing cluster: allocatable from existingNodeCpu/existingNodeMemory as the kubelet reports it "
               "(reserves and eviction threshold already subtracted)",),
    )
