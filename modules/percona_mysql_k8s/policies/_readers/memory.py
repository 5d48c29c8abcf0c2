"""The M1 memory model evaluated on a database view, exactly as sizing evaluates it.

The model is :func:`percona_mysql_k8s.core.memory.model`; this module only supplies its inputs from a resource:
the mysqld limit, the options (with ``{{containerMemoryLimit}}`` templates rendered and, for keys the
operator auto-tunes when they are absent, the value the operator would write), the engine and the
MySQL version from the image tag (both versions' defaults are evaluated, and the larger peak kept,
when the tag does not tell).
"""

from __future__ import annotations

from collections.abc import Mapping

from percona_mysql_k8s.core.memory import GROUP_REPLICATION, MYSQL_VERSIONS, PXC, MemoryModel, model
from percona_mysql_k8s.core.units import GIB, MIB

from .database import DatabaseView, has_template, render_template
from .values import Malformed

# Operator auto-tuning when limits.memory is set and the key is absent (INTERFACES §2.3, §3.3).
AUTOTUNE_CONNECTION_BYTES = 12582880


def operator_autotunes(view: DatabaseView, key: str) -> bool:
    """Whether the operator writes ``key`` into auto-config.cnf when mysqld does not otherwise get it.

    PXC checks the ``[mysqld]`` section (pkg/pxc/app/config/autotune.go ``ConfigHasKey``), which the
    effective options already cover. PS skips a key whose name appears *anywhere* in the text, a comment
    or another group included (percona-server-mysql-operator v1.2.0 pkg/mysql/config.go
    ``GetAutoTuneParams``: ``strings.Contains(conf, "innodb_buffer_pool_size")``): then mysqld keeps its
    own default.
    """
    if view.operator == "ps":
        return key not in (view.config_text() or "")
    return True


def autotuned(view: DatabaseView, options: Mapping[str, str], limit: int) -> tuple[dict[str, str], list[str]]:
    """Options as mysqld will run them: templates rendered, auto-tuned keys filled in."""
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
    if "innodb_buffer_pool_size" not in result and operator_autotunes(view, "innodb_buffer_pool_size"):
        if view.operator == "pxc":
            share = 0.75 if limit * 0.25 >= GIB else 0.5
        else:
            share = 0.5
        result["innodb_buffer_pool_size"] = str(int(limit * share) // MIB * MIB)
        notes.append(f"buffer pool auto-tuned by the operator to {share:.0%} of the limit")
    if "max_connections" not in result and operator_autotunes(view, "max_connections"):
        result["max_connections"] = str(max(1, limit // AUTOTUNE_CONNECTION_BYTES))
        notes.append("max_connections auto-tuned by the operator to limit / 12582880")
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
    """The largest innodb_buffer_pool_size (whole MiB) whose modeled peak fits the limit; 0 if none."""
    low, high = 0, limit // MIB
    while low < high:
        middle = (low + high + 1) // 2
        trial = dict(options, innodb_buffer_pool_size=str(middle * MIB))
        if evaluate(view, trial, limit, thresholds, cpu)[0].fits:
            low = middle
        else:
            high = middle - 1
    if low == 0 and not evaluate(view, dict(options, innodb_buffer_pool_size=str(MIB)), limit, thresholds, cpu)[0].fits:
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

__all__ = ["GROUP_REPLICATION", "TERM_LABELS", "autotuned", "operator_autotunes", "evaluate", "fitting_buffer_pool"]
