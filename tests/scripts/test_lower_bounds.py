"""The lower-bound run's constraints (scripts/lower_bounds.py) are pyproject.toml's lower bounds, one per
distribution; the run is part of CI (.ci/run -> scripts/lower-bounds.sh)."""

from __future__ import annotations

import importlib.util
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement

REPOSITORY = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("lower_bounds", REPOSITORY / "scripts" / "lower_bounds.py")
lower_bounds = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(lower_bounds)
PROJECT = tomllib.loads((REPOSITORY / "pyproject.toml").read_text())["project"]


def test_each_dependency_is_pinned_to_its_lower_bound_once():
    lines = lower_bounds.constraints(PROJECT).splitlines()
    pinned = dict(line.split("==") for line in lines)
    assert len(pinned) == len(lines)  # one line per distribution
    # Expected, read independently of the script: the >= of every requirement that is not the project itself
    every = [*PROJECT["dependencies"], *(text for extra in PROJECT["optional-dependencies"].values() for text in extra)]
    for requirement in map(Requirement, every):
        if requirement.name == "percona-mysql-k8s":
            continue
        (bound,) = [spec.version for spec in requirement.specifier if spec.operator == ">="]
        assert pinned[requirement.name.lower().replace("_", "-")] == bound
        assert requirement.specifier.contains(bound)  # the bound is inside the range (not excluded by another clause)
    assert {"pulumi", "pulumi-policy", "pulumi-kubernetes", "pulumi-gcp", "pulumi-aws", "pulumi-eks"} <= set(pinned)


def test_a_requirement_without_a_lower_bound_is_refused():
    with pytest.raises(lower_bounds.LowerBoundError, match="give one lower bound"):
        lower_bounds.lower_bounds({"dependencies": ["rich<16"]})
    with pytest.raises(lower_bounds.LowerBoundError, match="lower bounds 1.0 and 2.0"):
        lower_bounds.lower_bounds({"dependencies": ["rich>=1.0"], "optional-dependencies": {"x": ["rich>=2.0"]}})


def test_the_lower_bounds_are_older_than_the_lock():
    # the point of the run: the ranges reach back; requirements.txt pins the newest tested
    pins = {
        line.split("==")[0].lower(): line.split("==")[1].strip()
        for line in (REPOSITORY / "requirements.txt").read_text().splitlines()
        if "==" in line and not line.startswith("#")
    }
    bounds = lower_bounds.lower_bounds(PROJECT)
    older = [
        name
        for name in ("pulumi", "pulumi-policy", "pulumi-kubernetes", "pulumi-aws", "pulumi-eks")
        if tuple(map(int, bounds[name].split("."))) < tuple(map(int, pins[name].split(".")))
    ]
    assert older == ["pulumi", "pulumi-policy", "pulumi-kubernetes", "pulumi-aws", "pulumi-eks"]


def test_ci_runs_the_suite_at_the_lower_bounds():
    ci = (REPOSITORY / ".ci" / "run").read_text()
    assert "bash scripts/lower-bounds.sh" in ci
    script = (REPOSITORY / "scripts" / "lower-bounds.sh").read_text()
    assert "scripts/lower_bounds.py -o" in script and '-c "$VENV/constraints.txt"' in script
    assert "not clean_venv and not apiserver and not engine" in script
