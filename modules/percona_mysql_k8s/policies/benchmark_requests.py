"""R5 (advisory, stack): a production stack runs a load generator only as an explicit, one-off request.

Benchmarks are lab work: a production database must not be loaded by surprise. In a stack that is not
ephemeral (S4's test: the stack name or ``ephemeral: true`` in config; or T1's mark, the operator's unsafe
size flag on its database), every load generator (a workload running sysbench, see the workload reader) must be a Job
(it runs to completion once; a Deployment or a bare pod loads the database for as long as it exists)
carrying the annotation ``percona-mysql/run-request`` (the request's id; this project's Sysbench component
sets it from ``sysbenchRunId``). Hand-written stacks mark an explicit run the same way.
"""

from __future__ import annotations

from ._framework import Context, Spec, stack_policy
from ._readers.stack import read_stack
from ._readers.values import MISSING, Malformed, NotKnown, as_map, at, known
from ._readers.workloads import LOAD_GENERATOR, workload_view
from .data_protection import SPEC as DATA_PROTECTION
from .data_protection import production

RUN_REQUEST = "percona-mysql/run-request"

SPEC = Spec(
    name="benchmark-requests",
    rules=("R5",),
    description="a production stack runs load generators only as explicit one-off Jobs (annotation percona-mysql/run-request)",
    settings=DATA_PROTECTION.settings,  # the same ephemeral_stacks as S4: one notion of an ephemeral stack
    remediation="Turn the benchmark off on production stacks, or run it as a Job annotated percona-mysql/run-request: <id>.",
)


def _production(ctx: Context) -> str | NotKnown | None:
    """The label of the stack's first production database (URN order, as the framework passes the stack), or None
    when every database is ephemeral (or none); the NotKnown of one whose being production is unknown at preview
    when no other one is known to be."""
    undecided = None
    for resource, view in read_stack(ctx.resources).databases:
        try:
            if production(ctx, view):
                return resource.label
        except NotKnown as error:
            error.subject = error.subject or resource.label
            undecided = undecided or error
    return undecided


def check(ctx: Context) -> None:
    database = _production(ctx)
    if database is None:
        return
    for resource in ctx.resources:
        with ctx.checking("R5", resource.urn, resource.label):
            try:
                workload = workload_view(resource.type, resource.props, resource.name)
                if workload is None or workload.role() != LOAD_GENERATOR:
                    continue
                annotations = as_map(at(resource.props, "metadata.annotations"), "metadata.annotations")
                requested = known(annotations.get(RUN_REQUEST, MISSING), f"metadata.annotations.{RUN_REQUEST}")
            except Malformed:  # unreadable: the resource policies report it
                continue
            if isinstance(database, NotKnown):  # a load generator, but whether it loads production is unknown
                raise database
            if workload.kind == "Job" and isinstance(requested, str) and requested:
                continue
            found = (
                f"{workload.kind} {workload.name} generates load in a production stack (its database {database} is not ephemeral)"
                + ("" if workload.kind != "Job" else f" without the {RUN_REQUEST} annotation")
            )
            ctx.violation(
                "R5",
                found,
                "the rule runs load generators on production stacks only as explicit one-off requests",
                f"remove it, or make it a Job annotated {RUN_REQUEST}: <id> (sysbenchRunId with this project's stack)",
                resource.urn,
                field=f"metadata.annotations.{RUN_REQUEST}" if workload.kind == "Job" else "",
            )


POLICY = stack_policy(SPEC, check)
