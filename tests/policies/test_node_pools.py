"""Nodes of a cluster (``kubectl get nodes -o yaml``) as the pools K4 and K5 place a custom resource on, through the
offline check's own path (percona-mysql-policy-check --manifests): read as the existing target reads them
(core.node_inventory), grouped by what they carry but for per-node labels, sized by the smallest node."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from harness import resolve_resource
from percona_mysql_k8s.cli.check import check_manifests
from percona_mysql_k8s.cli.manifests import ManifestObject, read_manifests
from percona_mysql_k8s.policies._readers.node_pools import node_pools

HERE = Path(__file__).resolve().parent
POOL = "mysql.percona.com/pool"
TAINT = {"key": POOL, "value": "database", "effect": "NoSchedule"}


def node(name: str, *, pool: str = "database", cpu: str = "7910m", memory: str = "28Gi", taints=(TAINT,), zone="a", **extra):
    status = {
        "allocatable": {"cpu": cpu, "memory": memory, "pods": "110"},
        "conditions": [{"type": "Ready", "status": extra.pop("ready", "True")}],
    }
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "name": name,
            "labels": {POOL: pool, "kubernetes.io/hostname": name, "topology.kubernetes.io/zone": f"europe-west1-{zone}"},
        },
        "spec": {"taints": list(taints), **extra},
        "status": status,
    }


def cluster_cr() -> ManifestObject:
    resource = resolve_resource(json.loads((HERE / "_bases" / "pxc.json").read_text()))
    return ManifestObject(resource["type"], "db/shop", resource["props"], "test", 1, 1)


def objects(*nodes) -> list[ManifestObject]:
    return [ManifestObject("kubernetes:core/v1:Node", n["metadata"]["name"], n, "test", 1, 1) for n in nodes]


def rules(report, rule: str) -> list[str]:
    return [f.diagnostic.message for f in report.findings if f.diagnostic.rule == rule]


@pytest.fixture(scope="module")
def pack():
    from percona_mysql_k8s.cli.engine import Pack
    from percona_mysql_k8s.policies import SHELL

    with Pack(SHELL, stack="", project="manifests") as running:
        yield running


def test_nodes_group_into_pools_by_what_they_carry_but_per_node_labels():
    found = node_pools(
        (n["metadata"]["name"], n)
        for n in (
            node("db-0", zone="a"),
            node("db-1", zone="b", memory="27Gi"),
            node("mon-0", pool="monitoring", taints=()),
            node("db-2", zone="c", unschedulable=True),  # cordoned: no pool
            node("db-3", ready="False"),  # not Ready: no pool
        )
    )
    assert [owner for owner, _ in found] == ["db-0", "mon-0"]
    database, monitoring = (pool for _, pool in found)
    assert database.max_nodes == 2 and monitoring.max_nodes == 1
    assert database.nodes.dedicated and not monitoring.nodes.dedicated
    assert database.budget.allocatable_memory_bytes == 27 * 2**30  # the smallest node's
    assert database.budget.allocatable_cpu_millicores == 7910
    assert "topology.kubernetes.io/zone" in database.nodes.unknown_labels  # a zone selector may match


def test_the_status_of_a_node_manifest_is_read_and_no_other_objects():
    text = "\n---\n".join(json.dumps(o) for o in (node("db-0"), {**cluster_cr().props, "status": {"state": "ready"}}))
    read = read_manifests(text, "nodes.yaml")
    assert read[0].props["status"]["allocatable"]["memory"] == "28Gi"
    assert "status" not in read[1].props


def test_a_cluster_that_fits_its_nodes_passes_k4_and_k5(pack):
    report = check_manifests([cluster_cr(), *objects(*(node(f"db-{i}") for i in range(3)))], pack=pack)
    assert rules(report, "K5") == [] and rules(report, "K4") == []


def test_members_larger_than_the_nodes_are_k5(pack):
    report = check_manifests([cluster_cr(), *objects(*(node(f"db-{i}", memory="12Gi") for i in range(3)))], pack=pack)
    assert any("pxc pods requests" in message and "Nodes db-0, db-1, db-2" in message for message in rules(report, "K5"))


def test_fewer_nodes_than_members_is_k5(pack):
    report = check_manifests([cluster_cr(), *objects(node("db-0"), node("db-1"))], pack=pack)
    assert any("needs 3 nodes" in message for message in rules(report, "K5")), report.findings


def test_a_cordoned_node_is_not_counted(pack):
    report = check_manifests([cluster_cr(), *objects(node("db-0"), node("db-1"), node("db-2", unschedulable=True))], pack=pack)
    assert any("needs 3 nodes" in message for message in rules(report, "K5")), report.findings


def test_untainted_database_nodes_are_k4(pack):
    report = check_manifests([cluster_cr(), *objects(*(node(f"db-{i}", taints=()) for i in range(3)))], pack=pack)
    assert any("no NoSchedule/NoExecute taint" in message for message in rules(report, "K4")), report.findings
