"""What kubectl refuses in an object before it sends anything: its ``metadata`` must decode into ObjectMeta.

cli-runtime v0.36.3 ``pkg/resource/metadata_decoder.go``: ``metadataValidatingDecoder`` decodes each object into
``metadataOnlyObject{TypeMeta, ObjectMeta}`` with apimachinery's ``util/json`` (case-sensitive, unknown fields
ignored), "so we don't silently truncate schema errors in metadata": a label or annotation value that is not a
string, a name that is a number, a ``creationTimestamp`` that is not RFC 3339 stop ``kubectl apply`` with
``json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type string``. The Go types
are those of k8s.io/apimachinery v0.36.3 ``pkg/apis/meta/v1/types.go``; a JSON null leaves any field empty.
"""

from __future__ import annotations

import re
from typing import Any

_INT64 = 1 << 63
_RFC3339 = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})")  # time.RFC3339 as Parse reads it

STRING, INT64, BOOL, TIME, RAW = "string", "int64", "bool", "Time", "raw"
_OWNER_REFERENCE = {
    "apiVersion": STRING,
    "kind": STRING,
    "name": STRING,
    "uid": STRING,
    "controller": BOOL,
    "blockOwnerDeletion": BOOL,
}
_MANAGED_FIELDS_ENTRY = {
    "manager": STRING,
    "operation": STRING,
    "apiVersion": STRING,
    "time": TIME,
    "fieldsType": STRING,
    "fieldsV1": RAW,
    "subresource": STRING,
}
OBJECT_META: dict[str, Any] = {
    "name": STRING,
    "generateName": STRING,
    "namespace": STRING,
    "selfLink": STRING,
    "uid": STRING,
    "resourceVersion": STRING,
    "generation": INT64,
    "creationTimestamp": TIME,
    "deletionTimestamp": TIME,
    "deletionGracePeriodSeconds": INT64,
    "labels": {"map": STRING},
    "annotations": {"map": STRING},
    "ownerReferences": {"list": _OWNER_REFERENCE},
    "finalizers": {"list": STRING},
    "managedFields": {"list": _MANAGED_FIELDS_ENTRY},
}


def _json_kind(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


def _scalar_problem(value: Any, kind: str, where: str) -> str | None:
    if kind == RAW:
        return None
    if kind == STRING and isinstance(value, str) or kind == BOOL and isinstance(value, bool):
        return None
    if kind == INT64 and isinstance(value, int) and not isinstance(value, bool) and -_INT64 <= value < _INT64:
        return None
    if kind == TIME and isinstance(value, str):
        return None if _RFC3339.fullmatch(value) else f'parsing time "{value}" as RFC3339 at {where}'
    found = _json_kind(value)
    if kind == INT64 and found == "number":
        return f"json: cannot unmarshal number {value} into Go struct field {where} of type int64"
    go = {TIME: "string", INT64: "int64"}.get(kind, kind)
    return f"json: cannot unmarshal {found} into Go struct field {where} of type {go}"


def _problem(value: Any, shape: Any, where: str) -> str | None:
    """Go's ``json.Unmarshal`` of ``value`` into a field of ``shape``; None when it decodes."""
    if value is None:
        return None
    if isinstance(shape, str):
        return _scalar_problem(value, shape, where)
    if "map" in shape:
        if not isinstance(value, dict):
            return f"json: cannot unmarshal {_json_kind(value)} into Go struct field {where} of type map[string]string"
        return next((p for item in value.values() if (p := _problem(item, shape["map"], where))), None)
    if "list" in shape:
        if not isinstance(value, list):
            return f"json: cannot unmarshal {_json_kind(value)} into Go struct field {where} of type []"
        return next((p for item in value if (p := _problem(item, shape["list"], where))), None)
    if not isinstance(value, dict):
        return f"json: cannot unmarshal {_json_kind(value)} into Go struct field {where} of type struct"
    for name, field_shape in shape.items():
        if name in value and (problem := _problem(value[name], field_shape, f"{where}.{name}")):
            return problem
    return None


def kubectl_refuses(obj: dict) -> str | None:
    """Why kubectl would not send ``obj`` (TypeMeta and ObjectMeta do not decode), or None."""
    for name in ("apiVersion", "kind"):
        if name in obj and (problem := _problem(obj[name], STRING, f"metadataOnlyObject.{name}")):
            return problem
    return _problem(obj.get("metadata"), OBJECT_META, "ObjectMeta.metadata")
