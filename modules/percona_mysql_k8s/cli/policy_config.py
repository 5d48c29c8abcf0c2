"""A policy config file applied as ``pulumi preview --policy-pack-config FILE`` applies it: the offline check's gate.

A port of the Pulumi CLI's own handling (github.com/pulumi/pulumi, pkg/v3 at v3.260.0, the version the real-engine
tier builds: scripts/engine.sh, ../shared/tools/pulumi-engine), step by step:

1. ``load_document`` and ``from_document``: the file (pkg/resource/analyzer/config.go ``parsePolicyPackConfig``): empty content is no config; else a
   JSON object whose values are an enforcement level (a string) or an object, whose ``enforcementLevel`` is taken out
   of its properties (``extractEnforcementLevel``); anything else is refused. ``environments`` names ESC
   environments, which only a backend with ESC resolves (engine/update.go ``loadPolicyPlugins``): refused here, as
   the CLI refuses it on a file backend.
2. ``reconcile`` (config.go ``ReconcilePolicyPackConfig``): every policy of the pack starts at the level it declares
   and its schema's defaults (``createConfigWithDefaults``), the pack's initial config and then the file are laid
   over it (``applyConfig``: ``all`` sets every policy's level first; a policy's properties are merged key by key;
   **an entry without a level keeps the level already there**), and each policy's properties are validated against
   its schema (``validatePolicyPackConfig``; the schema is the pack's ``properties``/``required`` with
   ``enforcementLevel`` injected, plugin/analyzer_plugin.go ``GetAnalyzerInfo``, gojsonschema there, ``jsonschema``
   here).
3. ``check_levels`` (plugin/analyzer_plugin.go ``analyzer.Configure``): every entry sent needs a valid level, so a
   policy name the pack does not have, given without a level, is refused (its level is the empty one).

What the CLI refuses is a :class:`PolicyConfigError`, one line. The pack's own ``Configure`` refuses the policy names
and keys it does not have (percona_mysql_k8s.policies.config.unknown_config), under the CLI and offline alike.
tests/engine/test_engine_policy_config.py runs the same files through ``pulumi preview --policy-pack`` and this.
"""

from __future__ import annotations

import copy
import difflib
import json
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import jsonschema

# apitype.EnforcementLevel.IsValid (sdk/go/common/apitype/policy.go)
LEVELS = ("advisory", "mandatory", "remediate", "disabled")
ALL = "all"  # applyConfig: the level for every policy
ENVIRONMENTS = "environments"


class PolicyConfigError(ValueError):
    """A policy config the CLI refuses; the message is one line."""


@dataclass(frozen=True)
class PolicyEntry:
    """plugin.AnalyzerPolicyConfig: a level ("" = not set) and properties (None = none)."""

    level: str = ""
    properties: dict[str, Any] | None = None


@dataclass(frozen=True)
class PolicyInfo:
    """What GetAnalyzerInfo says of one policy: its name, declared level and config schema."""

    name: str
    level: str
    properties: dict[str, Any] = field(default_factory=dict)  # property -> JSON schema
    required: tuple[str, ...] = ()


def _q(text: str) -> str:
    """Go's %q of a string, as the CLI's messages quote names."""
    return json.dumps(text)


def _go_value(value: Any) -> str:
    """A JSON value as Go's %v prints what encoding/json decoded (float64 numbers, <nil>, map[...], [...])."""
    if value is None:
        return "<nil>"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return f"{float(value):g}" if not float(value).is_integer() or abs(value) >= 1e21 else str(int(value))
    if isinstance(value, list):
        return "[" + " ".join(_go_value(item) for item in value) + "]"
    return str(value)


def _level(policy: str, value: Any) -> str:
    """extractEnforcementLevel's check of one level."""
    if not isinstance(value, str):
        raise PolicyConfigError(
            f"parsing enforcement level for {_q(policy)}: {_go_value(value)} is not a valid enforcement level; must be a string"
        )
    if value not in LEVELS:
        raise PolicyConfigError(
            f"parsing enforcement level for {_q(policy)}: {_q(value)} is not a valid enforcement level "
            f"(one of {', '.join(LEVELS)})"
        )
    return value


def _refuse_constant(name: str) -> float:
    raise PolicyConfigError(f"{name} is not JSON")  # Go's encoding/json refuses NaN and Infinity


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):  # Go: "cannot unmarshal number 1e400 into Go value of type float64"
        raise PolicyConfigError(f"cannot read number {text}: out of range")
    return value


def _whole(text: str) -> int:
    _finite(text)  # Go decodes every number as a float64
    return int(text)


def load_document(text: str) -> dict[str, Any]:
    """parsePolicyPackConfig's reading of the file: a JSON object, or nothing for empty content; the entries are
    checked by :func:`from_document`."""
    if not text.strip():  # "Gracefully allow empty content."
        return {}
    try:
        document = json.loads(text, parse_constant=_refuse_constant, parse_float=_finite, parse_int=_whole)
    except json.JSONDecodeError as error:
        raise PolicyConfigError(f"not JSON: {error}") from None
    if not isinstance(document, dict):
        raise PolicyConfigError(f"must be a JSON object of policy name -> settings, not {type(document).__name__}")
    from_document(document)
    return document


def from_document(document: Mapping[str, Any]) -> dict[str, PolicyEntry]:
    """parsePolicyPackConfig after the JSON is decoded."""
    document = copy.deepcopy(dict(document))
    if ENVIRONMENTS in document:
        environments = document.pop(ENVIRONMENTS)
        if not isinstance(environments, list) or not all(isinstance(item, str) for item in environments):
            raise PolicyConfigError(f'"environments" must be an array of strings, got {_go_value(environments)}')
        if environments:  # an empty list resolves nothing (update.go: len(environments) > 0)
            raise PolicyConfigError(
                '"environments" names Pulumi ESC environments, which only `pulumi preview` with a backend that has ESC '
                "resolves (the CLI refuses them on a file backend too): put their values in the file for this check"
            )
    entries = {}
    for policy, value in document.items():
        if isinstance(value, str):
            entry = PolicyEntry(_level(policy, value))
        elif isinstance(value, dict):
            level = _level(policy, value.pop("enforcementLevel")) if "enforcementLevel" in value else ""
            entry = PolicyEntry(level, value or None)
        else:
            raise PolicyConfigError(f"parsing {_q(policy)}: {_go_value(value)} is not a valid value; must be a string or object")
        if entry.level or entry.properties:  # "Don't bother including empty configs."
            entries[policy] = entry
    return entries


def _apply(result: dict[str, PolicyEntry], given: Mapping[str, PolicyEntry]) -> dict[str, PolicyEntry]:
    """applyConfig."""
    result = dict(result)
    everything = given.get(ALL)
    if everything is not None and everything.level in LEVELS:
        result = {name: PolicyEntry(everything.level, entry.properties) for name, entry in result.items()}
    for name, entry in given.items():
        previous = result.get(name, PolicyEntry())
        properties = previous.properties
        if entry.properties and properties is None:
            properties = {}
        if properties is not None:
            properties = {**properties, **(entry.properties or {})}
        result[name] = PolicyEntry(entry.level if entry.level in LEVELS else previous.level, properties)
    return result


def _schema(policy: PolicyInfo) -> dict[str, Any]:
    """convertSchema, with the enforcementLevel property GetAnalyzerInfo injects."""
    properties = {**policy.properties, "enforcementLevel": {"type": "string", "enum": list(LEVELS)}}
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if policy.required:
        schema["required"] = list(policy.required)
    return schema


def _validation_errors(policies: Iterable[PolicyInfo], config: Mapping[str, PolicyEntry]) -> list[str]:
    """validatePolicyPackConfig: each policy's properties (defaults and given) against its schema."""
    errors = []
    for policy in policies:
        properties = (config.get(policy.name) or PolicyEntry()).properties or {}
        validator = jsonschema.Draft7Validator(_schema(policy))
        for error in validator.iter_errors(properties):
            where = ".".join(str(part) for part in error.absolute_path)
            errors.append(f"{policy.name}: {where + ': ' if where else ''}{error.message}")
    return sorted(errors)


def reconcile(
    policies: Iterable[PolicyInfo],
    given: Mapping[str, PolicyEntry],
    initial: Mapping[str, PolicyEntry] | None = None,
) -> dict[str, PolicyEntry]:
    """ReconcilePolicyPackConfig: what the CLI sends the pack's Configure, or the refusal of a schema."""
    policies = list(policies)
    result = {
        policy.name: PolicyEntry(
            policy.level,
            {name: schema["default"] for name, schema in policy.properties.items() if "default" in schema} or None,
        )
        for policy in policies
    }
    if initial:
        result = _apply(result, initial)
    result = _apply(result, given)
    errors = _validation_errors(policies, result)
    if errors:
        raise PolicyConfigError(f"validating policy config: {'; '.join(errors)}")
    check_levels(result, [policy.name for policy in policies])
    return result


def check_levels(config: Mapping[str, PolicyEntry], names: Iterable[str]) -> None:
    """analyzer.Configure: every entry sent has a valid level; an unknown name given without one has none."""
    names = list(names)
    for name, entry in config.items():
        if entry.level not in LEVELS:
            close = difflib.get_close_matches(name, names, n=1)
            hint = f' (did you mean "{close[0]}"?)' if close else ""
            raise PolicyConfigError(
                f'invalid enforcement level "{entry.level}" for "{name}": the pack has no policy of that name{hint}'
            )
