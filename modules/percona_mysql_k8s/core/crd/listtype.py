"""``x-kubernetes-list-type`` ``set`` and ``map``: no two items (sets) or no two keys (maps) alike.

A transcription of apiextensions-apiserver pkg/apiserver/schema/listtype/validation.go
(``ValidateListSetsAndMaps``, ``validateListSet``, ``validateListMap``) at v0.36.3: the first repeat of each
value is a ``Duplicate value`` at its index; an item of a map list that is not an object is ``Invalid``.
Items compare as Go compares them: scalars by type and value, objects and lists by their JSON.
"""

from __future__ import annotations

import json
from typing import Any

from .errors import DUPLICATE, INVALID, FieldError, child, index, key

_UNSPECIFIED = ("<unspecified>",)  # a key field the item lacks: one more value, equal only to itself


def _identity(value: Any) -> Any:
    if isinstance(value, dict | list):
        return ("json", json.dumps(value, sort_keys=True, default=str))
    return (type(value).__name__, value)


def _repeats(values: list[Any]) -> list[int]:
    """validateListSet: the index of the second appearance of every value that appears more than once."""
    seen: dict[Any, int] = {}
    repeats = []
    for position, value in enumerate(values):
        identity = value if value is _UNSPECIFIED else _identity(value)
        seen[identity] = seen.get(identity, 0) + 1
        if seen[identity] == 2:
            repeats.append(position)
    return repeats


def _map_list(path: str, schema: dict, items: list) -> list[FieldError]:
    for position, item in enumerate(items):
        if item is not None and not isinstance(item, dict):
            return [
                FieldError(index(path, position), INVALID, "must be an object for an array of list-type map", item, "list-type")
            ]
    if len(items) <= 1:
        return []
    fields = schema.get("x-kubernetes-list-map-keys") or []
    keys = []
    for item in items:
        item = item or {}
        if len(fields) == 1:
            keys.append(item.get(fields[0], _UNSPECIFIED))
        else:
            keys.append({name: item[name] for name in fields if name in item})
    found = []
    for position in _repeats(keys):
        value = keys[position]
        shown = {} if value is _UNSPECIFIED else ({fields[0]: value} if len(fields) == 1 else value)
        found.append(FieldError(index(path, position), DUPLICATE, value=shown, origin="list-type"))
    return found


def _array(path: str, schema: dict, items: list) -> list[FieldError]:
    found: list[FieldError] = []
    kind = schema.get("x-kubernetes-list-type")
    if kind == "set":
        found += [
            FieldError(index(path, position), DUPLICATE, value=items[position], origin="list-type")
            for position in _repeats(items)
        ]
    elif kind == "map":
        found += _map_list(path, schema, items)
    if isinstance(schema.get("items"), dict):
        for position, item in enumerate(items):
            found += _value(index(path, position), schema["items"], item)
    return found


def _value(path: str, schema: dict, value: Any) -> list[FieldError]:
    if isinstance(value, list):
        return _array(path, schema, value)
    if isinstance(value, dict):
        return list_errors(value, schema, path)
    return []


def list_errors(obj: dict, schema: dict, path: str = "") -> list[FieldError]:
    """ValidateListSetsAndMaps over an object and everything its schema declares below it."""
    found: list[FieldError] = []
    extra = schema.get("additionalProperties")
    properties = schema.get("properties") or {}
    for name, value in obj.items():
        if isinstance(extra, dict):
            found += _value(key(path, name) if path else name, extra, value)
        if name in properties:
            found += _value(child(path, name), properties[name], value)
    return found
