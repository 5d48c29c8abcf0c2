"""A pod's QoS class, as the API server computes it when the pod is created (``status.qosClass``).

Two steps of kubernetes v1.36.3, read in its source:

1. Defaulting (pkg/apis/core/v1/defaults.go ``SetDefaults_Pod``): in every container and init container, a resource
   with a limit and no request gets the limit as its request. A pod template (a StatefulSet's) is not defaulted;
   the pod made from it is.
2. ``ComputePodQOS`` (pkg/apis/core/helper/qos/qos.go), over containers and init containers alike, CPU and memory
   only, quantities above zero only: no request and no limit anywhere is ``BestEffort``; ``Guaranteed`` when every
   container has a CPU and a memory limit and, summed over all containers, each resource's requests equal its
   limits; anything else ``Burstable``. (Pod-level ``spec.resources`` would decide instead; the operators never
   write it.)

Amounts are integers, CPU in millicores and memory in bytes, as :mod:`percona_mysql_k8s.core.units` reads them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

GUARANTEED, BURSTABLE, BEST_EFFORT = "Guaranteed", "Burstable", "BestEffort"
RESOURCES = ("cpu", "memory")


@dataclass(frozen=True)
class ContainerAmounts:
    """One container's requests and limits; None where unset (or set to zero: the QoS ignores it)."""

    cpu_request: int | None = None
    cpu_limit: int | None = None
    memory_request: int | None = None
    memory_limit: int | None = None

    def defaulted(self) -> ContainerAmounts:
        """The container as the API server stores it in a pod: an unset request takes the limit."""
        return ContainerAmounts(
            self.cpu_request if self.cpu_request is not None else self.cpu_limit,
            self.cpu_limit,
            self.memory_request if self.memory_request is not None else self.memory_limit,
            self.memory_limit,
        )

    def requests(self) -> dict[str, int]:
        return _positive({"cpu": self.cpu_request, "memory": self.memory_request})

    def limits(self) -> dict[str, int]:
        return _positive({"cpu": self.cpu_limit, "memory": self.memory_limit})


def _positive(amounts: dict[str, int | None]) -> dict[str, int]:
    return {name: amount for name, amount in amounts.items() if amount is not None and amount > 0}


def pod_qos_class(containers: Iterable[ContainerAmounts]) -> str:
    """The QoS class of a pod whose containers and init containers are ``containers`` (as written in its template)."""
    requests: dict[str, int] = {}
    limits: dict[str, int] = {}
    guaranteed = True
    for container in containers:
        container = container.defaulted()
        for name, amount in container.requests().items():
            requests[name] = requests.get(name, 0) + amount
        found = container.limits()
        for name, amount in found.items():
            limits[name] = limits.get(name, 0) + amount
        if not all(name in found for name in RESOURCES):
            guaranteed = False
    if not requests and not limits:
        return BEST_EFFORT
    if guaranteed and all(limits.get(name) == amount for name, amount in requests.items()) and len(requests) == len(limits):
        return GUARANTEED
    return BURSTABLE
