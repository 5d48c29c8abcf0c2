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
CHUNK_DEFAULT, CHUNK_STEP = 128 * MIB, MIB  # innodb_buffer_pool_chunk_size: its default, the unit it changes in
PXC_SMALL_REST = 1_000_000_000  # PXC keeps a 75% buffer pool only when at least 1 GB (decimal) of the memory remains


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


def _pxc_has_key(text: str | None, key: str) -> bool:
    """``key`` written as such in the ``[mysqld]`` section: PXC's ``ConfigHasKey`` (go-ini ``LoadSources`` with
    ``AllowBooleanKeys``, then ``Section.HasKey``: section and key compared exactly, ``#``/``;`` comments). No Python
    library reads INI as go-ini does (configparser folds keys to lower case, and sections repeat differently), and
    only this question is asked of it, so a line reader answers it."""
    section = None
    for line in (text or "").splitlines():
        line = line.strip()
        if not line or line[0] in "#;":
            continue
        if line.startswith("[") and "]" in line:
            section = line[1 : line.index("]")].strip()
        elif section == "mysqld" and line.split("=", 1)[0].strip() == key:
            return True
    return False


def auto_config(view: DatabaseView, memory: int | None) -> dict[str, str]:
    """What the operator writes into its auto-tuning ConfigMap for a mysqld container of ``memory`` bytes (PXC: its
    memory limit, none without one; PS: its limit, else its request), for the keys the configuration leaves to it.

    PXC pkg/pxc/app/config/autotune.go ``getAutoTuneParams``: a buffer pool of 75% (50% when less than 1 GB would
    remain), rounded up to 128 MiB, then above 1 GiB an eighth of it as ``innodb_buffer_pool_chunk_size`` rounded up
    to the next MiB (always up by one step when already whole) and the pool eight of those; ``max_connections`` the
    memory / 12582880. PS pkg/mysql/config.go ``GetAutoTuneParams``: a 50% pool, above 1 GiB eight chunks of an
    eighth rounded down to a MiB, else rounded up to 128 MiB; the chunk size written beside it; a single member without
    the orchestrator also gets ``read_only=0`` (pkg/controller/ps/controller.go ``reconcileMySQLAutoConfig``). Below
    12582880 bytes, when max_connections is theirs to write, both stop with an error and write nothing."""
    result: dict[str, str] = {}
    text = view.config_text()
    connections_set = (
        _pxc_has_key(text, "max_connections") if view.operator == "pxc" else not operator_autotunes(view, "max_connections")
    )
    if memory is not None and memory < AUTOTUNE_CONNECTION_BYTES and not connections_set:
        return {}  # both refuse: "Not enough memory set in requests. Must be >= 12Mi." (no ConfigMap is written)
    if view.operator == "ps" and view.size(view.mysqld_rel) == 1 and not view.flag("orchestrator.enabled"):
        result.update(super_read_only="0", read_only="0")
    if memory is None:
        return result
    if view.operator == "pxc":
        if not _pxc_has_key(text, "innodb_buffer_pool_size"):
            pool = memory // 100 * 75
            if memory - pool < PXC_SMALL_REST:
                pool = memory // 100 * 50
            pool += -pool % CHUNK_DEFAULT
            if pool > GIB:
                chunk = pool // 8
                chunk += CHUNK_STEP - chunk % CHUNK_STEP
                pool = chunk * 8
                result["innodb_buffer_pool_chunk_size"] = str(chunk)
            result["innodb_buffer_pool_size"] = str(pool)
        if not _pxc_has_key(text, "max_connections"):
            result["max_connections"] = str(memory // AUTOTUNE_CONNECTION_BYTES)
        return result
    pool, chunk = memory * 50 // 100, CHUNK_DEFAULT
    if pool > GIB:
        chunk = pool // 8
        chunk -= chunk % CHUNK_STEP
        pool = 8 * chunk
    else:
        pool += -pool % CHUNK_DEFAULT
    if operator_autotunes(view, "innodb_buffer_pool_size"):
        result["innodb_buffer_pool_size"] = str(pool)
        if operator_autotunes(view, "innodb_buffer_pool_chunk_size"):
            result["innodb_buffer_pool_chunk_size"] = str(chunk)
    if operator_autotunes(view, "max_connections"):
        result["max_connections"] = str(memory // AUTOTUNE_CONNECTION_BYTES)
    return result


def autotuned(view: DatabaseView, options: Mapping[str, str], limit: int) -> tuple[dict[str, str], list[str]]:
    """Options as mysqld will run them: templates rendered, auto-tuned keys filled in (auto_config)."""
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
    written = auto_config(view, limit)
    if "innodb_buffer_pool_size" not in result and "innodb_buffer_pool_size" in written:
        result["innodb_buffer_pool_size"] = written["innodb_buffer_pool_size"]
        share = int(written["innodb_buffer_pool_size"]) / limit
        notes.append(f"buffer pool auto-tuned by the operator to {share:.0%} of the limit")
    if "max_connections" not in result and "max_connections" in written:
        result["max_connections"] = written["max_connections"]
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

__all__ = [
    "GROUP_REPLICATION",
    "TERM_LABELS",
    "auto_config",
    "autotuned",
    "operator_autotunes",
    "evaluate",
    "fitting_buffer_pool",
]
