"""Policy configuration: one schema per policy, built from the rule catalogue's thresholds.

Every threshold is defined once, in :data:`percona_mysql_k8s.core.rules.THRESHOLDS` (name, default, type,
minimum, meaning). A policy names the thresholds it reads; its config schema is generated from those
definitions, and configured values are checked with :func:`percona_mysql_k8s.core.rules.resolve_thresholds`,
the same function sizing uses. Policy-specific settings that are not rule thresholds (pool labels,
stack-name patterns) are declared beside the policy as :class:`Setting` with their own default.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pulumi_policy import EnforcementLevel, PolicyConfigSchema

from percona_mysql_k8s.core.rules import (
    ORDERED_THRESHOLDS,
    RULES,
    THRESHOLD_RULE,
    THRESHOLDS,
    Level,
    ThresholdError,
    resolve_thresholds,
)

_JSON_TYPES = {"string": str, "boolean": bool, "object": dict, "array": list, "integer": (int, float), "number": (int, float)}


@dataclass(frozen=True)
class Setting:
    """A policy setting that is not a rule threshold: JSON-schema ``type``, default and meaning."""

    name: str
    type: str
    default: Any
    description: str
    items: Mapping[str, Any] | None = None
    minimum: float | int | None = None  # numbers only: the documented range
    maximum: float | int | None = None

    def schema(self) -> dict[str, Any]:
        schema: dict[str, Any] = {"type": self.type, "default": self.default, "description": self.description}
        if self.items is not None:
            schema["items" if self.type == "array" else "additionalProperties"] = dict(self.items)
        if self.minimum is not None:
            schema["minimum"] = self.minimum
        if self.maximum is not None:
            schema["maximum"] = self.maximum
        return schema

    def problem(self, value: Any) -> str | None:
        """Why a number is outside this setting's domain (not finite, a fraction for an integer, out of range)."""
        if self.type not in ("integer", "number") or isinstance(value, bool):
            return None
        if isinstance(value, float) and not math.isfinite(value):
            return f"policy config {self.name!r} must be a finite number, got {value!r}"
        if self.type == "integer" and isinstance(value, float) and not value.is_integer():
            return f"policy config {self.name!r} must be a whole number, got {value!r}"
        if (self.minimum is not None and value < self.minimum) or (self.maximum is not None and value > self.maximum):
            return f"policy config {self.name!r} must be from {self.minimum} to {self.maximum}, got {value!r}"
        return None


def threshold_schema(name: str) -> dict[str, Any]:
    threshold = THRESHOLDS[name]
    schema: dict[str, Any] = {
        "type": threshold.kind,
        "default": threshold.default,
        "description": f"{threshold.description} (rule {THRESHOLD_RULE[name]})",
    }
    if threshold.minimum is not None:
        schema["exclusiveMinimum" if threshold.exclusive_minimum else "minimum"] = threshold.minimum
    if threshold.maximum is not None:
        schema["exclusiveMaximum" if threshold.exclusive_maximum else "maximum"] = threshold.maximum
    return schema


def config_schema(thresholds: Iterable[str], settings: Iterable[Setting] = ()) -> PolicyConfigSchema | None:
    properties = {name: threshold_schema(name) for name in thresholds}
    properties.update({setting.name: setting.schema() for setting in settings})
    return PolicyConfigSchema(properties=properties) if properties else None


def default_level(rule_ids: Iterable[str]) -> EnforcementLevel:
    """Mandatory for M rules, advisory for A rules; a policy never mixes the two."""
    levels = {RULES[rule_id].level for rule_id in rule_ids}
    if len(levels) != 1:
        raise ValueError(f"policy mixes mandatory and advisory rules: {sorted(rule_ids)}")
    return EnforcementLevel.MANDATORY if levels == {Level.MANDATORY} else EnforcementLevel.ADVISORY


@dataclass
class ResolvedConfig:
    thresholds: dict[str, float | int]
    settings: dict[str, Any]
    errors: list[str] = field(default_factory=list)

    def __getitem__(self, name: str) -> Any:
        return self.thresholds[name] if name in self.thresholds else self.settings[name]


def _number(name: str, value: Any) -> Any:
    """Config numbers cross protobuf as floats: 1000.0 for an integer threshold is 1000."""
    if THRESHOLDS[name].kind == "integer" and isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def _check_domain(name: str, value: Any) -> None:
    """One threshold against its own domain (pairs are checked together, once all are read)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ThresholdError(name, f"threshold {name!r} must be a number, got {value!r}")
    THRESHOLDS[name].check(value)


_cache: dict[tuple, ResolvedConfig] = {}


def resolve(config: Mapping[str, Any] | None, thresholds: Iterable[str], settings: Iterable[Setting] = ()) -> ResolvedConfig:
    """Defaults with the configured values applied; a bad value is an error and its default is kept.

    Resolved configs are cached (the engine configures a pack once and analyzes many resources);
    callers treat the result as read-only.
    """
    thresholds, settings = tuple(thresholds), tuple(settings)
    try:
        key = (thresholds, tuple(setting.name for setting in settings), _config_key(config))
    except (TypeError, ValueError):
        return _resolve(config, thresholds, settings)
    if key not in _cache:
        if len(_cache) > 1024:
            _cache.clear()
        _cache[key] = _resolve(config, thresholds, settings)
    return _cache[key]


def _config_key(config: Mapping[str, Any] | None) -> Any:
    """A hashable key, computed per policy per resource: no config (the usual case) costs nothing."""
    if not config:
        return ()
    try:
        # the type is part of the key: True == 1 and 1.0 == 1, but they do not resolve alike
        key = tuple(sorted((str(name), type(value).__name__, value) for name, value in config.items()))
        hash(key)
        return key
    except TypeError:
        return json.dumps(config, sort_keys=True)


def _resolve(config: Mapping[str, Any] | None, thresholds: Iterable[str], settings: Iterable[Setting] = ()) -> ResolvedConfig:
    config = dict(config or {})
    names = tuple(thresholds)
    overrides: dict[str, Any] = {}
    errors: list[str] = []
    for name in names:
        if name not in config:
            continue
        value = _number(name, config[name])
        try:
            _check_domain(name, value)
        except ThresholdError as error:
            errors.append(f"policy config {str(error).strip(chr(34))}")
            continue
        if THRESHOLDS[name].kind == "integer" and not isinstance(value, int):
            errors.append(f"policy config threshold {name!r} must be a whole number, got {value!r}")
            continue
        overrides[name] = value
    # Every threshold is present: those a policy does not expose keep their defaults. A contradicting pair
    # (a minimum above its maximum) is an error; both keep their defaults.
    try:
        values = resolve_thresholds(overrides)
    except ThresholdError as error:
        errors.append(f"policy config {error}")
        for pair in ORDERED_THRESHOLDS:
            if error.name in pair:
                for name in pair:
                    overrides.pop(name, None)
        values = resolve_thresholds(overrides)
    resolved_settings: dict[str, Any] = {}
    for setting in settings:
        value = config.get(setting.name, setting.default)
        expected = _JSON_TYPES.get(setting.type)
        if expected is not None and (not isinstance(value, expected) or (expected is not bool and isinstance(value, bool))):
            errors.append(f"policy config {setting.name!r} must be of type {setting.type}, got {value!r}")
            value = setting.default
        elif setting.problem(value) is not None:
            errors.append(setting.problem(value))
            value = setting.default
        resolved_settings[setting.name] = value
    return ResolvedConfig(values, resolved_settings, errors)
