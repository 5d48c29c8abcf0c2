"""Run one policy directly (no gRPC) on a resource or a stack, the way the SDK's servicer calls it.

Case files (``tests/policies/<policy>/<case>.json``) hold the input as data:

    {"description": "...", "type": "...", "name": "...", "props": {...}, "config": {...},
     "protect": false, "stack": "prod", "stack_config": {"percona-mysql:ephemeral": "true"},
     "base": "ps-gr" | "shared:ps-operator-v1.2.0-cr.yaml", "patch": {...},
     "resources": [ {type, name, props | base + patch, protect, dependsOn: [names]} ... ]   # stack policies
     "expect": {"violations": [{"rule": "F2", "contains": ["25000"]}], "unknown": false, "not_applicable": false}}

``base`` names a hand-written resource in ``tests/policies/_bases/<name>.json`` or, with ``shared:``,
one of the upstream examples of the reference material (tests/reference_material/manifest.toml, read at
test time, never copied; a case that needs one is skipped, naming scripts/fetch-reference.sh, when it is
not here). ``patch`` is deep-merged over the base; ``null`` deletes a key.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from pulumi_policy import PolicyResource, PolicyResourceOptions, ResourceValidationArgs, StackValidationArgs
from pulumi_policy.policy import PolicyCustomTimeouts, _NotApplicableError
from pulumi_policy.proxy import UnknownValueError
from reference_material.resolve import reference_path

HERE = Path(__file__).resolve().parent
BASES = HERE / "_bases"
UPSTREAM_PREFIX = "shared:"  # a base that is an upstream example (reference material), not a hand-written one


@dataclass
class Outcome:
    messages: list[str] = field(default_factory=list)
    urns: list[str | None] = field(default_factory=list)  # the resource each message names (stack policies), in order
    unknown: str | None = None
    not_applicable: str | None = None
    unjudged: list = field(default_factory=list)  # (rule, field) the policy could not judge at preview (_framework.Unjudged)

    @property
    def rules(self) -> list[str]:
        return sorted(message.split(":", 1)[0] for message in self.messages)


def _options(protect: bool = False) -> PolicyResourceOptions:
    return PolicyResourceOptions(protect, [], None, [], PolicyCustomTimeouts(0, 0, 0), [], None)


def run_resource(
    policy, resource_type: str, props: dict, *, config: dict | None = None, name: str = "subject", protect: bool = False
) -> Outcome:
    outcome = Outcome()

    def report(message: str, urn: str | None = None) -> None:
        outcome.messages.append(message)
        outcome.urns.append(urn)

    args = ResourceValidationArgs(
        resource_type, props, f"urn:pulumi:test::test::{resource_type}::{name}", name, _options(protect), None, config or {}
    )
    try:
        policy.validate(args, report)  # called directly, the report gets the bare message (no description)
    except UnknownValueError as error:
        outcome.unknown = error.message
        outcome.unjudged = list(getattr(error, "unjudged", []))
    except _NotApplicableError as error:
        outcome.not_applicable = error.reason or "not applicable"
    return outcome


def run_stack(policy, resources: list[dict], *, config: dict | None = None) -> Outcome:
    outcome = Outcome()
    policy_resources = []
    for index, resource in enumerate(resources):
        name = resource.get("name", f"r{index}")
        policy_resources.append(
            PolicyResource(
                resource["type"],
                resource["props"],
                resource.get("urn", f"urn:pulumi:test::test::{resource['type']}::{name}"),
                name,
                _options(resource.get("protect", False)),
                None,
                None,
                [],
                {},
            )
        )
    by_name = {resource.name: resource for resource in policy_resources}
    for resource, entry in zip(policy_resources, resources, strict=True):  # "dependsOn": names of earlier entries
        resource.dependencies = [by_name[name] for name in entry.get("dependsOn", [])]
    args = StackValidationArgs(policy_resources, config or {})
    try:
        policy.validate(args, lambda message, urn=None: (outcome.messages.append(message), outcome.urns.append(urn)))
    except UnknownValueError as error:
        outcome.unknown = error.message
        outcome.unjudged = list(getattr(error, "unjudged", []))
    return outcome


# ---- case files -----------------------------------------------------------------------------------


def merge(base: Any, patch: Any) -> Any:
    if isinstance(base, dict) and isinstance(patch, dict):
        merged = dict(base)
        for key, value in patch.items():
            if value is None:
                merged.pop(key, None)
            else:
                merged[key] = merge(base.get(key), value)
        return merged
    return copy.deepcopy(patch)


def load_base(name: str) -> dict:
    if name.startswith(UPSTREAM_PREFIX):
        return yaml.safe_load(reference_path(name[len(UPSTREAM_PREFIX) :]).read_text())  # skips when not here
    base = json.loads((BASES / f"{name}.json").read_text())
    return resolve_resource(base)


def needs_reference(resource: dict) -> bool:
    """Whether expanding the entry reads reference material (an upstream base, directly or through a base)."""
    name = resource.get("base")
    if name is None:
        return False
    if name.startswith(UPSTREAM_PREFIX):
        return True
    return needs_reference(json.loads((BASES / f"{name}.json").read_text()))


def resolve_resource(resource: dict) -> dict:
    """A resource entry with ``base``/``patch`` expanded into ``props`` (and type/name inherited)."""
    resource = dict(resource)
    if "base" in resource:
        base = load_base(resource.pop("base"))
        if "props" in base and "type" in base:  # a base that is itself a resource entry
            resource.setdefault("type", base["type"])
            resource.setdefault("name", base.get("name", "subject"))
            props = base["props"]
        else:
            props = base
        resource["props"] = merge(props, resource.pop("patch", {}) or {})
    return resource


def case_files(policy_name: str | None = None) -> list[Path]:
    pattern = f"{policy_name}/*.json" if policy_name else "*/*.json"
    return sorted(path for path in HERE.glob(pattern) if not path.parent.name.startswith("_"))


def load_case(path: Path) -> dict:
    return json.loads(path.read_text())


def run_case(policy, case: dict, monkeypatch) -> Outcome:
    stack = case.get("stack")
    if stack:
        monkeypatch.setenv("PULUMI_STACK", stack)
    else:
        monkeypatch.delenv("PULUMI_STACK", raising=False)
    # the stack's own config, as the engine passes it to the pack (PULUMI_CONFIG)
    monkeypatch.setenv("PULUMI_CONFIG", json.dumps(case.get("stack_config") or {}))
    if "resources" in case:
        resources = [resolve_resource(resource) for resource in case["resources"]]
        return run_stack(policy, resources, config=case.get("config"))
    resource = resolve_resource(case)
    return run_resource(
        policy,
        resource["type"],
        resource["props"],
        config=case.get("config"),
        name=resource.get("name", "subject"),
        protect=resource.get("protect", False),
    )
