"""The pull-request workflow: the offline check first, then `pulumi preview --policy-pack policies` per stack."""

from pathlib import Path

import yaml

WORKFLOW = Path(__file__).resolve().parents[2] / ".github" / "workflows" / "policy-check.yml"


def test_workflow_runs_offline_check_then_preview_with_the_pack():
    workflow = yaml.safe_load(WORKFLOW.read_text())
    assert "pull_request" in workflow[True]  # YAML reads the key `on` as True
    jobs = workflow["jobs"]
    offline = jobs["offline"]
    assert any(
        "percona-mysql-policy-check" in step.get("run", "") and "--stack" in step.get("run", "") for step in offline["steps"]
    )
    assert any("pip install --no-deps ." in step.get("run", "") for step in offline["steps"])  # the distribution, installed
    assert not any("secrets." in str(step) for step in offline["steps"])  # credential-free
    preview = jobs["preview"]
    assert "offline" in preview["needs"]
    action = next(step for step in preview["steps"] if str(step.get("uses", "")).startswith("pulumi/actions@"))
    assert action["with"]["command"] == "preview" and action["with"]["policyPacks"] == "policies"
    assert offline["strategy"]["matrix"]["stack"] == preview["strategy"]["matrix"]["stack"]


def test_workflow_runs_the_test_suite_with_current_actions():
    workflow = yaml.safe_load(WORKFLOW.read_text())
    tests = workflow["jobs"]["tests"]
    assert any("scripts/test.sh" in step.get("run", "") for step in tests["steps"])
    # Current majors (the workflow's header cites the releases): checkout v7, setup-python v7, pulumi/actions v7.
    current = {
        "actions/checkout": "v7",
        "actions/setup-python": "v7",
        "pulumi/actions": "v7",
        "github/codeql-action/upload-sarif": "v4",
    }
    used = [step["uses"] for job in workflow["jobs"].values() for step in job["steps"] if "uses" in step]
    assert used and all(use.split("@")[1] == current[use.split("@")[0]] for use in used), used


def test_the_preview_sizes_the_kind_stack_as_the_offline_job_does(tmp_path):
    """Both jobs judge the kind stack for a declared workstation, never for the runner: the offline job with --set,
    the preview job by declaring the same host in the runner's copy of the stack file (its step, run here)."""
    import shutil
    import subprocess
    import sys

    workflow = yaml.safe_load(WORKFLOW.read_text())
    offline = next(step["run"] for step in workflow["jobs"]["offline"]["steps"] if "kindHostCpu=8" in step.get("run", ""))
    assert "--set kindHostCpu=8 --set kindHostMemory=32Gi" in offline
    step = next(step for step in workflow["jobs"]["preview"]["steps"] if step.get("if") == "matrix.stack == 'kind'")
    copy = tmp_path / "checkout"
    (copy / "stacks").mkdir(parents=True)
    shutil.copy(WORKFLOW.parents[2] / "stacks" / "Pulumi.kind.yaml", copy / "stacks")
    (copy / ".venv" / "bin").mkdir(parents=True)
    (copy / ".venv" / "bin" / "python").symlink_to(sys.executable)
    subprocess.run(["bash", "-eo", "pipefail", "-c", step["run"]], cwd=copy, check=True)
    config = yaml.safe_load((copy / "stacks" / "Pulumi.kind.yaml").read_text())["config"]
    assert (config["percona-mysql:kindHostCpu"], config["percona-mysql:kindHostMemory"]) == ("8", "32Gi")
    assert config["percona-mysql:target"] == "kind"  # the rest of the stack as it was
    steps = workflow["jobs"]["preview"]["steps"]
    assert steps.index(step) < next(i for i, s in enumerate(steps) if str(s.get("uses", "")).startswith("pulumi/actions@"))


def test_offline_job_uploads_sarif_writes_the_summary_and_fails_on_mandatory_findings():
    offline = yaml.safe_load(WORKFLOW.read_text())["jobs"]["offline"]
    check = next(step for step in offline["steps"] if step.get("id") == "check")
    for wanted in ("--format github", "sarif=results/", "markdown=results/", '>> "$GITHUB_STEP_SUMMARY"', 'exit "$status"'):
        assert wanted in check["run"], wanted
    upload = next(step for step in offline["steps"] if str(step.get("uses", "")).startswith("github/codeql-action/upload-sarif@"))
    assert upload["if"].startswith("always()") and upload["with"]["sarif_file"] == "results"
    assert offline["permissions"]["security-events"] == "write"


def test_tests_job_installs_the_sarif_multitool_where_the_tests_look_for_it():
    """Without it the SARIF multitool test would skip on every pull request: the job installs it from npm first."""
    steps = yaml.safe_load(WORKFLOW.read_text())["jobs"]["tests"]["steps"]
    runs = [step.get("run", "") for step in steps]
    install = next(i for i, run in enumerate(runs) if "@microsoft/sarif-multitool@" in run)
    assert '--prefix "$HOME/.cache/percona-mysql-k8s/npm"' in runs[install]  # tests/cli/test_locations.py's default
    assert install < next(i for i, run in enumerate(runs) if "scripts/test.sh" in run)
