"""The webhook's answers in each mode, through the ASGI application (Starlette's TestClient) and a running pack."""

from __future__ import annotations

import copy
import logging

import pytest
from admission_helpers import base, review
from percona_mysql_k8s.admission.app import build_app
from percona_mysql_k8s.admission.judge import Judge
from percona_mysql_k8s.admission.metrics import Metrics
from percona_mysql_k8s.admission.review import MAX_BODY_BYTES
from starlette.testclient import TestClient
from test_node_pools import node


def client(judge, mode: str) -> TestClient:
    return TestClient(build_app(judge, mode=mode, metrics=Metrics()))


def post(judge, mode: str, body) -> dict:
    response = client(judge, mode).post("/validate", json=body)
    assert response.status_code == 200, response.text
    return response.json()["response"]


BREACH = "pxc"  # no backups on a production cluster: R1, R2 mandatory; members and proxies on the hostname key
# only: K7 mandatory (twice); no NetworkPolicy: R6 advisory
GOOD = "pxc-backed-up"  # a production cluster every mandatory rule admits (K7 included)


def test_enforce_refuses_a_breach_with_the_rules_messages(judge):
    answer = post(judge, "enforce", review(base(BREACH), uid="abc"))
    assert answer["uid"] == "abc" and answer["allowed"] is False
    assert answer["status"]["code"] == 403
    message = answer["status"]["message"]
    assert "breaks K7, R1, R2" in message and "R1: no scheduled backup" in message and "Fix:" in message
    assert any(w.startswith("R6:") for w in answer["warnings"])  # advisory: a warning, not a refusal


def test_enforce_admits_a_good_cluster(judge):
    answer = post(judge, "enforce", review(base(GOOD)))
    assert answer["allowed"] is True and "status" not in answer


def test_warn_admits_the_breach_and_returns_every_finding_as_a_warning(judge):
    answer = post(judge, "warn", review(base(BREACH)))
    assert answer["allowed"] is True
    rules = sorted(w.split(":")[0] for w in answer["warnings"])
    assert rules == ["K7", "K7", "R1", "R2", "R6"]


def test_a_dry_run_is_judged_the_same(judge):
    assert post(judge, "enforce", review(base(BREACH), dry_run=True))["allowed"] is False


class Unjudged(Judge):
    def __init__(self):  # no pack: judging is a failure of the test
        pass

    def judge(self, *args, **kwargs):
        raise AssertionError("judged")

    def alive(self):
        return True


def test_audit_admits_unjudged():
    answer = post(Unjudged(), "audit", review(base(BREACH)))
    assert answer == {"uid": "u-1", "allowed": True}


def test_an_update_that_leaves_the_spec_alone_is_admitted_unjudged():
    new = base(BREACH)
    old = copy.deepcopy(new)
    new["metadata"]["finalizers"] = ["percona.com/delete-pxc-pods-in-order", "x"]
    assert post(Unjudged(), "enforce", review(new, operation="UPDATE", old=old))["allowed"] is True
    deleting = copy.deepcopy(new)
    deleting["metadata"]["deletionTimestamp"] = "2026-11-29T00:00:00Z"
    deleting["spec"]["pxc"]["size"] = 5
    assert post(Unjudged(), "enforce", review(deleting, operation="UPDATE", old=old))["allowed"] is True
    assert post(Unjudged(), "enforce", review(None, operation="DELETE"))["allowed"] is True


def test_an_update_that_changes_the_spec_is_judged(judge):
    old = base(GOOD)
    new = copy.deepcopy(old)
    new["spec"].pop("backup")
    assert post(judge, "enforce", review(new, operation="UPDATE", old=old))["allowed"] is False


@pytest.mark.parametrize(
    ("body", "status", "says"),
    [
        (b"{not json", 400, "not JSON"),
        (b"[1, 2]", 400, "JSON list"),
        (
            b'{"apiVersion": "admission.k8s.io/v1beta1", "kind": "AdmissionReview", "request": {"uid": "x"}}',
            400,
            "v1 AdmissionReview only",
        ),
        (
            b'{"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": {"operation": "CREATE"}}',
            400,
            "request.uid is missing",
        ),
        (b'{"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview"}', 400, "no request"),
        (b" " * (MAX_BODY_BYTES + 1), 413, "more than"),
    ],
)
def test_bad_input_gets_a_clear_answer(body, status, says):
    response = client(Unjudged(), "enforce").post("/validate", content=body)
    assert response.status_code == status and says in response.json()["error"]


def test_a_body_over_the_limit_streamed_without_a_length_is_refused():
    chunks = (b" " * 1024 * 1024 for _ in range(MAX_BODY_BYTES // (1024 * 1024) + 2))
    response = client(Unjudged(), "enforce").post("/validate", content=chunks)
    assert response.status_code == 413


@pytest.mark.parametrize("obj", [["a", "list"], "a string", 7])
def test_an_object_that_is_not_an_object_is_refused_by_name(obj):
    answer = post(Unjudged(), "enforce", review(obj))
    assert (
        answer["allowed"] is False
        and answer["status"]["code"] == 400
        and "not a Kubernetes object" in answer["status"]["message"]
    )


def test_secret_data_is_never_logged(judge, caplog):
    obj = base(BREACH)
    obj["metadata"]["annotations"] = {"db-password": "hunter2-in-plain-text"}
    obj["spec"]["secretsName"] = "hunter2-secret-name"
    with caplog.at_level(logging.DEBUG):
        post(judge, "enforce", review(obj))
        client(judge, "enforce").post("/validate", content=b'{"password": "hunter2-bad-body"')
    logged = caplog.text
    assert "PerconaXtraDBCluster db/shop" in logged  # the request is logged, by name
    assert "hunter2" not in logged


def test_the_node_rules_read_the_node_cache_and_not_the_nodes_own_findings():
    small = [node(f"db-{i}", memory="12Gi") for i in range(3)]
    untainted = [node(f"db-{i}", taints=()) for i in range(3)]
    nodes = {"now": small}
    judge = Judge(nodes=lambda: (id(nodes["now"]), nodes["now"]))
    try:
        answer = post(judge, "enforce", review(base(GOOD)))
        assert answer["allowed"] is False and "K5" in answer["status"]["message"], answer
        nodes["now"] = untainted
        backup = {
            "apiVersion": "pxc.percona.com/v1",
            "kind": "PerconaXtraDBClusterBackup",
            "metadata": {"name": "b1", "namespace": "db"},
            "spec": {"pxcCluster": "shop", "storageName": "s3"},
        }
        # the untainted database Nodes are the cluster's finding (K4), not the backup's
        assert post(judge, "enforce", review(backup))["allowed"] is True
        assert any(w.startswith("K4") for w in post(judge, "warn", review(base(GOOD))).get("warnings", []))
    finally:
        judge.close()


def test_readiness_waits_for_the_node_cache(judge):
    listed = {"yes": False}
    app = TestClient(build_app(judge, mode="enforce", metrics=Metrics(), ready=lambda: listed["yes"]))
    assert app.get("/readyz").status_code == 503
    listed["yes"] = True
    assert app.get("/readyz").status_code == 200 and app.get("/healthz").text == "ok"
