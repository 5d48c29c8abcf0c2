"""The database layer: Percona operators, clusters, proxies, PMM and sysbench on a ClusterTarget.

Public API::

    from percona_mysql_k8s.database import (
        DatabaseSpec, create_namespace,
        PerconaOperator, OperatorArgs,
        PmmServer, PmmServerArgs, ExternalPmm,
        DatabaseCluster, DatabaseClusterArgs,
        Sysbench, SysbenchArgs,
        NetworkPolicies, NetworkPoliciesArgs,
    )

Pure pieces (no Pulumi) live in :mod:`percona_mysql_k8s.database.versions` (every pinned version),
:mod:`percona_mysql_k8s.database.manifests` (the custom resources as data),
:mod:`percona_mysql_k8s.database.backup_manifests` (their ``spec.backup`` and the restore objects) and :mod:`percona_mysql_k8s.database.scripts`
(what the Jobs run). See docs/database.md.
"""

from .cluster import DatabaseCluster, DatabaseClusterArgs
from .common import create_namespace
from .manifests import DatabaseSpec, Endpoint, Placement, custom_resource, size_for_pool, writer_endpoint
from .network import NetworkPolicies, NetworkPoliciesArgs
from .operator import OperatorArgs, PerconaOperator
from .pmm import ExternalPmm, PmmServer, PmmServerArgs, PmmToken, PmmTokenArgs
from .sysbench import Sysbench, SysbenchArgs

__all__ = [
    "DatabaseCluster",
    "DatabaseClusterArgs",
    "DatabaseSpec",
    "Endpoint",
    "ExternalPmm",
    "NetworkPolicies",
    "NetworkPoliciesArgs",
    "OperatorArgs",
    "PerconaOperator",
    "Placement",
    "PmmServer",
    "PmmServerArgs",
    "PmmToken",
    "PmmTokenArgs",
    "Sysbench",
    "SysbenchArgs",
    "create_namespace",
    "custom_resource",
    "size_for_pool",
    "writer_endpoint",
]
