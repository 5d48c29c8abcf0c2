"""Validate generated custom resources against the Percona CRDs (reference material: scripts/fetch-reference.sh).

The API server prunes fields its structural schema does not know, silently (INTERFACES §7.5). Plain
JSON-schema validation would accept them too, so :func:`strict` closes every object schema that lists
its properties (``additionalProperties: false``) unless it says ``x-kubernetes-preserve-unknown-fields``:
a misspelt or wrong-operator field then fails the test instead of vanishing in the cluster.
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import yaml
from reference_material.resolve import reference_path

from . import cel


def reference_file(name: str) -> Path:
    """The verified reference file (named as in manifest.toml), or skip the calling test with the reason."""
    return reference_path(name)


@functools.cache
def _crds(name: str) -> tuple[dict, ...]:
    return tuple(doc for doc in yaml.safe_load_all(reference_file(name).read_text()) if doc)


def schema(crd_file: str, kind: str, version: str = "v1") -> dict:
    for doc in _crds(crd_file):
        if doc["spec"]["names"]["kind"] == kind:
            for entry in doc["spec"]["versions"]:
                if entry["name"] == version:
                    return entry["schema"]["openAPIV3Schema"]
    raise LookupError(f"{crd_file} has no {kind} {version}")


def strict(node: Any) -> Any:
    node = copy.deepcopy(node)

    def close(item: Any) -> None:
        if isinstance(item, dict):
            if (
                "properties" in item
                and "additionalProperties" not in item
                and not item.get("x-kubernetes-preserve-unknown-fields")
            ):
                item["additionalProperties"] = False
            for value in item.values():
                close(value)
        elif isinstance(item, list):
            for value in item:
                close(value)

    close(node)
    return node


def _ints(value: Any) -> Any:
    """Numbers round-trip through protobuf as floats under mocks; whole floats are ints again."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {key: _ints(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_ints(item) for item in value]
    return value


def schema_errors(obj: dict, crd_file: str, kind: str, version: str = "v1") -> list[str]:
    validator = jsonschema.Draft4Validator(strict(schema(crd_file, kind, version)))
    return sorted(
        f"{'.'.join(str(p) for p in error.absolute_path) or '<root>'}: {error.message}"
        for error in validator.iter_errors(_ints(obj))
    )


def _rules(node: dict, value: Any, path: str) -> Iterator[tuple[str, str, Any]]:
    """(path, rule, self) for every x-kubernetes-validations rule whose object is present."""
    if not isinstance(node, dict):
        return
    for rule in node.get("x-kubernetes-validations") or []:
        yield path, rule["rule"], value
    if isinstance(value, dict):
        for key, child in (node.get("properties") or {}).items():
            if key in value:
                yield from _rules(child, value[key], f"{path}.{key}")
        extra = node.get("additionalProperties")
        if isinstance(extra, dict):
            for key, child_value in value.items():
                if key not in (node.get("properties") or {}):
                    yield from _rules(extra, child_value, f"{path}.{key}")
    elif isinstance(value, list) and isinstance(node.get("items"), dict):
        for index, item in enumerate(value):
            yield from _rules(node["items"], item, f"{path}[{index}]")


def cel_rules(crd_file: str, kind: str, version: str = "v1") -> list[tuple[str, str]]:
    """Every rule in the schema, with its path (for coverage checks)."""
    found: list[tuple[str, str]] = []

    def walk(node: Any, path: str) -> None:
        if isinstance(node, dict):
            for rule in node.get("x-kubernetes-validations") or []:
                found.append((path, rule["rule"]))
            for key, child in (node.get("properties") or {}).items():
                walk(child, f"{path}.{key}")
            for key in ("items", "additionalProperties"):
                if isinstance(node.get(key), dict):
                    walk(node[key], f"{path}[]")

    walk(schema(crd_file, kind, version), "")
    return found


def cel_violations(obj: dict, crd_file: str, kind: str, version: str = "v1") -> list[str]:
    """The CEL rules the object breaks (or errors on), as the API server would evaluate them."""
    problems = []
    for path, rule, value in _rules(schema(crd_file, kind, version), _ints(obj), ""):
        admitted, reason = cel.admits(rule, value)
        if not admitted:
            problems.append(f"{path or '<root>'}: {rule} ({reason})")
    return problems
