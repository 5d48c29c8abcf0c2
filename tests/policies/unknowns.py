"""What the unknown-value tests share: the SDK's sentinels, a resource's leaves, and how a message given at preview
is compared with the one the same policy gives once every value is known (docs/preview-unknowns.md).

A message at preview may name a detail it cannot compute yet (a hint, a count) as ``[<what>: <field> is unknown at
preview]`` (_framework.partial, NotKnown.placeholder); the breach itself is the same. :func:`same_breach` reads
such a placeholder as "any text", everything else literally.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Iterator
from typing import Any

from pulumi_policy.proxy import (
    UNKNOWN_ARRAY_VALUE,
    UNKNOWN_BOOLEAN_VALUE,
    UNKNOWN_NUMBER_VALUE,
    UNKNOWN_OBJECT_VALUE,
    UNKNOWN_STRING_VALUE,
)

# The sentinels the engine marshals a computed value to (sdk/go/common/resource/plugin/rpc.go
# marshalUnknownProperty, by the value's type); pulumi_policy.proxy names the same strings.
SENTINELS = (UNKNOWN_STRING_VALUE, UNKNOWN_NUMBER_VALUE, UNKNOWN_BOOLEAN_VALUE, UNKNOWN_OBJECT_VALUE, UNKNOWN_ARRAY_VALUE)


def sentinels_for(value: Any) -> tuple[str, ...]:
    """The sentinels the engine may send for a value like ``value`` before it is computed (rpc.go
    ``marshalUnknownProperty``): the one of its own type, or the string one, which it sends when it does not know
    the type (an output with no element)."""
    if isinstance(value, bool):
        return (UNKNOWN_STRING_VALUE, UNKNOWN_BOOLEAN_VALUE)
    if isinstance(value, int | float):
        return (UNKNOWN_STRING_VALUE, UNKNOWN_NUMBER_VALUE)
    if isinstance(value, dict):
        return (UNKNOWN_STRING_VALUE, UNKNOWN_OBJECT_VALUE)
    if isinstance(value, list):
        return (UNKNOWN_STRING_VALUE, UNKNOWN_ARRAY_VALUE)
    return (UNKNOWN_STRING_VALUE,)


PLACEHOLDER = re.compile(r"\[(?:[^\[\]]|\[\d+\])* is unknown at preview\]")
PREVIEW_PREFIX = "during preview: "


def same_breach(preview: str, known: str) -> bool:
    """Whether a message given at preview is ``known`` with its placeholders filled in."""
    if not PLACEHOLDER.search(preview):
        return preview == known
    pattern = ".*?".join(re.escape(part) for part in PLACEHOLDER.split(preview))
    return re.fullmatch(pattern, known, re.S) is not None


Path = tuple[str | int, ...]


def dotted(path: Path) -> str:
    """``('spec', 'backup', 'schedule', 0, 'schedule')`` as the policies name it: ``spec.backup.schedule[0].schedule``."""
    text = ""
    for key in path:
        text = f"{text}[{key}]" if isinstance(key, int) else f"{text}.{key}" if text else str(key)
    return text


def leaves(value: Any, path: Path = ()) -> Iterator[Path]:
    """Every scalar's path, and every empty object's or list's (a whole block can be unknown too)."""
    if isinstance(value, dict) and value:
        for key, item in value.items():
            yield from leaves(item, (*path, key))
    elif isinstance(value, list) and value:
        for index, item in enumerate(value):
            yield from leaves(item, (*path, index))
    elif path:
        yield path


def get(value: Any, path: Path) -> Any:
    for key in path:
        value = value[key]
    return value


DELETE = object()


def replaced(props: dict, changes: dict[Path, Any]) -> dict:
    """A copy of ``props`` with each path set to its new value (DELETE removes a key; in a list it nulls it)."""
    props = copy.deepcopy(props)
    for path, value in changes.items():
        parent = get(props, path[:-1])
        if value is DELETE and isinstance(parent, dict):
            del parent[path[-1]]
        else:
            parent[path[-1]] = None if value is DELETE else value
    return props


def strings(value: Any, found: set[str]) -> set[str]:
    """Every string and key in ``value`` (what a witness may try: another storage's name, another label)."""
    if isinstance(value, dict):
        for key, item in value.items():
            found.add(str(key))
            strings(item, found)
    elif isinstance(value, list):
        for item in value:
            strings(item, found)
    elif isinstance(value, str):
        found.add(value)
    return found


# Values a field of these resources takes (enums, schedules, endpoints, quantities, versions): what a witness tries
# besides the field's own neighbours and the other strings of the resource.
COMMON = (
    *("", "x", "true", "false", "0", "1", "3", "on", "off", "ON", "OFF", "QUOTA", "DISABLED"),
    *("s3", "gcs", "azure", "filesystem", "count", "group-replication", "async"),
    *("https://s3.amazonaws.com", "http://minio.backup.svc:9000", "0 3 * * *", "@every 1h"),
    *("2Gi", "100m", "8.0.36", "8.4.5", "0.1.0", "1.0.0", "1.2.0", "1.20.0", "percona/percona-xtradb-cluster:8.0.36"),
    *("percona/pmm-server:3.1.0", "sysbench"),
    *("LoadBalancer", "ClusterIP", "NodePort", "Exists", "Equal", "NoSchedule", "NoExecute"),
)


def witnesses(value: Any, pool: set[str]) -> list[Any]:
    """Other values a field could take: absent, null, empty, other types, neighbours of its own value, the
    usual values of these resources and every string of the resource."""
    found: list[Any] = [DELETE, None, {}, [], True, False, 0, 1, 2, 3, 5, 7, -1, 10**9, 0.5]
    if isinstance(value, int | float) and not isinstance(value, bool):
        found += [value + 1, value - 1, value * 2, value // 2, str(value)]
    elif isinstance(value, str):
        found += [value + "x", value.upper(), value.lower(), value + " "]
    return found + list(COMMON) + sorted(pool)
