"""``size``: one member's input in, every size and setting out, each step in its own module of this package."""

from __future__ import annotations

from .. import flow_control, probes
from ..allocatable import NodeBudget
from ..connections import proxy_limits
from ..memory import PXC
from ..profiles import PROFILES
from ..proxy_limits import shipped
from ..redo import redo_capacity
from ..sidecars import ROUTER, ContainerSize
from ..units import MIB
from .appliers import check_brownout_budget
from .buffer_pool import buffer_pool_layout
from .connection_count import connections_and_buffers
from .containers import fixed_containers, member_budget, pods, split_cpu
from .inputs import CLUSTER_SIZES, SizingInput, validate
from .options import evaluate, flow_control_options, io_options, memory_options
from .result import SizingResult, rules_behind
from .split import Split


def size(inp: SizingInput) -> SizingResult:
    """Size one member: validate, split the budget (K1, M3), choose connections and buffers (M6), fill the
    mysqld limit with the memory model (M1-M5), set the redo (K6), flow control (F1-F7, G1-G4) and probes (K6).

    Raises InputError naming the key and the rule for an input no member can run with.
    """
    thresholds = validate(inp)
    profile = PROFILES[inp.load]
    budget_cpu, budget_memory, node = member_budget(inp)
    mysqld_cpu = split_cpu(inp, budget_cpu, budget_memory)
    fixed = fixed_containers(inp, budget_memory, budget_cpu)
    split = Split(inp, profile, thresholds, budget_cpu, mysqld_cpu)
    notes: list[str] = []

    connections, scale, pool_target = connections_and_buffers(split, budget_memory, notes)
    limits = proxy_limits(inp.proxy, connections, split.proxies, thresholds)  # T5: both ends from one number
    if limits.backend_limit > shipped(inp.proxy).backend_limit:
        notes.append(
            f"M6: each {inp.proxy} pod may open {limits.backend_limit} connections to mysqld (shipped: "
            f"{shipped(inp.proxy).backend_limit}), so the {split.proxies} proxies can use {connections} connections."
        )

    limit, raw = split.raw_pool(budget_memory, connections, scale)
    pool, chunk, instances = buffer_pool_layout(raw if pool_target is None else pool_target, mysqld_cpu)
    options = {
        "innodb_buffer_pool_size": str(pool),
        "innodb_buffer_pool_chunk_size": str(chunk),
        "innodb_buffer_pool_instances": str(instances),
        **memory_options(inp, profile, limit, connections, mysqld_cpu, thresholds, scale),
    }
    redo, redo_bound = redo_capacity(
        pool,
        profile.redo_share_of_buffer_pool,
        engine=inp.engine,
        disk_iops=inp.disk_iops,
        volume_bytes=inp.volume_bytes,
    )  # K6: recoverable within the probes' allowance, and a bounded share of the volume
    options.update(io_options(inp, profile, mysqld_cpu, connections, redo))
    flow = flow_control_options(inp, mysqld_cpu, limit, thresholds)
    options.update(flow.options)
    brownout = flow_control.brownout_seconds(flow.queue_bound, flow.rate)
    check_brownout_budget(inp, brownout, flow.queue_bound, flow.rate, thresholds)

    memory = evaluate(inp, options, limit, thresholds, mysqld_cpu)
    if not memory.fits or memory.buffer_pool_rounded != pool:
        raise AssertionError(f"sizing produced a model that does not fit: {memory}")  # an engine bug, not input

    containers = {**fixed, "mysqld": ContainerSize(mysqld_cpu, limit), inp.proxy: split.proxy(connections)}
    component_probes = {component: probes.probes_for(inp.engine, component, brownout) for component in ("mysqld", inp.proxy)}
    notes.extend(_closing_notes(inp, node, redo, redo_bound))
    return SizingResult(
        input=inp,
        thresholds=thresholds,
        budget_cpu_millicores=budget_cpu,
        budget_memory_bytes=budget_memory,
        node=node,
        containers=containers,
        pods=pods(inp, fixed),
        mysqld=options,
        memory=memory,
        buffer_pool_raw_bytes=raw,
        connections=connections,
        queue_bound=flow.queue_bound,
        apply_rate_tps=flow.rate,
        brownout_seconds=brownout,
        proxy_connections=limits.client_limit,
        proxy_limits=limits,
        probes=component_probes,
        rules=rules_behind(options, containers),
        notes=tuple(notes),
    )


def _closing_notes(inp: SizingInput, node: NodeBudget | None, redo: int, redo_bound: str) -> list[str]:
    """The node's own notes, the redo's bound (K6), and what the user should know of the topology (T1, T2)."""
    notes = list(node.notes) if node is not None else []
    notes.append(f"K6: innodb_redo_log_capacity {redo // MIB} MiB, set by the {redo_bound}")
    if inp.backup and inp.engine == PXC:
        notes.append("PXC runs backups as separate jobs: no backup sidecar is budgeted in the member.")
    if inp.proxy == ROUTER:
        notes.append("T2: MySQL Router saturates at ~16 client threads (seed 004); prefer haproxy under high concurrency.")
    if inp.cluster_size < min(CLUSTER_SIZES[inp.engine]):
        notes.append(f"T1: a {inp.cluster_size}-member cluster needs the operator's unsafe size flag: ephemeral use only.")
    return notes
