"""Old module paths kept for one release (issue 23): each warns, naming its new path, until :data:`REMOVED_IN`.

Two kinds of shim, one per way a module moved:

- A whole module that moved (the tools, to ``percona_mysql_k8s.cli``) is two lines
  (``percona_mysql_k8s/policies/check.py``): it imports the new module and calls :func:`alias`. Imported, the old
  name becomes the new module itself (``sys.modules``), so every name, private ones included, and every
  monkeypatch reach the same object; run with ``python -m``, it warns and runs the new ``main``.
- A module whose names went to several homes (the pure plan layer, ``percona_mysql_k8s.plan``) keeps only a
  ``__getattr__`` made by :func:`moved_to`: reading a name from it returns the object from its new home and
  warns naming that home, so ``from percona_mysql_k8s.database.versions import PXC`` still works and says where
  ``PXC`` lives now. Names renamed on the way map to their new name. Nothing is copied: the new module is the one
  definition (monkeypatching the old path changes nothing).

tests/cli/test_moved.py fails once the version reaches :data:`REMOVED_IN`, so the shims cannot outlive their
release. Pure (standard library only): the shims stay importable without Pulumi, as the modules they replace were.
"""

from __future__ import annotations

import importlib
import sys
import warnings
from collections.abc import Callable, Mapping, Sequence
from importlib.machinery import ModuleSpec
from types import ModuleType
from typing import Any

REMOVED_IN = "0.4.0"  # the old paths warn through 0.3.x (the release that moved them) and go in 0.4.0

# old path -> new path, every whole-module shim the package carries
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
    warnings.warn(
        f"{old} moved to {new.__name__}: use the new path (the old one is removed in {REMOVED_IN})",
        DeprecationWarning,
        stacklevel=2 if running else 3,
    )
    if not running:
        sys.modules[old] = new


def moved_to(
    old: str, homes: Sequence[str], renamed: Mapping[str, str] | None = None
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``(__getattr__, __dir__)`` for the old module ``old``: a name is looked up in ``homes`` in order;
    ``renamed`` maps an old name to ``"module:new_name"`` (or ``":new_name"`` in the first home)."""
    renamed = dict(renamed or {})

    def locate(name: str) -> tuple[str, str] | None:
        if name in renamed:
            module, _, new_name = renamed[name].rpartition(":")
            return module or homes[0], new_name
        for module in homes:
            if hasattr(importlib.import_module(module), name):
                return module, name
        return None

    def __getattr__(name: str) -> Any:
        found = None if name.startswith("__") else locate(name)  # dunders (__all__, __path__) are never moved names
        if found is None:
            raise AttributeError(f"module {old!r} has no attribute {name!r}")
        module, new_name = found
        warnings.warn(
            f"{old}.{name} moved to {module}.{new_name}; the old path is removed in {REMOVED_IN}",
            DeprecationWarning,
            stacklevel=2,
        )
        return getattr(importlib.import_module(module), new_name)

    def __dir__() -> list[str]:
        names = {name for module in homes for name in dir(importlib.import_module(module)) if not name.startswith("__")}
        return sorted(names | set(renamed))

    return __getattr__, __dir__
