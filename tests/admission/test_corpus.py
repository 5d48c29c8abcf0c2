"""The webhook's verdict equals the offline checker's (percona-mysql-policy-check --manifests) on every Percona
custom resource of the policy test corpus (tests/policies/<policy>/<case>.json): refused exactly when the checker
finds a mandatory rule broken, with each of those findings in the message, and every advisory one as a warning."""

from __future__ import annotations

import json

import pytest
from admission_helpers import review
from harness import case_files, needs_reference, resolve_resource
from percona_mysql_k8s.admission.app import build_app
from percona_mysql_k8s.admission.judge import finding_line, manifest_object
from percona_mysql_k8s.admission.metrics import Metrics
from percona_mysql_k8s.admission.review import warning
from percona_mysql_k8s.cli.check import check_manifests
from percona_mysql_k8s.cli.engine import Pack
from percona_mysql_k8s.plan.admission import PERCONA_KINDS
from percona_mysql_k8s.policies import SHELL
from starlette.testclient import TestClient

TYPES = {f"kubernetes:{kind.group}/{kind.version}:{kind.kind}" for kind in PERCONA_KINDS}


def corpus_objects() -> list[tuple[str, dict]]:
    found, seen = [], set()
    for path in case_files():
        case = json.loads(path.read_text())
        entries = case.get("resources") or [case]
        if any(needs_reference(entry) for entry in entries):
            continue  # upstream bases: tests/policies/test_upstream_corpus.py judges those (reference material)
        for index, entry in enumerate(entries):
            resource = resolve_resource(entry)
            if resource.get("type") not in TYPES or not isinstance(resource.get("props"), dict):
                continue
            obj = resource["props"]
            metadata = obj.get("metadata")
            if isinstance(metadata, dict) and not metadata.get("namespace"):
                obj = {**obj, "metadata": {**metadata, "namespace": "db"}}  # the API server sends it in its namespace
            key = json.dumps(obj, sort_keys=True)
            if key not in seen:
                seen.add(key)
                found.append((f"{path.parent.name}/{path.stem}[{index}]", obj))
    return found


ZONE_SPREAD = [
    {"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone", "whenUnsatisfiable": "DoNotSchedule", "minDomains": 3}
]


def spread_over_zones(objects: list[tuple[str, dict]]) -> list[tuple[str, dict]]:
    """XtraDB clusters with their members and proxies spread over three zones as K7 wants (what the stacks write):
    the corpus' hand-written production clusters keep the operator's hostname key, which K7 refuses, and the test
    needs clusters the server admits too."""
    found = []
    for label, obj in objects:
        spec = obj.get("spec")
        if obj.get("kind") != "PerconaXtraDBCluster" or not isinstance(spec, dict):
            continue
        spread = {
            key: {**spec[key], "topologySpreadConstraints": ZONE_SPREAD}
            for key in ("pxc", "haproxy", "proxysql")
            if isinstance(spec.get(key), dict)  # C2's cases include clusters without a section
        }
        found.append((f"{label} spread over zones", {**obj, "spec": {**spec, **spread}}))
    return found


OBJECTS = corpus_objects()
OBJECTS += spread_over_zones(OBJECTS[::2])


def test_the_corpus_holds_breaches_and_good_clusters_of_both_operators():
    kinds = {obj.get("kind") for _, obj in OBJECTS}
    assert {"PerconaXtraDBCluster", "PerconaServerMySQL"} <= kinds and len(OBJECTS) > 100


@pytest.fixture(scope="module")
def checker():
    with Pack(SHELL, stack="", project="manifests") as pack:  # the checker's own pack, apart from the server's
        yield pack


@pytest.fixture(scope="module")
def server(judge):
    return TestClient(build_app(judge, mode="enforce", metrics=Metrics()))


def test_every_verdict_equals_the_offline_checkers(server, checker):
    refused = admitted = 0
    for label, obj in OBJECTS:
        report = check_manifests([manifest_object(obj)], pack=checker)
        answer = server.post("/validate", json=review(obj)).json()["response"]
        assert answer["allowed"] is (not report.mandatory), label
        if report.mandatory:
            refused += 1
            for finding in report.mandatory:
                assert finding_line(finding) in answer["status"]["message"], (label, finding_line(finding))
        else:
            admitted += 1
        advisory = [warning(finding_line(f)) for f in report.findings if f.diagnostic.level != "mandatory"]
        assert answer.get("warnings", [])[: len(advisory)] == advisory[: len(answer.get("warnings", []))], label
    assert refused > 50 and admitted > 10, (refused, admitted)  # both answers are exercised


def test_beside_nodes_the_verdict_is_the_checkers_less_what_the_nodes_alone_break(checker):
    """With the cluster's Nodes in the cache: the checker's verdict on the object and the Nodes, less its verdict on
    the Nodes alone (one pool too small for the members: K5; one labelled database without its taint: K4)."""
    from percona_mysql_k8s.admission.judge import Judge
    from test_node_pools import node

    nodes = [node(f"db-{i}", memory="12Gi") for i in range(3)] + [
        node(f"open-{i}", taints=(), pool="database", memory="12Gi") for i in range(2)
    ]
    nodes += [node("mon-0", pool="monitoring", taints=())]
    node_objects = [manifest_object(n) for n in nodes]
    alone = {(f.diagnostic.policy, f.diagnostic.message) for f in check_manifests(node_objects, pack=checker).findings}
    assert alone  # the open database Nodes: the cluster's own K4
    judge = Judge(nodes=lambda: (1, nodes))
    try:
        compared = node_rules = 0
        for label, obj in OBJECTS[::6]:
            expected = [
                f
                for f in check_manifests([manifest_object(obj), *node_objects], pack=checker).findings
                if (f.diagnostic.policy, f.diagnostic.message) not in alone
            ]
            found = judge.judge(obj).findings
            assert sorted((f.diagnostic.policy, f.diagnostic.message) for f in found) == sorted(
                (f.diagnostic.policy, f.diagnostic.message) for f in expected
            ), label
            compared += 1
            node_rules += any(f.diagnostic.rule == "K5" for f in found)
        assert compared > 20 and node_rules > 5, (compared, node_rules)
    finally:
        judge.close()


def as_the_api_server_sends_it(obj: dict) -> dict:
    """The object after the API server's create path wrote its own metadata, as a validating webhook receives it
    (shape read from the API-server tier's reviews: the field manager's managedFields entry and the system fields)."""
    metadata = {
        **obj["metadata"],
        "uid": "6d3c7f2e-0000-4000-8000-000000000001",
        "creationTimestamp": "2026-11-29T05:00:00Z",
        "generation": 1,
        "resourceVersion": "1234",
        "managedFields": [
            {
                "apiVersion": obj["apiVersion"],
                "fieldsType": "FieldsV1",
                "fieldsV1": {"f:spec": {}},
                "manager": "kubectl-client-side-apply",
                "operation": "Update",
                "time": "2026-11-29T05:00:00Z",
            }
        ],
    }
    return {**obj, "metadata": metadata}


def test_the_metadata_the_api_server_writes_changes_no_verdict(server):
    """Found by the API-server tier: every review carried managedFields, which C1 refuses from a client, so the
    webhook refused every object for it. The object is judged as its author sent it."""
    compared = 0
    for label, obj in OBJECTS[::5]:
        as_written = server.post("/validate", json=review(obj)).json()["response"]
        as_received = server.post("/validate", json=review(as_the_api_server_sends_it(obj))).json()["response"]
        assert as_received == as_written, label
        compared += 1
    assert compared > 15, compared
