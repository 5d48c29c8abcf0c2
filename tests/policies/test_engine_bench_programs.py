"""The engine benchmark's ``findings`` mix (benchmarks/engine_programs.py) is what it says: each cluster breaks the
ten mandatory rule checks its comment lists, plus S4 because the benchmark's program does not protect it, so the
figures of docs/policies.md are of a preview with eleven mandatory findings per resource."""

import ast
import copy

from harness import run_resource, run_stack
from percona_mysql_k8s.policies._catalog import MODULES
from pulumi_policy import EnforcementLevel, ResourceValidationPolicy

from benchmarks.engine_policy_bench import FLOOR
from benchmarks.engine_programs import FINDINGS_CLUSTER, findings

PXC = "kubernetes:pxc.percona.com/v1:PerconaXtraDBCluster"


def verdict(props: dict, monkeypatch) -> dict[str, list[str]]:
    """Rule IDs of the findings of every resource policy, by enforcement level, for an unprotected resource on the
    benchmark's stack ("bench", no config: a production stack)."""
    monkeypatch.setenv("PULUMI_STACK", "bench")
    monkeypatch.setenv("PULUMI_CONFIG", "{}")
    found: dict[str, list[str]] = {"mandatory": [], "advisory": []}
    for module in MODULES:
        policy = module.POLICY
        if isinstance(policy, ResourceValidationPolicy):
            outcome = run_resource(policy, PXC, copy.deepcopy(props), name="pxc-0")
        else:
            outcome = run_stack(policy, [{"type": PXC, "name": "pxc-0", "props": copy.deepcopy(props)}])
        level = "mandatory" if policy.enforcement_level == EnforcementLevel.MANDATORY else "advisory"
        found[level].extend(outcome.rules)
    return {level: sorted(rules) for level, rules in found.items()}


def test_each_findings_cluster_breaks_the_ten_listed_checks_and_s4(monkeypatch):
    # G1 fc_limit 1000; M1, M2 no memory limit, no buffer pool; K2 no memory limit; M3 twice, HAProxy and its
    # monitor unbudgeted; T1 two members; S2 TLS off; R1, R2 no backups; S4 unprotected; C2 twice, the operator refuses
    # two members and TLS off without their unsafe flags; K3 three times, no CPU limit on mysqld, HAProxy and its monitor;
    # K7 once, the HAProxy pods on the operator's hostname key alone (two members are T1's, below K7's three)
    listed = ["C2", "C2", "G1", "K2", "K3", "K3", "K3", "K7", "M1", "M2", "M3", "M3", "R1", "R2", "S2", "S4", "T1"]
    assert verdict(FINDINGS_CLUSTER, monkeypatch)["mandatory"] == listed


def test_every_cluster_of_the_mix_is_the_same_cluster_under_its_own_name():
    entries = findings(3).entries
    assert [entry.props["metadata"]["name"] for entry in entries] == ["hand-written-0", "hand-written-1", "hand-written-2"]
    for entry in entries:
        renamed = copy.deepcopy(entry.props)
        renamed["metadata"]["name"] = FINDINGS_CLUSTER["metadata"]["name"]
        assert renamed == FINDINGS_CLUSTER


def test_the_floor_pack_reports_as_many_findings_at_each_level(monkeypatch):
    # benchmarks/floor_pack stands for "a pack that reports what this one reports"; it cannot be imported (it serves)
    constants = {
        node.targets[0].elts[i].id: node.value.elts[i].value
        for node in ast.parse((FLOOR / "__main__.py").read_text()).body
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Tuple)
        for i in range(len(node.targets[0].elts))
    }
    found = verdict(FINDINGS_CLUSTER, monkeypatch)
    assert (constants["MANDATORY"], constants["ADVISORY"]) == (len(found["mandatory"]), len(found["advisory"]))
