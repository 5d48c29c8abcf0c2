"""The ``x-kubernetes-validations`` half of CRD validation: CEL rules on Google's CEL runtime (cel-expr-python).

cel-expr-python wraps cel-cpp, Google's C++ implementation of the CEL specification (the same specification
cel-go, the API server's runtime, implements): field selection, ``has()``, the macros, ``matches`` on RE2, and the
commutative error semantics of ``||`` and ``&&`` (an error is absorbed only when the other side decides). This
module adds only what Kubernetes puts around it, after apiextensions-apiserver v0.36.3
pkg/apiserver/schema/cel/validation.go:

* where rules run (``validate``, ``validateMap``, ``validateArray``): on every node whose schema has rules and
  whose value is present and not null, with ``self`` that value; then into its declared properties, its
  ``additionalProperties`` values and its array items;
* ``self`` typed by the schema (k8s.io/apiserver pkg/cel/common/values.go ``UnstructuredToVal``): an
  ``integer`` is an int, a ``number`` a double, int-or-string either;
* the message of a refusal: the rule's ``message`` (trimmed) or ``failed rule: <rule>``; an evaluation error
  ``<error> evaluating rule: <rule or message>``, or for a call no overload matches ``'<error>': call
  arguments did not match a supported operator, function or macro signature for rule: <...>``;
* the Kubernetes library functions the shipped CRDs call, and only those (k8s.io/apiserver pkg/cel/library
  quantity.go ``quantityLibraryDecls``): ``quantity(string)``, ``isQuantity(string)``, ``sign(Quantity)``,
  ``Quantity.compareTo(Quantity)``, over the one quantity reader (core.quantity ``go_parse_quantity``, a
  transcription of ``resource.ParseQuantity``). cel-expr-python 0.1.3 cannot carry a Python object of an
  abstract type ("UNIMPLEMENTED: Unimplemented type"), so a Quantity travels as a one-key map
  ``{"kubernetes.Quantity": "<exact decimal>"}`` that only these functions accept. A CRD that calls any
  other library function fails to compile here, loudly (tests/core/test_crd_cel.py compiles every rule).

Each rule is compiled once per process. Not mirrored: transition rules (``oldSelf``; none in the shipped
CRDs, and a preview has no old object), ``messageExpression``, ``fieldPath`` and ``reason`` (unused there), and
the cost budget (the API server's estimate admitted these CRDs; their objects are small).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from cel_expr_python import cel

from ..quantity import QuantityError, go_parse_quantity
from .errors import INVALID, OMIT, FieldError, child, index, key

QUANTITY = "kubernetes.Quantity"
_QUANTITY_TYPE = cel.Type.Map(cel.Type.STRING, cel.Type.STRING)


def _amount(carrier: Any) -> Decimal:
    if not (isinstance(carrier, dict) and list(carrier) == [QUANTITY]):
        raise TypeError("no such overload")
    return Decimal(carrier[QUANTITY])


def _quantity(text: str) -> dict:
    return {QUANTITY: str(go_parse_quantity(text))}


def _is_quantity(text: str) -> bool:
    try:
        go_parse_quantity(text)
    except QuantityError:
        return False
    return True


def _sign(carrier: Any) -> int:
    amount = _amount(carrier)
    return (amount > 0) - (amount < 0)


def _compare_to(carrier: Any, other: Any) -> int:
    left, right = _amount(carrier), _amount(other)
    return (left > right) - (left < right)


_KUBERNETES_LIBRARY = [
    cel.FunctionDecl("quantity", [cel.Overload("string_to_quantity", _QUANTITY_TYPE, [cel.Type.STRING], impl=_quantity)]),
    cel.FunctionDecl("isQuantity", [cel.Overload("is_quantity_string", cel.Type.BOOL, [cel.Type.STRING], impl=_is_quantity)]),
    cel.FunctionDecl("sign", [cel.Overload("quantity_sign", cel.Type.INT, [_QUANTITY_TYPE], impl=_sign)]),
    cel.FunctionDecl(
        "compareTo",
        [cel.Overload("quantity_compare_to", cel.Type.INT, [_QUANTITY_TYPE, _QUANTITY_TYPE], is_member=True, impl=_compare_to)],
    ),
]


@functools.cache
def _environment():
    return cel.NewEnv(variables={"self": cel.Type.DYN}, functions=_KUBERNETES_LIBRARY)


@functools.cache
def compiled(rule: str):
    """The rule's program, compiled once per process (CEL syntax errors raise here)."""
    return _environment().compile(rule)


@functools.cache
def _regex_environment():
    return cel.NewEnv(variables={"text": cel.Type.STRING})


@functools.cache
def _pattern_program(pattern: str):
    for quote in ("'", '"', "'''", '"""'):
        if quote not in pattern and not pattern.endswith(quote[0]):
            return _regex_environment().compile(f"text.matches(r{quote}{pattern}{quote})")
    raise ValueError(f"pattern {pattern!r} cannot be written as a CEL raw string")


@functools.lru_cache(maxsize=4096)  # the same few quantities ("1Gi", "500m") fill every resources block
def re2_search(pattern: str, text: str) -> bool:
    """Go's ``regexp.MatchString`` (RE2 syntax, a search; ``$`` is the end of the text): cel-cpp's RE2 answers it."""
    result = _pattern_program(pattern).eval(data={"text": text})
    value = result.plain_value()
    if not isinstance(value, bool):
        raise ValueError(f"pattern {pattern!r} is not RE2 syntax: {value}")
    return value


def cel_value(value: Any, schema: dict | None) -> Any:
    """``self`` as the API server types it from the schema (UnstructuredToVal)."""
    schema = schema or {}
    kind = schema.get("type")
    if kind == "number" and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if (kind == "integer" or schema.get("x-kubernetes-int-or-string")) and isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        properties, extra = schema.get("properties") or {}, schema.get("additionalProperties")
        return {
            name: cel_value(item, properties.get(name, extra if isinstance(extra, dict) else None))
            for name, item in value.items()
        }
    if isinstance(value, list):
        items = schema.get("items")
        return [cel_value(item, items if isinstance(items, dict) else None) for item in value]
    return value


_NUMBERS: dict[int, bool] = {}  # id of a schema node (the catalog keeps them for the process) -> holds a number type


def _has_numbers(schema: dict) -> bool:
    """Whether ``self`` needs typing at all: only an integer in a ``number`` field changes (structural.json_numbers
    already made every whole float an int, as the API server's JSON decoder does)."""
    known = _NUMBERS.get(id(schema))
    if known is None:
        known = schema.get("type") == "number"
        for name in ("properties",):
            known = known or any(_has_numbers(sub) for sub in (schema.get(name) or {}).values())
        for name in ("items", "additionalProperties"):
            known = known or (isinstance(schema.get(name), dict) and _has_numbers(schema[name]))
        _NUMBERS[id(schema)] = known
    return known


def _error_text(error: str) -> str:
    """cel-cpp's wording of the two errors the API server names, in cel-go's: ``no such key``, ``no such overload``."""
    if "Key not found in map" in error:
        return "no such key: " + error.split(":", 2)[-1].strip().strip('"')
    if "No matching overloads found" in error:
        return "no such overload: " + error.split(":", 2)[-1].strip()
    return error


@dataclass(frozen=True)
class Unjudged:
    """A rule not evaluated because its ``self`` holds a value unknown at preview; ``unknowns``: each such value
    and where it is (``spec.backup.schedule[0].schedule``: map keys dotted, as the pack names fields)."""

    path: str
    rule: str
    unknowns: tuple[tuple[str, Any], ...] = ()


def _rule_text(rule: dict) -> str:
    """validation.go ``ruleErrorString``."""
    return (rule.get("message") or "").strip() or rule["rule"].strip()


def _evaluate(rule: dict, activation, value: Any, schema: dict, path: str) -> FieldError | None:
    try:
        result = compiled(rule["rule"]).eval(activation)
        outcome = result.plain_value()
        failed = result.type() == cel.Type.ERROR
    except Exception as error:  # noqa: BLE001 - a binding's failure is the rule's evaluation error, as in cel-go
        outcome, failed = str(error), True
    kind = schema.get("type", "")  # the structural type the API server prints ("" for an int-or-string)
    if failed:
        text = _error_text(str(outcome))
        if text.startswith("no such overload"):
            detail = f"'{text}': call arguments did not match a supported operator, function or macro signature for rule: {_rule_text(rule)}"
        else:
            detail = f"{text} evaluating rule: {_rule_text(rule)}"
        return FieldError(path, INVALID, detail, kind, "cel")
    if outcome is True:
        return None
    detail = (rule.get("message") or "").strip() or f"failed rule: {rule['rule'].strip()}"
    shown = OMIT if kind in ("object", "array") else value
    return FieldError(path, INVALID, detail, shown, "cel")


def _unknowns(value: Any, is_unknown: Callable[[Any], bool], path: str) -> list[tuple[str, Any]]:
    """Every value unknown at preview in ``value``, with its path."""
    if is_unknown(value):
        return [(path, value)]
    if isinstance(value, dict):
        return [found for name, item in value.items() for found in _unknowns(item, is_unknown, child(path, name))]
    if isinstance(value, list):
        return [found for position, item in enumerate(value) for found in _unknowns(item, is_unknown, index(path, position))]
    return []


def cel_errors(
    value: Any, schema: dict | None, is_unknown: Callable[[Any], bool], path: str = ""
) -> tuple[list[FieldError], list[Unjudged]]:
    """Every rule ``value`` breaks below ``schema`` (validation.go ``validate``), and the rules a preview cannot judge."""
    if schema is None or value is None or is_unknown(value):
        return [], []
    errors: list[FieldError] = []
    unjudged: list[Unjudged] = []
    rules = schema.get("x-kubernetes-validations") or []
    unknowns = tuple(_unknowns(value, is_unknown, path)) if rules else ()
    if unknowns:
        unjudged += [Unjudged(path, _rule_text(rule), unknowns) for rule in rules]
    elif rules:
        # one conversion of ``self`` for all the node's rules (the conversion is most of a rule's cost)
        converted = cel_value(value, schema) if _has_numbers(schema) else value
        activation = _environment().Activation(data={"self": converted})
        errors += [error for rule in rules if (error := _evaluate(rule, activation, value, schema, path)) is not None]
    below: list[tuple[Any, dict | None, str]] = []
    if isinstance(value, dict):
        extra, properties = schema.get("additionalProperties"), schema.get("properties") or {}
        if isinstance(extra, dict):
            below += [(item, extra, key(path, name) if path else name) for name, item in value.items()]
        below += [(item, properties[name], child(path, name)) for name, item in value.items() if name in properties]
    elif isinstance(value, list) and isinstance(schema.get("items"), dict):
        below += [(item, schema["items"], index(path, position)) for position, item in enumerate(value)]
    for item, sub, where in below:
        found, skipped = cel_errors(item, sub, is_unknown, where)
        errors += found
        unjudged += skipped
    return errors, unjudged
