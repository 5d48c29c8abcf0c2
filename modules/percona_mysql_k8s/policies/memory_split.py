"""M1, M2, M4, M5: the mysqld memory split fits its container limit, with an explicit buffer pool.

The modeled peak is :func:`percona_mysql_k8s.core.memory.model` (the M1 model sizing uses) evaluated on the
resource's my.cnf and ``resources.limits.memory``. A buffer pool that is absent or computed from a
``{{containerMemoryLimit}}`` template is the operators' rule of thumb (M2); the model then uses the value
the operator would write, so M1 judges what would really run. For group replication the XCom cache
(M4) and the certification-info reserve (M5) are terms of the model; M4 also checks the cache's
minimum and M5 that the apply queue, which bounds certification info, is bounded at all.
"""

from __future__ import annotations

from percona_mysql_k8s.core.memory import GROUP_REPLICATION, MESSAGE_CACHE_MIN
from percona_mysql_k8s.core.units import MIB, parse_mysql_size

from ._framework import Context, Spec, resource_policy
from ._readers.database import has_template
from ._readers.flow import FLOW_CONTROL_MODE, mysqld_cpu
from ._readers.memory import TERM_LABELS, autotuned, evaluate, fitting_buffer_pool, operator_auto_config
from ._readers.resources import mem
from ._readers.values import NotKnown
from ._subjects import database, database_types

SPEC = Spec(
    name="memory-split",
    rules=("M1", "M2", "M4", "M5"),
    applies_to=database_types,
    description="the modeled mysqld peak (buffer pool, log buffer, connections, temporary tables, overhead, "
    "page cache, gcache or XCom cache and certification info) fits the container's memory limit; the buffer "
    "pool is explicit, never the operators' auto-tuning",
    thresholds=(
        "fixed_server_overhead_bytes",
        "page_cache_reserve_fraction",
        "buffer_pool_descriptor_bytes",
        "performance_schema_fixed_bytes",
        "performance_schema_bytes_per_connection",
        "allocator_fragmentation_fraction",
        "session_bytes_per_connection",
        "thread_resident_bytes",
        "xcom_structures_bytes",
        "certification_gc_period_seconds",
        "certification_bytes_per_transaction",
        "certification_min_bytes",
        "certification_max_bytes",
        "applier_tps_per_worker",
        "applier_scaling_max_workers",
        "primary_to_applier_rate_ratio",
    ),
    remediation="Set innodb_buffer_pool_size to what is left of limits.memory after every other term "
    "(python -m percona_mysql_k8s.sizing prints the split), or raise the limit.",
)


def _breakdown(terms) -> str:
    return ", ".join(f"{TERM_LABELS.get(name, name)} {mem(value)}" for name, value in terms.items())


def check(ctx: Context) -> None:
    view = database(ctx, "M1")
    if view is None:
        return
    limit, limit_text = _limit(ctx, view)
    options = _explicit_options(ctx, view, limit, limit_text)
    if options is None:
        return
    if isinstance(limit, int):
        _modeled_peak(ctx, view, options, limit, limit_text)
    _message_cache(ctx, view, options)
    _bounded_apply_queue(ctx, view)


def _limit(ctx: Context, view) -> tuple[int | NotKnown | None, str]:
    """M1: the mysqld container's memory limit and the user's own quantity for it (``2G``); the NotKnown
    itself when the limit is unknown at preview (M1 is then not judged, and M2's hint names it)."""
    limit, limit_text = None, "unset"
    with ctx.checking("M1"):
        resources = view.mysqld_container().resources()
        try:
            limit = resources.memory_limit
        except NotKnown as error:
            limit = error
            raise
        limit_text = resources.written("memory_limit")  # the user's own quantity, e.g. 2G
        if limit is None:
            ctx.violation(
                "M1",
                f"{resources.path}.limits.memory is not set, so the mysqld container has no limit for its "
                "modeled peak to fit in (and the operator cannot replace its auto-tuning)",
                "the rule requires the modeled peak to be at most the container memory limit",
                f"set {resources.path}.limits.memory (equal to requests.memory, K2) and size the buffer pool "
                "to what is left after the other terms (python -m percona_mysql_k8s.sizing)",
                field=f"{resources.path}.limits.memory",
            )
    return limit, limit_text


def _explicit_options(ctx: Context, view, limit: int | None, limit_text: str) -> dict | None:
    """M2: the my.cnf options (None where they cannot be read), each explicit, the buffer pool among them."""
    options = None
    with ctx.checking(("M2", "M1", "M4", "M5")):  # every rule of the policy reads the options
        options = view.options()
        where = view.path(view.config_rel)
        for key in sorted(key for key, value in options.items() if has_template(value)):
            ctx.violation(
                "M2",
                f"{where} computes {key} from a template ({options[key]})",
                "the rule allows no rule of thumb on the container limit: every value is explicit",
                f"replace the template with an explicit value{_pool_hint(ctx, view, options, limit, limit_text) if key == 'innodb_buffer_pool_size' else ''}",
                field=view.config_field(key),
            )
        if "innodb_buffer_pool_size" not in options:
            share = "75%/50%" if view.operator == "pxc" else "50%"
            auto = operator_auto_config(view)
            outcome = (
                f"so the operator auto-tunes it to {share} of the container's memory"
                if "innodb_buffer_pool_size" in auto.written
                else f"and the operator does not auto-tune it ({auto.why_not('innodb_buffer_pool_size')}), so mysqld "
                "keeps its 128M default"
            )
            ctx.violation(
                "M2",
                f"{where} does not give mysqld innodb_buffer_pool_size, {outcome}",
                "the rule requires an explicit buffer pool: what is left of the limit after every other term",
                f"set innodb_buffer_pool_size{_pool_hint(ctx, view, options, limit, limit_text)}",
                field=view.config_field(),
            )
    return options


def _modeled_peak(ctx: Context, view, options: dict, limit: int, limit_text: str) -> None:
    """M1: the modeled peak of what would run (templates replaced as the operator would) fits the limit."""
    with ctx.checking("M1"):
        cpu = mysqld_cpu(view)
        running, notes = autotuned(view, options, limit)
        memory, version = evaluate(view, running, limit, ctx.thresholds, cpu)
        if memory.fits:
            return
        fit = fitting_buffer_pool(view, options, limit, ctx.thresholds, cpu)
        container = view.mysqld_container().path
        needed = _fitting_limit(view, options, limit, ctx, cpu)
        raise_it = (
            f"raise {container}.limits.memory (and requests.memory with it, K2) to at least {needed // MIB}Mi"
            if needed is not None
            else f"raise {container}.limits.memory"
        )
        if fit > 0:
            fix = (
                f"set innodb_buffer_pool_size={fit // MIB}M or less in {view.path(view.config_rel)} "
                f"(the {limit_text} limit minus every other term), or {raise_it} for the buffer pool it has"
            )
        else:
            pool = memory.terms["buffer_pool"]
            others = memory.peak_bytes - pool
            fix = (
                f"{raise_it}: the other terms alone take {mem(others)} of the {limit_text} limit, and the buffer pool "
                f"({mem(pool)}) comes on top; or lower max_connections or the per-connection buffers"
            )
        how = f" ({'; '.join(notes)})" if notes else ""
        ctx.violation(
            "M1",
            f"the modeled mysqld peak is {mem(memory.peak_bytes)} for MySQL {version}{how}: {_breakdown(memory.terms)}; "
            f"it exceeds the {limit_text} limit of {view.mysqld_container().path}.limits.memory by "
            f"{mem(memory.peak_bytes - limit)}",
            "the rule allows a modeled peak of at most the container memory limit",
            fix,
            field=f"{view.mysqld_container().path}.limits.memory",
        )


def _fitting_limit(view, options: dict, limit: int, ctx: Context, cpu) -> int | None:
    """The smallest memory limit, in MiB, at which the modeled peak of what would run fits: the operator's auto-tuned
    values (max_connections from the limit) grow with it, so the peak at today's limit is not enough. None when no
    limit up to 1 PiB fits."""

    def fits(candidate: int) -> bool:
        running, _ = autotuned(view, options, candidate)
        return evaluate(view, running, candidate, ctx.thresholds, cpu)[0].fits

    low, high = limit, max(2 * limit, limit + MIB)
    while not fits(high):
        low, high = high, 2 * high
        if high > 1 << 50:
            return None
    low, high = low // MIB, -(-high // MIB)
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (low, middle) if fits(middle * MIB) else (middle, high)
    return high * MIB


def _message_cache(ctx: Context, view, options: dict) -> None:
    """M4: an explicit XCom cache is at least mysqld's minimum."""
    with ctx.checking("M4"):
        if view.memory_engine() != GROUP_REPLICATION or "group_replication_message_cache_size" not in options:
            return
        setting = view.effective().settings["group_replication_message_cache_size"]
        raw = setting.written
        if has_template(raw):
            return  # M2 reports the template
        try:
            cache = parse_mysql_size(options["group_replication_message_cache_size"])
        except ValueError:
            cache = -1
        # mysqld raises a value below its minimum to 128M with a warning (setting.warning): the
        # file then does not say what runs, and the rule asks for a value at or above the minimum.
        if cache < MESSAGE_CACHE_MIN or setting.warning:
            ctx.violation(
                "M4",
                f"{view.path(view.config_rel)} sets group_replication_message_cache_size={raw}",
                f"the rule allows at least {mem(MESSAGE_CACHE_MIN)} (mysqld's minimum), reserved in the memory model",
                f"set group_replication_message_cache_size to {MESSAGE_CACHE_MIN // MIB}M or more "
                "(python -m percona_mysql_k8s.sizing prints its value for the mysqld limit)",
                field=view.config_field("group_replication_message_cache_size"),
            )


def _bounded_apply_queue(ctx: Context, view) -> None:
    """M5: flow control bounds the apply queue that the certification-info reserve is sized from."""
    with ctx.checking("M5"):
        mode = view.option(FLOW_CONTROL_MODE) if view.memory_engine() == GROUP_REPLICATION else None
        if mode is not None and mode[1].strip().upper() == "DISABLED":
            cap = int(ctx.thresholds["certification_max_bytes"])
            ctx.violation(
                "M5",
                f"{view.path(view.config_rel)} sets {FLOW_CONTROL_MODE}={view.reading(FLOW_CONTROL_MODE)}, so the apply "
                "queue and with it the "
                "certification info of a lagging member grow without bound",
                f"the rule reserves certification info from the apply rate and the bounded queue (at most {mem(cap)}), "
                "which holds only while flow control bounds the apply queue",
                f"set {FLOW_CONTROL_MODE}=QUOTA with bounded thresholds (F1-F3)",
                field=view.config_field(FLOW_CONTROL_MODE),
            )


def _pool_hint(ctx: Context, view, options, limit, limit_text: str) -> str:
    if isinstance(limit, NotKnown):
        return limit.placeholder("the size the memory model leaves")
    if limit is None:
        return " after setting limits.memory: the limit minus every other term of the memory model"
    try:
        cpu = mysqld_cpu(view)
        fit = fitting_buffer_pool(view, {k: v for k, v in options.items() if not has_template(v)}, limit, ctx.thresholds, cpu)
    except NotKnown as error:  # the hint depends on it: named, deterministically
        return error.placeholder("the size the memory model leaves")
    except Exception:  # noqa: BLE001 - a hint only; M1 reports the model's own problems
        return " to the limit minus every other term of the memory model"
    if fit <= 0:
        return ": no buffer pool fits beside the other terms; lower max_connections or raise the limit"
    return f"={fit // MIB}M (the {limit_text} limit minus every other term of the memory model)"


POLICY = resource_policy(SPEC, check)
