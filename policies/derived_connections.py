"""M6 (advisory): max_connections is what the memory model allows, not the operators' auto-tuning.

Sizing's "connections = 0" derives the largest max_connections that leaves the buffer pool at least
min_buffer_pool_fraction_pxc/_gr of the mysqld limit, and never fewer than min_connections. On a resource
that leaves max_connections unset the operator writes limit / 12582880 instead; one that sets more than
the model allows squeezes the buffer pool. Both are reported with the value sizing would derive.
"""

from __future__ import annotations

from modules.core.memory import GROUP_REPLICATION

from ._framework import Context, Spec, resource_policy
from ._readers.database import has_template
from ._readers.flow import integer_option, mysqld_cpu
from ._readers.memory import autotuned, evaluate
from ._subjects import database, database_types

SPEC = Spec(
    name="derived-connections",
    rules=("M6",), applies_to=database_types,
    description="max_connections is explicit and no larger than the memory model allows beside a buffer pool of "
    "at least min_buffer_pool_fraction of the limit",
    thresholds=("min_buffer_pool_fraction_pxc", "min_buffer_pool_fraction_gr", "min_connections"),
    remediation="Set max_connections to the value python -m modules.sizing derives with --connections 0.",
)
MAX_CONNECTIONS = 100_000


def derived(view, options, limit: int, thresholds, cpu) -> int | None:
    """The largest max_connections leaving the buffer pool its minimum share (the model is linear in it)."""
    fraction = thresholds["min_buffer_pool_fraction_gr" if view.memory_engine() == GROUP_REPLICATION else "min_buffer_pool_fraction_pxc"]

    def others(connections: int) -> int:
        trial = dict(options, max_connections=str(connections), innodb_buffer_pool_size="0")
        return evaluate(view, trial, limit, thresholds, cpu)[0].peak_bytes

    base = others(0)
    per_connection = others(1) - base
    room = limit - fraction * limit - base
    if per_connection <= 0:
        return MAX_CONNECTIONS
    best = min(MAX_CONNECTIONS, int(room // per_connection))
    return best if best >= int(thresholds["min_connections"]) else None


def check(ctx: Context) -> None:
    view = database(ctx, "M6")
    if view is None:
        return
    with ctx.checking("M6"):
        limit = view.mysqld_container().resources().memory_limit
        options = view.options()
        if limit is None or any(has_template(value) for value in options.values()):
            return  # M1/M2 report these
        cpu = mysqld_cpu(view)
        running, _ = autotuned(view, options, limit)
        best = derived(view, running, limit, ctx.thresholds, cpu)
        if best is None:
            return  # nothing fits: M1's to report
        found = integer_option(view, "max_connections", minimum=1)
        where = view.path(view.config_rel)
        if found is None:
            ctx.violation("M6", f"{where} does not set max_connections, so the operator writes limit / 12582880 = "
                          f"{running['max_connections']}",
                          "the rule derives max_connections from the memory model",
                          f"set max_connections={best} (sizing's derived value)")
        elif found[1] > best:
            ctx.violation("M6", f"{where} sets max_connections={found[1]}, which leaves the buffer pool below the minimum share of the limit",
                          f"the memory model allows at most {best} (config min_buffer_pool_fraction_*)",
                          f"set max_connections={best} or fewer")


POLICY = resource_policy(SPEC, check)
