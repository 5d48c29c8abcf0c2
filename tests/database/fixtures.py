"""Pools and specs shared by the database tests (no Pulumi)."""

from __future__ import annotations

from percona_mysql_k8s.core.allocatable import kind_node_budget, node_budget
from percona_mysql_k8s.core.pools import DATABASE_POOL, DATABASE_TAINT, MONITORING_POOL, POOL_LABEL, PoolShape
from percona_mysql_k8s.core.units import GIB


def gke_pools(nodes: int = 3) -> tuple[PoolShape, PoolShape]:
    database = PoolShape("db", {POOL_LABEL: DATABASE_POOL}, nodes, node_budget("n2-standard-16", "gke"), (DATABASE_TAINT,), "n2-standard-16")
    monitoring = PoolShape("mon", {POOL_LABEL: MONITORING_POOL}, 1, node_budget("n2-standard-8", "gke"), (), "n2-standard-8")
    return database, monitoring


def eks_pools(nodes: int = 3) -> tuple[PoolShape, PoolShape]:
    database = PoolShape("db", {POOL_LABEL: DATABASE_POOL}, nodes, node_budget("m6i.4xlarge", "eks"), (DATABASE_TAINT,), "m6i.4xlarge")
    monitoring = PoolShape("mon", {POOL_LABEL: MONITORING_POOL}, 1, node_budget("m6i.2xlarge", "eks"), (), "m6i.2xlarge")
    return database, monitoring


def kind_pools(nodes: int = 1) -> tuple[PoolShape, PoolShape]:
    budget = kind_node_budget(8000, 32 * GIB, 0.25)
    database = PoolShape("db", {POOL_LABEL: DATABASE_POOL}, nodes, budget, (DATABASE_TAINT,))
    monitoring = PoolShape("mon", {POOL_LABEL: MONITORING_POOL}, 1, budget, ())
    return database, monitoring
