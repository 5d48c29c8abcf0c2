"""The real Pulumi CLI, driven the way a user drives it from a clone: a project directory, a local file backend
(``PULUMI_BACKEND_URL=file://...``) and a passphrase for its secrets.

The project is a copy of this clone's files (what ``git ls-files`` lists, untracked files included, ignored ones
left out: a fresh clone with the working tree's edits), so ``pulumi stack init`` and ``pulumi config set`` write
into the copy's ``stacks/Pulumi.<stack>.yaml`` as they would into a user's, never into this clone, and the Python
language host creates the copy's ``.venv`` from ``stacks/requirements.txt`` as it does on a user's first ``up``.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any


class PulumiFailed(AssertionError):
    pass


@dataclass
class Result:
    args: list[str]
    returncode: int
    stdout: str
    stderr: str
    seconds: float

    def text(self) -> str:
        return f"$ pulumi {' '.join(self.args)}  (exit {self.returncode}, {self.seconds:.0f} s)\n{self.stdout}\n{self.stderr}"


def copy_clone(repository: Path, destination: Path) -> Path:
    """The clone's files as a fresh clone with the working tree's edits would have them."""
    listed = (
        subprocess.run(
            ["git", "-C", str(repository), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            check=True,
            capture_output=True,
        )
        .stdout.decode()
        .split("\0")
    )
    for name in filter(None, listed):
        source = repository / name
        if not source.is_file():  # deleted in the working tree, not yet in the index
            continue
        target = destination / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target)
    return destination


class PulumiCli:
    """``pulumi`` in ``project`` with its state in ``backend`` (a directory)."""

    def __init__(self, binary: str, project: Path, backend: Path, passphrase: str, log: Path):
        self.binary = binary
        self.project = project
        self.backend = backend
        self.passphrase = passphrase
        self.log = log  # every command and its output, for a failure's post-mortem
        self.extra_env: dict[str, str] = {}  # laid over the environment (the kind stand-in's PATH and settings)

    def env(self) -> dict[str, str]:
        env = dict(os.environ)
        # the test runner's virtualenv must not leak into the program's: the language host picks the project's
        for key in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME"):
            env.pop(key, None)
        env.update(
            PULUMI_BACKEND_URL=f"file://{self.backend}",
            PULUMI_CONFIG_PASSPHRASE=self.passphrase,
            PULUMI_SKIP_UPDATE_CHECK="true",
            NO_COLOR="1",
        )
        env.update(self.extra_env)
        return env

    def _command(self, args: list[str], stack: str | None) -> list[str]:
        stack_args = ["--stack", stack] if stack else []
        return [self.binary, *args, *stack_args, "--non-interactive", "--color", "never"]

    def run(
        self, *args: str, stack: str | None = None, timeout: float = 900, check: bool = True, cwd: Path | None = None
    ) -> Result:
        command = self._command(list(args), stack)
        start = time.monotonic()
        try:
            done = subprocess.run(
                command, cwd=cwd or self.project, env=self.env(), capture_output=True, text=True, timeout=timeout
            )
        except subprocess.TimeoutExpired as error:
            raise PulumiFailed(
                f"pulumi {' '.join(args)} did not finish in {timeout} s:\n{error.stdout}\n{error.stderr}"
            ) from None
        result = Result(list(args), done.returncode, done.stdout, done.stderr, time.monotonic() - start)
        self._record(result)
        if check and done.returncode != 0:
            raise PulumiFailed(result.text())
        return result

    def start(self, *args: str, stack: str | None = None, output: Path) -> subprocess.Popen:
        """Start a long command in the background (its own session, so it can be killed alone or with its plugins)."""
        with output.open("w") as handle:  # the child keeps its own descriptor
            return subprocess.Popen(
                self._command(list(args), stack),
                cwd=self.project,
                env=self.env(),
                stdout=handle,
                stderr=subprocess.STDOUT,
                text=True,
                start_new_session=True,
            )

    def program(self, source: Path, directory: Path, name: str) -> PulumiCli:
        """A small hand-written program (``source``/__main__.py) as its own project in ``directory``, on the same
        backend and passphrase, run by the test environment's Python (it needs pulumi and pulumi_kubernetes only)."""
        directory.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source / "__main__.py", directory / "__main__.py")
        (directory / "Pulumi.yaml").write_text(
            json.dumps({"name": name, "runtime": {"name": "python", "options": {"toolchain": "pip", "virtualenv": sys.prefix}}})
        )
        return PulumiCli(self.binary, directory, self.backend, self.passphrase, self.log)

    def _record(self, result: Result) -> None:
        with self.log.open("a") as handle:
            handle.write(result.text() + "\n\n")

    # -----------------------------------------------------------------------------------------------------
    def export(self, stack: str, *, show_secrets: bool = False) -> tuple[str, dict[str, Any]]:
        """The stack's state as ``pulumi stack export`` writes it (text and parsed)."""
        args = ["stack", "export"] + (["--show-secrets"] if show_secrets else [])
        text = self.run(*args, stack=stack, timeout=120).stdout
        return text, json.loads(text)

    def outputs(self, stack: str) -> dict[str, Any]:
        return json.loads(self.run("stack", "output", "--json", stack=stack, timeout=120).stdout)

    def resources(self, stack: str) -> list[dict[str, Any]]:
        return self.export(stack)[1]["deployment"].get("resources") or []


def kill_with_plugins(process: subprocess.Popen, grace: float = 5.0) -> list[str]:
    """SIGKILL the CLI, then whatever it started that outlives it by ``grace`` seconds (language host, program,
    providers): nothing of the interrupted run may touch the cluster while the recovery runs. Returns what had
    to be killed after the CLI."""
    session = os.getsid(process.pid)
    process.send_signal(signal.SIGKILL)
    process.wait()
    deadline = time.monotonic() + grace
    survivors = _session_members(session)
    while survivors and time.monotonic() < deadline:
        time.sleep(0.2)
        survivors = _session_members(session)
    killed = []
    for pid, name in survivors.items():
        try:
            os.kill(pid, signal.SIGKILL)
            killed.append(f"{name} ({pid})")
        except ProcessLookupError:
            pass
    return killed


def _session_members(session: int) -> dict[int, str]:
    members = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if os.getsid(int(entry.name)) == session:
                members[int(entry.name)] = (entry / "comm").read_text().strip()
        except (ProcessLookupError, PermissionError, FileNotFoundError):
            continue
    return members
