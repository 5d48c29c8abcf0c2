"""Shared test fixtures: where ../shared lives and how to skip when it is absent."""

import os
from pathlib import Path

import pytest

REPOSITORY = Path(__file__).resolve().parent.parent
SHARED = REPOSITORY.parent / "shared"
REFERENCE = SHARED / "reference"


@pytest.fixture(scope="session")
def reference_dir() -> Path:
    """../shared/reference, or a skip that says why the test cannot run."""
    if not REFERENCE.is_dir():
        pytest.skip(f"{REFERENCE} is absent: this test reads the shared reference files (RULES.md, Percona CRDs)")
    return REFERENCE


@pytest.fixture(autouse=True, scope="session")
def _in_the_project():
    """Run from the project directory, as the Pulumi CLI does: the library finds the project from the working
    directory (percona_mysql_k8s.project), wherever pytest was started."""
    previous = Path.cwd()
    os.chdir(REPOSITORY)
    yield
    os.chdir(previous)
