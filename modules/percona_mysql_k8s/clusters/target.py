"""What every cluster component hands to the database layer: one shape for GKE, EKS, kind and existing."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import pulumi

from percona_mysql_k8s._extras import missing_extra

try:
    import pulumi_kubernetes as k8s
except ModuleNotFoundError as missing:  # a provider SDK of an extra (pyproject.toml): say which one installs it
    raise missing_extra(missing, __name__) from None

from percona_mysql_k8s.core.pools import PoolShape


def real_engine() -> bool:
    """False under Pulumi's mocks (unit tests, the offline check): nothing is created there. A real engine, preview
    included, is where a component refuses what must never reach a provider."""
    from pulumi.runtime import mocks, settings

    return not isinstance(settings.SETTINGS.monitor, mocks.MockMonitor)


@dataclass(frozen=True)
class GcpFacts:
    """Where a GKE cluster lives: the backup bucket and its service account are created beside it."""

    project: str
    region: str


@dataclass(frozen=True)
class AwsFacts:
    """Where an EKS cluster lives. ``provider`` is the cluster's explicit AWS provider (its region), which
    every AWS resource beside the cluster must use; ``partition`` builds ARNs (``aws``, ``aws-cn``,
    ``aws-us-gov``)."""

    region: str
    partition: str
    provider: pulumi.ProviderResource


@dataclass(frozen=True)
class ClusterTarget:
    """``provider`` deploys into the cluster; ``ready`` are the resources (node pools, the kind cluster)
    every Kubernetes object must depend on, so destroy removes workloads before the nodes go. ``gcp`` /
    ``aws``: the cloud the cluster runs in (None for kind and existing clusters).

    ``shared_provider``: the same cluster, for cluster-wide objects that may exist before the stack (the operators'
    CRDs on a cluster that already runs an operator, another stack's, or this stack's own retained by an earlier
    destroy). Its create adopts such an object with server-side apply (``upsertExistingObjects``) where the
    provider's default create fails with "already exists" (pulumi-kubernetes#4278). Only for objects the stack
    never deletes (``retain_on_delete``): what it adopted may be another install's. None: a cluster the stack
    creates itself (kind, gke, eks), where nothing can exist before it."""

    name: str
    kind: str  # "gke" | "eks" | "kind" | "existing"
    provider: k8s.Provider
    database_pool: PoolShape
    monitoring_pool: PoolShape
    ready: Sequence[pulumi.Resource] = field(default=())
    kubeconfig: pulumi.Output[str] | None = None
    gcp: GcpFacts | None = None
    aws: AwsFacts | None = None
    shared_provider: k8s.Provider | None = None
