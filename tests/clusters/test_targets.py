"""One shape for every target: what the database layer receives, and nothing registered on bad input."""

from __future__ import annotations

import dataclasses

import pulumi
import pulumi_kubernetes as k8s
import pytest
from percona_mysql_k8s.clusters import (
    build_cluster,
    cluster_from_config,
    cluster_settings_from_config,
    cluster_values_from_pulumi_config,
)
from percona_mysql_k8s.clusters.target import ClusterTarget
from percona_mysql_k8s.core.allocatable import NodeBudget
from percona_mysql_k8s.core.errors import InputError
from percona_mysql_k8s.core.pools import DATABASE_TAINT, POOL_LABEL, PoolShape
from stack_configs import ALL, BAD_INPUTS, EKS, EXISTING, GKE, HOST, KIND, with_


@pytest.mark.parametrize("target_name", sorted(ALL))
def test_every_target_returns_the_same_shape(mocked, target_name):
    target, _ = mocked.run(lambda: cluster_from_config(ALL[target_name], host=lambda: HOST))
    assert isinstance(target, ClusterTarget)
    assert [f.name for f in dataclasses.fields(target)] == [
        "name",
        "kind",
        "provider",
        "database_pool",
        "monitoring_pool",
        "ready",
        "kubeconfig",
        "gcp",
        "aws",
        "shared_provider",
    ]
    # the cloud facts the backup storage needs: set by the cloud targets only, each its own cloud's
    assert (target.gcp is not None, target.aws is not None) == (target_name == "gke", target_name == "eks")
    # a provider that adopts what exists only where the cluster is not the stack's own (ClusterTarget.shared_provider)
    assert (target.shared_provider is not None) == (target_name == "existing")
    assert target.kind == target_name
    assert target.name == "perf"
    assert isinstance(target.provider, k8s.Provider)
    for pool in (target.database_pool, target.monitoring_pool):
        assert isinstance(pool, PoolShape)
        assert isinstance(pool.node, NodeBudget)
        assert pool.node.usable_cpu_millicores > 0 and pool.node.usable_memory_bytes > 0
        assert pool.labels and pool.node_count >= 1
    # The database layer places pods the same way everywhere (K4)
    assert target.database_pool.node_selector() == {POOL_LABEL: "database"}
    assert target.database_pool.tolerations() == [DATABASE_TAINT.as_toleration()]
    assert target.monitoring_pool.node_selector() == {POOL_LABEL: "monitoring"}
    assert target.monitoring_pool.tolerations() == []
    assert target.database_pool.node_count >= 3  # clusterSize 3: one member per node (K5)
    assert all(isinstance(resource, pulumi.Resource) for resource in target.ready)


@pytest.mark.parametrize(("values", "key", "rule"), [case[1:] for case in BAD_INPUTS], ids=[case[0] for case in BAD_INPUTS])
def test_bad_input_registers_nothing(mocked, values, key, rule):
    with pytest.raises(InputError) as error:
        mocked.run(lambda: cluster_from_config(values, host=lambda: HOST))
    assert error.value.key == key
    assert mocked.resources() == []


@pytest.mark.parametrize("values", [GKE, EKS, KIND, EXISTING])
def test_build_cluster_takes_validated_settings(mocked, values):
    settings = cluster_settings_from_config(values, lambda: HOST)
    target, _ = mocked.run(lambda: build_cluster(settings))
    assert target.database_pool == settings.database_pool
    assert target.monitoring_pool == settings.monitoring_pool


def test_values_from_the_stack_config(mocked):
    """What the stack program reads: project config as the CLI passes it (strings, JSON for lists)."""
    pulumi.runtime.set_all_config(
        {
            "percona-mysql:target": "gke",
            "percona-mysql:gcpZones": '["europe-west1-b", "europe-west1-c"]',
            "percona-mysql:databaseNodeCount": "5",
            "percona-mysql:gkePrivateNodes": "true",
            "percona-mysql:engine": "pxc",  # the database layer's key: not read here
        }
    )
    try:
        values = cluster_values_from_pulumi_config()
    finally:
        pulumi.runtime.set_all_config({})
    assert values == {
        "target": "gke",
        "gcpZones": ["europe-west1-b", "europe-west1-c"],
        "databaseNodeCount": 5,
        "gkePrivateNodes": True,
    }


def test_gke_total_is_told_to_the_database_layer(mocked):
    target, _ = mocked.run(lambda: cluster_from_config(with_(GKE, databaseNodeCount=4)))
    assert target.database_pool.node_count == 6  # 2 per zone over 3 zones
