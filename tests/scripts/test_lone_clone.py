"""A clone with nothing beside it (no ../shared, no mirror, an empty cache) collects every test without an
error, and a test that needs reference material skips naming scripts/fetch-reference.sh (fails on CI).

The clone is the repository's files as git sees them in the working tree (tracked, and untracked but not
ignored: what the next commit would give a user), copied into a temporary directory; it runs with this interpreter and this
clone's ``modules/`` first on the path. About half a minute (a whole collection): ``-m 'not lone_clone'``
leaves it out.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPOSITORY = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.lone_clone


@pytest.fixture(scope="module")
def lone_clone(tmp_path_factory) -> tuple[Path, dict[str, str]]:
    if not (REPOSITORY / ".git").exists() or shutil.which("git") is None:
        pytest.skip("not a git checkout: which files a clone would have is unknown")
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=REPOSITORY, capture_output=True, check=True
    ).stdout
    root = tmp_path_factory.mktemp("lone") / "main"
    for name in filter(None, listed.decode().split("\0")):
        source = REPOSITORY / name
        if source.is_file():  # a tracked file deleted in the working tree is not in the clone either
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, root / name)
    assert not (root.parent / "shared").exists()
    environment = {key: value for key, value in os.environ.items() if not key.startswith(("PERCONA_REFERENCE", "K8S_APISERVER"))}
    environment.update(PERCONA_REFERENCE_CACHE=str(root.parent / "empty-cache"), PYTHONPATH=str(root / "modules"))
    return root, environment


def _pytest(root: Path, environment: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args],
        cwd=root,
        env=environment,
        capture_output=True,
        text=True,
        timeout=900,
    )


def test_the_whole_suite_collects_without_an_error(lone_clone):
    root, environment = lone_clone
    collected = _pytest(root, environment, "--collect-only", "-q")
    summary = collected.stdout.strip().splitlines()[-1]
    assert collected.returncode == 0, collected.stdout[-3000:] + collected.stderr[-3000:]
    assert " collected" in summary and "error" not in summary, summary
    assert int(summary.split()[0]) > 2000, summary  # the whole suite, not a part of it


def test_material_tests_skip_naming_the_fetch_command_and_fail_when_required(lone_clone):
    root, environment = lone_clone
    material = ["tests/core/test_rules.py", "tests/core/test_mycnf.py", "tests/database/test_versions.py"]
    run = _pytest(root, environment, "-q", "-rs", *material)
    assert run.returncode == 0, run.stdout[-3000:]
    skips = [line for line in run.stdout.splitlines() if line.startswith("SKIPPED")]
    assert skips and all("scripts/fetch-reference.sh" in line for line in skips), skips
    assert any("RULES.md" in line and "mirror-only" in line for line in skips), skips
    required = _pytest(root, {**environment, "PERCONA_REFERENCE_REQUIRED": "1"}, "-q", "tests/core/test_rules.py")
    assert required.returncode == 1 and "PERCONA_REFERENCE_REQUIRED=1" in required.stdout, required.stdout[-3000:]


def test_the_fetch_command_reports_what_it_cannot_get_offline(lone_clone):
    root, environment = lone_clone
    fetch = [str(root / "scripts" / "fetch-reference.sh"), "--offline"]
    offline = subprocess.run(["bash", *fetch], cwd=root, env=environment, capture_output=True, text=True, timeout=120)
    assert offline.returncode == 0, offline.stdout + offline.stderr
    assert "0 verified" in offline.stdout and "missing  RULES.md: no verified copy here" in offline.stdout
    required = subprocess.run(
        ["bash", *fetch, "--require-all"], cwd=root, env=environment, capture_output=True, text=True, timeout=120
    )
    assert required.returncode == 1, required.stdout
