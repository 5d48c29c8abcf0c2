"""Cluster settings: every bad input is an InputError naming its Pulumi.yaml key; the pools each target decides."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from percona_mysql_k8s.core.allocatable import NodeBudget, kind_node_budget, node_budget
from percona_mysql_k8s.core.errors import InputError
from percona_mysql_k8s.core.kind_host import KindHost, worker_budget
from percona_mysql_k8s.core.pools import DATABASE_TAINT, POOL_LABEL, Taint
from percona_mysql_k8s.plan.clusters import CONFIG_KEYS, ZonePlacement, cluster_settings_from_config, decode_config_value
from percona_mysql_k8s.plan.clusters.common import DEFAULT_MONITORING_NODE_TYPES
from percona_mysql_k8s.plan.clusters.gke import spread_over_zones
from percona_mysql_k8s.plan.clusters.keys import parse_labels, parse_taint
from percona_mysql_k8s.plan.clusters.kind import host_resources
from stack_configs import BAD_INPUTS, EKS, EXISTING, GKE, GKE_ZONES, HOST, KIND, with_

PULUMI_YAML = Path(__file__).resolve().parents[2] / "Pulumi.yaml"


def settings(values, host=lambda: HOST):
    return cluster_settings_from_config(values, host)


# ---- the keys are Pulumi.yaml's ---------------------------------------------------------------------


def test_every_key_is_declared_in_pulumi_yaml_with_the_same_type_and_default():
    declared = yaml.safe_load(PULUMI_YAML.read_text())["config"]
    yaml_types = {"string": str, "integer": int, "boolean": bool, "array": list}
    for key, (kind, default) in CONFIG_KEYS.items():
        assert key in declared, key
        assert yaml_types[declared[key]["type"]] is kind, key
        assert declared[key]["default"] == default, key


def test_absent_keys_take_the_defaults():
    result = settings({})
    assert result.target == "kind"
    assert result.cluster_name == "percona-mysql"
    assert result.cluster_size == 3
    assert result.kind.node_image == "kindest/node:v1.33.1"
    assert result.kind.host_share is None  # kindHostShare: auto, the host model of core.kind_host


@pytest.mark.parametrize(
    ("key", "raw", "decoded"),
    [
        ("databaseNodeCount", "5", 5),
        ("gkePrivateNodes", "true", True),
        ("ephemeral", "False", False),
        ("gcpZones", '["europe-west1-b", "europe-west1-c"]', ["europe-west1-b", "europe-west1-c"]),
        ("eksSubnetIds", "subnet-1,subnet-2", ["subnet-1", "subnet-2"]),
        ("kindHostShare", "0.25", "0.25"),
    ],
)
def test_raw_config_strings_decode_to_the_keys_type(key, raw, decoded):
    assert decode_config_value(key, raw) == decoded


@pytest.mark.parametrize(("key", "raw"), [("databaseNodeCount", "three"), ("gkePrivateNodes", "yes")])
def test_raw_config_strings_of_the_wrong_type_name_the_key(key, raw):
    with pytest.raises(InputError) as error:
        decode_config_value(key, raw)
    assert error.value.key == key


# ---- every bad input names its key -----------------------------------------------------------------


@pytest.mark.parametrize(("values", "key", "rule"), [case[1:] for case in BAD_INPUTS], ids=[case[0] for case in BAD_INPUTS])
def test_bad_input_names_the_config_key_and_rule(values, key, rule):
    with pytest.raises(InputError) as error:
        settings(values)
    assert (error.value.key, error.value.rule) == (key, rule)
    assert f"{key}: " in str(error.value)  # the message a user sees names the key


@pytest.mark.parametrize(
    ("values", "key", "message"),
    [
        (with_(EKS, awsRegion=""), "awsRegion", "the eks target needs the AWS region of the cluster (e.g. eu-west-1)"),
        (with_(EKS, awsRegion="Ireland"), "awsRegion", "'Ireland' is not an AWS region (e.g. eu-west-1, us-east-2)"),
        (with_(GKE, gcpProject=" "), "gcpProject", "the gke target needs the GCP project of the cluster"),
        (
            with_(GKE, gcpProject="Perf"),
            "gcpProject",
            "'Perf' is not a GCP project ID (6-30 lowercase letters, digits, hyphens)",
        ),
        (
            with_(GKE, gcpRegion=None),
            "gcpRegion",
            "the gke target needs the region of its regional cluster (e.g. europe-west1)",
        ),
        (with_(GKE, gcpRegion="europe"), "gcpRegion", "'europe' is not a GCP region (e.g. europe-west1, us-central1)"),
    ],
)
def test_a_required_identifier_is_asked_for_when_empty_and_refused_when_malformed(values, key, message):
    with pytest.raises(InputError) as error:
        settings(values)
    assert str(error.value) == f"{key}: {message}"


@pytest.mark.parametrize(
    ("key", "message"),
    [
        (
            "databasePoolLabels",
            f"the existing target needs the node labels of its database pool (e.g. {POOL_LABEL}=database): "
            "without them database pods cannot be placed on the pool",
        ),
        (
            "monitoringPoolLabels",
            f"the existing target needs the node labels of its monitoring pool (e.g. {POOL_LABEL}=monitoring): "
            "the PMM server and sysbench run only there (K4, B1)",
        ),
    ],
)
def test_existing_pool_labels_are_required(key, message):
    with pytest.raises(InputError) as error:
        settings(with_(EXISTING, **{key: " , "}))  # separators only: no label
    assert (error.value.key, error.value.rule) == (key, "K4")
    assert str(error.value) == f"K4: {key}: {message}"


def test_unknown_machine_type_suggests_close_names():
    with pytest.raises(InputError, match="did you mean n2-standard-16"):
        settings(with_(GKE, databaseNodeType="n2-standrd-16"))


def test_pool_smaller_than_cluster_explains_one_member_per_node():
    with pytest.raises(InputError, match="one member per node"):
        settings(with_(GKE, databaseNodeCount=2))


def test_one_member_is_allowed_when_ephemeral():
    assert settings(with_(KIND, clusterSize=1, ephemeral=True)).database_pool.node_count == 1


# ---- GKE: machine shapes and zone placement --------------------------------------------------------


def test_gke_pools_carry_the_core_budgets_labels_and_taint():
    result = settings(GKE)
    database, monitoring = result.database_pool, result.monitoring_pool
    assert database.node == node_budget("n2-standard-16", "gke")
    assert monitoring.node == node_budget("n2-standard-8", "gke")
    assert (database.machine_type, monitoring.machine_type) == ("n2-standard-16", "n2-standard-8")
    assert database.labels == {POOL_LABEL: "database"} and database.taints == (DATABASE_TAINT,)
    assert monitoring.labels == {POOL_LABEL: "monitoring"} and monitoring.taints == ()
    assert result.gke.zones == tuple(GKE_ZONES)
    assert result.gke.database_placement == ZonePlacement(tuple(GKE_ZONES), 1)
    assert result.gke.monitoring_placement == ZonePlacement(("europe-west1-b",), 1)


def test_gke_regional_pools_round_up_to_whole_nodes_per_zone():
    result = settings(with_(GKE, databaseNodeCount=5))
    assert result.gke.database_placement == ZonePlacement(tuple(GKE_ZONES), 2)
    assert result.database_pool.node_count == 6  # node_count is per zone: 2 × 3 zones
    assert any("per zone" in note for note in result.notes)


def test_daemonset_requests_reach_the_budget():
    result = settings(with_(GKE, daemonsetCpu="300m", daemonsetMemory="512Mi"))
    assert result.database_pool.node == node_budget("n2-standard-16", "gke", 300, 512 * 2**20)


@pytest.mark.parametrize(
    ("count", "zones", "expected"),
    [
        (3, ("a", "b", "c"), ZonePlacement(("a", "b", "c"), 1)),
        (5, ("a", "b", "c"), ZonePlacement(("a", "b", "c"), 2)),
        (6, ("a", "b", "c"), ZonePlacement(("a", "b", "c"), 2)),
        (7, ("a", "b", "c"), ZonePlacement(("a", "b", "c"), 3)),
        (1, ("a", "b", "c"), ZonePlacement(("a",), 1)),
        (2, ("a", "b", "c"), ZonePlacement(("a", "b"), 1)),
        (4, ("a",), ZonePlacement(("a",), 4)),
    ],
)
def test_spread_over_zones_gives_at_least_the_nodes_asked_for(count, zones, expected):
    placement = spread_over_zones(count, zones)
    assert placement == expected
    assert placement.total >= count


def test_monitoring_machine_type_defaults_per_cloud():
    assert settings(with_(GKE, monitoringNodeType=None)).monitoring_pool.machine_type == DEFAULT_MONITORING_NODE_TYPES["gke"]
    assert settings(with_(EKS, monitoringNodeType="")).monitoring_pool.machine_type == DEFAULT_MONITORING_NODE_TYPES["eks"]


# ---- EKS -------------------------------------------------------------------------------------------


def test_eks_pools_use_eks_budgets_and_exact_counts():
    result = settings(with_(EKS, databaseNodeCount=4))
    assert result.database_pool.node == node_budget("m6i.4xlarge", "eks")
    assert result.database_pool.node_count == 4
    assert result.eks.vpc_id == "" and result.eks.subnet_ids == ()


def test_eks_existing_vpc():
    result = settings(with_(EKS, eksVpcId="vpc-0abc", eksSubnetIds=["subnet-0a", "subnet-0b"], eksPrivateEndpoint=True))
    assert result.eks.vpc_id == "vpc-0abc"
    assert result.eks.subnet_ids == ("subnet-0a", "subnet-0b")
    assert result.eks.private_endpoint is True


# ---- kind ------------------------------------------------------------------------------------------


def test_kind_nodes_are_a_share_of_the_host():
    result = settings(with_(KIND, kindHostShare="0.25", clusterSize=5))
    expected = kind_node_budget(*HOST, 0.25)
    assert result.database_pool.node == expected == result.monitoring_pool.node
    assert result.database_pool.node.capacity_cpu_millicores == 2000
    assert result.database_pool.node_count == 5  # one worker per member
    assert result.monitoring_pool.node_count == 1
    assert result.database_pool.machine_type is None
    assert (result.kind.host_cpu_millicores, result.kind.host_memory_bytes) == HOST


def test_kind_auto_splits_the_host_between_the_workers():
    # auto (the default): 3 members + 1 monitoring worker share HOST after the host's and the control
    # plane's part (core.kind_host); every pool gets the same worker budget
    result = settings(with_(KIND, clusterSize=3))
    expected = worker_budget(KindHost(*HOST), 4)
    assert result.database_pool.node == expected == result.monitoring_pool.node
    # HOST is 8 CPUs: (8000 - 500 host - 950 control plane) // 4 workers = 1637m each
    assert expected.capacity_cpu_millicores == 1637


def test_kind_has_one_worker_per_member_and_refuses_a_node_count():
    assert settings(with_(KIND, clusterSize=3)).database_pool.node_count == 3
    # kind would ignore a node count: setting one is an error naming the key, never a silent accept
    with pytest.raises(InputError) as error:
        settings(with_(KIND, clusterSize=3, databaseNodeCount=1))
    assert error.value.key == "databaseNodeCount" and "only to target gke or eks or existing" in str(error.value)
    assert settings(with_(KIND, clusterSize=3, databaseNodeCount=3)).database_pool.node_count == 3  # the default is not "set"


def test_kind_warns_when_the_nodes_overcommit_the_host():
    assert settings(KIND).notes == ()
    assert any("overcommit" in note for note in settings(with_(KIND, kindHostShare="0.5")).notes)


def test_kind_host_can_be_declared_instead_of_read():
    # a CI runner judging the stack for a workstation: 8 CPUs, 32 GiB, a quarter each
    result = settings(with_(KIND, kindHostShare="0.25", kindHostCpu="8", kindHostMemory="32Gi"), host=lambda: (1000, 2**30))
    assert (result.kind.host_cpu_millicores, result.kind.host_memory_bytes) == (8000, 32 * 2**30)
    assert result.database_pool.node.capacity_cpu_millicores == 2000


@pytest.mark.parametrize(
    ("values", "key"),
    [
        ({"kindHostCpu": "8"}, "kindHostMemory"),
        ({"kindHostMemory": "32Gi"}, "kindHostCpu"),
        ({"kindHostCpu": "eight", "kindHostMemory": "32Gi"}, "kindHostCpu"),
        ({"kindHostCpu": "8", "kindHostMemory": "lots"}, "kindHostMemory"),
        ({"kindHostCpu": "0", "kindHostMemory": "32Gi"}, "kindHostCpu"),
    ],
)
def test_bad_declared_kind_host(values, key):
    with pytest.raises(InputError) as raised:
        settings(with_(KIND, **values))
    assert (raised.value.key, raised.value.rule) == (key, "K1")


def test_host_resources_reads_this_machine():
    cpu, memory = host_resources()
    assert cpu >= 1000 and cpu % 1000 == 0
    assert memory > 2**27


# ---- existing --------------------------------------------------------------------------------------


def test_existing_pools_from_labels_taint_and_declared_allocatable():
    result = settings(EXISTING)
    database = result.database_pool
    assert database.labels == {POOL_LABEL: "database"}
    assert database.taints == (DATABASE_TAINT,)
    assert database.node_count == 3
    assert isinstance(database.node, NodeBudget)
    assert database.node.allocatable_cpu_millicores == 15890
    assert database.node.allocatable_memory_bytes == 58 * 2**30
    assert result.monitoring_pool.labels == {POOL_LABEL: "monitoring"}
    assert result.existing.kubeconfig == "" and result.existing.context == ""


def test_existing_with_a_catalog_machine_type():
    result = settings(with_(EXISTING, databaseNodeType="r6i.4xlarge", existingNodeCpu=None, existingNodeMemory=None))
    assert result.database_pool.node == node_budget("r6i.4xlarge", "eks")
    assert result.database_pool.machine_type == "r6i.4xlarge"


def test_existing_kubeconfig_path_is_made_absolute(tmp_path, monkeypatch):
    (tmp_path / "config").write_text("apiVersion: v1\n")
    monkeypatch.chdir(tmp_path)
    result = settings(with_(EXISTING, kubeconfig="config", kubeContext="prod"))
    assert result.existing.kubeconfig == str(tmp_path / "config")
    assert result.existing.context == "prod"


def test_existing_without_taint_is_allowed_with_a_note():
    result = settings(with_(EXISTING, databasePoolTaint=""))
    assert result.database_pool.taints == ()
    assert any("databasePoolTaint" in note for note in result.notes)


def test_label_and_taint_syntax():
    assert parse_labels("a=b, example.com/pool=db,empty=", "k") == {"a": "b", "example.com/pool": "db", "empty": ""}
    assert parse_taint("dedicated=mysql:NoExecute", "k") == Taint("dedicated", "mysql", "NoExecute")
    assert parse_taint("dedicated:NoSchedule", "k") == Taint("dedicated", "", "NoSchedule")
    # "/a": IsQualifiedName refuses an empty prefix (this reader took it until it used core.names)
    for bad in ("a=b=c", "=b", "a/b/c=d", "a=" + "x" * 64, "/a=b", "Example.com/a=b"):
        with pytest.raises(InputError):
            parse_labels(bad, "k")
