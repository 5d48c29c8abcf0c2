"""Probes (rule K6): the operators' defaults, never shortened, lengthened where load demands.

Defaults are the operators' ``CheckNSetDefaults`` values (INTERFACES §2.6 for PXC, §3.5 for PS). A
mysqld that is applying a failover backlog is slow but healthy, so its liveness timeout covers the
brownout estimate (F5) rather than killing the pod in the middle of it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from types import MappingProxyType


@dataclass(frozen=True)
class Probe:
    initialDelaySeconds: int
    timeoutSeconds: int
    periodSeconds: int
    successThreshold: int
    failureThreshold: int

    def as_dict(self) -> dict[str, int]:
        return dict(self.__dict__)


# (engine, component) -> {probe kind -> default}
OPERATOR_DEFAULTS = MappingProxyType(
    {
        ("pxc", "mysqld"): {"readiness": Probe(15, 15, 30, 1, 5), "liveness": Probe(300, 5, 10, 1, 3)},
        ("pxc", "haproxy"): {"readiness": Probe(15, 1, 5, 1, 3), "liveness": Probe(60, 5, 30, 1, 4)},
        ("pxc", "proxysql"): {"readiness": Probe(15, 1, 5, 1, 3), "liveness": Probe(60, 5, 30, 1, 4)},
        ("group-replication", "mysqld"): {"readiness": Probe(30, 3, 5, 1, 3), "liveness": Probe(15, 10, 10, 1, 3)},
        ("group-replication", "haproxy"): {"readiness": Probe(15, 1, 5, 1, 3), "liveness": Probe(60, 3, 30, 1, 4)},
        ("group-replication", "router"): {"readiness": Probe(0, 3, 5, 1, 3), "liveness": Probe(0, 3, 5, 1, 3)},
    }
)


def probes_for(engine: str, component: str, brownout_seconds: float) -> dict[str, Probe]:
    defaults = OPERATOR_DEFAULTS[(engine, component)]
    if component != "mysqld":
        return dict(defaults)
    liveness = defaults["liveness"]
    timeout = (
        max(liveness.timeoutSeconds, math.ceil(brownout_seconds)) if math.isfinite(brownout_seconds) else liveness.timeoutSeconds
    )
    return {"readiness": defaults["readiness"], "liveness": replace(liveness, timeoutSeconds=timeout)}
