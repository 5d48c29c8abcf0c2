"""A tier whose prerequisites are missing: skipped on a user's machine, failed under CI (CI runs what it names).

And the operators' build: a kit that is missing or does not match its checksums stops the build with one line naming
what failed."""

from __future__ import annotations

import hashlib
import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CI_VARIABLES = ("CI", "GITHUB_ACTIONS")


def run(script: str, *args: str, ci: str | None, **env: str) -> subprocess.CompletedProcess[str]:
    environment = {key: value for key, value in os.environ.items() if key not in CI_VARIABLES}
    if ci is not None:
        environment["CI"] = ci
    environment.update(env)
    return subprocess.run(
        ["bash", str(ROOT / "scripts" / script), *args], capture_output=True, text=True, env=environment, timeout=60
    )


@pytest.mark.parametrize(
    ("script", "command"),
    [("apiserver.sh", "run-tier"), ("apiserver.sh", "ensure-built"), ("engine.sh", "run-tier"), ("engine.sh", "up")],
)
def test_a_tier_without_its_control_plane_tool_skips_on_a_workstation_and_fails_under_ci(tmp_path, script, command):
    absent = str(tmp_path / "no-such-tool")
    workstation = run(script, command, ci=None, K8S_CONTROL_PLANE_TOOL=absent)
    assert workstation.returncode == 0, workstation.stderr
    assert "SKIPPED - no control-plane tool at " + absent in workstation.stdout
    for ci in ("true", "1"):
        runner = run(script, command, ci=ci, K8S_CONTROL_PLANE_TOOL=absent)
        assert runner.returncode == 1, runner.stdout
        assert f"FAILED - no control-plane tool at {absent}" in runner.stderr
        assert "the tier must run" in runner.stderr


def test_ci_false_is_a_workstation(tmp_path):
    result = run("apiserver.sh", "run-tier", ci="false", K8S_CONTROL_PLANE_TOOL=str(tmp_path / "none"))
    assert result.returncode == 0 and "SKIPPED" in result.stdout


def _kit(tmp_path: Path, *, corrupt: str | None = None) -> Path:
    """A kit with the two archives SHA256SUMS names; ``corrupt`` names one whose bytes no longer match."""
    kit = tmp_path / "kit"
    kit.mkdir()
    lines = []
    for archive in ("percona-server-mysql-operator-v1.2.0.tar.xz", "percona-xtradb-cluster-operator-b3b0b10a7.tar.xz"):
        content = archive.encode()
        (kit / archive).write_bytes(content)
        lines.append(f"{hashlib.sha256(content).hexdigest()}  {archive}\n")
        if archive == corrupt:
            (kit / archive).write_bytes(content + b"tampered")
    (kit / "SHA256SUMS").write_text("".join(lines))
    return kit


def test_the_operator_build_stops_on_a_missing_kit_with_one_line(tmp_path):
    result = run("operators.sh", "ensure-built", ci="true", PERCONA_OPERATORS_KIT=str(tmp_path / "none"))
    assert result.returncode == 1
    assert result.stderr.strip().splitlines() == [
        f"operators: no operator kit at {tmp_path / 'none'} (SHA256SUMS missing; set PERCONA_OPERATORS_KIT)"
    ]


def test_the_operator_build_stops_on_an_archive_that_does_not_match_its_checksum(tmp_path):
    archive = "percona-xtradb-cluster-operator-b3b0b10a7.tar.xz"
    kit = _kit(tmp_path, corrupt=archive)
    result = run("operators.sh", "ensure-built", ci="true", PERCONA_OPERATORS_KIT=str(kit), OPERATORS_HOME=str(tmp_path / "out"))
    assert result.returncode == 1
    assert result.stderr.strip().splitlines() == [
        f"operators: checksum mismatch: {kit / archive} is not the archive SHA256SUMS names"
    ]
    assert not (tmp_path / "out" / "bin").exists()  # nothing was built from it


def test_the_operator_build_names_an_archive_it_cannot_unpack(tmp_path):
    kit = _kit(tmp_path)  # the sums match, but the archives are not xz tarballs
    result = run("operators.sh", "ensure-built", ci="true", PERCONA_OPERATORS_KIT=str(kit), OPERATORS_HOME=str(tmp_path / "out"))
    assert result.returncode == 1
    assert result.stderr.strip().splitlines()[-1] == (
        "operators: unpacking percona-xtradb-cluster-operator-b3b0b10a7.tar.xz failed"
    )


@pytest.mark.parametrize(
    ("missing", "message"),
    [
        ("K8S_CONTROL_PLANE_TOOL", "no control-plane tool at "),
        ("PERCONA_OPERATORS_KIT", "no operator kit at "),
    ],
)
def test_the_operator_tier_without_a_prerequisite_skips_on_a_workstation_and_fails_where_it_must_run(tmp_path, missing, message):
    absent = {missing: str(tmp_path / "absent")}
    workstation = run("operators.sh", "run-tier", ci=None, **absent)
    assert workstation.returncode == 0, workstation.stderr
    assert f"operator tier: SKIPPED - {message}{tmp_path / 'absent'}" in workstation.stdout
    for env in ({"ci": "true"}, {"ci": "1"}, {"ci": None, "OPERATOR_TIER_REQUIRED": "1"}):
        required = run("operators.sh", "run-tier", **env, **absent)
        assert required.returncode == 1, required.stdout
        assert f"operator tier: FAILED - {message}" in required.stderr
        assert "the tier must run" in required.stderr


def test_ci_run_requires_the_tiers_whatever_the_runner_exports(tmp_path):
    # .ci/run's own top-level exports, evaluated in a runner that exports no CI variable: a tier whose tool is
    # missing must still fail, not print SKIPPED and pass
    lines = (ROOT / ".ci" / "run").read_text().splitlines()
    exports = [line for line in lines if line.startswith("export ")]
    script = "\n".join([*exports, f"bash {ROOT / 'scripts' / 'apiserver.sh'} run-tier"])
    environment = {key: value for key, value in os.environ.items() if key not in CI_VARIABLES}
    environment["K8S_CONTROL_PLANE_TOOL"] = str(tmp_path / "no-such-tool")
    result = subprocess.run(["bash", "-c", script], capture_output=True, text=True, env=environment, timeout=60)
    assert result.returncode == 1, result.stdout
    assert "the tier must run" in result.stderr
