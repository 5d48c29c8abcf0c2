"""The M1 memory model evaluated on a database view, exactly as sizing evaluates it.

The model is :func:`percona_mysql_k8s.core.memory.model`; this module only supplies its inputs from a resource:
the mysqld limit, the options (with ``{{containerMemoryLimit}}`` templates rendered and, for keys the
operator auto-tunes, the value it writes: core.operator_autotune), the engine and the
MySQL version from the image tag (both versions' defaults are evaluated, and the larger peak kept,
when the tag does not tell).
"""

from __future__ import annotations

from collections.abc import Mapping

from percona_mysql_k8s.core.memory import GROUP_REPLICATION, MYSQL_VERSIONS, PXC, MemoryModel, model
from percona_mysql_k8s.core.operator_autotune import (
    CONNECTION_BYTES,
    AutoConfig,
    AutotuneRefused,
    auto_config,
    autotune_memory,
)
from percona_mysql_k8s.core.units import MIB

from .database import DatabaseView, has_template, render_template
from .values import Malformed


def operator_auto_config(view: DatabaseView) -> AutoConfig:
    """What the operator writes into auto-config.cnf for this resource, by its own test of the text
    (core.operator_autotune: PXC's go-ini ``ConfigHasKey``, PS's ``strings.Contains``). Malformed where the
    operator stops its reconcile instead (go-ini refuses the text, a memory below 12582880 bytes)."""
    resources = view.mysqld_container().resources()
    memory, _ = autotune_memory(view.operator, resources.memory_limit, resources.memory_request)
    try:
        return auto_config(view.operator, view.config_text(), memory)
    except AutotuneRefused as error:
        rel = view.config_rel if error.field == "configuration" else f"{view.mysqld_rel}.resources.memory"
        raise Malformed(view.path(rel), str(error)) from None


def autotune_source(view: DatabaseView) -> str:
    """``limits.memory 16Gi`` / ``requests.memory 4Gi``: the memory the operator tunes from, as written."""
    resources = view.mysqld_container().resources()
    _, name = autotune_memory(view.operator, resources.memory_limit, resources.memory_request)
    return name


def autotuned(view: DatabaseView, options: Mapping[str, str], limit: int) -> tuple[dict[str, str], list[str]]:
    """Options as mysqld will run them: templates rendered, the operator's auto-tuned keys filled in where the
    user's file (read after auto-config.cnf) does not set them."""
    result: dict[str, str] = {}
    for key, value in options.items():
        if has_template(value):
            try:
                value = render_template(value, limit)
            except (ValueError, SyntaxError, ZeroDivisionError, RecursionError, OverflowError):
                raise Malformed(
                    view.path(view.config_rel), f"sets {key}={value!r}, a template that cannot be evaluated"
                ) from None
        result[key] = value
    notes = []
    written = operator_auto_config(view).written
    source = autotune_source(view)
    if "innodb_buffer_pool_size" not in result and "innodb_buffer_pool_size" in written:
        for key in ("innodb_buffer_pool_chunk_size", "innodb_buffer_pool_size"):
            if key in written and key not in result:
                result[key] = written[key]
        share = "75%/50%" if view.operator == "pxc" else "50%"
        notes.append(f"buffer pool auto-tuned by the operator to {share} of {source}")
    if "max_connections" not in result and "max_connections" in written:
        result["max_connections"] = written["max_connections"]
        notes.append(f"max_connections auto-tuned by the operator to {source} / {CONNECTION_BYTES}")
    return result, notes


def _one(options: Mapping[str, str], engine: str | None, limit: int, thresholds, version: str, cpu: int | None) -> MemoryModel:
    if engine is None:  # async replication: neither Galera's gcache nor group replication's XCom/certification
        base = model(options, engine=PXC, limit_bytes=limit, thresholds=thresholds, version=version, cpu_millicores=cpu)
        terms = {name: value for name, value in base.terms.items() if name != "gcache"}
        return MemoryModel(limit, terms, base.buffer_pool_configured, base.buffer_pool_rounded, base.connections)
    return model(options, engine=engine, limit_bytes=limit, thresholds=thresholds, version=version, cpu_millicores=cpu)


def evaluate(view: DatabaseView, options: Mapping[str, str], limit: int, thresholds, cpu: int | None) -> tuple[MemoryModel, str]:
    """The model with the largest peak over the possible MySQL versions, and the version it used."""
    engine = view.memory_engine()
    version = view.mysql_version()
    versions = (version,) if version else MYSQL_VERSIONS
    try:
        models = [(_one(options, engine, limit, thresholds, v, cpu), v) for v in versions]
    except ValueError as error:
        raise Malformed(view.path(view.config_rel), f"has a size mysqld cannot read ({error})") from None
    return max(models, key=lambda pair: pair[0].peak_bytes)


def fitting_buffer_pool(view: DatabaseView, options: Mapping[str, str], limit: int, thresholds, cpu: int | None) -> int:
    """The largest innodb_buffer_pool_size (whole MiB) whose modeled peak fits the limit once the user's file
    (``options``, as written) sets it; 0 if none. Set explicitly, the pool is no longer the operator's, and neither is
    its chunk size (both operators tune the two together): mysqld rounds the pool up to chunk x instances of its own
    default chunk, so the search runs on what would run then, not on today's auto-tuned values."""

    def fits(mib: int) -> bool:
        running, _ = autotuned(view, dict(options, innodb_buffer_pool_size=str(mib * MIB)), limit)
        return evaluate(view, running, limit, thresholds, cpu)[0].fits

    low, high = 0, limit // MIB
    while low < high:
        middle = (low + high + 1) // 2
        if fits(middle):
            low = middle
        else:
            high = middle - 1
    if low == 0 and not fits(1):
        return 0
    return low * MIB


TERM_LABELS = {
    "buffer_pool": "buffer pool",
    "buffer_pool_descriptors": "buffer-pool block descriptors",
    "performance_schema": "performance_schema",
    "allocator_fragmentation": "allocator fragmentation",
    "log_buffer": "log buffer",
    "connections_idle": "idle connections (sessions)",
    "connections_active": "running statements (work buffers)",
    "connection_threads": "connection threads (blocked or running)",
    "temporary_tables": "temporary tables",
    "server_overhead": "server overhead",
    "page_cache_reserve": "page-cache reserve",
    "gcache": "gcache",
    "xcom_cache": "XCom cache (M4)",
    "certification_info": "certification info (M5)",
}

__all__ = [
    "GROUP_REPLICATION",
    "TERM_LABELS",
    "autotuned",
    "operator_auto_config",
    "evaluate",
    "fitting_buffer_pool",
]
