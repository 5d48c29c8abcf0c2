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

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

# Public name -> the module defining it. Imported on first use (PEP 562), so the pure modules
# (versions, manifests, scripts, sources...) import without Pulumi's providers: the restore command and the
# stack settings use them in a base install, which has none (percona_mysql_k8s._extras).
_EXPORTS = {
    "DatabaseCluster": ".cluster",
    "DatabaseClusterArgs": ".cluster",
    "create_namespace": ".common",
    "DatabaseSpec": ".manifests",
    "Endpoint": ".manifests",
    "Placement": ".manifests",
    "custom_resource": ".manifests",
    "size_for_pool": ".manifests",
    "writer_endpoint": ".manifests",
    "NetworkPolicies": ".network",
    "NetworkPoliciesArgs": ".network",
    "OperatorArgs": ".operator",
    "PerconaOperator": ".operator",
    "ExternalPmm": ".pmm",
    "PmmServer": ".pmm",
    "PmmServerArgs": ".pmm",
    "PmmToken": ".pmm",
    "PmmTokenArgs": ".pmm",
    "Sysbench": ".sysbench",
    "SysbenchArgs": ".sysbench",
}
__all__ = [  # the names of _EXPORTS
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

if TYPE_CHECKING:
    from .cluster import DatabaseCluster, DatabaseClusterArgs
    from .common import create_namespace
    from .manifests import DatabaseSpec, Endpoint, Placement, custom_resource, size_for_pool, writer_endpoint
    from .network import NetworkPolicies, NetworkPoliciesArgs
    from .operator import OperatorArgs, PerconaOperator
    from .pmm import ExternalPmm, PmmServer, PmmServerArgs, PmmToken, PmmTokenArgs
    from .sysbench import Sysbench, SysbenchArgs


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_EXPORTS})
