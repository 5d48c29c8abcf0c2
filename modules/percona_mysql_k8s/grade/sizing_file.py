"""The sizing a live cluster is graded against: ``percona-mysql-sizing --format json`` read back.

Only the keys grading needs are read; each is checked for its type, and a missing or malformed one is a
:class:`GradeInputError` naming the key and how to produce the file.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from percona_mysql_k8s.core.memory import ENGINES

HOW_TO_WRITE = "write it with `percona-mysql-sizing ... --format json > sizing.json`"


class GradeInputError(Exception):
    """Bad input to the grader: printed as one ``error: <input>: <message>`` line, exit status 2."""

    def __init__(self, input_name: str, message: str) -> None:
        super().__init__(message)
        self.input_name = input_name
        self.message = message

    def __str__(self) -> str:
        return f"error: {self.input_name}: {self.message}"


@dataclass(frozen=True)
class Sizing:
    engine: str
    cluster_size: int
    mysqld: Mapping[str, str]
    rules: Mapping[str, tuple[str, ...]]
    model_peak_bytes: int
    model_limit_bytes: int
    model_terms: Mapping[str, int]
    apply_rate_tps: float
    max_connections: int
    thresholds: Mapping[str, float]  # the overrides the sizing was computed with


def _get(document: Mapping[str, Any], path: str, source: str) -> Any:
    value: Any = document
    for part in path.split("."):
        if not isinstance(value, Mapping) or part not in value:
            raise GradeInputError("--sizing", f"{source}: no '{path}' ({HOW_TO_WRITE})")
        value = value[part]
    return value


def _whole(document: Mapping[str, Any], path: str, source: str, minimum: int) -> int:
    value = _get(document, path, source)
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise GradeInputError("--sizing", f"{source}: '{path}' must be a whole number >= {minimum}, got {value!r}")
    return value


def _number(document: Mapping[str, Any], path: str, source: str) -> float:
    value = _get(document, path, source)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
        raise GradeInputError("--sizing", f"{source}: '{path}' must be a positive number, got {value!r}")
    return float(value)


def _string_map(document: Mapping[str, Any], path: str, source: str) -> dict[str, str]:
    value = _get(document, path, source)
    if not isinstance(value, Mapping) or not value:
        raise GradeInputError("--sizing", f"{source}: '{path}' must be a non-empty object, got {type(value).__name__}")
    out: dict[str, str] = {}
    for key, item in value.items():
        if isinstance(item, (dict, list)) or item is None:
            raise GradeInputError("--sizing", f"{source}: '{path}.{key}' must be a scalar, got {item!r}")
        out[str(key)] = str(item)
    return out


def read_sizing(text: str, source: str) -> Sizing:
    """Parse and check the sizing JSON; ``source`` names the file in messages."""
    try:
        document = json.loads(text)
    except json.JSONDecodeError as error:
        raise GradeInputError("--sizing", f"{source}: not JSON ({error.msg} at line {error.lineno}); {HOW_TO_WRITE}") from None
    if not isinstance(document, Mapping):
        raise GradeInputError("--sizing", f"{source}: expected a JSON object; {HOW_TO_WRITE}")
    engine = _get(document, "input.engine", source)
    if engine not in ENGINES:
        raise GradeInputError("--sizing", f"{source}: 'input.engine' must be one of {', '.join(ENGINES)}, got {engine!r}")
    rules_in = _get(document, "rules", source)
    if not isinstance(rules_in, Mapping) or not all(
        isinstance(ids, list) and all(isinstance(i, str) for i in ids) for ids in rules_in.values()
    ):
        raise GradeInputError("--sizing", f"{source}: 'rules' must map keys to lists of rule IDs")
    terms = _get(document, "memory_model.terms", source)
    if not isinstance(terms, Mapping) or not all(isinstance(v, int) and not isinstance(v, bool) for v in terms.values()):
        raise GradeInputError("--sizing", f"{source}: 'memory_model.terms' must map term names to whole bytes")
    thresholds = _get(document, "input.thresholds", source)
    if not isinstance(thresholds, Mapping):
        raise GradeInputError("--sizing", f"{source}: 'input.thresholds' must be an object")
    return Sizing(
        engine=engine,
        cluster_size=_whole(document, "input.cluster_size", source, 1),
        mysqld=_string_map(document, "mysqld", source),
        rules={key: tuple(ids) for key, ids in rules_in.items()},
        model_peak_bytes=_whole(document, "memory_model.peak_bytes", source, 1),
        model_limit_bytes=_whole(document, "memory_model.limit_bytes", source, 1),
        model_terms=dict(terms),
        apply_rate_tps=_number(document, "flow_control.apply_rate_tps", source),
        max_connections=_whole(document, "connections.max_connections", source, 1),
        thresholds=dict(thresholds),
    )
