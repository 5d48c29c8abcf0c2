"""Pieces every pod the database layer writes shares: resources, labels, placement, security (as data).

Pure (no Pulumi): the custom resources (manifests, backup_manifests) and the Jobs and charts of the
components (sysbench, PMM, the operator) are written with the same four pieces.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from percona_mysql_k8s.core.pools import PoolShape
from percona_mysql_k8s.core.sidecars import ContainerSize
from percona_mysql_k8s.core.units import format_cpu, format_memory


def resources(size: ContainerSize, cpu_limit: bool = True) -> dict[str, dict[str, str]]:
    """Request = limit (K2, K3; Guaranteed QoS): memory always, CPU unless ``cpu_limit`` is off."""
    amounts = {"cpu": format_cpu(size.cpu_millicores), "memory": format_memory(size.memory_bytes)}
    limits = dict(amounts) if cpu_limit else {"memory": amounts["memory"]}
    return {"requests": dict(amounts), "limits": limits}


def pool_scheduling(pool: PoolShape) -> dict[str, Any]:
    """nodeSelector + the pool's own tolerations: a monitoring pod never tolerates the database taint (K4).

    Built by :mod:`percona_mysql_k8s.core.scheduling` (no ``tolerations`` key when the pool has no
    taint: the API server drops an empty list, and Pulumi would then see a difference that is not there)."""
    return pool.placement().as_pod_spec()


def restricted_security() -> tuple[dict[str, Any], dict[str, Any]]:
    """(pod, container) security contexts for the helper Jobs (Pod Security "restricted")."""
    pod = {"runAsNonRoot": True, "runAsUser": 1000, "runAsGroup": 1000, "seccompProfile": {"type": "RuntimeDefault"}}
    container = {"allowPrivilegeEscalation": False, "capabilities": {"drop": ["ALL"]}}
    return pod, container


def labels(component: str, instance: str, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    return {
        "app.kubernetes.io/name": component,
        "app.kubernetes.io/instance": instance,
        "app.kubernetes.io/part-of": "percona-mysql",
        "app.kubernetes.io/managed-by": "pulumi",
        **(extra or {}),
    }
