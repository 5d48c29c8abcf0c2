"""What a stack would create, as the offline check prints it: every resource with its key sizes.

Sizes are found where Kubernetes and the providers declare them, whatever the resource: every
``resources`` block (``requests``/``limits`` of a container, a custom resource's pod section, a PVC's
``storage``; core/v1 ResourceRequirements) and the counts and machine shapes of clusters and pools
(``size``, ``replicas``, ``nodeCount``, ``machineType``, ``instanceTypes``...). Quantities are shown as
declared and, in JSON, also normalized (millicores, bytes) the way the core reads them: a Percona custom
resource's as its CRD takes them, anything else as a built-in object's (percona_mysql_k8s.core.quantity).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from percona_mysql_k8s.core.units import Schema, cpu_to_millicores, human_bytes, memory_to_bytes

PERCONA_GROUPS = ("kubernetes:pxc.percona.com/", "kubernetes:ps.percona.com/")
# Counts and shapes worth a line: database/proxy members (the operators' ``size``), replicas, node pools.
SHAPE_KEYS = (
    "size",
    "replicas",
    "nodeCount",
    "initialNodeCount",
    "desiredSize",
    "minSize",
    "maxSize",
    "machineType",
    "instanceType",
    "instanceTypes",
    "diskSizeGb",
    "diskSize",
)


@dataclass
class Sizes:
    """The sizes declared under one path of a resource's inputs."""

    path: str
    shape: dict[str, Any] = field(default_factory=dict)
    requests: dict[str, Any] = field(default_factory=dict)
    limits: dict[str, Any] = field(default_factory=dict)
    schema: Schema = Schema.BUILTIN

    def normalized(self) -> dict[str, int]:
        """cpu_millicores, memory_bytes, storage_bytes of the requests (the limits when no request)."""
        values: dict[str, int] = {}
        for name, key, parse in (
            ("cpu_millicores", "cpu", cpu_to_millicores),
            ("memory_bytes", "memory", memory_to_bytes),
            ("storage_bytes", "storage", memory_to_bytes),
        ):
            declared = self.requests.get(key, self.limits.get(key))
            try:
                values[name] = parse(declared, self.schema)
            except ValueError:  # unknown at preview (None) or not a quantity: shown as declared only
                continue
        return values

    def as_json(self) -> dict[str, Any]:
        document: dict[str, Any] = {"path": self.path}
        if self.shape:
            document["shape"] = self.shape
        if self.requests:
            document["requests"] = self.requests
        if self.limits:
            document["limits"] = self.limits
        document.update(self.normalized())
        return document

    def describe(self) -> str:
        parts = [f"{key} {_scalar(value)}" for key, value in self.shape.items()]
        for key in ("cpu", "memory", "storage"):
            request, limit = self.requests.get(key), self.limits.get(key)
            if request is None and limit is None:
                continue
            if request is not None and limit is not None and _same(key, request, limit):
                parts.append(f"{key} {_quantity(key, request)} (request = limit)")
            elif request is not None and limit is not None:
                parts.append(f"{key} {_quantity(key, request)} request, {_quantity(key, limit)} limit")
            elif request is not None and key == "storage":
                parts.append(f"storage {_quantity(key, request)}")
            elif request is not None:
                parts.append(f"{key} {_quantity(key, request)} request, no limit")
            else:
                parts.append(f"{key} {_quantity(key, limit)} limit")
        return f"{self.path}: " + ", ".join(parts)


def sizes_of(properties: Any, schema: Schema = Schema.BUILTIN) -> list[Sizes]:
    """Every path of ``properties`` that declares resources or a shape, in document order."""
    found: dict[str, Sizes] = {}
    for path, kind, value in _walk(properties, ()):
        label = ".".join(path) or "inputs"
        entry = found.setdefault(label, Sizes(label, schema=schema))
        if kind == "resources":
            entry.requests.update(value.get("requests") or {})
            entry.limits.update(value.get("limits") or {})
        else:
            entry.shape[kind] = int(value) if isinstance(value, float) and value.is_integer() else value
    return [entry for entry in found.values() if entry.shape or entry.requests or entry.limits]


def _walk(value: Any, path: tuple[str, ...]) -> Iterator[tuple[tuple[str, ...], str, Any]]:
    if isinstance(value, dict):
        for key, item in value.items():
            if key == "resources" and isinstance(item, dict) and ({"requests", "limits"} & set(item)):
                yield path, "resources", item
            elif key in SHAPE_KEYS and _is_shape(item):
                yield path, key, item
            else:
                yield from _walk(item, (*path, str(key)))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            name = item.get("name") if isinstance(item, dict) else None
            step = f"[{name}]" if isinstance(name, str) else f"[{index}]"
            yield from _walk(item, (*path[:-1], path[-1] + step) if path else (step,))


def _is_shape(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, (int, float, str)):
        return True
    return isinstance(value, list) and bool(value) and all(isinstance(item, str) for item in value)


def _scalar(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))  # numbers cross the engine's protocol as doubles
    if isinstance(value, list):
        return ",".join(value)
    return str(value)


def _quantity(key: str, value: Any) -> str:
    if key == "cpu" or (isinstance(value, str) and not value.strip().isdigit()):
        return _scalar(value)
    try:  # a bare number of bytes, as the sizing engine writes some sidecars: said in binary units too
        return f"{_scalar(value)} ({human_bytes(memory_to_bytes(value))})"
    except ValueError:
        return _scalar(value)


def _same(key: str, request: Any, limit: Any) -> bool:
    parse = cpu_to_millicores if key == "cpu" else memory_to_bytes
    try:
        return parse(request) == parse(limit)
    except ValueError:
        return request == limit


@dataclass
class Entry:
    type: str
    name: str
    urn: str
    custom: bool
    sizes: list[Sizes]

    def as_json(self) -> dict[str, Any]:
        return {
            "type": self.type,
            "name": self.name,
            "urn": self.urn,
            "custom": self.custom,
            "sizes": [sizes.as_json() for sizes in self.sizes],
        }


def _schema(resource_type: str) -> Schema:
    return Schema.CRD if resource_type.startswith(PERCONA_GROUPS) else Schema.BUILTIN


def inventory(registrations: Iterable) -> list[Entry]:
    """Every registration (offline.Registration) with the sizes of its inputs; providers left out."""
    entries = [
        Entry(r.type, r.name, r.urn, r.custom, sizes_of(r.inputs, _schema(r.type)) if r.custom else [])
        for r in registrations
        if not r.type.startswith("pulumi:providers:")
    ]
    return sorted(entries, key=lambda entry: (entry.type, entry.name))  # registration order varies between runs


def render_inventory(entries: list[Entry]) -> str:
    """The resources a stack would create, one line each, its sizes indented below it."""
    created = [entry for entry in entries if entry.custom]
    components = len(entries) - len(created)
    width = max((len(entry.type) for entry in created), default=0)
    lines = [f"Resources the stack would create ({len(created)}, grouped by {components} components):"]
    for entry in created:
        lines.append(f"    {entry.type:<{width}}  {entry.name}")
        lines.extend(f"        {sizes.describe()}" for sizes in entry.sizes)
    return "\n".join(lines)
