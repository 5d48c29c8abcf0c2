"""Generated custom resources checked as the API server checks them: the core's one CRD reader.

``percona_mysql_k8s.core.crd.admit`` (the pinned CRDs the package carries) answers; this module sorts its
reasons for the tests: :func:`schema_errors` (server-side apply, the OpenAPI schema, metadata, list types, the
scale subresource) and :func:`cel_violations` (the ``x-kubernetes-validations`` rules). A field the API server
would *prune* silently (where the CRD keeps unknown fields, as PXC's root does) is a schema error here too:
in a resource this project generates it is a misspelling that would vanish in the cluster.

The tests name the reference item of the CRD they mean (``versions.PXC.reference_crd``); it must be the one
the package carries (core/crd/generate.py ``SOURCES``), so a test cannot pass against another CRD silently.
"""

from __future__ import annotations

import functools
from pathlib import Path

import yaml
from percona_mysql_k8s.core.crd import admit
from percona_mysql_k8s.core.crd.generate import SOURCES
from percona_mysql_k8s.core.crd.structural import json_numbers
from reference_material.resolve import reference_path

_ints = json_numbers  # numbers as the API server decodes what the provider sends (3.0 arrives as 3)
CARRIED = {item for _, item, _ in SOURCES}


def reference_file(name: str) -> Path:
    """The verified reference file (named as in manifest.toml), or skip the calling test with the reason."""
    return reference_path(name)


@functools.cache
def _crds(name: str) -> tuple[dict, ...]:
    return tuple(doc for doc in yaml.safe_load_all(reference_file(name).read_text()) if doc)


def schema(crd_file: str, kind: str, version: str = "v1") -> dict:
    """The CRD's schema as published (reference material), for tests about the CRD file itself."""
    for doc in _crds(crd_file):
        if doc["spec"]["names"]["kind"] == kind:
            for entry in doc["spec"]["versions"]:
                if entry["name"] == version:
                    return entry["schema"]["openAPIV3Schema"]
    raise LookupError(f"{crd_file} has no {kind} {version}")


def _group(kind: str) -> str:
    return "pxc.percona.com" if kind.startswith("PerconaXtraDB") else "ps.percona.com"


def admission(obj: dict, crd_file: str, kind: str, version: str = "v1"):
    if crd_file not in CARRIED:
        raise AssertionError(f"{crd_file} is not a CRD the package carries ({', '.join(sorted(CARRIED))})")
    answer = admit(f"{_group(kind)}/{version}", kind, obj)
    assert answer is not None, f"the package carries no CRD for {kind}"
    return answer


def schema_errors(obj: dict, crd_file: str, kind: str, version: str = "v1") -> list[str]:
    answer = admission(obj, crd_file, kind, version)
    found = [str(error) for error in answer.errors if error.origin != "cel"]
    return sorted(found + [f"{path}: pruned by the API server (not declared in the CRD)" for path in answer.pruned])


def cel_violations(obj: dict, crd_file: str, kind: str, version: str = "v1") -> list[str]:
    """The CEL rules the object breaks (or errors on), or the API server's note that it skipped them."""
    return [str(error) for error in admission(obj, crd_file, kind, version).errors if error.origin == "cel"]


def cel_rules(crd_file: str, kind: str, version: str = "v1") -> list[tuple[str, str]]:
    """Every rule in the published schema, with its path (for coverage checks)."""
    found: list[tuple[str, str]] = []

    def walk(node, path: str) -> None:
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
