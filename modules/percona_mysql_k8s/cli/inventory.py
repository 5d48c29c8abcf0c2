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
            shown = {side: _quantity(key, value, self.schema) for side, value in (("request", request), ("limit", limit))}
            if request is not None and limit is not None and _same(key, request, limit):
                parts.append(f"{key} {shown['request']} (request = limit)")
            elif request is not None and limit is not None:
                parts.append(f"{key} {shown['request']} request, {shown['limit']} limit")
            elif request is not None and key == "storage":
                parts.append(f"storage {shown['request']}")
            elif request is not None:
                parts.append(f"{key} {shown['request']} request, no limit")
            else:
                parts.append(f"{key} {shown['limit']} limit")
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
            elif key.endswith("Resources") and isinstance(item, dict) and ({"requests", "limits"} & set(item)):
                yield (*path, str(key)), "resources", item  # a chart's own key: pmm's pmmResources
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


def _quantity(key: str, value: Any, schema: Schema = Schema.BUILTIN) -> str:
    """One style for every quantity, whatever the resource declared: CPU in millicores, memory and storage in binary
    units (``2Gi``, ``6108Mi`` and ``6404702208`` all read as GiB/MiB); one that is no quantity, as declared."""
    try:
        if key == "cpu":
            return f"{cpu_to_millicores(value, schema)}m"
        return human_bytes(memory_to_bytes(value, schema))
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
    parent: str | None = None

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
        Entry(r.type, r.name, r.urn, r.custom, sizes_of(r.inputs, _schema(r.type)) if r.custom else [], r.parent)
        for r in registrations
        if not r.type.startswith("pulumi:providers:")
    ]
    return sorted(entries, key=lambda entry: (entry.type, entry.name))  # registration order varies between runs


def _component_of(entry: Entry, components: dict[str, Entry]) -> list[Entry]:
    """The chain of components ``entry`` belongs to, outermost first ([] for a resource of the stack itself)."""
    chain, parent = [], entry.parent
    while parent in components:
        chain.append(components[parent])
        parent = components[parent].parent
    return chain[::-1]


def _label(component: Entry) -> str:
    return f"{component.type.rsplit(':', 1)[-1]} {component.name}"


def render_inventory(entries: list[Entry]) -> str:
    """The resources a stack would create, under the component each belongs to (its innermost one, named with the
    components around it), one line each with its sizes indented below it."""
    created = [entry for entry in entries if entry.custom]
    components = {entry.urn: entry for entry in entries if not entry.custom}
    groups: dict[str, list[Entry]] = {}
    for entry in created:
        chain = _component_of(entry, components)
        groups.setdefault(" > ".join(_label(c) for c in chain) or "the stack itself", []).append(entry)
    width = max((len(entry.type) for entry in created), default=0)
    lines = [f"Resources the stack would create ({len(created)}, in {len(components)} components):"]
    for heading in sorted(groups, key=lambda name: (name == "the stack itself", name)):
        lines.append(f"  {heading}")
        for entry in groups[heading]:
            lines.append(f"    {entry.type:<{width}}  {entry.name}")
            lines.extend(f"        {sizes.describe()}" for sizes in entry.sizes)
    return "\n".join(lines)
