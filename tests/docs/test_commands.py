"""Every command the README and docs/ show works as written from a clone, with the project's .venv
(the README says once that `.venv/bin/python`, or `python` in the activated venv, is that environment).

* every `python -m MODULE` names a module the environment has, and the project's own answer `--help`;
* every `python SCRIPT.py` names a file of the repository;
* every full `.venv/bin/python -m percona_mysql_k8s...` line of a code block runs as written (this
  interpreter stands in for .venv/bin/python) and exits 0.
"""

from __future__ import annotations

import importlib.util
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
TEXT = {page.relative_to(ROOT).as_posix(): page.read_text() for page in PAGES}

MODULE = re.compile(r"(?:\.venv/bin/|venv/bin/)?python3? (?:-u )?-m ([A-Za-z_][\w.]*)")
SCRIPT = re.compile(r"(?:\.venv/bin/)?python3? ([\w/.-]+\.py)\b")
FENCE = re.compile(r"^```(?:bash|sh)\n(.*?)^```", re.M | re.S)


def mentioned(pattern: re.Pattern) -> list[tuple[str, str]]:
    return sorted({(match.group(1), page) for page, text in TEXT.items() for match in pattern.finditer(text)})


def runnable_lines() -> list[tuple[str, str]]:
    """Code-block lines that run one of the project's modules, without placeholders ([...], <...>)."""
    lines = []
    for page, text in TEXT.items():
        for block in FENCE.findall(text):
            for line in block.splitlines():
                command = line.split("  #", 1)[0].split(" > ", 1)[0].strip()
                if command.startswith(".venv/bin/python -m percona_mysql_k8s.") and not re.search(r"[\[<]", command):
                    lines.append((command, page))
    return lines


def test_the_readme_says_once_which_python_the_commands_use():
    assert TEXT["README.md"].count("source .venv/bin/activate") == 1


@pytest.mark.parametrize(("module", "page"), mentioned(MODULE))
def test_every_module_exists(module, page):
    assert importlib.util.find_spec(module) is not None, f"{page}: python -m {module}: no such module"
    if module.startswith("percona_mysql_k8s."):
        completed = subprocess.run([sys.executable, "-m", module, "--help"], capture_output=True, text=True, timeout=120)
        assert completed.returncode == 0, f"{page}: python -m {module} --help: {completed.stderr}"


@pytest.mark.parametrize(("script", "page"), mentioned(SCRIPT))
def test_every_script_exists(script, page):
    assert (ROOT / script).is_file(), f"{page}: python {script}: no such file"


def test_the_runnable_lines_are_found():
    # README: four sizing commands and two offline checks; docs/clusters.md: the kind config
    commands = [command for command, _page in runnable_lines()]
    assert sum(c.startswith(".venv/bin/python -m percona_mysql_k8s.sizing ") for c in commands) >= 4
    assert sum(c.startswith(".venv/bin/python -m percona_mysql_k8s.cli.check ") for c in commands) >= 2


@pytest.mark.parametrize(("command", "page"), runnable_lines())
def test_every_command_line_runs_as_written(command, page):
    """From the clone's root, where the docs run them (`.venv/bin/python` is relative to it); a file a command
    writes there (``--plot split.png``) is removed afterwards."""
    argv = [sys.executable, *shlex.split(command)[1:]]
    before = set(ROOT.iterdir())
    try:
        completed = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=300)
    finally:
        for created in set(ROOT.iterdir()) - before:
            if created.is_file():
                created.unlink()
    assert completed.returncode == 0, f"{page}: {command}\n{completed.stdout[-2000:]}\n{completed.stderr[-2000:]}"
