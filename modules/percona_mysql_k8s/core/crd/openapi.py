"""The OpenAPI v3 half of CRD validation, as the API server runs it, on the jsonschema library.

jsonschema's Draft 4 validator does the traversal and the keywords that mean the same in both (``properties``,
``additionalProperties``, ``items``, ``required``, ``enum``, ``minimum``/``maximum`` with boolean exclusives,
``minLength``/``maxLength`` in code points, ``minItems``/``maxItems``, ``anyOf``/``allOf``/``oneOf``/``not``).
Where Kubernetes reads a keyword differently, the keyword is replaced here, each after the code it follows
(k8s.io/kube-openapi at 43fb72c5454a, the one Kubernetes 1.36 builds with; apiextensions-apiserver v0.36.3):

* ``type`` (pkg/validation/validate/type.go ``typeValidator.Validate``): a float that is a whole number within
  +-2^53 is an integer (``swag.IsFloat64AJSONInteger``); ``nullable: true`` admits null.
* ``x-kubernetes-int-or-string``: the API server turns it into ``type: [integer, string]``
  (apiextensions-apiserver pkg/apiserver/validation/validation.go ``ConvertJSONSchemaPropsWithPostProcess``).
* ``format`` (validation/formats.go ``StripUnsupportedFormatsPostProcessorForVersion``): only the formats the
  API server supports count; ``int32`` bounds an integer to int32 (validate/values.go
  ``IsValueValidAgainstRange``, called by ``numberValidator``); ``date-time`` is strfmt ``IsDateTime``. The
  shipped schemas use no other format (tests/core/test_crd_schemas.py keeps it so).
* ``pattern``: Go's regexp (RE2 syntax, ``MatchString``: a search, ``$`` only at the very end): the RE2 inside
  the CEL library answers it (:func:`percona_mysql_k8s.core.crd.cel.re2_search`).

Each error becomes a :class:`FieldError` worded as kube-openapi words it and as
``kubeOpenAPIResultToFieldErrors`` types it (Required, Unsupported, Too long, Too many, Invalid).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import replace
from datetime import date
from typing import Any

import jsonschema
from jsonschema import Draft4Validator, ValidationError

from .errors import INVALID, NOT_SUPPORTED, OMIT, REQUIRED, TOO_LONG, TOO_MANY, TYPE_INVALID, FieldError

_INT32 = (-(2**31), 2**31 - 1)
_JSON_INTEGER_LIMIT = 2**53  # swag.IsFloat64AJSONInteger
_TIME = re.compile(r"^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$")  # strfmt DateTimePattern
_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")


def _integer(instance: Any) -> bool:
    if isinstance(instance, bool):
        return False
    if isinstance(instance, int):
        return True
    return isinstance(instance, float) and instance.is_integer() and abs(instance) <= _JSON_INTEGER_LIMIT


def _number(instance: Any) -> bool:
    return isinstance(instance, int | float) and not isinstance(instance, bool)


_TYPE_CHECKER = Draft4Validator.TYPE_CHECKER.redefine_many(
    {"integer": lambda _, value: _integer(value), "number": lambda _, value: _number(value)}
)


def json_type(instance: Any) -> str:
    """type.go ``schemaInfoForType``: the JSON type the API server names in a type error."""
    if instance is None:
        return "null"
    if isinstance(instance, bool):
        return "boolean"
    if isinstance(instance, int):
        return "integer"
    if isinstance(instance, float):
        return "number"
    if isinstance(instance, str):
        return "string"
    if isinstance(instance, list):
        return "array"
    return "object"


def _type_error(types: list[str], instance: Any) -> ValidationError:
    error = ValidationError(",".join(types))
    error.k8s_found = json_type(instance)  # type: ignore[attr-defined]
    return error


def _type(validator, types, instance, schema) -> Iterator[ValidationError]:
    types = [types] if isinstance(types, str) else list(types)
    if instance is None:
        if not schema.get("nullable") and "null" not in types:
            yield _type_error(types, instance)
        return
    if not any(validator.is_type(instance, kind) for kind in types):
        yield _type_error(types, instance)


_INT_OR_STRING_ANY_OF = [{"type": "integer"}, {"type": "string"}]


def _int_or_string(validator, enabled, instance, schema) -> Iterator[ValidationError]:
    """The type the API server gives an int-or-string, and the error of the ``anyOf`` the CRD spells it with
    (folded in here by :func:`_folded`: the same answer without jsonschema building an error for each branch)."""
    if enabled and "type" not in schema:
        errors = list(_type(validator, ["integer", "string"], instance, schema))
        yield from errors
        if errors and schema.get("k8s-folded-any-of"):
            yield ValidationError("anyOf", validator="anyOf", validator_value=_INT_OR_STRING_ANY_OF, instance=instance)


def _folded(node: Any) -> Any:
    """A copy of the schema whose int-or-string nodes carry their ``anyOf: [integer, string]`` as a flag."""
    if isinstance(node, list):
        return [_folded(item) for item in node]
    if not isinstance(node, dict):
        return node
    copy = {name: (value if name in ("default", "enum") else _folded(value)) for name, value in node.items()}
    if copy.get("x-kubernetes-int-or-string") and copy.get("anyOf") == _INT_OR_STRING_ANY_OF:
        del copy["anyOf"]
        copy["k8s-folded-any-of"] = True
    return copy


def date_time(text: str) -> bool:
    """strfmt ``IsDateTime``: a date, ``T`` (any case), then the time part by ``DateTimePattern``."""
    if len(text) < 4:
        return False
    parts = text.lower().split("t")
    if len(parts) < 2 or not _DATE.fullmatch(parts[0]):
        return False
    try:
        date.fromisoformat(parts[0])  # time.Parse("2006-01-02"): a real calendar day
    except ValueError:
        return False
    match = _TIME.search(parts[1])
    return bool(match) and match.group(1) <= "23" and match.group(2) <= "59" and match.group(3) <= "59"


def _format(validator, form, instance, schema) -> Iterator[ValidationError]:
    kind = schema.get("type", "")
    if kind == "integer" and form == "int32" and _integer(instance) and not _INT32[0] <= int(instance) <= _INT32[1]:
        yield ValidationError("int32")
    elif kind in ("", "string") and form == "date-time" and isinstance(instance, str) and not date_time(instance):
        yield ValidationError("date-time")


def _required(validator, required, instance, schema) -> Iterator[ValidationError]:
    if isinstance(instance, dict):
        for name in required:
            if name not in instance:
                yield ValidationError(name)


def compile_validator(schema: dict, re2_search: Callable[[str, str], bool]):
    """A validator for one version's ``openAPIV3Schema``; build it once per process (it keeps no state)."""

    def pattern(validator, expression, instance, schema) -> Iterator[ValidationError]:
        if isinstance(instance, str) and not re2_search(expression, instance):
            yield ValidationError(expression)

    keywords = {
        "type": _type,
        "x-kubernetes-int-or-string": _int_or_string,
        "format": _format,
        "pattern": pattern,
        "required": _required,
    }
    cls = jsonschema.validators.extend(Draft4Validator, validators=keywords, type_checker=_TYPE_CHECKER)
    return cls(_folded(schema))


def _dotted(path) -> str:
    """kube-openapi's error names: properties and items joined by dots (``spec.pxc.sidecars.0.name``)."""
    return ".".join(str(step) for step in path)


def _limit(value: Any) -> str:
    return str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)


def field_error(error: ValidationError) -> FieldError:
    """One jsonschema error as the API server reports the same failure."""
    where = _dotted(error.absolute_path)
    keyword, limit, value, schema = error.validator, error.validator_value, error.instance, error.schema
    if keyword == "required":
        return FieldError(f"{where}.{error.message}" if where else error.message, REQUIRED)
    if keyword in ("type", "x-kubernetes-int-or-string"):
        found = getattr(error, "k8s_found", json_type(value))
        return FieldError(where, TYPE_INVALID, f'{where} in body must be of type {error.message}: "{found}"', value)
    if keyword == "format":
        if error.message == "int32":
            return FieldError("<nil>", INVALID, f"Checked value must be of type integer with format int32 in {where}", "")
        return FieldError(where, INVALID, f'{where} in body must be of type {error.message}: "{value}"', value)
    if keyword == "enum":
        return FieldError(where, NOT_SUPPORTED, "supported values: " + ", ".join(f'"{item}"' for item in limit), value)
    if keyword == "pattern":
        return FieldError(where, INVALID, f"{where} in body should match '{limit}'", value)
    if keyword in ("minimum", "maximum"):
        exclusive = schema.get(f"exclusive{keyword.capitalize()}", False)
        relation = ("greater" if keyword == "minimum" else "less") + (" than" if exclusive else " than or equal to")
        return FieldError(where, INVALID, f"{where} in body should be {relation} {_limit(limit)}", value)
    if keyword == "maxLength":
        return FieldError(where, TOO_LONG, f"may not be more than {limit} {'byte' if limit == 1 else 'bytes'}")
    if keyword == "minLength":
        return FieldError(where, INVALID, f"{where} in body should be at least {limit} chars long", value)
    if keyword == "maxItems":
        return FieldError(where, TOO_MANY, f"must have at most {limit} {'item' if limit == 1 else 'items'}", len(value))
    if keyword == "minItems":
        return FieldError(where, INVALID, f"{where} in body should have at least {limit} items", OMIT)
    if keyword == "anyOf":
        return FieldError(where, INVALID, f'"{where}" must validate at least one schema (anyOf)', value)
    return FieldError(where, INVALID, f"{where} in body: {error.message}", value)


def openapi_errors(validator, obj: Any, is_unknown: Callable[[Any], bool]) -> list[FieldError]:
    """Every OpenAPI error of ``obj``; none about a value unknown at preview (it is judged when known)."""
    return [
        replace(field_error(error), origin="openapi") for error in validator.iter_errors(obj) if not is_unknown(error.instance)
    ]
