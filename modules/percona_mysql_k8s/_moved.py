"""Module paths that moved (issue 23: the pure plan layer, ``percona_mysql_k8s.plan``), kept for one release.

An old module keeps only a ``__getattr__`` made here: reading a name from it returns the object from its new
home and warns with a :class:`DeprecationWarning` naming that home, so ``from percona_mysql_k8s.database.versions
import PXC`` still works and says where ``PXC`` lives now. Names that were renamed on the way map to their new
name. Nothing is copied: the new module is the one definition (monkeypatching the old path changes nothing).

Pure (no third-party import): the shims stay importable without Pulumi, as the modules they replace were.
"""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import Any


def moved_to(old: str, homes: Sequence[str], renamed: Mapping[str, str] | None = None) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
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
        warnings.warn(f"{old}.{name} moved to {module}.{new_name}; the old path is removed in the next release",
                      DeprecationWarning, stacklevel=2)
        return getattr(importlib.import_module(module), new_name)

    def __dir__() -> list[str]:
        names = {name for module in homes for name in dir(importlib.import_module(module)) if not name.startswith("__")}
        return sorted(names | set(renamed))

    return __getattr__, __dir__
