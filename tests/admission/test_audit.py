"""audit: each sweep judges the existing custom resources and records Events and the findings gauge."""

from __future__ import annotations

import copy

from admission_helpers import base
from percona_mysql_k8s.admission.audit import Auditor, event_name
from percona_mysql_k8s.admission.metrics import Metrics
from percona_mysql_k8s.plan.admission import PERCONA_KINDS


def sample(metrics: Metrics, name: str, labels: dict) -> float | None:
    return metrics.registry.get_sample_value(name, labels)


def test_a_sweep_records_each_finding_as_an_event_and_a_series(judge):
    breach, good = base("pxc"), base("pxc-backed-up")
    breach["metadata"].update({"uid": "u-breach", "namespace": "db"})
    good["metadata"].update({"name": "fine", "uid": "u-good", "namespace": "db"})
    objects = {"PerconaXtraDBCluster": [breach, good]}
    events: list[dict] = []
    metrics = Metrics()
    auditor = Auditor(
        judge, metrics, list_objects=lambda kind: objects.get(kind.kind, []), record_event=events.append, kinds=PERCONA_KINDS
    )
    verdicts = auditor.sweep()
    assert sorted(verdicts[("PerconaXtraDBCluster", "db", "shop")].rules) == ["K7", "R1", "R2", "R6"]
    assert {e["reason"] for e in events if e["involvedObject"]["uid"] == "u-breach"} == {"PolicyViolation", "PolicyAdvisory"}
    assert {e["reason"] for e in events if e["involvedObject"]["uid"] == "u-good"} <= {"PolicyAdvisory"}  # R6 at most
    assert all(e["type"] == "Warning" and e["involvedObject"]["kind"] == "PerconaXtraDBCluster" for e in events)
    assert any(e["message"].startswith("R1: ") for e in events if e["reason"] == "PolicyViolation")
    labels = {"namespace": "db", "kind": "PerconaXtraDBCluster", "name": "shop", "rule": "R1", "level": "mandatory"}
    assert sample(metrics, "percona_mysql_admission_audit_findings", labels) == 1
    assert sample(metrics, "percona_mysql_admission_audit_objects", {}) == 2
    names = [e["metadata"]["name"] for e in events]

    # the next sweep finds the same: the same Events (counted again by the recorder); fixed, the series go
    events.clear()
    auditor.sweep()
    assert [e["metadata"]["name"] for e in events] == names
    objects["PerconaXtraDBCluster"] = [good]
    events.clear()
    auditor.sweep()
    assert all(e["involvedObject"]["uid"] == "u-good" for e in events)
    assert sample(metrics, "percona_mysql_admission_audit_findings", labels) is None


def test_a_kind_that_cannot_be_listed_does_not_stop_the_sweep(judge):
    def list_objects(kind):
        if kind.group == "ps.percona.com":
            raise RuntimeError("the CRD is not installed")
        return [base("pxc")] if kind.kind == "PerconaXtraDBCluster" else []

    verdicts = Auditor(judge, Metrics(), list_objects=list_objects, record_event=lambda e: None).sweep()
    assert list(verdicts) == [("PerconaXtraDBCluster", "db", "shop")]


def test_event_names_follow_the_object_and_the_finding():
    obj = {"metadata": {"name": "shop", "uid": "1"}}
    other = copy.deepcopy(obj)
    other["metadata"]["uid"] = "2"
    assert event_name(obj, "p", "m") == event_name(obj, "p", "m") != event_name(other, "p", "m") != event_name(obj, "p", "n")
    assert event_name(obj, "p", "m").startswith("shop.")
