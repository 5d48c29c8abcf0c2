"""Small helpers shared by the database components (Pulumi side)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pulumi

from percona_mysql_k8s._extras import missing_extra

try:
    import pulumi_kubernetes as k8s
except ModuleNotFoundError as missing:  # a provider SDK of an extra (pyproject.toml): say which one installs it
    raise missing_extra(missing, __name__) from None

from percona_mysql_k8s.clusters.target import ClusterTarget
from percona_mysql_k8s.core.pools import PoolShape
from percona_mysql_k8s.core.sidecars import ContainerSize
from percona_mysql_k8s.core.units import format_cpu, format_memory

from .sources import ChartSource


def child_options(
    parent: pulumi.Resource,
    provider: k8s.Provider,
    depends_on: Sequence[pulumi.Resource] = (),
    **extra: Any,
) -> pulumi.ResourceOptions:
    return pulumi.ResourceOptions(parent=parent, provider=provider, depends_on=list(depends_on), **extra)


def create_namespace(name: str, target: ClusterTarget, *, protect: bool = False,
                     opts: pulumi.ResourceOptions | None = None) -> k8s.core.v1.Namespace:
    """The database namespace, after everything the target needs (node pools) exists.

    ``protect`` on persistent stacks: deleting a namespace deletes every PVC in it.
    """
    base = pulumi.ResourceOptions(provider=target.provider, depends_on=list(target.ready), protect=protect)
    return k8s.core.v1.Namespace(
        f"{name}-namespace",
        metadata={"name": name, "labels": {"app.kubernetes.io/managed-by": "pulumi"}},
        opts=pulumi.ResourceOptions.merge(base, opts),
    )


def pod_resources(size: ContainerSize, *, cpu_limit: bool = True) -> dict[str, dict[str, str]]:
    """request = limit for memory always; for CPU unless ``cpu_limit`` is off (K2, K3)."""
    cpu, memory = format_cpu(size.cpu_millicores), format_memory(size.memory_bytes)
    limits = {"cpu": cpu, "memory": memory} if cpu_limit else {"memory": memory}
    return {"requests": {"cpu": cpu, "memory": memory}, "limits": limits}


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


def release_chart(source: ChartSource) -> dict:
    """``chart``, ``version`` and ``repository_opts`` of a ``helm.v3.Release`` for a chart source: a local
    path or an ``oci://`` reference goes in ``chart`` alone, a repository (public or mirror) in
    ``repository_opts.repo`` (pulumi-kubernetes helm.v3.Release; see database.sources)."""
    arguments: dict = {"chart": source.chart}
    if source.version is not None:
        arguments["version"] = source.version
    if source.repository is not None:
        arguments["repository_opts"] = k8s.helm.v3.RepositoryOptsArgs(repo=source.repository)
    return arguments
