"""The sizes the API server and etcd allow a custom resource, and a number JSON cannot carry.

* A request body is at most 3 MiB: apiserver v0.36.3 ``handlers/patch.go`` and ``create.go`` read it with
  ``limitedReadBodyWithRecordMetric(..., scope.MaxRequestBodyBytes)``, whose default is ``3 * 1024 * 1024``
  (``server/config.go``): "Request entity too large: limit is 3145728". The body is the object as the client
  writes it, Go's ``json.Marshal`` (kubectl's ``runtime.Encode``, pulumi-kubernetes' apply patch).
* etcd refuses a write whose request exceeds ``--max-request-bytes`` (etcd 3.6 ``embed/config.go``
  ``DefaultMaxRequestBytes`` = 1.5 MiB, 1572864): "etcdserver: request is too large". The request holds the
  stored object (the API server's JSON of it, with the ``uid``, ``creationTimestamp``, ``generation`` and the
  ``managedFields`` entry server-side apply writes) and its key three times (the create transaction's compare,
  put and range). The ``managedFields`` entry is estimated here from the object (structured-merge-diff's
  ``toFieldSetWalker``: every leaf, every list-type map or set item, every map entry the schema does not declare);
  the estimate is within :data:`ETCD_ESTIMATE_MARGIN` bytes of the API server's, and a dry run is never refused
  for it (nothing is written).
* Infinities and NaN: JSON has neither. pulumi-kubernetes marshals its object with Go's ``encoding/json``, which
  fails on them (``json: unsupported value: +Inf``); kubectl refuses the manifest before that (core.kube_yaml).
"""

from __future__ import annotations

import json
import math
from decimal import Decimal
from typing import Any

from .errors import UNTYPED, FieldError, index

MAX_REQUEST_BODY_BYTES = 3 * 1024 * 1024
ETCD_MAX_REQUEST_BYTES = 1572864
# The rest of etcd's request beyond the value and the key's three copies (raft header, transaction framing), and
# what the API server adds to a new object beside managedFields; measured on the API-server tier's control plane
# (tests/apiserver/test_apiserver_manifests.py holds it).
# Measured: 109 to 111 bytes for three custom resources of different shapes and names with kubectl's field manager;
# pulumi-kubernetes' manager name is some 20 bytes longer.
ETCD_REQUEST_OVERHEAD = 110
ETCD_ESTIMATE_MARGIN = 32
_ADDED_METADATA = len(',"uid":"00000000-0000-0000-0000-000000000000","creationTimestamp":"2026-01-01T00:00:00Z","generation":1')
_MANAGED_ENTRY = len(
    '"managedFields":[{"apiVersion":"","fieldsType":"FieldsV1","fieldsV1":,"manager":"kubectl","operation":"Apply","time":"2026-01-01T00:00:00Z"}],'
)


def _go_float(value: float) -> str:
    """encoding/json ``floatEncoder``: 'f' format from 1e-6 to 1e21, else 'e' with ``e-07`` written ``e-7``."""
    if value == 0 or 1e-6 <= abs(value) < 1e21:
        text = format(Decimal(repr(value)), "f")
        return text.rstrip("0").rstrip(".") if "." in text else text
    text = repr(value).replace("e-0", "e-").replace("e+0", "e+")
    return text


def go_json(value: Any) -> str:
    """The text Go's ``json.Marshal`` writes for a JSON value: compact, keys sorted, ``<``, ``>`` and ``&`` escaped
    as ``\\u003c``, U+2028 and U+2029 escaped."""
    if isinstance(value, dict):
        return "{" + ",".join(f"{go_json(str(key))}:{go_json(item)}" for key, item in sorted(value.items())) + "}"
    if isinstance(value, list):
        return "[" + ",".join(go_json(item) for item in value) + "]"
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return _go_float(value)
    text = json.dumps(str(value), ensure_ascii=False)
    for char, escape in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"), ("\u2028", "\\u2028"), ("\u2029", "\\u2029")):
        text = text.replace(char, escape)
    return text


def go_json_size(value: Any) -> int:
    return len(go_json(value).encode("utf-8"))


def non_finite_errors(value: Any, path: str = "") -> list[FieldError]:
    """Every infinite or NaN number: no JSON carries it to the API server."""
    if isinstance(value, float) and not math.isfinite(value):
        word = "NaN" if math.isnan(value) else ("+Inf" if value > 0 else "-Inf")
        return [FieldError(path.lstrip("."), UNTYPED, f"json: unsupported value: {word}", origin="json")]
    if isinstance(value, dict):
        return [error for key, item in value.items() for error in non_finite_errors(item, f"{path}.{key}")]
    if isinstance(value, list):
        return [error for position, item in enumerate(value) for error in non_finite_errors(item, index(path, position))]
    return []


def _list_type(schema: dict | None) -> str | None:
    return (schema or {}).get("x-kubernetes-list-type")


def _field_set(value: Any, schema: dict | None) -> Any:
    """structured-merge-diff's field set of ``value`` as FieldsV1 nests it: {"f:name": {...}, ".": {}}."""
    if isinstance(value, dict) and value:
        properties = (schema or {}).get("properties") or {}
        extra = (schema or {}).get("additionalProperties")
        children = {}
        for key, item in value.items():
            sub = properties.get(key) if key in properties else (extra if isinstance(extra, dict) else None)
            child = _field_set(item, sub)
            if key not in properties and child:
                child = {".": {}, **child}  # a map entry no property declares is a member itself
            children[f"f:{key}"] = child
        return children
    if isinstance(value, list) and _list_type(schema) in ("map", "set"):
        items = (schema or {}).get("items") if isinstance((schema or {}).get("items"), dict) else None
        keys = (schema or {}).get("x-kubernetes-list-map-keys") or []
        children = {}
        for item in value:
            if _list_type(schema) == "map" and isinstance(item, dict):
                element = "k:" + json.dumps({key: item.get(key) for key in keys}, separators=(",", ":"))
            else:
                element = "v:" + json.dumps(item, separators=(",", ":"))
            children[element] = {".": {}, **(_field_set(item, items) or {})}
        return children
    return {}


def request_errors(sent: Any) -> list[FieldError]:
    size = go_json_size(sent)
    if size > MAX_REQUEST_BODY_BYTES:
        detail = f"Request entity too large: limit is {MAX_REQUEST_BODY_BYTES} (the object is {size} bytes of JSON)"
        return [FieldError("", UNTYPED, detail, origin="request-size")]
    return []


def etcd_key(group: str, kind: str, namespace: str, name: str) -> str:
    return f"/registry/{group}/{kind.lower()}s/{namespace}/{name}"


def stored_size(stored: Any, applied: Any, schema: dict, api_version: str) -> int:
    """The API server's JSON of the new object: ``stored`` with the metadata a create adds."""
    field_set = go_json_size(_field_set(applied, schema))
    return go_json_size(stored) + _ADDED_METADATA + _MANAGED_ENTRY + len(api_version) + field_set + 1  # Encode's newline


def etcd_errors(stored: Any, applied: Any, schema: dict, api_version: str, key: str) -> list[FieldError]:
    request = stored_size(stored, applied, schema, api_version) + 3 * len(key) + ETCD_REQUEST_OVERHEAD
    if request > ETCD_MAX_REQUEST_BYTES:
        detail = (
            f"etcdserver: request is too large (the stored object and its key come to about {request} bytes; etcd "
            f"takes {ETCD_MAX_REQUEST_BYTES})"
        )
        return [FieldError("", UNTYPED, detail, origin="etcd-size")]
    return []
