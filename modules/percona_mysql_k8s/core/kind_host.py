"""What a kind cluster costs the machine it runs on (rule K1), and what each kind worker is left with.

kind nodes are Docker containers on one host, started without CPU or memory limits, so every node's
kubelet reports the *whole* host as its capacity (cAdvisor reads the host's ``/proc``): Kubernetes itself
would let every node fill the host. Nothing but this model keeps the sum of all nodes' pods within the
machine. It subtracts, from the host as Docker sees it:

* the host's own share (``HOST_RESERVE``): the OS, the Docker engine and a desktop session;
* the control-plane node (``CONTROL_PLANE``): kubeadm's static pods and kind's add-ons;

and splits the rest equally between the workers. Each worker then loses its own node agents
(``WORKER_OVERHEAD``) and kubelet's eviction threshold, like the K1 reserve of a cloud node. The sum
over all workers of their capacity never exceeds what the host has left (the split rounds down).

CPU of kind's own pods is their requests (what kubeadm and kind declare); memory is their working set,
which is what an OOM on the host counts, and which for the API server is far above its (absent) request.
"""

from __future__ import annotations

from dataclasses import dataclass

from .allocatable import DEFAULT_MAX_PODS, EVICTION_MEMORY_BYTES, NodeBudget
from .errors import InputError
from .sidecars import ContainerSize
from .units import GIB, MIB

# The control-plane node. CPU: the requests kubeadm gives its static pods (cmd/kubeadm/app/phases/
# controlplane/manifests.go: kube-apiserver 250m, kube-controller-manager 200m, kube-scheduler 100m;
# etcd 100m in phases/etcd/local.go), CoreDNS 2 × 100m (its kubeadm Deployment) and kindnet's 100m (the
# CNI DaemonSet kind installs, kind pkg/build/nodeimage/const_cni.go): 950m. Memory: working sets of
# a small idle cluster, API server ~400 MiB, etcd ~100 MiB, controller-manager ~100 MiB, scheduler
# ~50 MiB, CoreDNS 2 × 70 MiB (its request), kubelet + containerd ~150 MiB, kindnet 50 MiB: 1 GiB.
CONTROL_PLANE = ContainerSize(950, 1 * GIB)
# Each worker: kindnet (100m / 50 MiB requests, as above) plus kubelet, containerd and kube-proxy,
# ~200 MiB of working set together.
WORKER_OVERHEAD = ContainerSize(100, 256 * MIB)
# The host itself: the OS, the Docker engine (dockerd + containerd) and a desktop session. Fixed, not a
# share, so a larger machine gives the cluster all its extra room.
HOST_RESERVE = ContainerSize(500, 2 * GIB)


@dataclass(frozen=True)
class KindHost:
    """The machine the kind nodes share, and where its size came from (for messages)."""

    cpu_millicores: int
    memory_bytes: int
    source: str = "this machine"

    @property
    def free_cpu_millicores(self) -> int:
        """CPU left for the workers once the host and the control plane have theirs."""
        return self.cpu_millicores - HOST_RESERVE.cpu_millicores - CONTROL_PLANE.cpu_millicores

    @property
    def free_memory_bytes(self) -> int:
        return self.memory_bytes - HOST_RESERVE.memory_bytes - CONTROL_PLANE.memory_bytes


def worker_budget(
    host: KindHost, workers: int, daemonset_cpu_millicores: int | None = 0, daemonset_memory_bytes: int | None = 0
) -> NodeBudget:
    """The K1 budget of one of ``workers`` kind workers sharing ``host`` equally.

    capacity = (host − host reserve − control plane) // workers; reserved = the worker's node agents;
    eviction = kubelet's ``memory.available<100Mi``. Raises InputError (K1) naming ``kindHostCpu`` or
    ``kindHostMemory`` when a worker would be left nothing.
    """
    # None is the provider's default DaemonSets: kind's kindnet, already in WORKER_OVERHEAD
    daemonset_cpu_millicores = daemonset_cpu_millicores or 0
    daemonset_memory_bytes = daemonset_memory_bytes or 0
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise InputError("workers", f"{workers!r}: a kind cluster needs at least one worker", rule="K1")
    capacity_cpu = host.free_cpu_millicores // workers
    capacity_memory = host.free_memory_bytes // workers
    agents_memory = WORKER_OVERHEAD.memory_bytes + EVICTION_MEMORY_BYTES
    if capacity_cpu <= WORKER_OVERHEAD.cpu_millicores:
        raise InputError(
            "kindHostCpu",
            f"{host.source} has {host.cpu_millicores}m CPU: after the host's "
            f"{HOST_RESERVE.cpu_millicores}m and the control plane's {CONTROL_PLANE.cpu_millicores}m, "
            f"{workers} kind workers get {max(capacity_cpu, 0)}m each, not more than their own node agents",
            rule="K1",
        )
    if capacity_memory <= agents_memory:
        raise InputError(
            "kindHostMemory",
            f"{host.source} has {host.memory_bytes // MIB} MiB: after the host's "
            f"{HOST_RESERVE.memory_bytes // MIB} MiB and the control plane's {CONTROL_PLANE.memory_bytes // MIB} MiB, "
            f"{workers} kind workers get {max(capacity_memory, 0) // MIB} MiB each, not more than their own node agents",
            rule="K1",
        )
    if daemonset_cpu_millicores > capacity_cpu - WORKER_OVERHEAD.cpu_millicores:
        raise InputError(
            "daemonset_cpu",
            f"{daemonset_cpu_millicores}m exceeds the "
            f"{capacity_cpu - WORKER_OVERHEAD.cpu_millicores}m allocatable of a kind worker",
            rule="K1",
        )
    if daemonset_memory_bytes > capacity_memory - agents_memory:
        raise InputError(
            "daemonset_memory",
            f"{daemonset_memory_bytes} bytes exceed the {capacity_memory - agents_memory} bytes allocatable of a kind worker",
            rule="K1",
        )
    return NodeBudget(
        machine=None,
        provider="kind",
        capacity_cpu_millicores=capacity_cpu,
        capacity_memory_bytes=capacity_memory,
        reserved_cpu_millicores=WORKER_OVERHEAD.cpu_millicores,
        reserved_memory_bytes=WORKER_OVERHEAD.memory_bytes,
        eviction_memory_bytes=EVICTION_MEMORY_BYTES,
        daemonset_cpu_millicores=daemonset_cpu_millicores,
        daemonset_memory_bytes=daemonset_memory_bytes,
        max_pods=DEFAULT_MAX_PODS,
        notes=(
            f"kind: {host.source} ({host.cpu_millicores}m CPU, {host.memory_bytes // MIB} MiB) less the host's "
            f"{HOST_RESERVE.cpu_millicores}m / {HOST_RESERVE.memory_bytes // MIB} MiB and the control plane's "
            f"{CONTROL_PLANE.cpu_millicores}m / {CONTROL_PLANE.memory_bytes // MIB} MiB, split between {workers} workers; "
            f"each loses {WORKER_OVERHEAD.cpu_millicores}m / {WORKER_OVERHEAD.memory_bytes // MIB} MiB to its node agents "
            "(the kubelet reports the whole host, so this model is what keeps the nodes within it)",
        ),
    )
