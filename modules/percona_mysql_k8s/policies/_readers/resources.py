"""Container ``resources`` blocks read into integers: CPU in millicores, memory in bytes (K2, K3, K5, M1, M3).

Quantities are parsed with the core's Kubernetes quantity parser, so every notation the API server
accepts (``1.5Gi``, ``1500M``, ``1e9``, ``600m``, ``2``) is read the same way it is by sizing.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

from percona_mysql_k8s.core.units import cpu_to_millicores, format_cpu, format_memory, memory_to_bytes

from .values import MISSING, Malformed, as_map, describe, join


@dataclass(frozen=True)
class Resources:
    """One container's requests and limits; ``None`` where a value is not set."""

    path: str
    declared: bool
    cpu_request: int | None = None
    cpu_limit: int | None = None
    memory_request: int | None = None
    memory_limit: int | None = None

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


def _amount(block: dict, path: str, key: str, parse) -> int | None:
    value = block.get(key, MISSING)
    if value is MISSING or value is None:
        return None
    from .values import _known

    value = _known(value, join(path, key))
    try:
        return parse(value)
    except (ValueError, ArithmeticError, OverflowError):
        raise Malformed(join(path, key), f"is {describe(value)}, not a Kubernetes quantity") from None


_cache = threading.local()


def read_resources(value: object, path: str) -> Resources:
    """Requests and limits of one ``resources`` block; raises Malformed on an unreadable quantity.

    Several policies read the same block of the same request: results are kept per thread, keyed by the
    block's identity (the entry holds the block, so the identity cannot be reused while cached).
    """
    store = getattr(_cache, "store", None)
    if store is None or len(store) > 512:
        store = _cache.store = {}
    key = (id(value), path)
    hit = store.get(key)
    if hit is not None and hit[0] is value:
        if isinstance(hit[1], Exception):
            raise hit[1]
        return hit[1]
    try:
        result = _read_resources(value, path)
    except Malformed as error:
        store[key] = (value, error)
        raise
    store[key] = (value, result)
    return result


def _read_resources(value: object, path: str) -> Resources:
    block = as_map(value, path)
    requests = as_map(block.get("requests", MISSING), join(path, "requests"))
    limits = as_map(block.get("limits", MISSING), join(path, "limits"))
    return Resources(
        path=path,
        declared=bool(requests or limits),
        cpu_request=_amount(requests, join(path, "requests"), "cpu", cpu_to_millicores),
        cpu_limit=_amount(limits, join(path, "limits"), "cpu", cpu_to_millicores),
        memory_request=_amount(requests, join(path, "requests"), "memory", memory_to_bytes),
        memory_limit=_amount(limits, join(path, "limits"), "memory", memory_to_bytes),
    )


_DECIMAL = (("T", 10**12), ("G", 10**9), ("M", 10**6), ("k", 10**3))


def mem(num_bytes: int | None) -> str:
    """Bytes as a Kubernetes quantity for messages: exact (``16Gi``, ``100M``) when it can be, else ``~5.69Gi``."""
    if num_bytes is None:
        return "unset"
    exact = format_memory(num_bytes)
    if not (exact.isascii() and exact.isdigit()) or num_bytes < 1024:
        return exact
    for suffix, factor in _DECIMAL:
        if num_bytes % factor == 0:
            return f"{num_bytes // factor}{suffix}"
    for suffix, factor in (("Gi", 2**30), ("Mi", 2**20), ("Ki", 2**10)):
        if abs(num_bytes) >= factor:
            return f"~{num_bytes / factor:.2f}{suffix}"
    return exact


def cpu(millicores: int | None) -> str:
    return "unset" if millicores is None else format_cpu(millicores)
