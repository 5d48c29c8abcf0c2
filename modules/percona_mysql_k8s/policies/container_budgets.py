"""K2, M3: every database container has its own budget with memory request = limit.

K2: the mysqld container, the proxies, the orchestrator and every sidecar (PMM client, log collector,
PS backup sidecar, pt-heartbeat on async PS, proxy monitors, user sidecars) have a memory limit, and a memory request equal to it
(a request left unset defaults to the limit). M3: sidecars and proxies are budgeted separately: each has
its own ``resources`` with a memory limit and a CPU request. Containers that share one ``resources``
block (the log collector's ``logs`` and ``logrotate``, PMM clients in every pod) are reported once.
The fix quotes the budget sizing would give (percona_mysql_k8s.core.sidecars). Only what the operator
deploys is judged (the shared view): no orchestrator on group replication, always one on async unless
unsafe; ``mysql-monit`` on HAProxy's resources below crVersion 1.2.0; no HAProxy when pxc-db enables ProxySQL.
"""

from __future__ import annotations

from percona_mysql_k8s.core.connection_cost import CONNECTION_DEFAULTS
from percona_mysql_k8s.core.connections import per_proxy_connections
from percona_mysql_k8s.core.rules import default_thresholds
from percona_mysql_k8s.core.sidecars import (
    BACKUP_SIDECAR,
    LOG_COLLECTOR_CONTAINERS,
    LOG_COLLECTOR_EACH,
    MONIT_SIDECAR,
    PROXIES,
    REFERENCE_MEMBER_MEMORY,
    ContainerSize,
    pmm_client,
    proxy_container,
)

from ._framework import Context, Spec, partial, resource_policy
from ._readers.database import Container, DatabaseView
from ._readers.deferred import Pending, deferred
from ._readers.flow import integer_option, mysqld_cpu
from ._readers.operator_pods import every_container
from ._readers.resources import cpu, mem
from ._readers.values import NotKnown, known
from ._subjects import database, database_types

SPEC = Spec(
    name="container-budgets",
    rules=("K2", "M3"),
    applies_to=database_types,
    description="every database container (mysqld, proxies, sidecars) has its own budget, with memory request = limit",
    remediation="Give every container resources with requests.memory = limits.memory and a CPU request; "
    "python -m percona_mysql_k8s.sizing prints each budget.",
)


def sizing_budget(view: DatabaseView, container: Container) -> ContainerSize | None:
    """The request = limit sizing would give this container, where sizing budgets it."""
    try:
        limit = view.mysqld_container().resources().memory_limit
        cores = mysqld_cpu(view) or 1000
    except NotKnown:  # the suggestion depends on it: the message names the field (_framework.partial)
        raise
    except Exception:  # noqa: BLE001 - a suggestion only
        limit, cores = None, 1000
    if container.name == "pmm-client":
        return pmm_client(limit or REFERENCE_MEMBER_MEMORY, cores)
    if container.name in LOG_COLLECTOR_CONTAINERS:
        return LOG_COLLECTOR_EACH
    if container.name == "xtrabackup":
        return BACKUP_SIDECAR
    if container.name.endswith("-monit"):
        return MONIT_SIDECAR
    if container.role == "proxy" and container.name in PROXIES:
        try:
            found = integer_option(view, "max_connections")
            proxies = next((view.size(p.rel) for p in view.enabled_proxies() if p.key == container.name), None) or 1
        except NotKnown:
            raise
        except Exception:  # noqa: BLE001
            found, proxies = None, 1
        # Each proxy pod carries its share of mysqld's clients (M6, percona_mysql_k8s.core.connections).
        per_proxy = per_proxy_connections(
            found[1] if found else CONNECTION_DEFAULTS["max_connections"], proxies, default_thresholds()
        )
        return proxy_container(container.name, per_proxy, cores)
    return None


def _budget_text(size: ContainerSize | None) -> str:
    if size is None:
        return "the budget sizing reports for it"
    return f"cpu {cpu(size.cpu_millicores)}, memory {mem(size.memory_bytes)} (sizing's budget)"


def check(ctx: Context) -> None:
    view = database(ctx, "K2")
    if view is None:
        return
    pods = []
    with ctx.checking(("K2", "M3")):
        pods = view.pods()
    seen: set[str] = set()
    for pod in pods:
        containers: list[Container] = []
        with ctx.checking(("K2", "M3")):
            containers = every_container(view, pod)
        for container in containers:
            if container.path in seen:
                continue
            seen.add(container.path)
            who = _who(view, pods, pod, container)
            budget = deferred(lambda container=container: sizing_budget(view, container))
            resources = None
            with ctx.checking(("K2", "M3")):
                resources = container.resources()
            if resources is None:
                continue
            if container.role in ("proxy", "sidecar"):
                with ctx.checking("M3"):
                    if not resources.declared or resources.cpu_request is None and resources.cpu_limit is None:
                        missing = "has no resources" if not resources.declared else "has no CPU request"
                        ctx.violation(
                            "M3",
                            f"{container.path} ({who}) {missing}",
                            "the rule budgets every sidecar and proxy separately, with its own request = limit",
                            f"set {container.path} requests = limits: {partial(_known_budget_text, budget, container.path)}",
                            field=container.path,
                        )
                if not resources.declared:
                    continue
            with ctx.checking("K2"):
                if resources.memory_limit is None:
                    target = partial(_memory_target, resources, budget, container.path)
                    ctx.violation(
                        "K2",
                        f"{container.path} ({who}) sets no memory limit"
                        + (f" (request {resources.written('memory_request')})" if resources.memory_request else ""),
                        "the rule requires a memory limit on every database container, with the request equal to it "
                        "(no swap: over the limit the kernel OOM-kills)",
                        f"set {container.path}.limits.memory = requests.memory = {target.removeprefix('memory ')}",
                        field=f"{container.path}.limits.memory",
                    )
                elif resources.memory_request is not None and resources.memory_request != resources.memory_limit:
                    ctx.violation(
                        "K2",
                        f"{container.path} ({who}) requests {resources.written('memory_request')} of memory but is limited to "
                        f"{resources.written('memory_limit')}",
                        "the rule requires the memory request to equal the limit (Guaranteed memory, no overcommit)",
                        f"set {container.path}.requests.memory = limits.memory = {resources.written('memory_limit')}",
                        field=f"{container.path}.requests.memory",
                    )


def _known_budget_text(budget, path: str) -> str:
    return _budget_text(known(budget, path))


def _memory_target(resources, budget, path: str) -> str:
    """The memory K2's fix asks for: the request when set, else sizing's budget."""
    budget = None if resources.memory_request else known(budget, path)
    amount = resources.written("memory_request") if resources.memory_request else mem(budget.memory_bytes) if budget else None
    return f"memory {amount}" if amount else _budget_text(budget)


def _who(view: DatabaseView, pods, pod, container: Container) -> str:
    """``containers haproxy, mysql-monit of the haproxy pod``: every container whose budget this block is. Which
    block a container of the pod takes may be unknown at preview (PS's mysql-monit, by crVersion): the names
    then say so."""
    sharing = sorted({c.name for p in pods for c in _safe_containers(view, p) if c.path == container.path})
    undecided = next((c.raw.error for c in _safe_containers(view, pod) if _unknown_at_preview(c.raw)), None)
    if undecided is None:
        return f"container{'s' if len(sharing) > 1 else ''} {', '.join(sharing)} of the {pod.key} pod"
    return (
        f"container{undecided.placeholder('s')} {', '.join(sharing)}{undecided.placeholder(', and perhaps more')} "
        f"of the {pod.key} pod"
    )


def _unknown_at_preview(raw) -> bool:
    return isinstance(raw, Pending) and isinstance(raw.error, NotKnown)


def _safe_containers(view: DatabaseView, pod) -> list[Container]:
    try:
        return every_container(view, pod)
    except Exception:  # noqa: BLE001 - only used to name the containers sharing a block
        return []


POLICY = resource_policy(SPEC, check)
