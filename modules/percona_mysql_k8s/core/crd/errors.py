"""A refusal as the API server words it: a field path, the error type and the detail.

k8s.io/apimachinery pkg/util/validation/field/errors.go: ``Error.Error()`` is ``"<field>: <ErrorBody>"``, and
``ErrorBody`` is the type alone (``Required value``, ``Too long``...) or the type with the bad value
(``Invalid value: "3"``), then ``: <detail>`` when there is one. Paths follow field/path.go
(``spec.pxc.sidecars[0]``, map keys ``[key]``), except those of OpenAPI errors, which kube-openapi names with
dots (``spec.pxc.sidecars.0.name``, pkg/validation/validate/slice_validator.go) and the API server keeps as
they are (apiextensions-apiserver pkg/apiserver/validation/validation.go ``kubeOpenAPIResultToFieldErrors``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

# field.ErrorType values (errors.go), with what ``ErrorType.String`` prints for each
REQUIRED = "FieldValueRequired"
INVALID = "FieldValueInvalid"
TYPE_INVALID = "FieldValueTypeInvalid"
NOT_SUPPORTED = "FieldValueNotSupported"
DUPLICATE = "FieldValueDuplicate"
TOO_LONG = "FieldValueTooLong"
TOO_MANY = "FieldValueTooMany"
FORBIDDEN = "FieldValueForbidden"
UNTYPED = ""  # an error that is no field.Error (server-side apply's "field not declared in schema"): the detail alone
LABELS = {
    REQUIRED: "Required value",
    INVALID: "Invalid value",
    TYPE_INVALID: "Invalid value",
    NOT_SUPPORTED: "Unsupported value",
    DUPLICATE: "Duplicate value",
    TOO_LONG: "Too long",
    TOO_MANY: "Too many",
    FORBIDDEN: "Forbidden",
    UNTYPED: "",
}

_WITHOUT_VALUE = {REQUIRED, TOO_LONG, FORBIDDEN}
OMIT = object()  # field.OmitValueType: the value is not printed (objects and arrays)


def go_value(value: Any) -> str:
    """How ``ErrorBody`` prints a bad value: ``%q`` for a string, ``%v`` for a number or a bool, JSON otherwise."""
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value) if isinstance(value, float) and not value.is_integer() else str(int(value))
    try:
        return json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)  # Go: json.Marshal, sorted keys
    except (TypeError, ValueError):
        return str(value)


@dataclass(frozen=True)
class FieldError:
    """One reason the API server refuses an object."""

    path: str
    type: str
    detail: str = ""
    value: Any = OMIT
    origin: str = ""  # which step found it: server-side-apply, metadata, openapi, scale, list-type, cel

    def __str__(self) -> str:
        body = LABELS[self.type]
        if body and self.type not in _WITHOUT_VALUE and self.value is not OMIT:
            body = f"{body}: {go_value(self.value)}"
        if self.detail:
            body = f"{body}: {self.detail}" if body else self.detail
        return f"{self.path}: {body}" if self.path else body


def child(path: str, key: str) -> str:
    """field.Path ``Child``: ``spec.pxc``."""
    return f"{path}.{key}" if path else key


def index(path: str, position: int) -> str:
    """field.Path ``Index``: ``spec.pxc.sidecars[0]``."""
    return f"{path}[{position}]"


def key(path: str, name: str) -> str:
    """field.Path ``Key``: ``spec.backup.storages[s3-us-west]``."""
    return f"{path}[{name}]"
