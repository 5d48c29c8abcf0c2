"""K5 (stack): on every node pool, per node, the pods placed there plus DaemonSets fit the allocatable.

Per pool with a known machine type, the node's allocatable is percona_mysql_k8s.core.allocatable.node_budget (K1:
capacity minus kube/system reserve and eviction threshold) minus the requests of the stack's
DaemonSets that run there and the configured per-node DaemonSet overhead of the cluster. A pod can run
on a pool as kube-scheduler decides it (percona_mysql_k8s.core.scheduling: the pool's labels, including
the ones GKE/EKS add such as ``cloud.google.com/gke-nodepool``, and its taints). Pods are assigned to
the pool when it is the only pool they can run on; a pod that can run on several must fit one node of
at least one of them. Then, per pool: every pod fits one node; the
operators' *required* hostname anti-affinity needs at least ``size`` nodes per component, and puts one
pod of each such component on the same node, so their sum must fit one node; and all requests together
fit the pool's nodes.
"""

from __future__ import annotations

from percona_mysql_k8s.core.allocatable import node_budget
from percona_mysql_k8s.core.bounds import MAX_MACHINE_CPU_MILLICORES, MAX_MACHINE_MEMORY_BYTES
from percona_mysql_k8s.core.errors import InputError
from percona_mysql_k8s.core.units import format_cpu, format_memory

from ._framework import Context, Spec, stack_policy
from ._readers.resources import cpu, mem
from ._readers.stack import BACKUP, DAEMONSET, DATABASE, PMM_ROLE, can_run_on, candidates, read_stack
from ._readers.values import NotKnown
from .config import Setting

SPEC = Spec(
    name="pool-capacity",
    rules=("K5",),
    description="on every pool, per node, the requests of the pods placed there (one database pod per node under the "
    "operators' required anti-affinity, at least size nodes) plus DaemonSets fit the allocatable of its machine type",
    settings=(
        Setting(
            "daemonset_cpu_millicores",
            "integer",
            0,
            "CPU requested per node by DaemonSets the stack does not declare (K1); at most a machine's 8192 CPUs.",
            minimum=0,
            maximum=MAX_MACHINE_CPU_MILLICORES,
        ),
        Setting(
            "daemonset_memory_bytes",
            "integer",
            0,
            "Memory requested per node by DaemonSets the stack does not declare (K1); at most a machine's 4 PiB.",
            minimum=0,
            maximum=MAX_MACHINE_MEMORY_BYTES,
        ),
    ),
    remediation="Use a machine type whose allocatable holds the pods (python -m percona_mysql_k8s.sizing --node-type …), or add nodes.",
)


def _free(stack, pool, extra_cpu: int, extra_memory: int, ctx: Context | None = None):
    """(budget, free CPU, free memory) of one node of ``pool`` after DaemonSets, or None when unknown."""
    try:
        machine_type = pool.machine_type
    except NotKnown as error:  # the pool's own field: named as the pool's
        error.subject = error.subject or f"node pool {pool.name}"
        raise
    budget = pool.budget  # a cluster's own Nodes: their allocatable as reported (node_pools)
    if budget is None:
        if not machine_type:
            return None
        try:
            budget = node_budget(pool.machine_type, pool.provider)
        except InputError:
            return None  # not a catalog machine type: its allocatable is unknown
    daemonsets = []
    for group in stack.groups:
        if group.role == DAEMONSET:
            try:
                if can_run_on(group, pool):
                    daemonsets.append(group)
            except NotKnown as error:  # what is left of a node is unknown: the pool's sums cannot be judged
                if ctx is not None:
                    ctx.not_judged("K5", error, group.label)
                return None
    return (
        budget,
        budget.allocatable_cpu_millicores - extra_cpu - sum(g.cpu for g in daemonsets),
        budget.allocatable_memory_bytes - extra_memory - sum(g.memory for g in daemonsets),
    )


def _machine(pool) -> str:
    """The pool's machine for messages: its type, or for a cluster's Nodes that they are read from the cluster."""
    return pool.machine_type if pool.budget is None else f"Nodes as reported, {pool.machine_type or 'any machine type'}"


def _fits_somewhere(ctx: Context, stack, extra_cpu: int, extra_memory: int) -> None:
    """A pod that can land on several pools needs one node, of any of them, that holds it."""
    for group in stack.groups:
        with ctx.checking("K5", group.urn, group.label):  # each group on its own requests and placement
            if group.role == DAEMONSET or group.replicas == 0:
                continue
            pools = candidates(group, stack.pools)
            frees = [_free(stack, pool, extra_cpu, extra_memory, ctx) for pool in pools]
            if len(pools) < 2 or any(free is None for free in frees):
                continue
            if not any(group.cpu <= free_cpu and group.memory <= free_memory for _, free_cpu, free_memory in frees):
                where = ", ".join(
                    f"{pool.name} ({_machine(pool)}: {cpu(free_cpu)} CPU / {mem(free_memory)} free)"
                    for pool, (_, free_cpu, free_memory) in zip(pools, frees, strict=True)
                )
                ctx.violation(
                    "K5",
                    f"a pod of {group.label} requests {cpu(group.cpu)} CPU and {mem(group.memory)}, more than one node "
                    f"of any pool it can land on: {where}",
                    "the rule requires every pod to fit a node's allocatable (K1), never its capacity",
                    "lower the requests to what `python -m percona_mysql_k8s.sizing` computes, or use a larger machine type",
                    group.urn,
                    field="",
                )


def _placed(ctx: Context, stack, pool) -> tuple[list, bool]:
    """The groups placed on ``pool`` alone, and whether some group's placement is unknown at preview (its
    requests then may or may not add to the pool's)."""
    placed, undecided = [], False
    for group in stack.groups:
        try:
            if group.role != DAEMONSET and group.replicas > 0 and candidates(group, stack.pools) == [pool]:
                placed.append(group)
        except NotKnown as error:
            ctx.not_judged("K5", error, group.label)
            undecided = True
    return placed, undecided


def check(ctx: Context) -> None:
    stack = read_stack(ctx.resources)
    stack.not_judged(ctx, "K5", (DATABASE, BACKUP, PMM_ROLE, "workload", "pool"))
    if stack.undecided(("pool",)):
        return  # where every pod lands depends on a pool not known yet: named above
    extra_cpu, extra_memory = int(ctx["daemonset_cpu_millicores"] or 0), int(ctx["daemonset_memory_bytes"] or 0)
    _fits_somewhere(ctx, stack, extra_cpu, extra_memory)
    for resource, pool in stack.pools:
        with ctx.checking("K5", resource.urn, resource.label):
            _pool(ctx, stack, resource, pool, extra_cpu, extra_memory, stack.undecided((DATABASE, BACKUP, PMM_ROLE, "workload")))


def _pool(ctx: Context, stack, resource, pool, extra_cpu: int, extra_memory: int, unread) -> None:
    """Every pod placed on ``pool`` fits a node; the sums (one node's spread pods, all of the pool's) only when no
    pod's placement or requests are unknown at preview (``unread``): more pods only add to them."""
    free = _free(stack, pool, extra_cpu, extra_memory, ctx)
    if free is None:
        return
    budget, free_cpu, free_memory = free
    where = (
        f"node pool {pool.name} ({_machine(pool)}: allocatable {cpu(budget.allocatable_cpu_millicores)} CPU, "
        f"{mem(budget.allocatable_memory_bytes)}; {cpu(free_cpu)} / {mem(free_memory)} after DaemonSets)"
    )
    sizing = (
        f"python -m percona_mysql_k8s.sizing --node-type {pool.machine_type} --provider {pool.provider}"
        if pool.budget is None
        else f"python -m percona_mysql_k8s.sizing --cpu {format_cpu(free_cpu)} --memory {format_memory(free_memory)}"
    )
    placed, undecided = _placed(ctx, stack, pool)
    for group in placed:
        with ctx.checking("K5", resource.urn, group.label):
            if group.cpu > free_cpu or group.memory > free_memory:
                ctx.violation(
                    "K5",
                    f"a pod of {group.label} requests {cpu(group.cpu)} CPU and {mem(group.memory)}, more than one node of {where}",
                    "the rule requires every pod to fit a node's allocatable (K1), never its capacity",
                    f"lower the requests to what `{sizing}` computes, or use a larger machine type",
                    resource.urn,
                    field="",
                )
    spread = [g for g in placed if g.one_per_node]
    for group in spread:
        if pool.max_nodes is not None and group.replicas > pool.max_nodes:
            ctx.violation(
                "K5",
                f"{group.label} needs {group.replicas} nodes (required hostname anti-affinity) but node pool "
                f"{pool.name} has at most {pool.max_nodes}",
                "the rule requires at least size nodes for each component under the operators' anti-affinity",
                f"give node pool {pool.name} at least {group.replicas} nodes",
                resource.urn,
                field="",
            )
    if undecided or unread is not None:  # named already, by the group or resource it is about
        return
    per_node_cpu, per_node_memory = sum(g.cpu for g in spread), sum(g.memory for g in spread)
    if spread and (per_node_cpu > free_cpu or per_node_memory > free_memory):
        names = ", ".join(g.label for g in spread)
        ctx.violation(
            "K5",
            f"one node of {where} must hold a pod of each of {names}: {cpu(per_node_cpu)} CPU, {mem(per_node_memory)}",
            "the rule requires the pods placed on a node plus DaemonSets to fit its allocatable",
            f"size the member (mysqld pod + proxy pod) to the node with `{sizing}`",
            resource.urn,
            field="",
        )
    if pool.max_nodes:
        total_cpu = sum(g.cpu * g.replicas for g in placed)
        total_memory = sum(g.memory * g.replicas for g in placed)
        if total_cpu > free_cpu * pool.max_nodes or total_memory > free_memory * pool.max_nodes:
            ctx.violation(
                "K5",
                f"the pods placed on node pool {pool.name} request {cpu(total_cpu)} CPU and {mem(total_memory)} "
                f"in all, more than its {pool.max_nodes} nodes offer ({where})",
                "the rule requires the pods of a pool to fit its nodes' allocatable",
                f"{_enough_nodes(pool.name, total_cpu, total_memory, free_cpu, free_memory)}or lower the requests (`{sizing}`)",
                resource.urn,
                field="",
            )


def _enough_nodes(pool: str, total_cpu: int, total_memory: int, free_cpu: int, free_memory: int) -> str:
    """``give node pool NAME at least N nodes, `` where nodes as they are now could hold the pool's pods, else ""."""
    if free_cpu <= 0 or free_memory <= 0:
        return ""
    needed = max(-(-total_cpu // free_cpu), -(-total_memory // free_memory))
    return f"give node pool {pool} at least {needed} nodes, "


POLICY = stack_policy(SPEC, check)
