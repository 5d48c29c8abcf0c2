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

The components take a plan and register resources; what they register is decided in the pure plan layer
(no Pulumi), :mod:`percona_mysql_k8s.plan.database`: every pinned version (``versions``), the custom resources
as data (``spec``, ``manifests``), their ``spec.backup`` (``backup_manifests``), the restore objects
(``restore``), what the Jobs run (``scripts``). ``DatabaseSpec`` and the other plan names below are re-exported
from there, as the components' inputs. See docs/database.md and docs/architecture.md.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

# Public name -> the module defining it. Imported on first use (PEP 562): importing this package imports
# nothing heavy, and a component's providers are imported only when it is used (percona_mysql_k8s._extras).
_EXPORTS = {
    "AdmissionServer": ".admission",
    "AdmissionServerArgs": ".admission",
    "DatabaseCluster": ".cluster",
    "DatabaseClusterArgs": ".cluster",
    "create_namespace": ".common",
    "DatabaseSpec": "percona_mysql_k8s.plan.database.spec",
    "Endpoint": "percona_mysql_k8s.plan.database.spec",
    "Placement": "percona_mysql_k8s.plan.database.spec",
    "custom_resource": "percona_mysql_k8s.plan.database.manifests",
    "size_for_pool": "percona_mysql_k8s.plan.database.spec",
    "writer_endpoint": "percona_mysql_k8s.plan.database.spec",
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
    "AdmissionServer",
    "AdmissionServerArgs",
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
    from percona_mysql_k8s.plan.database.manifests import custom_resource
    from percona_mysql_k8s.plan.database.spec import DatabaseSpec, Endpoint, Placement, size_for_pool, writer_endpoint

    from .cluster import DatabaseCluster, DatabaseClusterArgs
    from .common import create_namespace
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
