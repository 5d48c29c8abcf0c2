"""The CRDs the package carries (``schemas/*.json``, written by core.crd.generate), read once per process."""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from importlib import resources

from . import cel, openapi

SCHEMA_FILES = ("pxc-operator-1.20.0.json", "ps-operator-1.2.0.json")


@dataclass(frozen=True)
class Version:
    """One version of a kind as its CRD declares it, with its validator compiled."""

    group: str
    kind: str
    name: str
    served: bool
    namespaced: bool
    schema: dict
    scale: dict | None
    source: str

    @functools.cached_property
    def validator(self):
        return openapi.compile_validator(self.schema, cel.re2_search)


@functools.cache
def _files() -> tuple[dict, ...]:
    folder = resources.files(__package__) / "schemas"
    return tuple(json.loads((folder / name).read_text(encoding="utf-8")) for name in SCHEMA_FILES)


@functools.cache
def _kinds() -> dict[tuple[str, str], dict[str, Version]]:
    found: dict[tuple[str, str], dict[str, Version]] = {}
    for data in _files():
        for kind, definition in data["kinds"].items():
            found[(definition["group"], kind)] = {
                name: Version(
                    definition["group"],
                    kind,
                    name,
                    entry["served"],
                    definition["scope"] == "Namespaced",
                    entry["schema"],
                    entry.get("scale"),
                    data["source"],
                )
                for name, entry in definition["versions"].items()
            }
    return found


def versions(group: str, kind: str) -> dict[str, Version] | None:
    """Every version of ``group``/``kind`` the carried CRDs declare; None when they do not define the kind."""
    return _kinds().get((group, kind))


def kinds() -> tuple[tuple[str, str], ...]:
    """(group, kind) of every kind the package validates."""
    return tuple(_kinds())


def sources() -> tuple[dict, ...]:
    """The carried files' provenance (source URL, sha256) for the staleness test."""
    return tuple({key: data[key] for key in ("source", "sha256", "license")} for data in _files())
