"""Size and time of each install of the distribution: the base install and every extra (README "Install").

For each install: a new virtualenv, ``pip install "<wheel>[extra]"`` timed (wall clock), then what it added to
the virtualenv (bytes on disk of the venv, less a bare venv's) and how many distributions. The wheel is built
once from this checkout (``pip wheel --no-deps``), as PyPI would serve it.

    python benchmarks/install_bench.py                     # base, gke, eks, kind, existing, restore, all
    python benchmarks/install_bench.py --extras base,gke   # some of them
    python benchmarks/install_bench.py --cold              # a fresh pip cache for each install: downloads included

Without ``--cold`` pip's cache serves what it holds (a second install on the same machine). Times depend on
the machine and the network; sizes only on the releases pip resolves.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
INSTALLS = ("base", "gke", "eks", "kind", "existing", "restore", "all")
MIB = 2**20


def _size(path: Path) -> int:
    """Bytes of every regular file under ``path`` (what ``du --apparent-size`` counts, without directories)."""
    return sum(entry.stat().st_size for entry in path.rglob("*") if entry.is_file() and not entry.is_symlink())


def _venv(root: Path) -> Path:
    subprocess.run([sys.executable, "-m", "venv", str(root)], check=True, capture_output=True)
    return root / "bin" / "python"


def _pip(python: Path, *args: str, cache: Path | None) -> subprocess.CompletedProcess:
    env = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "PYTHONHOME")}
    if cache is not None:
        env["PIP_CACHE_DIR"] = str(cache)
    return subprocess.run(
        [str(python), "-m", "pip", "--disable-pip-version-check", *args], env=env, capture_output=True, text=True, check=False
    )


DISTRIBUTION_FILES = ("pyproject.toml", "README.md", "LICENSE", "CHANGELOG.md", "modules")


def build_wheel(out: Path) -> Path:
    """The wheel, built from a copy of the files the distribution is made of (setuptools writes build/ beside them)."""
    source = out.parent / "source"
    source.mkdir()
    for name in DISTRIBUTION_FILES:
        path = ROOT / name
        if path.is_dir():
            shutil.copytree(path, source / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info"))
        else:
            shutil.copyfile(path, source / name)
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", str(out), str(source)],
        capture_output=True,
        text=True,
        check=False,
    )
    if built.returncode != 0:
        sys.exit(f"pip wheel failed:\n{built.stderr[-3000:]}")
    (wheel,) = out.glob("percona_mysql_k8s-*.whl")
    return wheel


def measure(wheel: Path, install: str, work: Path, cold: bool) -> dict[str, float]:
    root = work / f"venv-{install}"
    python = _venv(root)
    bare = _size(root)
    cache = Path(tempfile.mkdtemp(dir=work, prefix="pip-cache-")) if cold else None
    target = str(wheel) if install == "base" else f"{wheel}[{install}]"
    started = time.monotonic()
    result = _pip(python, "install", "--quiet", target, cache=cache)
    seconds = time.monotonic() - started
    if result.returncode != 0:
        sys.exit(f"pip install {target} failed:\n{result.stderr[-3000:]}")
    listed = _pip(python, "freeze", cache=cache).stdout.split()  # the installed distributions, pip itself left out
    return {"seconds": seconds, "mib": (_size(root) - bare) / MIB, "distributions": len(listed)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python benchmarks/install_bench.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--extras", default=",".join(INSTALLS), help=f"comma-separated, of {', '.join(INSTALLS)}")
    parser.add_argument("--cold", action="store_true", help="a fresh pip cache for each install (downloads included)")
    args = parser.parse_args(argv)
    installs = [name.strip() for name in args.extras.split(",") if name.strip()]
    unknown = sorted(set(installs) - set(INSTALLS))
    if unknown:
        parser.error(f"unknown install(s) {', '.join(unknown)}: choose from {', '.join(INSTALLS)}")
    with tempfile.TemporaryDirectory(prefix="install-bench-") as tmp:
        work = Path(tmp)
        wheel = build_wheel(work / "dist")
        print(f"{wheel.name}; pip cache: {'fresh per install (cold)' if args.cold else 'the user cache (warm)'}")
        print(f"{'install':<10} {'size MiB':>9} {'seconds':>8} {'distributions':>14}")
        figures = {}
        for install in installs:
            figures[install] = measure(wheel, install, work, args.cold)
            row = figures[install]
            print(f"{install:<10} {row['mib']:9.0f} {row['seconds']:8.0f} {row['distributions']:14d}", flush=True)
        if "base" in figures and "all" in figures:
            print(f"base / all: {figures['base']['mib'] / figures['all']['mib']:.2f} of the size")
    return 0


if __name__ == "__main__":
    sys.exit(main())
