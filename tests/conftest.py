"""Shared test fixtures. Reference material (the Percona CRDs and examples, the specification) is reached
through tests/reference_material/resolve.py only: a verified copy, or a skip naming scripts/fetch-reference.sh."""

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

# Property tests check what holds, not how fast: a shared 2-core CI machine runs the suite beside Go builds, and
# hypothesis' default 200 ms deadline and too_slow health check then fail correct code. Speed is measured by the
# benchmarks/ scripts instead. A test's own @settings still override these.
# The parent is hypothesis' "default" profile, named: hypothesis loads its own "ci" profile (derandomized) when it
# sees a CI variable such as CI=true, and a profile registered without a parent inherits whatever is loaded, so the
# choice would follow the machine rather than HYPOTHESIS_PROFILE.
settings.register_profile("project", settings.get_profile("default"), deadline=None, suppress_health_check=[HealthCheck.too_slow])
# CI (.ci/run sets HYPOTHESIS_PROFILE=ci) draws the same examples on every run, each test's own seed: its verdict is
# the change's, not the draw's. A local run draws new ones each time, and what it finds becomes an @example. The
# rest is what hypothesis' own "ci" profile sets: no example database, and a failure prints its reproduce blob.
settings.register_profile("ci", settings.get_profile("project"), derandomize=True, database=None, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "project"))

REPOSITORY = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True, scope="session")
def _in_the_project():
    """Run from the project directory, as the Pulumi CLI does: the library finds the project from the working
    directory (percona_mysql_k8s.cli.project), wherever pytest was started."""
    previous = Path.cwd()
    os.chdir(REPOSITORY)
    yield
    os.chdir(previous)
