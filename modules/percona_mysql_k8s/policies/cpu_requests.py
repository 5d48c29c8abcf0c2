"""K3 (advisory): every database container requests CPU; a CPU limit, if set, equals the request."""

from __future__ import annotations

from ._framework import Context, Spec, resource_policy
from ._readers.operator_pods import every_container
from ._subjects import database, database_types

SPEC = Spec(
    name="cpu-requests",
    rules=("K3",),
    applies_to=database_types,
    description="database containers request the CPU sizing computes; a CPU limit, if any, equals the request",
)


def check(ctx: Context) -> None:
    view = database(ctx, "K3")
    if view is None:
        return
    seen = set()
    pods = []
    with ctx.checking("K3"):
        pods = view.pods()
    for pod in pods:
        containers = []
        with ctx.checking("K3"):  # each pod type, and each container, on its own fields
            containers = every_container(view, pod)
        for container in containers:
            if container.path in seen:
                continue
            seen.add(container.path)
            with ctx.checking("K3"):
                _judge(ctx, container)


def _judge(ctx: Context, container) -> None:
    resources = container.resources()
    if resources.cpu_request is None and resources.cpu_limit is None:
        ctx.violation(
            "K3",
            f"{container.path} ({container.name}) requests no CPU",
            "the rule requests the CPU sizing computes (BestEffort/Burstable CPU halves sysbench throughput)",
            f"set {container.path}.requests.cpu (python -m percona_mysql_k8s.sizing prints it)",
            field=f"{container.path}.requests.cpu",
        )
    elif resources.cpu_limit is not None and resources.cpu_request is not None and resources.cpu_limit != resources.cpu_request:
        ctx.violation(
            "K3",
            f"{container.path} ({container.name}) requests {resources.written('cpu_request')} CPU "
            f"but limits it to {resources.written('cpu_limit')}",
            "the rule allows a CPU limit only equal to the request",
            f"set limits.cpu = requests.cpu = {resources.written('cpu_request')}, or drop the CPU limit",
            field=f"{container.path}.limits.cpu",
        )


POLICY = resource_policy(SPEC, check)
