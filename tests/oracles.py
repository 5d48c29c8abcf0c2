"""What a test does when the real program it compares against (an oracle: helm, mariadbd, haproxy, Go) is not installed.

On a developer's machine the test is skipped, with a reason that says how to install the program. On CI
(``.ci/run`` sets ``PERCONA_ORACLES_REQUIRED=1`` after installing them) a missing oracle fails the test, so a
run cannot pass by skipping the comparison with the real owner.
"""

from __future__ import annotations

import os

import pytest

REQUIRED_ENV = "PERCONA_ORACLES_REQUIRED"


def oracle_missing(reason: str, *, optional: bool = False) -> None:
    """Skip (or, when required, fail) a test whose oracle is absent. ``optional`` oracles (ones no registry of
    the CI machines serves) are skipped even on CI; the reason says so."""
    if os.environ.get(REQUIRED_ENV) == "1" and not optional:
        pytest.fail(f"{reason} ({REQUIRED_ENV}=1: the oracle must be installed)", pytrace=False)
    pytest.skip(reason)
