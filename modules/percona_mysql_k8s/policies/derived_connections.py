"""M6 (advisory): max_connections is what the memory model allows, not the operators' auto-tuning.

The criterion (percona_mysql_k8s.core.connections, one definition) is the largest max_connections that leaves the
buffer pool at least min_buffer_pool_fraction_pxc/_gr of the member budget, with connections charged as the model
charges them (every admitted connection's session; the statements the cores run at once with their buffers; every
thread that can exist); here the member budget is the memory of the mysqld pod plus one proxy pod as the
resource declares them. On a resource that leaves max_connections unset the operator writes limit / 12582880
instead; one that sets more than the model allows squeezes the buffer pool. Both are reported with the largest
value the criterion allows. ``derived_min_buffer_pool_share`` is sizing's side of M6 (the share its derived count
keeps) and is configurable here for the same reason.

It also reports a thread pool whose ``thread_pool_max_threads`` is below a thread for every connection mysqld admits
and a listener per group (``core.connection_cost.thread_cap``): Percona's ``create_worker`` counts the cap over the
whole server, so blocked statements can hold every thread and queue every statement and login behind them.
"""

from __future__ import annotations

from percona_mysql_k8s.core.connection_cost import CONNECTION_DEFAULTS, POOL_OF_THREADS, thread_cap
from percona_mysql_k8s.core.connections import largest_connections

from ._framework import Context, Spec, resource_policy
from ._readers.database import has_template
from ._readers.flow import integer_option, mysqld_cpu
from ._readers.memory import autotune_source, autotuned, evaluate, operator_auto_config
from ._readers.operator_pods import containers
from ._subjects import database, database_types

SPEC = Spec(
    name="derived-connections",
    rules=("M6",),
    applies_to=database_types,
    description="max_connections is explicit and no larger than the memory model allows beside a buffer pool of "
    "at least min_buffer_pool_fraction of the member budget",
    thresholds=(
        "min_buffer_pool_fraction_pxc",
        "min_buffer_pool_fraction_gr",
        "min_connections",
        "derived_min_buffer_pool_share",
    ),
    remediation="Set max_connections to the value python -m percona_mysql_k8s.sizing derives with --connections 0.",
)


def member_memory(view, limit: int) -> int:
    """The memory of one member as declared: the mysqld pod plus one proxy pod (limits, else requests)."""
    pods = [view.mysqld(), *view.enabled_proxies()[:1]]
    total = 0
    for pod in pods:
        for container in containers(view, pod):
            resources = container.resources()
            total += resources.memory_limit or resources.memory_request or 0
    return max(total, limit)


def derived(view, options, limit: int, thresholds, cpu) -> int | None:
    """The largest max_connections M6 allows for this limit and member (percona_mysql_k8s.core.connections)."""

    def peak_without_pool(connections: int) -> int:
        trial = dict(options, max_connections=str(connections), innodb_buffer_pool_size="0")
        return evaluate(view, trial, limit, thresholds, cpu)[0].peak_bytes

    return largest_connections(
        peak_without_pool,
        engine=view.memory_engine(),
        limit_bytes=limit,
        member_memory_bytes=member_memory(view, limit),
        thresholds=thresholds,
    )


def starving_cap(view) -> str | None:
    """Why the thread pool's cap can starve the server, or None (no pool, no cap set, or a cap that cannot)."""
    handling = view.option("thread_handling")
    if handling is None or handling[1].strip().strip("'\"").lower() != POOL_OF_THREADS:
        return None
    cap = integer_option(view, "thread_pool_max_threads", minimum=1)
    if cap is None:
        return None  # Percona's default, 100000: no fewer than mysqld's most connections
    connections = integer_option(view, "max_connections", minimum=1)
    if connections is None:
        return None  # the operator writes limit / 12582880: the unset case is reported below
    groups = integer_option(view, "thread_pool_size", minimum=1)  # unset: the host's CPUs, at least one group
    needed = thread_cap(connections[1], groups[1] if groups else 1)
    if cap[1] >= needed:
        return None
    return (
        f"{view.path(view.config_rel)} sets thread_pool_max_threads={cap[1]} for max_connections={connections[1]} "
        f"and thread_pool_size={groups[1] if groups else 'unset (at least 1)'}: blocked statements (row locks, commit and flow-control waits) can hold "
        f"every thread, and then no statement or login runs until a lock wait times out; at least {needed} "
        "(a thread for every connection mysqld admits, a listener per group)"
    )


def check(ctx: Context) -> None:
    view = database(ctx, "M6")
    if view is None:
        return
    with ctx.checking("M6"):
        limit = view.mysqld_container().resources().memory_limit
        options = view.options()
        if any(has_template(value) for value in options.values()):
            return  # M1/M2 report these
        starving = starving_cap(view)
        if starving:
            ctx.violation(
                "M6",
                starving,
                "the thread pool's cap must never starve the server",
                "set thread_pool_max_threads to max_connections + 1 + thread_pool_size, or leave it unset",
                field=view.config_field("thread_pool_max_threads"),
            )
        if limit is None:
            return  # M1/M2 report it
        cpu = mysqld_cpu(view)
        running, _ = autotuned(view, options, limit)
        best = derived(view, running, limit, ctx.thresholds, cpu)
        if best is None:
            return  # nothing fits: M1's to report
        found = integer_option(view, "max_connections", minimum=1)
        where = view.path(view.config_rel)
        if found is None:
            auto = operator_auto_config(view)
            outcome = (
                f"so the operator writes {autotune_source(view)} / 12582880 = {running['max_connections']}"
                if "max_connections" in running
                else f"and the operator does not auto-tune it ({auto.why_not('max_connections')}), so mysqld "
                f"keeps its default {CONNECTION_DEFAULTS['max_connections']}"
            )
            ctx.violation(
                "M6",
                f"{where} does not set max_connections, {outcome}",
                "the rule derives max_connections from the memory model",
                f"set max_connections={best} (sizing's derived value)",
                field=view.config_field("max_connections"),
            )
        elif found[1] > best:
            ctx.violation(
                "M6",
                f"{where} sets max_connections={found[1]}, which leaves the buffer pool below its share of the member budget",
                f"the memory model allows at most {best} (the buffer pool keeps min_buffer_pool_fraction_* of the member budget)",
                f"set max_connections={best} or fewer",
                field=view.config_field("max_connections"),
            )


POLICY = resource_policy(SPEC, check)
