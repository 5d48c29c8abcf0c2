"""What the API server does to a custom resource before it validates it: numbers, undeclared fields, pruning,
nulls and defaults, each transcribed from the code that does it.

In the order the API server applies them to a create through server-side apply (pulumi-kubernetes v4's way):

1. :func:`json_numbers`: the object reaches the API server as JSON, as pulumi-kubernetes sends it. A property set
   to null is not sent (the engine marshals a resource's properties for its provider with ``SkipNulls``,
   pulumi/pulumi sdk/go/common/resource/plugin/rpc.go ``MarshalProperties``), so it is absent, not a null the
   API server would refuse ("must be of type object: \"null\""; the differential test sends what Pulumi sends).
   Pulumi hands numbers around as floats; the provider marshals them with Go's encoding/json, which writes a
   whole float64 below 1e21 without a fraction (its shortest digits padded with zeros), and the API server's decoder (k8s.io/apimachinery
   pkg/util/json ``convertNumber``) reads a number as int64 when it can, float64 otherwise. So ``3.0`` arrives
   as the integer 3, ``1.5`` as a float.
2. :func:`undeclared`: server-side apply converts the object to the CRD's published schema first
   (structured-merge-diff ``typed.AsTyped``). A field an object schema does not declare is refused
   ("field not declared in schema") unless the schema accepts unknown fields there: kube-openapi
   pkg/schemaconv/openapi.go ``parseObject`` gives an object the "deduced" element type when it has no
   properties, has ``additionalProperties``, or it or an ancestor says ``x-kubernetes-preserve-unknown-fields``
   (``visitSpec`` hands that flag down to every descendant).
3. :func:`prune`: what server-side apply let through, the decoder prunes where the *structural* schema does
   not declare it (apiextensions-apiserver pkg/apiserver/schema/pruning/algorithm.go ``prune``): there the
   preserve flag holds for its own node only, and the root's ``apiVersion``, ``kind`` and ``metadata`` are kept.
4. :func:`prune_nulls`: a null the schema neither allows (``nullable``) nor defaults is dropped
   (pkg/apiserver/schema/defaulting/prunenulls.go ``PruneNonNullableNullsWithoutDefaults``).
5. :func:`default`: absent fields (and non-nullable nulls) get the schema's ``default``, recursively, defaults
   included (pkg/apiserver/schema/defaulting/algorithm.go ``Default``).

All of them walk only what the schema's structure declares: ``properties``, ``additionalProperties`` and
``items`` of each node (a structural schema keeps no structure inside ``anyOf``/``allOf``). ``is_unknown``
marks a value not known yet (a Pulumi preview): it is kept as it is and never looked into.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from decimal import Decimal
from typing import Any

from .errors import UNTYPED, FieldError, index

META_FIELDS = ("apiVersion", "kind", "metadata")  # pruning.algorithm.go metaFields
_INT64 = 2**63
_GO_PLAIN_FLOAT = 1e21  # encoding/json floatEncoder: 'f' format below 1e21, exponent from there on

Unknown = Callable[[Any], bool]


def json_numbers(value: Any, *, keep_nulls: bool = False) -> Any:
    """A copy of ``value`` as the API server decodes the JSON the client sends: numbers as JSON decodes them, and
    no null properties unless ``keep_nulls`` (kubectl sends them; Pulumi's don't reach the provider)."""
    if isinstance(value, int) and not isinstance(value, bool) and not -_INT64 <= value < _INT64:
        value = float(value)  # an integer beyond int64 travels as a double (Pulumi's numbers, kubectl's decoding)
    if isinstance(value, float) and value.is_integer() and abs(value) < _GO_PLAIN_FLOAT:
        literal = int(Decimal(repr(value)))  # Go writes the shortest digits, padded: 2^63 is 9223372036854776000
        return literal if -_INT64 <= literal < _INT64 else value
    if isinstance(value, dict):
        return {name: json_numbers(item, keep_nulls=keep_nulls) for name, item in value.items() if item is not None or keep_nulls}
    if isinstance(value, list):
        return [json_numbers(item, keep_nulls=keep_nulls) for item in value]
    return value  # a scalar, or a marker such as a value unknown at preview: kept as it is


def _properties(schema: dict | None) -> dict:
    return (schema or {}).get("properties") or {}


def _extra(schema: dict | None) -> dict | None:
    extra = (schema or {}).get("additionalProperties")
    return extra if isinstance(extra, dict) else None


def _preserves(schema: dict | None) -> bool:
    return bool((schema or {}).get("x-kubernetes-preserve-unknown-fields"))


def undeclared(obj: Any, schema: dict, *, path: str = "", open_: bool = False, root: bool = True) -> list[FieldError]:
    """The fields server-side apply refuses as not declared in the published schema (step 2)."""
    open_ = open_ or _preserves(schema)
    found: list[FieldError] = []
    if isinstance(obj, dict):
        properties, extra = _properties(schema), _extra(schema)
        for name, item in obj.items():
            where = f"{path}.{name}"
            if root and name in META_FIELDS:
                continue
            if name in properties:
                found += undeclared(item, properties[name], path=where, open_=open_, root=False)
            elif extra is not None:
                found += undeclared(item, extra, path=where, open_=open_, root=False)
            elif not (open_ or not properties or schema.get("additionalProperties") is True):
                found.append(FieldError(where.lstrip("."), UNTYPED, "field not declared in schema", origin="server-side-apply"))
    elif isinstance(obj, list) and isinstance(schema.get("items"), dict):
        for position, item in enumerate(obj):
            found += undeclared(item, schema["items"], path=index(path, position), open_=open_, root=False)
    return found


def prune(obj: Any, schema: dict | None, *, path: str = "", root: bool = True) -> list[str]:
    """Drop, in place, what the structural schema does not declare (step 3); the paths dropped."""
    if _preserves(schema):
        return _skip_prune(obj, schema, path, root)
    dropped: list[str] = []
    if isinstance(obj, dict):
        properties, extra = _properties(schema), _extra(schema)
        for name in list(obj):
            where = f"{path}.{name}" if path else name
            if root and name in META_FIELDS:
                continue
            if schema is not None and name in properties:
                dropped += prune(obj[name], properties[name], path=where, root=False)
            elif schema is not None and extra is not None:
                dropped += prune(obj[name], extra, path=where, root=False)
            else:
                dropped.append(where)
                del obj[name]
    elif isinstance(obj, list):
        items = (schema or {}).get("items") if schema is not None else None
        for position, item in enumerate(obj):
            dropped += prune(item, items if isinstance(items, dict) else None, path=index(path, position), root=False)
    return dropped


def _skip_prune(obj: Any, schema: dict, path: str, root: bool) -> list[str]:
    """pruning.algorithm.go ``skipPrune``: unknown fields stay, declared ones are pruned below."""
    dropped: list[str] = []
    if isinstance(obj, dict):
        properties, extra = _properties(schema), _extra(schema)
        for name, item in obj.items():
            where = f"{path}.{name}" if path else name
            if root and name in META_FIELDS:
                continue
            if name in properties:
                dropped += prune(item, properties[name], path=where, root=False)
            elif extra is not None:
                dropped += prune(item, extra, path=where, root=False)
    elif isinstance(obj, list) and isinstance(schema.get("items"), dict):
        for position, item in enumerate(obj):
            dropped += _skip_prune(item, schema["items"], index(path, position), False)
    return dropped


def _field_schema(schema: dict | None, name: str) -> dict | None:
    """prunenulls.go ``getSchemaForField``."""
    properties = _properties(schema)
    if name in properties:
        return properties[name]
    return _extra(schema)


def prune_nulls(obj: Any, schema: dict | None) -> None:
    """Drop, in place, the nulls the schema neither allows nor defaults (step 4)."""
    if isinstance(obj, dict):
        for name in list(obj):
            sub = _field_schema(schema, name)
            if obj[name] is None and sub is not None and not sub.get("nullable") and "default" not in sub:
                del obj[name]
            else:
                prune_nulls(obj[name], sub)
    elif isinstance(obj, list):
        items = (schema or {}).get("items")
        for item in obj:
            prune_nulls(item, items if isinstance(items, dict) else None)


def _non_nullable_null(value: Any, schema: dict | None) -> bool:
    return value is None and schema is not None and not schema.get("nullable")


def default(obj: Any, schema: dict | None) -> None:
    """Apply the schema's defaults in place (step 5), deep-copied, then default inside them too."""
    if schema is None:
        return
    if isinstance(obj, dict):
        properties, extra = _properties(schema), _extra(schema)
        for name, sub in properties.items():
            if "default" in sub and (name not in obj or _non_nullable_null(obj[name], sub)):
                obj[name] = copy.deepcopy(sub["default"])
        for name in obj:
            if name in properties:
                default(obj[name], properties[name])
            elif extra is not None:
                if _non_nullable_null(obj[name], extra) and "default" in extra:
                    obj[name] = copy.deepcopy(extra["default"])
                default(obj[name], extra)
    elif isinstance(obj, list):
        items = schema.get("items")
        if isinstance(items, dict):
            for position, item in enumerate(obj):
                if _non_nullable_null(item, items) and "default" in items:
                    obj[position] = copy.deepcopy(items["default"])
                default(obj[position], items)
