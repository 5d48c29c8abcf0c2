"""Small helpers shared by the database components (Pulumi side); the pods' pieces as data are
:mod:`percona_mysql_k8s.plan.database.pods`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pulumi

from percona_mysql_k8s._extras import missing_extra

try:
    import pulumi_kubernetes as k8s
    import pulumi_random as random
except ModuleNotFoundError as missing:  # a provider SDK of an extra (pyproject.toml): say which one installs it
    raise missing_extra(missing, __name__) from None

from percona_mysql_k8s.clusters.target import ClusterTarget
from percona_mysql_k8s.plan.database.sources import ChartSource


def child_options(
    parent: pulumi.Resource,
    provider: k8s.Provider,
    depends_on: Sequence[pulumi.Resource] = (),
    **extra: Any,
) -> pulumi.ResourceOptions:
    return pulumi.ResourceOptions(parent=parent, provider=provider, depends_on=list(depends_on), **extra)


def generated_password(name: str, parent: pulumi.Resource) -> random.RandomPassword:
    """Alphanumeric, 24 characters (~140 bits): nothing the operators forbid (``;``, ``:``, a leading
    ``*`` for proxyadmin, quotes, ``\\``, ``/``, ``|``, backtick) and nothing a shell or SQL quote
    could trip over. The clusters' users, the sysbench user and PMM's admin all get one."""
    return random.RandomPassword(
        name,
        length=24,
        special=False,
        min_lower=1,
        min_upper=1,
        min_numeric=1,
        opts=pulumi.ResourceOptions(parent=parent),
    )


def create_namespace(
    name: str, target: ClusterTarget, *, protect: bool = False, opts: pulumi.ResourceOptions | None = None
) -> k8s.core.v1.Namespace:
    """The database namespace, after everything the target needs (node pools) exists.

    ``protect`` on persistent stacks: deleting a namespace deletes every PVC in it.
    """
    base = pulumi.ResourceOptions(provider=target.provider, depends_on=list(target.ready), protect=protect)
    return k8s.core.v1.Namespace(
        f"{name}-namespace",
        metadata={"name": name, "labels": {"app.kubernetes.io/managed-by": "pulumi"}},
        opts=pulumi.ResourceOptions.merge(base, opts),
    )


def release_chart(source: ChartSource) -> dict:
    """``chart``, ``version`` and ``repository_opts`` of a ``helm.v3.Release`` for a chart source: a local
    path or an ``oci://`` reference goes in ``chart`` alone, a repository (public or mirror) in
    ``repository_opts.repo`` (pulumi-kubernetes helm.v3.Release; see plan.database.sources)."""
    arguments: dict = {"chart": source.chart}
    if source.version is not None:
        arguments["version"] = source.version
    if source.repository is not None:
        arguments["repository_opts"] = k8s.helm.v3.RepositoryOptsArgs(repo=source.repository)
    return arguments
