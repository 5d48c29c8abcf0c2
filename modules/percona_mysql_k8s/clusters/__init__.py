"""Cluster components: GKE, EKS, kind and existing clusters, each with a database pool and a monitoring pool.

Every target hands the database layer the same :class:`~percona_mysql_k8s.clusters.target.ClusterTarget`: a
Kubernetes provider and the two pools (labels, taints, machine, allocatable per node, node count). The
stack program needs three calls::

    values = cluster_values_from_pulumi_config()          # Pulumi.yaml keys -> decoded values
    settings = cluster_settings_from_config(values)       # validated; InputError names the config key
    target = build_cluster(settings)                      # the component of settings.target

The settings are the cluster plan, decided in the pure :mod:`percona_mysql_k8s.plan.clusters` (one module
per target); this package holds the components that register its resources. Importing it does not import
Pulumi: the components are imported when they are built.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from percona_mysql_k8s.plan.clusters import CONFIG_KEYS, ClusterSettings, cluster_settings_from_config, decode_config_value

if TYPE_CHECKING:
    import pulumi

    from .target import ClusterTarget

__all__ = [
    "CONFIG_KEYS",
    "ClusterSettings",
    "build_cluster",
    "cluster_from_config",
    "cluster_settings_from_config",
    "cluster_values_from_pulumi_config",
]


def build_cluster(settings: ClusterSettings, opts: pulumi.ResourceOptions | None = None) -> ClusterTarget:
    """The cluster component of ``settings.target``, named after the cluster; returns its ClusterTarget."""
    import pulumi

    for note in settings.notes:
        pulumi.log.warn(note)
    if settings.target == "gke":
        from .gke import GkeCluster, GkeClusterArgs

        return GkeCluster(settings.cluster_name, GkeClusterArgs.from_settings(settings), opts).target
    if settings.target == "eks":
        from .eks import EksCluster, EksClusterArgs

        return EksCluster(settings.cluster_name, EksClusterArgs.from_settings(settings), opts).target
    if settings.target == "kind":
        from .kind import KindCluster, KindClusterArgs

        return KindCluster(settings.cluster_name, KindClusterArgs.from_settings(settings), opts).target
    if settings.target == "existing":
        from .existing import ExistingCluster, ExistingClusterArgs

        return ExistingCluster(settings.cluster_name, ExistingClusterArgs.from_settings(settings), opts).target
    raise ValueError(f"unknown target {settings.target!r}")


def cluster_values_from_pulumi_config(config: pulumi.Config | None = None) -> dict[str, object]:
    """The cluster layer's keys from the stack config (project namespace), decoded; absent keys are left
    out so the settings apply Pulumi.yaml's defaults."""
    import pulumi

    config = config or pulumi.Config()
    values: dict[str, object] = {}
    for key in CONFIG_KEYS:
        raw = config.get(key)
        if raw is not None:
            values[key] = decode_config_value(key, raw)
    return values


def cluster_from_config(
    values: Mapping[str, object],
    opts: pulumi.ResourceOptions | None = None,
    host: Callable[[], tuple[int, int]] | None = None,
) -> ClusterTarget:
    """Validate ``values`` and build the cluster: nothing is registered when the config is bad.

    ``host`` reports the machine's (CPU millicores, memory bytes) for the kind allocatable model (default:
    ``percona_mysql_k8s.plan.clusters.kind.host_resources``, looked up at call time).
    """
    return build_cluster(cluster_settings_from_config(values, host), opts)
