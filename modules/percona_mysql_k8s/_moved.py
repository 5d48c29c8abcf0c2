"""Old module paths kept for one release: each warns, naming its new path, and then is the new module.

A shim is two lines (``percona_mysql_k8s/policies/check.py``): it imports the new module and calls
:func:`alias`. Imported, the old name becomes the new module itself (``sys.modules``), so every name,
private ones included, and every monkeypatch reach the same object; run with ``python -m``, it warns
and runs the new ``main``. tests/cli/test_moved.py fails once the version reaches :data:`REMOVED_IN`,
so the shims cannot outlive their release.
"""

from __future__ import annotations

import sys
import warnings
from importlib.machinery import ModuleSpec
from types import ModuleType

REMOVED_IN = "0.4.0"  # the old paths warn through 0.3.x (the release that moved them) and go in 0.4.0

# old path -> new path, every shim the package carries
MOVED = {
    "percona_mysql_k8s.policies.check": "percona_mysql_k8s.cli.check",
    "percona_mysql_k8s.policies.bundle": "percona_mysql_k8s.cli.bundle",
    "percona_mysql_k8s.restore": "percona_mysql_k8s.cli.restore",
    "percona_mysql_k8s.offline": "percona_mysql_k8s.cli.offline",
}


def alias(spec: ModuleSpec, new: ModuleType, *, running: bool) -> None:
    """Warn that ``spec.name`` moved to ``new``; unless it is being run (``python -m``), make it ``new``."""
    old = spec.name
    if MOVED.get(old) != new.__name__:
        raise AssertionError(f"{old} -> {new.__name__} is not listed in percona_mysql_k8s._moved.MOVED")
    warnings.warn(f"{old} moved to {new.__name__}: use the new path (the old one is removed in {REMOVED_IN})",
                  DeprecationWarning, stacklevel=2 if running else 3)
    if not running:
        sys.modules[old] = new
