"""The requirements split: requirements.txt is the program's runtime (what `pulumi up` installs),
requirements-dev.txt adds tests and tooling, stacks/requirements.txt is what the Pulumi language host reads."""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from importlib import metadata
from pathlib import Path

import yaml

REPOSITORY = Path(__file__).resolve().parents[2]
RUNTIME_SOURCES = [
    *(REPOSITORY / "modules" / "percona_mysql_k8s").rglob("*.py"),
    REPOSITORY / "stacks" / "__main__.py",
    REPOSITORY / "policies" / "__main__.py",
]
# Imported only behind a clear error when absent: `sizing --plot` (sizing/plot.py says how to get it) and
# percona-mysql-grade's MySQL client (grade/live.py names the `grade` extra).
OPTIONAL_AT_RUNTIME = {"matplotlib", "pymysql"}


def requirement_lines(path: Path) -> list[str]:
    return [line.split("#", 1)[0].strip() for line in path.read_text().splitlines() if line.split("#", 1)[0].strip()]


def pinned(path: Path) -> dict[str, str]:
    return {
        canonical(name): version for name, version in (line.split("==", 1) for line in requirement_lines(path) if "==" in line)
    }


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def closure(names: set[str]) -> set[str]:
    """The distributions ``names`` install, following their unconditional requirements."""
    seen: set[str] = set()
    todo = list(names)
    while todo:
        name = canonical(todo.pop())
        if name in seen:
            continue
        seen.add(name)
        try:
            requires = metadata.requires(name) or []
        except metadata.PackageNotFoundError:
            continue
        for requirement in requires:
            if "extra ==" in requirement:
                continue
            todo.append(re.match(r"[A-Za-z0-9_.-]+", requirement).group(0))
    return seen


def third_party_imports(path: Path) -> set[str]:
    modules = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            modules.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            modules.add(node.module.split(".")[0])
    return {m for m in modules if m not in sys.stdlib_module_names and m not in ("percona_mysql_k8s", "__future__")}


def test_the_runtime_lock_holds_no_development_tool():
    runtime, dev = pinned(REPOSITORY / "requirements.txt"), pinned(REPOSITORY / "requirements-dev.txt")
    assert requirement_lines(REPOSITORY / "requirements-dev.txt")[0] == "-r requirements.txt"
    assert not set(runtime) & set(dev), "a package is pinned in both files"
    # (the kubernetes client is runtime: the existing-cluster target reads its Nodes with it)
    # jsonschema is a runtime dependency since rule C1 (core.crd), no longer a test tool
    for tool in ("pytest", "pytest-xdist", "hypothesis", "ruff", "import-linter", "matplotlib", "pymysql"):
        assert tool in dev and tool not in runtime, tool


def test_everything_the_program_and_the_pack_import_comes_with_the_runtime_requirements():
    installed_by_runtime = closure(set(pinned(REPOSITORY / "requirements.txt")))
    providers = metadata.packages_distributions()
    missing = {}
    for source in RUNTIME_SOURCES:
        for module in third_party_imports(source) - OPTIONAL_AT_RUNTIME:
            distributions = {canonical(name) for name in providers.get(module, [module])}
            if not distributions & installed_by_runtime:
                missing[module] = source.relative_to(REPOSITORY)
    assert missing == {}


def test_the_language_host_installs_the_runtime_and_the_library():
    # With `main: stacks/` the Pulumi language host runs `pip install -r requirements.txt` in stacks/
    # (pulumi/pulumi sdk/python/toolchain/pip.go, InstallDependencies: pip's Dir is the program directory).
    # pip reads a nested -r relative to the including file, and a local path relative to its working
    # directory (pip's req_file.py / constructors.py); here both are stacks/.
    project = yaml.safe_load((REPOSITORY / "Pulumi.yaml").read_text())
    program_dir = REPOSITORY / project["main"]
    lines = requirement_lines(program_dir / "requirements.txt")
    nested = [line.split(None, 1)[1] for line in lines if line.startswith("-r ")]
    editable = [line.split(None, 1)[1] for line in lines if line.startswith("-e ")]
    assert [(program_dir / path).resolve() for path in nested] == [REPOSITORY / "requirements.txt"]
    assert len(editable) == 1
    library = (program_dir / editable[0]).resolve()
    assert tomllib.loads((library / "pyproject.toml").read_text())["project"]["name"] == "percona-mysql-k8s"
    # the root file is included from stacks/: a local path in it would resolve against stacks/
    assert all(not line.startswith(("-e", ".", "/")) for line in requirement_lines(REPOSITORY / "requirements.txt"))
