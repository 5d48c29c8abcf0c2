"""The tests' one way to reach reference material: the verified path, or a skip that names the fetch command.

Never downloads (a test run stays offline): it uses the cache that ``scripts/fetch-reference.sh`` fills, or
a mirror (``$PERCONA_REFERENCE_DIR``, ``../shared/reference/percona/``), whose verified copy it puts in the
cache. A copy whose sums differ fails the test with the item, the URL and both sums. With
``PERCONA_REFERENCE_REQUIRED=1`` (``.ci/run`` sets it) a missing item fails the test instead of skipping it,
so CI cannot pass by skipping.

Call it from a test or a fixture, never at import time: a skip outside a test is a collection error.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Iterable
from pathlib import Path

import pytest

from . import store
from .manifest import Manifest, load

FETCH_COMMAND = "scripts/fetch-reference.sh"


@functools.cache
def manifest() -> Manifest:
    return load()


@functools.cache
def _verified(name: str, places: store.Places) -> Path:
    """Verified once per process and place (the tests read an item many times)."""
    path, _ = store.materialize(manifest().item(name), places, network=False)
    return path


def skip_reason(missing: store.Unavailable) -> str:
    if missing.item.mirror_only:
        how = (
            f"point ${store.MIRROR_ENVS[0]} at a mirror holding it (laid out like ../shared/reference/percona/), "
            f"then run `{FETCH_COMMAND}`"
        )
    else:
        how = f"run `{FETCH_COMMAND}` (pinned, sha256-checked downloads)"
    return f"{missing}. To run this test, {how}"


def reference_path(name: str, *, required: bool = False) -> Path:
    """The verified copy of the manifest item ``name``; skips (fails when required) when there is none."""
    try:
        return _verified(name, store.Places.from_environment())
    except store.Unavailable as missing:
        reason = skip_reason(missing)
        if required or os.environ.get(store.REQUIRED_ENV) == "1":
            pytest.fail(f"{reason} ({store.REQUIRED_ENV}=1 or a required tier: missing material is an error)", pytrace=False)
        pytest.skip(reason)
    except store.MaterialError as refused:
        pytest.fail(str(refused), pytrace=False)


def reference_dir(names: Iterable[str], *, required: bool = False) -> Path:
    """The directory holding verified copies of every named item (as ../shared/reference/percona/ holds them)."""
    paths = [reference_path(name, required=required) for name in names]
    directory = store.Places.from_environment().cache
    assert all(path.is_relative_to(directory) for path in paths), paths
    return directory
