"""examples/user-repository: a team's repository using the published package, tested the way CI can (no GitHub
runner here): the workflow's offline job runs, command by command, in a scratch git repository made from the example,
with the package this checkout builds in place of the pinned release; the GitLab job in docs/policies.md runs the
same commands."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import percona_mysql_k8s
import yaml

REPOSITORY = Path(__file__).resolve().parents[2]
EXAMPLE = REPOSITORY / "examples" / "user-repository"
WORKFLOW = EXAMPLE / ".github" / "workflows" / "percona-mysql.yml"
INSTALL = "python -m pip install -r requirements.txt"


def _offline_steps() -> list[dict]:
    return yaml.safe_load(WORKFLOW.read_text())["jobs"]["offline"]["steps"]


def _scratch_repository(tmp_path: Path) -> Path:
    repository = tmp_path / "orders-db"
    shutil.copytree(EXAMPLE, repository)
    git = ["git", "-c", "user.name=ci", "-c", "user.email=ci@example.invalid"]
    for command in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "the orders database"]):
        subprocess.run([*git, *command], cwd=repository, check=True)
    return repository


def test_the_package_is_pinned_at_this_release_with_its_gke_extra():
    pins = [line for line in (EXAMPLE / "requirements.txt").read_text().splitlines() if line and not line.startswith("#")]
    assert pins == [f"percona-mysql-k8s[gke]=={percona_mysql_k8s.__version__}"]
    install = next(step for step in _offline_steps() if step.get("name") == "install")
    assert install["run"] == INSTALL


def test_the_offline_job_passes_on_a_scratch_repository(tmp_path):
    repository = _scratch_repository(tmp_path)
    # what the install step puts on PATH: the package's commands (here this checkout's, installed in the test venv)
    bin_dir = Path(sys.executable).parent
    assert (bin_dir / "percona-mysql-policy-check").exists() and (bin_dir / "percona-mysql-policy-bundle").exists()
    env = {
        **{key: value for key, value in os.environ.items() if not key.startswith(("PULUMI_", "PYTHONPATH"))},
        "PATH": f"{bin_dir}:{os.environ['PATH']}",
        "PACK_DIR": str(tmp_path / "runner-temp" / "percona-mysql"),  # the job's env: ${{ runner.temp }}/percona-mysql
    }
    ran = []
    for step in _offline_steps():
        if "run" not in step or step["run"] == INSTALL:
            continue
        # GitHub runs a step's script as `bash --noprofile --norc -eo pipefail {0}`
        done = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]],
            cwd=repository,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert done.returncode == 0, f"{step['name']}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
        ran.append((step["name"], done.stdout))
    assert [name for name, _ in ran] == [
        "the policy pack, from the installed package",
        "percona-mysql-policy-check, every stack of this repository",
    ]
    assert (Path(env["PACK_DIR"]) / "PulumiPolicy.yaml").is_file() and (Path(env["PACK_DIR"]) / "_vendor").is_dir()
    report = ran[-1][1]
    assert "orders-cr" in report or "PerconaXtraDBCluster" in report, report[-2000:]
    assert "✅ percona-mysql@" in report and "0 mandatory" in report, report[-2000:]
    assert subprocess.run(["git", "status", "--porcelain"], cwd=repository, capture_output=True, text=True).stdout == ""


def test_a_breach_in_the_repository_fails_the_job(tmp_path):
    """The gate can fail: the same job on a program that adds a ConfigMap holding a password (S1) exits 1."""
    repository = _scratch_repository(tmp_path)
    main = repository / "__main__.py"
    main.write_text(
        main.read_text()
        + "\nimport pulumi_kubernetes as k8s\n\n"
        + 'k8s.core.v1.ConfigMap("app", metadata={"name": "app"}, data={"DB_PASSWORD": "hunter2"})\n'
    )
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}", "PACK_DIR": str(tmp_path / "pack")}
    env.pop("PYTHONPATH", None)
    script = "\n".join(step["run"] for step in _offline_steps() if "run" in step and step["run"] != INSTALL)
    done = subprocess.run(
        ["bash", "-eo", "pipefail", "-c", script], cwd=repository, env=env, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 1 and "S1: " in done.stdout, done.stdout[-2000:] + done.stderr[-2000:]


def test_the_gitlab_job_in_the_docs_runs_the_same_commands():
    text = (REPOSITORY / "docs" / "policies.md").read_text()
    block = re.search(r"The same offline job in GitLab CI.*?```yaml\n(.*?)```", text, re.DOTALL)
    assert block, "docs/policies.md shows the GitLab CI job"
    job = yaml.safe_load(block.group(1))["percona-mysql-offline"]
    assert job["variables"]["PACK_DIR"]
    assert [line.strip() for line in job["script"]] == [step["run"].strip() for step in _offline_steps() if "run" in step]
