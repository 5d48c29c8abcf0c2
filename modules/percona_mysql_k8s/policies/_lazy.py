"""The pack's policies before their code is imported: what ``GetAnalyzerInfo`` shows, from a cache; the code later.

The engine starts the pack, waits for its port and its ``GetAnalyzerInfo``, and only then starts the program
(pulumi pkg/engine/update.go: loadPolicyPlugins before the deployment runs). Importing the policies, their readers
and the core they share takes about 0.15 s of CPU, as long as ``import pulumi`` itself: on the critical path of
every preview. What ``GetAnalyzerInfo`` and the servicer read of a policy (name, kind, description, level, config
schema, severity, framework, tags, remediation, whether it narrows the resource types it reads) is data, so it is
cached: the first start imports the catalogue and writes the cache; later starts build stand-in policies from it,
answer at once, and import the catalogue on a background thread while the engine starts the program. A stand-in
hands every call (``validate``, ``applies_to``) to its real policy, waiting for the import if it is not done.

The cache is ``percona-policy-metadata.json`` in the pack's virtualenv (``sys.prefix``), keyed by every module of
the library (path, size, modification time) and the SDK's version: any change of the code, or another SDK, is a
miss, and a miss is the ordinary start. A virtualenv that cannot be written keeps the ordinary start.
``PERCONA_POLICY_LAZY_CATALOG=0`` turns it off.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import os
import sys
import threading
from pathlib import Path
from typing import Any

import pulumi_policy
from pulumi_policy import (
    EnforcementLevel,
    PolicyComplianceFramework,
    PolicyConfigSchema,
    ResourceValidationPolicy,
    Severity,
    StackValidationPolicy,
)
from pulumi_policy.version import VERSION

CATALOG = "percona_mysql_k8s.policies._catalog"
CACHE = "percona-policy-metadata.json"
SWITCH = "PERCONA_POLICY_LAZY_CATALOG"


def source_key() -> str:
    """The library's modules (path, size, modification time) and the SDK's version, hashed."""
    root = Path(__file__).resolve().parent.parent
    digest = hashlib.sha256(f"pulumi-policy {VERSION} {pulumi_policy.__file__}\n".encode())
    for path in sorted(root.rglob("*.py")):
        stat = path.stat()
        digest.update(f"{path.relative_to(root)}\0{stat.st_size}\0{stat.st_mtime_ns}\n".encode())
    return digest.hexdigest()


def describe(policy) -> dict[str, Any]:
    """What the servicer and ``GetAnalyzerInfo`` read of ``policy``, as JSON."""
    schema, framework = policy.config_schema, policy.framework
    return {
        "name": policy.name,
        "kind": "stack" if isinstance(policy, StackValidationPolicy) else "resource",
        "description": policy.description,
        "enforcement_level": policy.enforcement_level.value if policy.enforcement_level else None,
        "display_name": policy.display_name,
        "config_schema": None if schema is None else {"properties": schema.properties, "required": schema.required},
        "severity": policy.severity.value if policy.severity else None,
        "framework": None
        if framework is None
        else {key: getattr(framework, key) for key in ("name", "version", "reference", "specification")},
        "tags": policy.tags,
        "remediation_steps": policy.remediation_steps,
        "url": policy.url,
        "narrows_types": getattr(policy, "applies_to", None) is not None,
    }


def _real(name: str):
    """The catalogue's policy ``name`` (importing the catalogue, or waiting for the import under way)."""
    return importlib.import_module(CATALOG).POLICIES_BY_NAME[name]


def stand_in(entry: dict[str, Any]):
    """A policy with ``entry``'s metadata whose calls go to the real policy of the same name."""
    name = entry["name"]

    def validate(args, report_violation):
        return _real(name).validate(args, report_violation)

    schema = entry["config_schema"]
    framework = entry["framework"]
    metadata = {
        "description": entry["description"],
        "enforcement_level": EnforcementLevel(entry["enforcement_level"]) if entry["enforcement_level"] else None,
        "config_schema": None if schema is None else PolicyConfigSchema(schema["properties"], schema["required"]),
        "display_name": entry["display_name"],
        "severity": Severity(entry["severity"]) if entry["severity"] else None,
        "framework": None if framework is None else PolicyComplianceFramework(**framework),
        "tags": entry["tags"],
        "remediation_steps": entry["remediation_steps"],
        "url": entry["url"],
    }
    kind = StackValidationPolicy if entry["kind"] == "stack" else ResourceValidationPolicy
    policy = kind(name=name, validate=validate, **metadata)
    if entry["narrows_types"]:
        policy.applies_to = lambda resource_type: _real(name).applies_to(resource_type)
    return policy


def _cache_path() -> Path:
    return Path(sys.prefix) / CACHE


def write_cache(policies: list, key: str, path: Path | None = None) -> bool:
    """Keep ``policies``' metadata for the next start; False where the virtualenv cannot be written."""
    path = path or _cache_path()
    try:
        temporary = path.with_suffix(f".{os.getpid()}.tmp")
        temporary.write_text(json.dumps({"key": key, "policies": [describe(p) for p in policies]}))
        temporary.replace(path)
    except OSError:
        return False
    return True


def cached_policies(key: str, path: Path | None = None) -> list | None:
    """Stand-ins from the cache, or None when it is absent, unreadable or of other code."""
    try:
        cached = json.loads((path or _cache_path()).read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(cached, dict) or cached.get("key") != key:
        return None
    return [stand_in(entry) for entry in cached["policies"]]


def pack_policies() -> list:
    """The policies the pack serves: stand-ins from the cache with the catalogue imported in the background, or
    (no cache, another code, switched off) the catalogue's own, whose metadata is then cached."""
    if os.environ.get(SWITCH, "1") == "0":
        return list(importlib.import_module(CATALOG).ALL_POLICIES)
    key = source_key()
    policies = cached_policies(key)
    if policies is None:
        policies = list(importlib.import_module(CATALOG).ALL_POLICIES)
        write_cache(policies, key)
        return policies
    threading.Thread(target=importlib.import_module, args=(CATALOG,), name="policy-import", daemon=True).start()
    return policies
