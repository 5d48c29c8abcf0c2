"""The plan layer is pure: importing any of its modules (and the components' packages) leaves Pulumi out.

Issue 23: the offline check, the pack and the tests read the same plan the components deploy, so a plan
module must import without Pulumi. Each module is imported in a fresh interpreter (this test process has
Pulumi loaded already), in turn, and the first one that brings a Pulumi package in is named.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import percona_mysql_k8s

PACKAGE = Path(percona_mysql_k8s.__file__).resolve().parent
HEAVY = ("pulumi", "pulumi_kubernetes", "pulumi_gcp", "pulumi_aws", "pulumi_eks", "pulumi_random", "pulumi_command")
# The components' packages: their __init__ imports nothing heavy (components load on first use).
COMPONENT_PACKAGES = ("percona_mysql_k8s.clusters", "percona_mysql_k8s.database")


def plan_modules() -> list[str]:
    """Every module under plan/, found on disk (a new module is covered without editing this test)."""
    found = []
    for path in sorted((PACKAGE / "plan").rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        found.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return found


def first_heavy_import(modules: list[str]) -> dict:
    """In a fresh interpreter: import ``modules`` in order; the first whose import loads a HEAVY package."""
    script = (
        "import importlib, json, sys\n"
        f"heavy = {HEAVY!r}\n"
        f"for name in {modules!r}:\n"
        "    importlib.import_module(name)\n"
        "    loaded = sorted(m for m in sys.modules if m.split('.')[0] in heavy)\n"
        "    if loaded:\n"
        "        print(json.dumps({'module': name, 'loaded': loaded[:5]}))\n"
        "        break\n"
        "else:\n"
        "    print(json.dumps({'module': None, 'imported': len(" + repr(modules) + ")}))\n"
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_the_plan_modules_are_found():
    modules = plan_modules()
    assert "percona_mysql_k8s.plan" in modules
    assert "percona_mysql_k8s.plan.database.manifests" in modules
    assert len(modules) >= 10, modules


def test_no_plan_module_imports_pulumi():
    found = first_heavy_import(plan_modules())
    assert found["module"] is None, f"{found['module']} imports {', '.join(found['loaded'])}: the plan layer is pure"
    assert found["imported"] == len(plan_modules())


def test_the_component_packages_import_nothing_heavy():
    found = first_heavy_import(list(COMPONENT_PACKAGES))
    assert found["module"] is None, f"importing {found['module']} loads {', '.join(found['loaded'])}"


def test_the_check_fails_on_a_module_that_imports_pulumi():
    """The probe itself: a module that does import Pulumi (a component) is named."""
    found = first_heavy_import(["percona_mysql_k8s.plan", "percona_mysql_k8s.database.cluster"])
    assert found["module"] == "percona_mysql_k8s.database.cluster"
    assert "pulumi" in found["loaded"]
