"""K3: every container of the database, proxy and orchestrator pods has a CPU limit equal to its CPU request.

With K2 (memory request = limit) this is what makes a pod Guaranteed: the API server gives that class only when every
container and init container has CPU and memory limits and its requests equal them (core.qos, kubernetes
pkg/apis/core/helper/qos/qos.go). The containers are the ones the operators render (policies/_readers/operator_pods.py:
sidecars, the operator's monitors and init containers included, checked against the real operators in the operator
tier), each read after the API server's defaulting: a limit without a request is a request of the limit. A container
with no CPU limit, or a request that differs from it, is one violation naming the pod's QoS class. The policy keeps its
name, ``cpu-requests``, so existing policy configs still apply.
"""

from __future__ import annotations

from ._framework import Context, Spec, partial, resource_policy
from ._readers.database import Container, DatabaseView
from ._readers.deferred import deferred
from ._readers.operator_pods import every_container, pod_model
from ._readers.resources import cpu
from ._readers.values import NotKnown, known
from ._subjects import database, database_types
from .container_budgets import sizing_budget

SPEC = Spec(
    name="cpu-requests",
    rules=("K3",),
    applies_to=database_types,
    description="every database, proxy and orchestrator container (sidecars and init containers included) has a CPU "
    "limit equal to its request: with K2 the pods are Guaranteed",
    remediation="Give every container limits.cpu = requests.cpu (python -m percona_mysql_k8s.sizing prints each budget).",
)
ALLOWED = (
    "the rule requires a CPU limit equal to the request on every container of the pod, which with K2 makes it "
    "Guaranteed (the kernel's OOM killer spares it last)"
)


def check(ctx: Context) -> None:
    view = database(ctx, "K3")
    if view is None:
        return
    pods = []
    with ctx.checking("K3"):
        pods = view.pods()
    # one resources block may serve several containers of several pods (PXC's initContainer.resources: pxc-init in
    # every pod, haproxy-init beside it): judged once, naming them all
    sharing: dict[str, list[tuple[object, Container]]] = {}
    for pod in pods:
        with ctx.checking("K3"):  # each pod type, and each container, on its own fields
            for container in every_container(view, pod):
                sharing.setdefault(container.path, []).append((pod, container))
    for users in sharing.values():
        with ctx.checking("K3"):
            _judge(ctx, view, users)


def _judge(ctx: Context, view: DatabaseView, users: list[tuple[object, Container]]) -> None:
    container = users[0][1]
    resources = container.resources()
    request = resources.cpu_request if resources.cpu_request is not None else resources.cpu_limit  # API defaulting
    if resources.cpu_limit is not None and request == resources.cpu_limit:
        return
    pods = list(dict.fromkeys(pod for pod, _ in users))
    names = "; ".join(f"{', '.join(sorted({c.name for p, c in users if p is pod}))} of the {pod.key} pod" for pod in pods)
    who = f"{container.path} ({names})"
    pods_are = "; ".join(
        f"the {pod.key} pods are "
        + partial(_qos_text, deferred(lambda pod=pod: pod_model(view, pod).qos_class()), view.path(pod.rel))
        for pod in pods
    )
    if request is None:
        ctx.violation(
            "K3",
            f"{who} requests no CPU and sets no CPU limit: {pods_are}",
            ALLOWED,
            f"set {container.path}.requests.cpu = limits.cpu = {partial(_budget, view, container)}",
            field=f"{container.path}.requests.cpu",
        )
    elif resources.cpu_limit is None:
        ctx.violation(
            "K3",
            f"{who} requests {resources.written('cpu_request')} CPU and sets no CPU limit: {pods_are}",
            ALLOWED,
            f"set {container.path}.limits.cpu = requests.cpu = {resources.written('cpu_request')}",
            field=f"{container.path}.limits.cpu",
        )
    else:
        ctx.violation(
            "K3",
            f"{who} requests {resources.written('cpu_request')} CPU but limits it to {resources.written('cpu_limit')}: "
            f"{pods_are}",
            ALLOWED,
            f"set {container.path}.limits.cpu = requests.cpu = {resources.written('cpu_request')}",
            field=f"{container.path}.limits.cpu",
        )


def _qos_text(qos, where: str) -> str:
    return f"{known(qos, where)}, not Guaranteed"


def _budget(view: DatabaseView, container: Container) -> str:
    """The CPU sizing gives this container, where sizing budgets it; else where to find it."""
    try:
        budget = sizing_budget(view, container)
    except NotKnown:
        raise
    except Exception:  # noqa: BLE001 - a suggestion only
        budget = None
    if budget is None:
        return "the CPU sizing computes for it (python -m percona_mysql_k8s.sizing prints it)"
    return cpu(budget.cpu_millicores)


POLICY = resource_policy(SPEC, check)
