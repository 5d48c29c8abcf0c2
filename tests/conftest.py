"""Shared test fixtures. Reference material (the Percona CRDs and examples, the specification) is reached
through tests/reference_material/resolve.py only: a verified copy, or a skip naming scripts/fetch-reference.sh."""

import os
from pathlib import Path

import pytest

REPOSITORY = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True, scope="session")
def _in_the_project():
    """Run from the project directory, as the Pulumi CLI does: the library finds the project from the working
    directory (percona_mysql_k8s.project), wherever pytest was started."""
    previous = Path.cwd()
    os.chdir(REPOSITORY)
    yield
    os.chdir(previous)
