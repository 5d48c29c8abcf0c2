"""Shared test fixtures: where ../shared lives and how to skip when it is absent."""

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
