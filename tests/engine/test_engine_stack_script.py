"""scripts/stack.sh (which scripts/up.sh runs) under the real CLI: a fresh clone's stack is created, and its secrets
work, without a byte of the tracked stack files changing; where `pulumi stack select --create` alone rewrites them.

Only the CLI and a local file backend are involved (config commands start no program): the tier's control plane is
not needed.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from engine_cli import copy_clone

pytestmark = pytest.mark.engine
REPOSITORY = Path(__file__).resolve().parents[2]


def _environment(home: Path) -> dict[str, str]:
    """The user's environment of a fresh clone: no backend and no passphrase chosen (the script picks both)."""
    env = {key: value for key, value in os.environ.items() if not key.startswith(("PULUMI_BACKEND", "PULUMI_CONFIG"))}
    for key in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME"):
        env.pop(key, None)
    env.update(HOME=str(home), PULUMI_SKIP_UPDATE_CHECK="true", NO_COLOR="1")
    return env


def _tracked(clone: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in sorted((clone / "stacks").glob("Pulumi.*.yaml"))}


def test_a_stack_is_created_and_used_without_writing_the_tracked_stack_files(pulumi_binary, tmp_path):
    clone = copy_clone(REPOSITORY, tmp_path / "clone")
    env = _environment(tmp_path / "home")
    (tmp_path / "home").mkdir()
    before = _tracked(clone)

    def script(*args: str) -> subprocess.CompletedProcess:
        done = subprocess.run(
            ["bash", "scripts/stack.sh", *args], cwd=clone, env=env, capture_output=True, text=True, timeout=300
        )
        assert done.returncode == 0, done.stdout + done.stderr
        return done

    # a fresh clone: the state directory does not exist yet, nor a passphrase
    assert script("existing", "config", "get", "existingNodeSource").stdout.strip() == "cluster"
    assert _tracked(clone) == before
    run_config = clone / ".pulumi-state" / "stacks" / "Pulumi.existing.yaml"
    salt = (clone / ".pulumi-state" / "stacks" / "Pulumi.existing.salt").read_text()
    assert salt.startswith("encryptionsalt: v1:") and run_config.read_text() == before["Pulumi.existing.yaml"].decode() + salt

    # the copy's salt is the stack's: a secret set through it reads back with the generated passphrase
    cli_env = {
        **env,
        "PULUMI_BACKEND_URL": f"file://{clone}/.pulumi-state",
        "PULUMI_CONFIG_PASSPHRASE_FILE": str(clone / ".pulumi-state" / "passphrase"),
    }

    def pulumi(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [pulumi_binary, *args, "--non-interactive"], cwd=clone, env=cli_env, capture_output=True, text=True, timeout=300
        )

    assert (
        pulumi("config", "set", "--secret", "probe", "s3cr3t", "-s", "existing", "--config-file", str(run_config)).returncode == 0
    )
    assert "secure:" in run_config.read_text()
    got = pulumi("config", "get", "probe", "-s", "existing", "--config-file", str(run_config))
    assert got.stdout.strip() == "s3cr3t", got.stderr
    # the stack exists now: the next command keeps its salt and still writes nothing tracked
    script("existing", "config", "get", "existingNodeSource")
    assert run_config.read_text().endswith(salt) and _tracked(clone) == before

    # what the script avoids: the CLI's own `stack select --create` rewrites the tracked file (salt, re-serialized)
    assert pulumi("stack", "select", "eks", "--create").returncode == 0
    assert b"encryptionsalt:" in (clone / "stacks" / "Pulumi.eks.yaml").read_bytes()
    assert _tracked(clone)["Pulumi.eks.yaml"] != before["Pulumi.eks.yaml"]
