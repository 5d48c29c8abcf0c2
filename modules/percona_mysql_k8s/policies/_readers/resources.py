"""Container ``resources`` blocks read into integers: CPU in millicores, memory in bytes (K2, K3, K5, M1, M3).

Quantities are parsed with the core's Kubernetes quantity reader (percona_mysql_k8s.core.quantity), as the
API server takes them for the object at hand: a custom resource's field (and the pxc-db/ps-db chart values
rendered into one) through the CRD's pattern and ParseQuantity, a built-in object's (Pods, Deployments,
the pmm chart's StatefulSet) through ``Quantity.UnmarshalJSON``. A value the API server refuses is
Malformed, never read; every value it takes is read the same way it is by sizing.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

from percona_mysql_k8s.core.units import Schema, cpu_to_millicores, format_cpu, format_memory, memory_to_bytes

from .deferred import KnownOnRead, Pending, deferred
from .values import MISSING, Malformed, _known, as_map, describe, join


@dataclass(frozen=True, eq=False)  # identity: reading a Pending field raises (values.KnownOnRead)
class Resources(KnownOnRead):
    """One container's requests and limits; ``None`` where a value is not set. A quantity unknown at preview
    raises NotKnown when read, and only then: the other three are judged (values.KnownOnRead)."""

    path: str
    declared: bool
    cpu_request: int | None = None
    cpu_limit: int | None = None
    memory_request: int | None = None
    memory_limit: int | None = None
    # The quantities as the user wrote them (``2G``, ``1.5Gi``), quoted back in messages.
    cpu_request_text: str | None = None
    cpu_limit_text: str | None = None
    memory_request_text: str | None = None
    memory_limit_text: str | None = None

    def written(self, field: str) -> str:
        """``memory_limit`` -> the user's own text for it (``2G``), or the formatted value when it has none."""
        text = getattr(self, f"{field}_text")
        if text is not None:
            return text
        value = getattr(self, field)
        return cpu(value) if field.startswith("cpu") else mem(value)

    @property
    def scheduled_cpu(self) -> int:
        """What the scheduler reserves: the request, or the limit when only a limit is set."""
        return self.cpu_request if self.cpu_request is not None else (self.cpu_limit or 0)

    @property
    def scheduled_memory(self) -> int:
        return self.memory_request if self.memory_request is not None else (self.memory_limit or 0)

    @property
    def cpu(self) -> int | None:
        """The mysqld cores F6/G3 count: the limit when set, else the request."""
        return self.cpu_limit if self.cpu_limit is not None else self.cpu_request


def _amount(block: dict, path: str, key: str, parse, schema: Schema) -> tuple[int | None, str | None]:
    """(parsed value, the user's text) of one quantity; (None, None) when unset."""
    value = block.get(key, MISSING)
    if value is MISSING or value is None:
        return None, None
    value = _known(value, join(path, key))
    try:
        return parse(value, schema), (
            value.strip() if isinstance(value, str) else f"{value:g}" if isinstance(value, float) else str(value)
        )
    except ValueError as error:
        raise Malformed(
            join(path, key), f"is {describe(value)}, not a Kubernetes quantity the API server accepts ({error})"
        ) from None


_cache = threading.local()


def read_resources(value: object, path: str, schema: Schema = Schema.CRD) -> Resources:
    """Requests and limits of one ``resources`` block; raises Malformed on an unreadable quantity.

    Several policies read the same block of the same request: results are kept per thread, keyed by the
    block's identity (the entry holds the block, so the identity cannot be reused while cached).
    """
    store = getattr(_cache, "store", None)
    if store is None or len(store) > 512:
        store = _cache.store = {}
    key = (id(value), path, schema)
    hit = store.get(key)
    if hit is not None and hit[0] is value:
        if isinstance(hit[1], Exception):
            raise hit[1]
        return hit[1]
    try:
        result = _read_resources(value, path, schema)
    except Malformed as error:
        store[key] = (value, error)
        raise
    store[key] = (value, result)
    return result


def _read_resources(value: object, path: str, schema: Schema) -> Resources:
    block = as_map(value, path)
    requests = deferred(lambda: as_map(block.get("requests", MISSING), join(path, "requests")))
    limits = deferred(lambda: as_map(block.get("limits", MISSING), join(path, "limits")))

    def amount(side, side_path: str, key: str, parse) -> tuple:
        """(value, text) of one quantity, each Pending when it (or its whole side) is unknown at preview."""
        if isinstance(side, Pending):
            return side, side
        found = deferred(lambda: _amount(side, side_path, key, parse, schema))
        return found if isinstance(found, tuple) else (found, found)

    cpu_request, cpu_request_text = amount(requests, join(path, "requests"), "cpu", cpu_to_millicores)
    cpu_limit, cpu_limit_text = amount(limits, join(path, "limits"), "cpu", cpu_to_millicores)
    memory_request, memory_request_text = amount(requests, join(path, "requests"), "memory", memory_to_bytes)
    memory_limit, memory_limit_text = amount(limits, join(path, "limits"), "memory", memory_to_bytes)
    # declared: the block sets requests or limits (an unknown side is set to something)
    declared = any(isinstance(side, Pending) or side for side in (requests, limits))
    return Resources(
        path=path,
        declared=declared,
        cpu_request=cpu_request,
        cpu_limit=cpu_limit,
        memory_request=memory_request,
        memory_limit=memory_limit,
        cpu_request_text=cpu_request_text,
        cpu_limit_text=cpu_limit_text,
        memory_request_text=memory_request_text,
        memory_limit_text=memory_limit_text,
    )


_DECIMAL = (("T", 10**12), ("G", 10**9), ("M", 10**6), ("k", 10**3))


def mem(num_bytes: int | None) -> str:
    """Bytes as a Kubernetes quantity for messages: the shortest exact form (``16Gi``, ``2G`` rather than
    ``1953125Ki``, ``100M``), binary on a tie, else ``~5.69Gi``."""
    if num_bytes is None:
        return "unset"
    exact = format_memory(num_bytes)
    decimal = next(
        (f"{num_bytes // factor}{suffix}" for suffix, factor in _DECIMAL if num_bytes and num_bytes % factor == 0), None
    )
    if decimal is not None and (exact.isdigit() or len(decimal) < len(exact)):
        return decimal
    if not exact.isdigit() or num_bytes < 1024:
        return exact
    for suffix, factor in (("Gi", 2**30), ("Mi", 2**20), ("Ki", 2**10)):
        if abs(num_bytes) >= factor:
            return f"~{num_bytes / factor:.2f}{suffix}"
    return exact


def cpu(millicores: int | None) -> str:
    return "unset" if millicores is None else format_cpu(millicores)
