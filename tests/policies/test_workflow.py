"""The pull-request workflow: the offline check first, then `pulumi preview --policy-pack policies` per stack."""

from pathlib import Path

import yaml

WORKFLOW = Path(__file__).resolve().parents[2] / ".github" / "workflows" / "policy-check.yml"


def test_workflow_runs_offline_check_then_preview_with_the_pack():
    workflow = yaml.safe_load(WORKFLOW.read_text())
    assert "pull_request" in workflow[True]  # YAML reads the key `on` as True
    jobs = workflow["jobs"]
    offline = jobs["offline"]
    assert any("python -m percona_mysql_k8s.policies.check --stack" in step.get("run", "") for step in offline["steps"])
    assert not any("secrets." in str(step) for step in offline["steps"])  # credential-free
    preview = jobs["preview"]
    assert "offline" in preview["needs"]
    action = next(step for step in preview["steps"] if str(step.get("uses", "")).startswith("pulumi/actions@"))
    assert action["with"]["command"] == "preview" and action["with"]["policyPacks"] == "policies"
    assert offline["strategy"]["matrix"]["stack"] == preview["strategy"]["matrix"]["stack"]
