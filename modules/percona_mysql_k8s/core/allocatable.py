"""The allocatable model (rule K1): what a node really offers to the database pods.

usable = capacity − kube/system reserved − eviction threshold − DaemonSet requests. Sizing runs against
``usable``, never against the machine's capacity (seed 000: a 16 CPU / 64 GB node is really ~14 CPU /
~58 GB). CPU is in integer millicores, memory in integer bytes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from fractions import Fraction
from numbers import Real

from .errors import InputError
from .machines import PROVIDERS, MachineType, lookup
from .units import GIB, MIB

# ---- K1 constants (docs/rules.md K1, source 000). The rule catalogue imports these: keep them the only copy. ----
# A ladder is a tuple of (tier size, fraction reserved of that tier), applied from the bottom up;
# a tier size of None means "everything above the previous tiers".
ReserveLadder = tuple[tuple[int | None, Fraction], ...]

# GKE memory: 25% of the first 4 GiB, 20% of the next 4, 10% of the next 8, 6% of the next 112, 2% above 128.
GKE_MEMORY_RESERVE_LADDER: ReserveLadder = (
    (4 * GIB, Fraction(25, 100)),
    (4 * GIB, Fraction(20, 100)),
    (8 * GIB, Fraction(10, 100)),
    (112 * GIB, Fraction(6, 100)),
    (None, Fraction(2, 100)),
)
# GKE CPU (millicores): 6% of the first core, 1% of the next, 0.5% of the next 2, 0.25% above 4.
GKE_CPU_RESERVE_LADDER: ReserveLadder = (
    (1000, Fraction(6, 100)),
    (1000, Fraction(1, 100)),
    (2000, Fraction(5, 1000)),
    (None, Fraction(25, 10000)),
)
# EKS AMIs reserve CPU with the GKE ladder (cpu_reserve_millicores) and memory as a function of the node's max pods.
EKS_MEMORY_BASE_BYTES = 255 * MIB
EKS_MEMORY_PER_POD_BYTES = 11 * MIB
# kubelet's hard eviction threshold memory.available<100Mi, on GKE, EKS and kind alike.
EVICTION_MEMORY_BYTES = 100 * MIB
# kubelet's default maxPods; the GKE Standard per-node maximum; the EKS fallback when ENI limits are unknown.
DEFAULT_MAX_PODS = 110


@dataclass(frozen=True)
class DaemonSetOverhead:
    """The requests of the system DaemonSets a provider runs on every node, with where the figure comes from."""

    cpu_millicores: int
    memory_bytes: int
    components: str
    source: str


# K1: what the providers' own DaemonSets request per node when the stack does not say (daemonsetCpu /
# daemonsetMemory override it). They tolerate every taint, so they land on the database pool too.
DEFAULT_DAEMONSETS: dict[str, DaemonSetOverhead] = {
    # Seed 000's worked GKE node (`kubectl describe node`, 16 CPU / 64 GB): "cpu 702m (4%) ... memory 645Mi
    # (1%)" requested by system pods. Measured GKE 1.27 clusters request 228-344m / 480-596Mi for the
    # DaemonSets alone (2i2c-org/infrastructure, deployer/.../daemonset_requests.yaml), plus the 100m of
    # GKE's kube-proxy static pod: the seed's figure covers both.
    "gke": DaemonSetOverhead(
        702,
        645 * MIB,
        "kube-proxy (static pod), fluentbit-gke, gke-metrics-agent, netd, pdcsi-node, gke-metadata-server, "
        "calico-node/anetd, ip-masq-agent",
        "seed 000: 702m / 645Mi requested on the worked n2-standard-16 node",
    ),
    # EKS managed add-ons: aws-node (VPC CNI), kube-proxy, ebs-csi-node. Measured on EKS 1.27-1.29 with
    # two small agents besides: 170-195m / 250Mi (2i2c-org/infrastructure daemonset_requests.yaml),
    # rounded up.
    "eks": DaemonSetOverhead(
        200,
        256 * MIB,
        "aws-node, kube-proxy, ebs-csi-node",
        "measured 170-195m / 250Mi on EKS 1.27-1.29 nodes, rounded up",
    ),
    # kind runs kindnet (its manifest requests 100m / 50Mi); its kube-proxy requests nothing.
    "kind": DaemonSetOverhead(100, 50 * MIB, "kindnet", "kind's kindnetd manifest: 100m / 50Mi"),
}

# K1/K5: a margin kept free on every node beyond the DaemonSets above. DaemonSet requests drift with
# versions and features (the measured GKE clusters differ by 116m / 116Mi with network policy and the
# metrics agent on or off), and a platform team may add an agent: 2% of the allocatable, at least
# 100m and 128 MiB, so a pod sized here still schedules.
NODE_MARGIN_FRACTION = Fraction(2, 100)
NODE_MARGIN_MIN_CPU_MILLICORES = 100
NODE_MARGIN_MIN_MEMORY_BYTES = 128 * MIB


def node_margin(allocatable_cpu_millicores: int, allocatable_memory_bytes: int) -> tuple[int, int]:
    """(CPU millicores, memory bytes) kept free on a node of this allocatable (K1, K5), rounded up."""
    cpu = max(NODE_MARGIN_MIN_CPU_MILLICORES, math.ceil(allocatable_cpu_millicores * NODE_MARGIN_FRACTION))
    memory = max(NODE_MARGIN_MIN_MEMORY_BYTES, math.ceil(allocatable_memory_bytes * NODE_MARGIN_FRACTION))
    return cpu, memory


@dataclass(frozen=True)
class Allocatable:
    """CPU, memory and pod slots a node offers, with notes on how they were derived."""

    cpu_millicores: int
    memory_bytes: int
    max_pods: int
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class NodeBudget:
    """Every term of K1 for one node, so a report can print the whole subtraction.

    ``machine`` is None for a kind node (a share of the host, not a catalog machine).
    """

    machine: MachineType | None
    provider: str
    capacity_cpu_millicores: int
    capacity_memory_bytes: int
    reserved_cpu_millicores: int
    reserved_memory_bytes: int
    eviction_memory_bytes: int
    daemonset_cpu_millicores: int
    daemonset_memory_bytes: int
    max_pods: int
    notes: tuple[str, ...] = ()
    margin_cpu_millicores: int = 0
    margin_memory_bytes: int = 0

    @property
    def allocatable_cpu_millicores(self) -> int:
        return self.capacity_cpu_millicores - self.reserved_cpu_millicores

    @property
    def allocatable_memory_bytes(self) -> int:
        return self.capacity_memory_bytes - self.reserved_memory_bytes - self.eviction_memory_bytes

    @property
    def usable_cpu_millicores(self) -> int:
        return max(0, self.allocatable_cpu_millicores - self.daemonset_cpu_millicores - self.margin_cpu_millicores)

    @property
    def usable_memory_bytes(self) -> int:
        return max(0, self.allocatable_memory_bytes - self.daemonset_memory_bytes - self.margin_memory_bytes)

    @property
    def allocatable(self) -> Allocatable:
        """The node's allocatable as the kubelet reports it (DaemonSets not yet subtracted)."""
        cpu, memory = self.allocatable_cpu_millicores, self.allocatable_memory_bytes
        return Allocatable(cpu, memory, self.max_pods, self.notes)

    @property
    def usable(self) -> Allocatable:
        """What is left for the workload pods once the DaemonSets are placed: what sizing fits against."""
        return Allocatable(self.usable_cpu_millicores, self.usable_memory_bytes, self.max_pods, self.notes)

    def terms(self) -> tuple[tuple[str, int, int], ...]:
        """(label, CPU millicores, memory bytes) rows of the K1 subtraction, in reading order."""
        return (
            ("capacity", self.capacity_cpu_millicores, self.capacity_memory_bytes),
            ("- kube/system reserved", self.reserved_cpu_millicores, self.reserved_memory_bytes),
            ("- eviction threshold", 0, self.eviction_memory_bytes),
            ("= allocatable", self.allocatable_cpu_millicores, self.allocatable_memory_bytes),
            ("- DaemonSet requests", self.daemonset_cpu_millicores, self.daemonset_memory_bytes),
            ("- scheduling margin", self.margin_cpu_millicores, self.margin_memory_bytes),
            ("= usable", self.usable_cpu_millicores, self.usable_memory_bytes),
        )


def ladder_reserve(amount: int, ladder: ReserveLadder) -> int:
    """The reserve a ladder takes from ``amount``, computed exactly and rounded up.

    Rounding the reserve up (never down) means usable capacity is never overstated.
    """
    remaining = amount
    reserve = Fraction(0)
    for size, fraction in ladder:
        tier = remaining if size is None else min(remaining, size)
        reserve += tier * fraction
        remaining -= tier
        if remaining <= 0:
            break
    return math.ceil(reserve)


def gke_memory_reserve_bytes(capacity_memory_bytes: int) -> int:
    return ladder_reserve(capacity_memory_bytes, GKE_MEMORY_RESERVE_LADDER)


def cpu_reserve_millicores(capacity_cpu_millicores: int) -> int:
    """The GKE ladder, which EKS AMIs use too."""
    return ladder_reserve(capacity_cpu_millicores, GKE_CPU_RESERVE_LADDER)


def eks_memory_reserve_bytes(max_pods: int) -> int:
    return EKS_MEMORY_BASE_BYTES + EKS_MEMORY_PER_POD_BYTES * max_pods


def eks_max_pods(machine: MachineType) -> tuple[int, str]:
    """Max pods of an EKS node with the VPC CNI (one IP per pod) and a note saying how it was derived."""
    if machine.max_enis is None or machine.ipv4_per_eni is None:
        return DEFAULT_MAX_PODS, (
            f"ENI limits of {machine.name} are unknown, so max pods cannot be derived as "
            f"ENIs × (IPv4 per ENI − 1) + 2: assumed {DEFAULT_MAX_PODS} (kubelet's default maxPods), "
            "which also sets the EKS memory reserve"
        )
    max_pods = machine.max_enis * (machine.ipv4_per_eni - 1) + 2
    return max_pods, (
        f"max pods {max_pods} = {machine.max_enis} ENIs × ({machine.ipv4_per_eni} IPv4 per ENI − 1) + 2 (VPC CNI, one IP per pod)"
    )


def _overhead(value: object, key: str, default: int) -> int:
    """A DaemonSet request as given; None means the provider's default (K1)."""
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputError(key, f"{value!r} is not a whole number", rule="K1")
    if value < 0:
        raise InputError(key, f"{value} is negative: DaemonSet requests cannot be", rule="K1")
    return value


def _check_fits(budget: NodeBudget) -> NodeBudget:
    """DaemonSets that request more than the node's allocatable leave no room: refuse the node."""
    name = budget.machine.name if budget.machine else f"{budget.provider} node"
    if budget.daemonset_cpu_millicores > budget.allocatable_cpu_millicores:
        raise InputError(
            "daemonset_cpu",
            f"{budget.daemonset_cpu_millicores}m exceeds the {budget.allocatable_cpu_millicores}m allocatable of {name}",
            rule="K1",
        )
    if budget.daemonset_memory_bytes > budget.allocatable_memory_bytes:
        raise InputError(
            "daemonset_memory",
            f"{budget.daemonset_memory_bytes} bytes exceed the {budget.allocatable_memory_bytes} bytes allocatable of {name}",
            rule="K1",
        )
    return budget


def _with_margin(budget: NodeBudget) -> NodeBudget:
    cpu, memory = node_margin(budget.allocatable_cpu_millicores, budget.allocatable_memory_bytes)
    notes = budget.notes + (
        f"K1: {budget.daemonset_cpu_millicores}m / {budget.daemonset_memory_bytes // MIB} MiB of DaemonSet requests "
        f"and a scheduling margin of {cpu}m / {memory // MIB} MiB (2% of allocatable, at least 100m / 128 MiB) "
        "are left free on every node",
    )
    return replace(budget, margin_cpu_millicores=cpu, margin_memory_bytes=memory, notes=notes)


def node_budget(
    machine: str | MachineType,
    provider: str,
    daemonset_cpu_millicores: int | None = None,
    daemonset_memory_bytes: int | None = None,
) -> NodeBudget:
    """The K1 budget of one GKE or EKS node of a catalog machine type.

    DaemonSet requests left as None take the provider's default (:data:`DEFAULT_DAEMONSETS`); 0 says the
    node runs none. The scheduling margin (:func:`node_margin`) is always kept.
    """
    if not isinstance(provider, str) or provider.strip().lower() not in PROVIDERS:
        raise InputError("provider", f"{provider!r} is not one of {', '.join(PROVIDERS)}", rule="K1")
    provider = provider.strip().lower()
    if not isinstance(machine, MachineType):
        machine = lookup(machine)
    if machine.provider != provider:
        raise InputError(
            "provider", f"node type {machine.name} is a machine type of {machine.provider}, not of {provider}", rule="K1"
        )
    default = DEFAULT_DAEMONSETS[provider]
    daemonset_cpu = _overhead(daemonset_cpu_millicores, "daemonset_cpu", default.cpu_millicores)
    daemonset_memory = _overhead(daemonset_memory_bytes, "daemonset_memory", default.memory_bytes)

    if provider == "gke":
        max_pods, pods_note = DEFAULT_MAX_PODS, f"GKE Standard: at most {DEFAULT_MAX_PODS} pods per node"
        reserved_memory = gke_memory_reserve_bytes(machine.memory_bytes)
    else:
        max_pods, pods_note = eks_max_pods(machine)
        reserved_memory = eks_memory_reserve_bytes(max_pods)

    return _with_margin(
        _check_fits(
            NodeBudget(
                machine=machine,
                provider=provider,
                capacity_cpu_millicores=machine.cpu_millicores,
                capacity_memory_bytes=machine.memory_bytes,
                reserved_cpu_millicores=cpu_reserve_millicores(machine.cpu_millicores),
                reserved_memory_bytes=reserved_memory,
                eviction_memory_bytes=EVICTION_MEMORY_BYTES,
                daemonset_cpu_millicores=daemonset_cpu,
                daemonset_memory_bytes=daemonset_memory,
                max_pods=max_pods,
                notes=(pods_note,),
            )
        )
    )


def _host_amount(value: object, key: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise InputError(key, f"{value!r} is not a positive whole number", rule="K1")
    return value


def kind_node_budget(
    host_cpu_millicores: int,
    host_memory_bytes: int,
    share: float,
    daemonset_cpu_millicores: int | None = None,
    daemonset_memory_bytes: int | None = None,
) -> NodeBudget:
    """The K1 budget of a kind node modeled as ``share`` (0 < share ≤ 1) of the host.

    kind nodes are containers on one host: no kube/system reservation is configured, only kubelet's
    default eviction threshold applies. The share of the host is rounded down so capacity is never
    overstated.
    """
    host_cpu = _host_amount(host_cpu_millicores, "host_cpu_millicores")
    host_memory = _host_amount(host_memory_bytes, "host_memory_bytes")
    if isinstance(share, bool) or not isinstance(share, Real) or not math.isfinite(share) or not 0 < share <= 1:
        raise InputError("kind.hostShare", f"{share!r} must be a number with 0 < share ≤ 1", rule="K1")
    exact_share = Fraction(share)
    capacity_cpu = math.floor(host_cpu * exact_share)
    capacity_memory = math.floor(host_memory * exact_share)
    if capacity_cpu <= 0 or capacity_memory <= EVICTION_MEMORY_BYTES:
        raise InputError(
            "kind.hostShare",
            f"{share!r} of the host leaves {capacity_cpu}m CPU and {capacity_memory} bytes, nothing above "
            f"the {EVICTION_MEMORY_BYTES} bytes eviction threshold",
            rule="K1",
        )
    kindnet = DEFAULT_DAEMONSETS["kind"]  # no margin: kind's DaemonSets are fixed by its own manifest
    defaulted = daemonset_cpu_millicores is None or daemonset_memory_bytes is None
    if defaulted and (capacity_cpu <= kindnet.cpu_millicores or capacity_memory - EVICTION_MEMORY_BYTES <= kindnet.memory_bytes):
        raise InputError(
            "kind.hostShare",
            f"{share!r} of the host leaves {capacity_cpu}m CPU and {capacity_memory} bytes, not more than kindnet's "
            f"{kindnet.cpu_millicores}m / {kindnet.memory_bytes} bytes of requests",
            rule="K1",
        )
    return _check_fits(
        NodeBudget(
            machine=None,
            provider="kind",
            capacity_cpu_millicores=capacity_cpu,
            capacity_memory_bytes=capacity_memory,
            reserved_cpu_millicores=0,
            reserved_memory_bytes=0,
            eviction_memory_bytes=EVICTION_MEMORY_BYTES,
            daemonset_cpu_millicores=_overhead(daemonset_cpu_millicores, "daemonset_cpu", kindnet.cpu_millicores),
            daemonset_memory_bytes=_overhead(daemonset_memory_bytes, "daemonset_memory", kindnet.memory_bytes),
            max_pods=DEFAULT_MAX_PODS,
            notes=(
                (
                    f"kind: node modeled as {float(exact_share):.0%} of the host; no kube/system reservation, "
                    f"eviction at memory.available<100Mi, at most {DEFAULT_MAX_PODS} pods"
                ),
            ),
        )
    )


def reported_node_budget(
    allocatable_cpu_millicores: int,
    allocatable_memory_bytes: int,
    daemonset_cpu_millicores: int,
    daemonset_memory_bytes: int,
    max_pods: int,
    note: str,
) -> NodeBudget:
    """The K1 budget of an existing cluster's node, known by its allocatable as the kubelet reports it (read from
    the Node or declared in config). The kube/system reserves and the eviction threshold are already subtracted
    from that figure, so they count zero here; no catalog machine, and no scheduling margin (GKE and EKS only)."""
    return NodeBudget(
        machine=None,
        provider="existing",
        capacity_cpu_millicores=allocatable_cpu_millicores,
        capacity_memory_bytes=allocatable_memory_bytes,
        reserved_cpu_millicores=0,
        reserved_memory_bytes=0,
        eviction_memory_bytes=0,
        daemonset_cpu_millicores=daemonset_cpu_millicores,
        daemonset_memory_bytes=daemonset_memory_bytes,
        max_pods=max_pods,
        notes=(note,),
    )
