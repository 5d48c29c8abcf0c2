"""C1: custom resources the API server accepts, judged against the pinned operator's CRD as the API server judges.

Every PerconaXtraDBCluster, PerconaServerMySQL and their backup and restore resources goes through the core's
one CRD reader (percona_mysql_k8s.core.crd): server-side apply's undeclared fields, pruning and defaults, the
OpenAPI schema and the ``x-kubernetes-validations`` CEL rules. Each reason the API server would give is one
violation, worded as the API server words it (field path, then the reason). The other policies read a refused
resource as not applicable (``_subjects.database``): it never reaches the operator, so no other verdict holds.
At preview, a CEL rule whose ``self`` holds a value not known yet is not judged and is noted as unknown.
"""

from __future__ import annotations

from ._framework import Context, Spec, memo, resource_policy
from ._readers.admission import admission, custom_resource_kind
from ._readers.values import NotKnown, Unknown

MOST_REPORTED = 20  # reasons listed one by one; the rest are counted in the last message

SPEC = Spec(
    name="crd-admission",
    rules=("C1",),
    applies_to=lambda resource_type: custom_resource_kind(resource_type) is not None,
    description=(
        "Percona custom resources are ones the API server accepts: validated against the pinned operator's CRD "
        "(schema, defaults, pruning, server-side apply, CEL rules) before any other rule reads them"
    ),
    remediation="Correct each field the message names as the API server's reason says; the CRD is the pinned operator's.",
)


def check(ctx: Context) -> None:
    resource = ctx.resource
    assert resource is not None
    answer = memo(resource.identity, "admission", lambda: admission(resource.type, resource.props))  # as _subjects.database
    if answer is None:
        return
    if answer.refused:
        # one violation, the reasons in the API server's order, as kubectl shows its one error
        reasons = "; ".join(str(error) for error in answer.errors[:MOST_REPORTED])
        more = len(answer.errors) - MOST_REPORTED
        fields = sorted({error.path.lstrip(".") for error in answer.errors if error.path not in ("", "<nil>")})
        ctx.violation(
            "C1",
            f"the API server refuses {resource.label}: {reasons}{f' (and {more} more)' if more > 0 else ''}",
            f"the rule allows only custom resources the {answer.group} CRD of the pinned operator ({answer.kind} "
            f"{answer.version}) admits",
            f"correct {', '.join(fields[:5]) or 'the resource'} as the API server's reasons say",
            field=_first_field(answer.errors),
        )

    # a CEL rule whose ``self`` holds a value not known yet: C1 names that value (the rule waits for it)
    named = {where: value for skipped in answer.unjudged for where, value in skipped.unknowns}
    for where, value in named.items():
        ctx.not_judged("C1", value.error(where) if isinstance(value, Unknown) else NotKnown(where))


POLICY = resource_policy(SPEC, check)


def _first_field(errors) -> str:
    """The field of the API server's first reason that names one (what a reader is pointed at); "" for none."""
    return next((error.path.lstrip(".") for error in errors if error.path not in ("", "<nil>")), "")
