"""The constraints file of the lower-bound run: every dependency of pyproject.toml pinned to its lower bound.

pyproject.toml's ranges say which releases the project works with; their lower bounds are the oldest releases it
is tested with, and scripts/lower-bounds.sh proves it: a venv where every direct dependency (the base install's,
every extra's, the test tools') is exactly its lower bound, then the suite. This writes that venv's constraints:

    python scripts/lower_bounds.py                # name==lower-bound, one a line, to stdout
    python scripts/lower_bounds.py -o FILE

A requirement without a lower bound (``>=``) is an error: its oldest release would be untested. Two extras
giving one distribution different lower bounds is an error too (which one would the run test?).
"""

from __future__ import annotations

import argparse
import sys
import tomllib
from pathlib import Path

from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parent.parent
SELF = "percona-mysql-k8s"


class LowerBoundError(ValueError):
    pass


def requirements(project: dict) -> list[Requirement]:
    texts = [*project["dependencies"], *(text for extra in project.get("optional-dependencies", {}).values() for text in extra)]
    return [requirement for requirement in map(Requirement, texts) if requirement.name != SELF]


def lower_bounds(project: dict) -> dict[str, str]:
    """distribution (normalized) -> its lower bound, for every dependency of ``project`` ([project] of pyproject)."""
    found: dict[str, str] = {}
    for requirement in requirements(project):
        name = requirement.name.lower().replace("_", "-")
        bounds = [spec.version for spec in requirement.specifier if spec.operator == ">="]
        if len(bounds) != 1:
            raise LowerBoundError(f"{requirement}: give one lower bound (>=), the oldest release the suite runs on")
        if found.get(name, bounds[0]) != bounds[0]:
            raise LowerBoundError(f"{name}: lower bounds {found[name]} and {bounds[0]} in pyproject.toml; make them one")
        found[name] = bounds[0]
    return dict(sorted(found.items()))


def constraints(project: dict) -> str:
    return "".join(f"{name}=={version}\n" for name, version in lower_bounds(project).items())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python scripts/lower_bounds.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("-o", "--output", type=Path, help="write here instead of stdout")
    parser.add_argument("--pyproject", type=Path, default=ROOT / "pyproject.toml")
    args = parser.parse_args(argv)
    try:
        text = constraints(tomllib.loads(args.pyproject.read_text())["project"])
    except LowerBoundError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if args.output:
        args.output.write_text(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
