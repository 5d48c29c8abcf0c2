"""`python -m percona_mysql_k8s.policies.check`: a program under mocks, every resource through the pack over gRPC."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from harness import resolve_resource
from percona_mysql_k8s.offline import REPOSITORY
from percona_mysql_k8s.policies import check

PROGRAM = '''
import json, pulumi, pulumi_kubernetes as k8s
resources = json.loads(open("resources.json").read())
for entry in resources["crs"]:
    props = entry["props"]
    k8s.apiextensions.CustomResource(entry["name"], api_version=props["apiVersion"], kind=props["kind"],
        metadata=props["metadata"], spec=props["spec"], opts=pulumi.ResourceOptions(protect=entry.get("protect", False)))
k8s.helm.v3.Release("ps", chart="ps-db", version="1.1.0",
    repository_opts={"repo": "https://percona.github.io/percona-helm-charts/"}, values=resources["ps_values"])
'''


def _program(tmp_path: Path, crs: list[dict], ps_values: dict) -> Path:
    (tmp_path / "__main__.py").write_text(PROGRAM.replace('open("resources.json")', f'open({str(tmp_path / "resources.json")!r})'))
    (tmp_path / "resources.json").write_text(json.dumps({"crs": crs, "ps_values": ps_values}))
    return tmp_path


# ps-db values written by hand from the same cluster as the hand-written CR (the chart maps them 1:1).
GOOD_PS_VALUES = resolve_resource({"base": "ps-gr", "patch": {"spec": {"crVersion": None}}})["props"]["spec"]


def test_hand_written_resources_are_rejected_with_rule_ids(tmp_path, capsys):
    bad_pxc = resolve_resource({"base": "pxc", "patch": {"spec": {"pxc": {"configuration":
        "[mysqld]\ninnodb_buffer_pool_size=8G\nwsrep_provider_options=\"gcs.fc_limit=500\"\n"}}}})
    program = _program(tmp_path, [{"name": "shop", "props": bad_pxc["props"], "protect": True}], {})
    code = check.main(["--program", str(program), "--stack", "test", "--project", "p"])
    out = capsys.readouterr().out
    assert code == 1
    assert out.startswith("Policies:\n    ❌ percona-mysql@v0.1.0 (local: policies)")
    assert "- [mandatory]  galera-flow-control  (kubernetes:pxc.percona.com/v1:PerconaXtraDBCluster: shop)" in out
    assert "G1: spec.pxc.configuration sets gcs.fc_limit=500" in out
    # the ps-db release with chart defaults: flow control unbounded, memory auto-tuned
    assert "(kubernetes:helm.sh/v3:Release: ps)" in out
    for rule in ("F2:", "F3:", "M2:", "K2:"):
        assert rule in out


def test_a_compliant_program_passes(tmp_path, capsys):
    good = resolve_resource({"base": "ps-gr"})
    program = _program(tmp_path, [{"name": "orders", "props": good["props"], "protect": True}], GOOD_PS_VALUES)
    registrations = __import__("percona_mysql_k8s.offline", fromlist=["run_program"]).run_program(
        program, stack="test", config={}, project="p", preview=True)
    report = check.check_registrations(registrations, stack="test", project="p")
    assert [f.diagnostic.message for f in report.mandatory] == []


def test_policy_config_changes_the_verdict(tmp_path):
    raised = resolve_resource({"base": "pxc", "patch": {"spec": {"pxc": {"configuration":
        "[mysqld]\ninnodb_buffer_pool_size=8G\nmax_connections=1000\nwsrep_applier_threads=16\nwsrep_provider_options=\"gcs.fc_limit=150\"\n"}}}})
    program = _program(tmp_path, [{"name": "shop", "props": raised["props"], "protect": True}], GOOD_PS_VALUES)
    registrations = __import__("percona_mysql_k8s.offline", fromlist=["run_program"]).run_program(program, stack="test", config={}, project="p")
    strict = check.check_registrations(registrations, stack="test", project="p")
    assert "galera-flow-control" in {f.diagnostic.policy for f in strict.mandatory}
    loose = check.check_registrations(registrations, stack="test", project="p",
                                      policy_config={"galera-flow-control": {"max_fc_limit": 200}})
    assert "galera-flow-control" not in {f.diagnostic.policy for f in loose.findings}


def test_stack_config_passwords_must_be_secure(tmp_path):
    stack_file = tmp_path / "Pulumi.dev.yaml"
    stack_file.write_text(yaml.safe_dump({"config": {"p:rootPassword": "hunter2", "p:pmmToken": {"secure": "AAAA"}, "p:engine": "pxc"}}))
    findings = check.config_findings(stack_file)
    assert [f.diagnostic.rule for f in findings] == ["S1"]
    assert "p:rootPassword" in findings[0].diagnostic.message


SHIPPED = sorted((REPOSITORY / "stacks").glob("Pulumi.*.yaml"))


@pytest.mark.skipif(not SHIPPED or not (REPOSITORY / "stacks" / "__main__.py").exists(),
                    reason="no shipped stacks yet: stacks/Pulumi.<stack>.yaml and stacks/__main__.py land on main from another branch")
@pytest.mark.parametrize("stack_file", SHIPPED, ids=[p.stem.removeprefix("Pulumi.") for p in SHIPPED])
def test_every_shipped_stack_passes_with_zero_mandatory_violations(stack_file, capsys):
    stack = stack_file.stem.removeprefix("Pulumi.")
    # the kind stack sizes its nodes as a share of the machine running it (K1): judge it, as the PR
    # workflow does, for an 8-CPU / 32 GiB workstation rather than for this host
    host = ["--set", "kindHostCpu=8", "--set", "kindHostMemory=32Gi"] if stack == "kind" else []
    # the existing stack reads its cluster's Nodes at preview/up; offline it plans from declared nodes
    if stack == "existing":
        host = ["--set", "existingNodeSource=config", "--set", "existingNodeCpu=7910m", "--set", "existingNodeMemory=28Gi"]
    code = check.main(["--stack", stack, *host])
    out = capsys.readouterr().out
    assert code == 0, out


def test_set_must_be_key_equals_value(capsys):
    assert check.main(["--stack", "kind", "--set", "kindHostCpu"]) == 2
    assert "--set expects KEY=VALUE" in capsys.readouterr().err
