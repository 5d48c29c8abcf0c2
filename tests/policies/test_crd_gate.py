"""Issue 28 item 2: a custom resource the API server would refuse is C1's to report and no other policy's.

Every resource policy that reads database clusters gives a refused resource no verdict (not applicable, naming
C1), and the C1 policy reports it once. The same resource with the one field fixed is judged again, so the gate
is the refusal and nothing else.
"""

from __future__ import annotations

import pytest
from harness import resolve_resource, run_resource
from percona_mysql_k8s.policies._catalog import MODULES
from percona_mysql_k8s.policies._subjects import database_types

READERS = [module.POLICY for module in MODULES if module.SPEC.applies_to is database_types]
GATE = next(module.POLICY for module in MODULES if module.SPEC.name == "crd-admission")


def _resource(size):
    resource = resolve_resource({"base": "ps-gr"})
    resource["props"]["spec"]["mysql"]["size"] = size
    resource["props"]["spec"]["mysql"]["configuration"] = "group_replication_flow_control_mode=DISABLED\n"  # F1 breach
    return resource


@pytest.mark.parametrize("policy", READERS, ids=[policy.name for policy in READERS])
def test_a_refused_resource_is_not_applicable_to_every_other_policy(policy, monkeypatch):
    monkeypatch.setenv("PULUMI_CONFIG", "{}")
    refused = _resource("3")
    outcome = run_resource(policy, refused["type"], refused["props"])
    assert outcome.messages == [] and outcome.not_applicable and outcome.not_applicable.startswith("C1: the API server refuses")


def test_the_gate_reports_it_and_the_fixed_resource_is_judged_again(monkeypatch):
    monkeypatch.setenv("PULUMI_CONFIG", "{}")
    refused, fixed = _resource("3"), _resource(3)
    assert [m.split(":")[0] for m in run_resource(GATE, refused["type"], refused["props"]).messages] == ["C1"]
    assert run_resource(GATE, fixed["type"], fixed["props"]).messages == []
    flow = next(policy for policy in READERS if policy.name == "gr-flow-control")
    assert "F1" in [m.split(":")[0] for m in run_resource(flow, fixed["type"], fixed["props"]).messages]
    assert len(READERS) >= 20
