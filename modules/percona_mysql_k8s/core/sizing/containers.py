"""The member's budget and its CPU split between containers (K1, M3).

The budget is given (CPU + memory) or the usable allocatable of a node type (K1). Sidecars whose size does
not depend on mysqld's share are fixed first; the proxy takes a share of mysqld's CPU; mysqld gets the rest.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from ..allocatable import NodeBudget, node_budget
from ..errors import InputError
from ..memory import GROUP_REPLICATION
from ..sidecars import (
    BACKUP_SIDECAR,
    CPU_STEP,
    LOG_COLLECTOR_CONTAINERS,
    PROXY_CPU_SHARE,
    ContainerSize,
    log_collector_container,
    monitor_container,
    pmm_client,
    proxy_container,
    proxy_has_pmm,
    proxy_monitor_containers,
)
from .inputs import SizingInput

MIN_MYSQLD_CPU = 250  # below a quarter core the probes' queries time out under any load
# The custom resources always run ProxySQL with its scheduler (T5: its per-server backend limit,
# plan.database.manifests.proxysql_scheduler), so the ProxySQL pod has no proxysql-monit to budget.
PROXYSQL_SCHEDULER = True


def member_budget(inp: SizingInput) -> tuple[int, int, NodeBudget | None]:
    """(CPU millicores, memory bytes, the node's budget or None for an explicit one) of one member (K1)."""
    if inp.node_type is None:
        return inp.cpu_millicores, inp.memory_bytes, None  # type: ignore[return-value]
    node = node_budget(inp.node_type, inp.provider, inp.daemonset_cpu_millicores, inp.daemonset_memory_bytes)
    return node.usable_cpu_millicores, node.usable_memory_bytes, node


def fixed_containers(inp: SizingInput, budget_memory: int, budget_cpu: int) -> dict[str, ContainerSize]:
    """Containers whose size does not depend on mysqld's share (M3); their CPU shrinks on small members."""
    fixed: dict[str, ContainerSize] = {}
    if inp.pmm:
        fixed["pmm-client"] = pmm_client(budget_memory, budget_cpu)
    if inp.log_collector_enabled:
        for name in LOG_COLLECTOR_CONTAINERS:
            fixed[name] = log_collector_container(budget_cpu)
    if inp.backup and inp.engine == GROUP_REPLICATION:
        fixed["xtrabackup"] = BACKUP_SIDECAR
    for name in proxy_monitor_containers(inp.proxy, inp.engine, proxysql_scheduler=PROXYSQL_SCHEDULER):
        fixed[name] = monitor_container(budget_cpu)
    return fixed


def pods(inp: SizingInput, fixed: Mapping[str, ContainerSize]) -> dict[str, tuple[str, ...]]:
    """The containers of the member's two pods: mysqld with its sidecars, and the proxy with its own."""
    mysqld_pod = ("mysqld",) + tuple(name for name in ("pmm-client", *LOG_COLLECTOR_CONTAINERS, "xtrabackup") if name in fixed)
    proxy_pod = (inp.proxy,) + proxy_monitor_containers(inp.proxy, inp.engine, proxysql_scheduler=PROXYSQL_SCHEDULER)
    if inp.pmm and proxy_has_pmm(inp.proxy):
        proxy_pod += ("pmm-client",)
    return {"mysqld": mysqld_pod, "proxy": proxy_pod}


def pod_sum(pods: Mapping[str, tuple[str, ...]], sizes: Mapping[str, ContainerSize], attribute: str) -> int:
    """The sum of ``attribute`` over every container instance of ``pods`` that ``sizes`` holds."""
    return sum(getattr(sizes[name], attribute) for pod in pods.values() for name in pod if name in sizes)


def _mysqld_cpu(
    inp: SizingInput, budget_cpu: int, fixed: Mapping[str, ContainerSize], member_pods: Mapping[str, tuple[str, ...]]
) -> int:
    """mysqld CPU: what is left after fixed sidecars and the proxy, which takes a share of mysqld's."""
    available = budget_cpu - pod_sum(member_pods, fixed, "cpu_millicores")
    share = PROXY_CPU_SHARE[inp.proxy]
    mysqld = int(available / (1 + share)) // CPU_STEP * CPU_STEP + CPU_STEP  # estimate, then step down to the exact fit
    while mysqld > 0 and mysqld + proxy_container(inp.proxy, 0, mysqld, budget_cpu).cpu_millicores > available:
        mysqld -= CPU_STEP
    return mysqld


def split_cpu(inp: SizingInput, budget_cpu: int, budget_memory: int) -> int:
    """mysqld's CPU, or an InputError (M3) naming the smallest CPU budget that leaves it enough."""

    def mysqld_at(cpu: int) -> int:
        fixed = fixed_containers(inp, budget_memory, cpu)
        return _mysqld_cpu(inp, cpu, fixed, pods(inp, fixed))

    mysqld = mysqld_at(budget_cpu)
    if mysqld < MIN_MYSQLD_CPU:
        # Sidecars grow with the budget, never faster than it: the smallest fitting budget is found by bisection.
        low, high = budget_cpu, max(budget_cpu * 2, 1000)
        while mysqld_at(high) < MIN_MYSQLD_CPU:
            low, high = high, high * 2
        while high - low > CPU_STEP:
            middle = (low + high) // 2
            low, high = (low, middle) if mysqld_at(middle) >= MIN_MYSQLD_CPU else (middle, high)
        raise InputError(
            "cpu",
            f"the member budget of {budget_cpu}m leaves {max(mysqld, 0)}m for mysqld after sidecars and the "
            f"proxy; at least {MIN_MYSQLD_CPU}m is needed: give the member at least {math.ceil(high / CPU_STEP) * CPU_STEP}m",
            "M3",
        )
    return mysqld
