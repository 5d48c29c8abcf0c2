"""Clean virtualenvs, built once per session from PyPI (marker ``clean_venv``; deselect with ``-m "not clean_venv"``).

* ``pack_venv``: ``python -m venv`` + ``pip install -r requirements.txt`` of a pack built by
  ``percona-mysql-policy-bundle``: exactly what the CLI does where a published pack is installed
  (pkg/backend/httpstate/policypack.go, installRequiredPolicy -> sdk/python/toolchain/pip.go).
* ``installed(extra)``: ``pip install "<the wheel>[extra]"`` (not editable; ``extra`` None: the base install),
  the wheel built once from a copy of the files the distribution is built from, so nothing of the checkout
  leaks in. ``library_venv`` is the base install.

pip's cache is used when the index allows it. benchmarks/install_bench.py measures each install's size and time
(README "Install").
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

REPOSITORY = Path(__file__).resolve().parents[2]
DISTRIBUTION_FILES = ("pyproject.toml", "README.md", "LICENSE", "CHANGELOG.md", "modules")


@dataclass(frozen=True)
class Venv:
    root: Path

    @property
    def python(self) -> str:
        return str(self.root / "bin" / "python")

    def bin(self, name: str) -> str:
        return str(self.root / "bin" / name)

    def env(self, **extra: str) -> dict[str, str]:
        """This process's environment as the CLI hands it to a venv: no PYTHONPATH or PYTHONHOME of ours."""
        env = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "PYTHONHOME")}
        env.update(VIRTUAL_ENV=str(self.root), PATH=f"{self.root / 'bin'}{os.pathsep}{env.get('PATH', '')}", **extra)
        return env

    def run(self, *args: str, cwd: Path | None = None, timeout: float = 300, **extra: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            list(args), cwd=cwd, env=self.env(**extra), capture_output=True, text=True, timeout=timeout, check=False
        )

    def has(self, module: str) -> bool:
        probe = self.run(self.python, "-c", f"import importlib.util, sys; sys.exit(importlib.util.find_spec({module!r}) is None)")
        return probe.returncode == 0


def _create(root: Path, *pip_args: str) -> Venv:
    started = time.monotonic()
    subprocess.run([sys.executable, "-m", "venv", str(root)], check=True, capture_output=True)
    venv = Venv(root)
    # --no-compile: Python compiles what it imports when it imports it; compiling all of pulumi_aws/pulumi_gcp here
    # would take most of the install's time (benchmarks/install_bench.py measures the user's install, compiled)
    install = venv.run(
        venv.python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-compile", *pip_args, timeout=900
    )
    if install.returncode != 0:
        pytest.fail(f"pip install {' '.join(pip_args)} failed in a clean venv:\n{install.stdout[-3000:]}{install.stderr[-3000:]}")
    size = sum(path.stat().st_size for path in root.rglob("*") if path.is_file() and not path.is_symlink())
    print(
        f"\n[clean venv] {root.parent.name}: {time.monotonic() - started:.0f} s, {size / 2**20:.0f} MiB without .pyc "
        f"(benchmarks/install_bench.py measures the compiled install)",
        file=sys.stderr,
    )
    return venv


@pytest.fixture(scope="session")
def bundle_dir(tmp_path_factory) -> Path:
    """The self-contained pack, built by this checkout's builder."""
    from percona_mysql_k8s.cli.bundle import build

    return build(tmp_path_factory.mktemp("bundle") / "percona-mysql")


@pytest.fixture(scope="session")
def pack_venv(tmp_path_factory, bundle_dir) -> Venv:
    """The pack's venv from its requirements.txt alone, installed as the CLI does (cwd: the pack)."""
    root = tmp_path_factory.mktemp("pack-venv") / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(root)], check=True, capture_output=True)
    venv = Venv(root)
    started = time.monotonic()
    install = venv.run(
        venv.python,
        "-m",
        "pip",
        "install",
        "--quiet",
        "--disable-pip-version-check",
        "-r",
        "requirements.txt",
        cwd=bundle_dir,
        timeout=600,
    )
    if install.returncode != 0:
        pytest.fail(f"pip install -r requirements.txt of the pack failed in a clean venv:\n{install.stderr[-3000:]}")
    print(f"\n[clean venv] pack: {time.monotonic() - started:.0f} s", file=sys.stderr)
    return venv


@pytest.fixture(scope="session")
def distribution_source(tmp_path_factory) -> Path:
    """The files the distribution is built from, copied (the build writes build/ and *.egg-info beside them)."""
    source = tmp_path_factory.mktemp("source") / "percona-mysql-k8s"
    source.mkdir()
    for name in DISTRIBUTION_FILES:
        path = REPOSITORY / name
        if path.is_dir():
            shutil.copytree(path, source / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info"))
        else:
            shutil.copyfile(path, source / name)
    return source


@pytest.fixture(scope="session")
def wheel(tmp_path_factory, distribution_source) -> Path:
    """The distribution's wheel, built as pip builds it for ``pip install <source>``."""
    out = tmp_path_factory.mktemp("wheel")
    built = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--quiet",
            "--no-deps",
            "--disable-pip-version-check",
            "-w",
            str(out),
            str(distribution_source),
        ],
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    if built.returncode != 0:
        pytest.fail(f"pip wheel failed:\n{built.stdout[-3000:]}{built.stderr[-3000:]}")
    (found,) = out.glob("percona_mysql_k8s-*.whl")
    return found


@pytest.fixture(scope="session")
def installed(tmp_path_factory, wheel):
    """``installed(extra)``: a clean venv with ``pip install "<wheel>[extra]"`` (None: the base install), once per session."""
    venvs: dict[str | None, Venv] = {}

    def get(extra: str | None = None) -> Venv:
        if extra not in venvs:
            target = f"{wheel}[{extra}]" if extra else str(wheel)
            venvs[extra] = _create(tmp_path_factory.mktemp(f"venv-{extra or 'base'}") / "venv", target)
        return venvs[extra]

    return get


@pytest.fixture(scope="session")
def library_venv(installed) -> Venv:
    """The base install: ``pip install percona-mysql-k8s`` (the commands, no provider)."""
    return installed(None)
