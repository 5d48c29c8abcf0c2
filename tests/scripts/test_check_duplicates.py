"""scripts/check-duplicates.sh, the gate scripts/test.sh runs: a change that repeats lines of modules/ to the letter
fails; one alike only in shape is printed for review; boilerplate and the generated component shells pass. The
`duplicates` command is replaced by a stand-in that prints a fixed report in the tool's row format
(`D<n> a.py:1-9 ~ b.py:3-11 [shape] [boilerplate] [(both added)]`) and records its arguments."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parents[2]
SCRIPT = REPOSITORY / "scripts" / "check-duplicates.sh"
HEADER = "3 pairs of places (200 files read), each sharing runs of 6 or more identical or same-shape lines"


def _run(tmp_path: Path, report: str | None, script: Path = SCRIPT) -> subprocess.CompletedProcess[str]:
    """The gate with a stand-in `duplicates` printing ``report`` (None: no such command on PATH)."""
    tools = tmp_path / "bin"
    tools.mkdir()
    if report is not None:
        (tmp_path / "report.txt").write_text(report)
        stand_in = tools / "duplicates"
        stand_in.write_text(f'#!/bin/sh\necho "$@" > {tmp_path}/arguments\ncat {tmp_path}/report.txt\n')
        stand_in.chmod(0o755)
    for command in ("bash", "git", "grep", "cat", "dirname", "echo"):  # what the script itself needs, nothing more
        found = subprocess.run(["bash", "-c", f"command -v {command}"], capture_output=True, text=True).stdout.strip()
        if found.startswith("/"):
            (tools / command).symlink_to(found)
    # GIT_CEILING_DIRECTORIES: a copy under tmp_path is outside git even where the temporary directory is in a checkout
    env = {**os.environ, "PATH": str(tools), "DUPLICATES_BASE": "abc123", "GIT_CEILING_DIRECTORIES": str(tmp_path)}
    return subprocess.run(["bash", str(script)], capture_output=True, text=True, env=env)


def test_a_pair_repeated_to_the_letter_fails_naming_it(tmp_path):
    row = "D1 percona_mysql_k8s/a.py:10-24 ~ percona_mysql_k8s/b.py:40-54 (both added)"
    done = _run(tmp_path, f"{HEADER}\n{row}\n")
    assert done.returncode == 1
    assert row in done.stderr and "since abc123" in done.stderr
    assert (tmp_path / "arguments").read_text().split() == [
        "--change", "--base", "abc123", "--repo", "modules", "--most", "200", "--seconds", "120",
    ]  # fmt: skip


def test_shape_boilerplate_and_generated_shells_pass(tmp_path):
    shape = "D1 percona_mysql_k8s/a.py:1-8 ~ percona_mysql_k8s/b.py:3-10 shape"
    report = (
        f"{HEADER}\n{shape}\n"
        "D2 percona_mysql_k8s/stack/components/eks.py:71-230 ~ percona_mysql_k8s/stack/components/gke.py:80-239\n"
        "D3 percona_mysql_k8s/c.py:1-6 ~ percona_mysql_k8s/d.py:1-6 shape boilerplate\n"
    )
    done = _run(tmp_path, report)
    assert done.returncode == 0, done.stderr
    assert shape in done.stderr  # printed for review
    assert "stack/components" not in done.stderr and "D3" not in done.stderr


def test_an_empty_change_passes_quietly(tmp_path):
    done = _run(tmp_path, "no duplicates (0 pairs, 217 files read)\n")
    assert (done.returncode, done.stderr) == (0, "")


def test_a_machine_without_the_tool_skips_saying_so(tmp_path):
    done = _run(tmp_path, None)
    assert done.returncode == 0
    assert "skipped: the duplicates command is not on PATH" in done.stderr


def test_a_copy_outside_git_skips_saying_so(tmp_path):
    # a tarball of the repository: `duplicates --change` needs a git checkout, so there is no change to measure
    copy = tmp_path / "copy" / "scripts"
    copy.mkdir(parents=True)
    (copy / SCRIPT.name).write_text(SCRIPT.read_text())
    row = "D1 percona_mysql_k8s/a.py:10-24 ~ percona_mysql_k8s/b.py:40-54 (both added)"
    done = _run(tmp_path, f"{HEADER}\n{row}\n", script=copy / SCRIPT.name)
    assert done.returncode == 0
    assert "skipped: not a git checkout" in done.stderr
