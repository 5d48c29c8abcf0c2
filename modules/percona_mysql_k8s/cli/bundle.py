"""Build a self-contained policy pack: ``percona-mysql-policy-bundle DIR``.

``DIR`` gets the pack's shell (PulumiPolicy.yaml, __main__.py, requirements.txt, shipped with this package)
and, in ``DIR/_vendor/``, the pure code the pack runs: this package's ``core`` and ``policies`` (the tools of
:mod:`percona_mysql_k8s.cli` stay out). requirements.txt names PyPI packages only, so the
pack starts wherever the CLI installs it: ``cd DIR && pulumi policy publish [org]``.

``pulumi policy publish`` uploads the pack directory minus what any ``.gitignore`` in it *or in a parent
directory* ignores (pulumi sdk/go/common/util/archive/archive.go, addDirectoryToTar); where the service's
pack is installed, the CLI creates ``venv`` and runs ``pip install -r requirements.txt`` in the pack's
directory (pkg/backend/httpstate/policypack.go, installRequiredPolicy; sdk/python/toolchain/pip.go). So
the builder refuses a ``DIR`` whose files git would ignore: they would silently be left out of the upload.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import percona_mysql_k8s
from percona_mysql_k8s._moved import MOVED
from percona_mysql_k8s.core.command_line import Parser, UsageError
from percona_mysql_k8s.core.errors import one_line
from percona_mysql_k8s.policies import SHELL, SHELL_FILES

PACKAGE = Path(percona_mysql_k8s.__file__).resolve().parent
VENDOR = "_vendor"
# What the pack imports: the package root, the pure core and the policies (import-linter contract
# "The policy pack runs on its own" keeps this closure free of components, providers and tools;
# tests/cli/test_bundle.py checks it against the pack's import graph).
# plan.database.versions (stdlib only; its packages' __init__ files import nothing) gives C2's fixes the pinned images.
VENDORED = ("__init__.py", "core", "policies", "plan/__init__.py", "plan/database/__init__.py", "plan/database/versions.py")
# The shell goes to the pack's root, not into _vendor; the old paths of the tools (percona_mysql_k8s._moved)
# import percona_mysql_k8s.cli, which a pack never runs.
_SHIMS = tuple(f"{old.rsplit('.', 1)[1]}.py" for old in MOVED if old.startswith("percona_mysql_k8s.policies."))
NOT_VENDORED = ("pack", *_SHIMS, "__pycache__", "*.pyc")


class BundleError(Exception):
    """The pack cannot be built where asked; the message says why and what to do."""


def _ignored_by_git(path: Path) -> bool:
    """Whether a .gitignore (of the work tree ``path`` is in) ignores ``path``; False outside a work tree."""
    try:
        result = subprocess.run(
            ["git", "check-ignore", "-q", "--no-index", str(path)], cwd=path.parent, capture_output=True, check=False
        )
    except FileNotFoundError:  # no git: nothing to ask
        return False
    return result.returncode == 0


def build(out: Path) -> Path:
    """Write the self-contained pack into ``out`` (created, or replaced when it holds a previous bundle)."""
    out = Path(out).resolve()
    if out.exists() and any(out.iterdir()):
        if not (out / "PulumiPolicy.yaml").is_file():
            raise BundleError(f"{out} is not empty and holds no pack; name a new or empty directory")
        if not (out / VENDOR).is_dir():  # e.g. the checkout's policies/, which runs the installed library
            raise BundleError(f"{out} holds a pack this command did not build (no {VENDOR}/); name a new or empty directory")
        for name in (*SHELL_FILES, VENDOR):
            target = out / name
            if target.is_dir():
                shutil.rmtree(target)
            elif target.exists():
                target.unlink()
    out.mkdir(parents=True, exist_ok=True)
    for name in SHELL_FILES:
        shutil.copyfile(SHELL / name, out / name)
    vendor = out / VENDOR / PACKAGE.name
    vendor.mkdir(parents=True)
    for name in VENDORED:
        source = PACKAGE / name
        if source.is_dir():
            shutil.copytree(source, vendor / name, ignore=shutil.ignore_patterns(*NOT_VENDORED))
        else:
            (vendor / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, vendor / name)
    probe = vendor / "core" / "__init__.py"
    if _ignored_by_git(probe):
        shutil.rmtree(out / VENDOR)
        raise BundleError(
            f"{probe.relative_to(out)} under {out} is ignored by a .gitignore, and `pulumi policy publish` "
            "leaves ignored files out of the upload; build the pack outside ignored directories, "
            'e.g. percona-mysql-policy-bundle "$(mktemp -d)/percona-mysql"'
        )
    return out


def main(argv: list[str] | None = None) -> int:
    parser = Parser(prog="percona-mysql-policy-bundle", description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path, help="directory of the pack to build (new, empty, or a previous bundle)")
    try:
        out = build(parser.parse_args(argv).out)
    except (UsageError, BundleError) as error:
        print(one_line(f"error: {error}"), file=sys.stderr)
        return 2
    print(f"policy pack built in {out}\npublish it with: cd {out} && pulumi policy publish [org]")
    return 0


if __name__ == "__main__":
    sys.exit(main())
