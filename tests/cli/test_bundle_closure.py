"""What percona-mysql-policy-bundle vendors is what the pack imports: read from the import graph, not restated.

The bundle copies ``VENDORED`` (minus ``NOT_VENDORED``) and the pack's requirements.txt installs the rest, so every
module of this library the pack reaches must be vendored, and every third-party package it imports must be a
requirement of the pack. A policy that starts reading a new layer (``percona_mysql_k8s.plan``) or a new package
fails here, not in a published pack.
"""

from __future__ import annotations

import fnmatch
import sys

import grimp
import pytest
from percona_mysql_k8s._moved import MOVED
from percona_mysql_k8s.cli import bundle
from percona_mysql_k8s.policies import SHELL

# import name -> the distribution that provides it (PyPI names as requirements.txt spells them)
DISTRIBUTIONS = {
    "pulumi_policy": "pulumi-policy",
    "pulumi": "pulumi",
    "grpc": "grpcio",
    "google": "protobuf",
    "yaml": "PyYAML",
    "jsonschema": "jsonschema",  # rule C1 (core.crd): the CRDs' OpenAPI schemas
    "cel_expr_python": "cel-expr-python",  # rule C1 (core.crd): the CRDs' CEL rules
}


@pytest.fixture(scope="module")
def graph():
    return grimp.build_graph("percona_mysql_k8s", include_external_packages=True)


def _the_pack(graph) -> set[str]:
    """Every module of percona_mysql_k8s.policies but the tools' old paths (which the bundle leaves out)."""
    return ({"percona_mysql_k8s.policies"} | graph.find_descendants("percona_mysql_k8s.policies")) - set(MOVED)


def _vendored(module: str) -> bool:
    parts = module.split(".")[1:]
    if not parts:
        return "__init__.py" in bundle.VENDORED
    path = "/".join(parts)
    if f"{path}.py" in bundle.VENDORED or f"{path}/__init__.py" in bundle.VENDORED:  # a module vendored on its own
        return True
    if parts[0] not in bundle.VENDORED:
        return False
    return not any(
        fnmatch.fnmatch(part, pattern) or fnmatch.fnmatch(f"{part}.py", pattern)
        for part in parts[1:]
        for pattern in bundle.NOT_VENDORED
    )


def test_every_module_the_pack_reaches_is_vendored(graph):
    reached = set()
    for module in _the_pack(graph):
        reached |= graph.find_upstream_modules(module)
    ours = {module for module in reached | _the_pack(graph) if module.split(".")[0] == "percona_mysql_k8s"}
    assert ours, "the import graph holds none of the pack's modules"
    missing = sorted(module for module in ours if not _vendored(module))
    assert not missing, f"the pack imports {missing}, which percona_mysql_k8s.cli.bundle.VENDORED leaves out"


def test_every_package_the_pack_imports_is_a_requirement_of_the_pack(graph):
    reached = set()
    for module in _the_pack(graph):
        reached |= graph.find_upstream_modules(module)
    foreign = {module.split(".")[0] for module in reached} - {"percona_mysql_k8s"} - set(sys.stdlib_module_names)
    unknown = foreign - set(DISTRIBUTIONS)
    assert not unknown, f"the pack imports {sorted(unknown)}: name their distributions here and pin them in requirements.txt"
    required = {
        line.split("==")[0].strip().lower()
        for line in (SHELL / "requirements.txt").read_text().splitlines()
        if line.strip() and not line.lstrip().startswith("#")
    }
    assert {DISTRIBUTIONS[name].lower() for name in foreign} <= required, (foreign, required)


def test_the_tools_stay_out_of_the_bundle(tmp_path):
    out = bundle.build(tmp_path / "pack")
    vendored = {
        path.relative_to(out / "_vendor").with_suffix("").as_posix().replace("/", ".") for path in (out / "_vendor").rglob("*.py")
    }
    assert not {name for name in vendored if name.startswith("percona_mysql_k8s.cli")}
    assert not set(MOVED) & vendored
    assert "percona_mysql_k8s.policies._catalog" in vendored and "percona_mysql_k8s.core.rules" in vendored
