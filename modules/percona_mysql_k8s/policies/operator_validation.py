"""C2: custom resources the operator reconciles, judged as the pinned operator validates them before it renders.

The PXC operator 1.20.0 and the PS operator v1.2.0 check every cluster at the start of each reconcile
(``CheckNSetDefaults``/``Validate``); a refusal there stops the whole reconcile, so nothing of the cluster is ever
rendered. Each refusal is one violation naming the field, what the operator logs and the source line it comes
from (percona_mysql_k8s.core.operator_validation, listed in docs/operator-validation.md). A resource the API server
refuses is C1's: the operator never sees it. At preview a check whose field is not known yet is named, and the
others are made.
"""

from __future__ import annotations

from ._framework import Context, Spec, memo, resource_policy
from ._readers.operator_refusals import not_known, operator_verdict, paths_in, where
from ._readers.values import Malformed
from ._subjects import database, database_types

SPEC = Spec(
    name="operator-validation",
    rules=("C2",),
    applies_to=database_types,
    description=(
        "Percona custom resources are ones the pinned operator reconciles: nothing its CheckNSetDefaults/Validate "
        "refuses (a name over 22 characters, missing volumes or images, backups naming no storage, both proxies, "
        "unsafe sizes, TLS durations), which would stop every reconcile before anything is rendered"
    ),
    remediation="Change the field the message names as its fix says; the operator's own words and source line are quoted.",
)
SOURCES = {"pxc": "percona-xtradb-cluster-operator 1.20.0", "ps": "percona-server-mysql-operator v1.2.0"}


def check(ctx: Context) -> None:
    view = database(ctx, "C2")
    if view is None:
        return
    resource = ctx.resource
    assert resource is not None
    verdict = memo(resource.identity, "operator-validation", lambda: operator_verdict(view, resource.name))
    for finding in verdict.findings:
        refusal = finding.refusal
        ctx.violation(
            "C2",
            f"the {refusal.operator_name} refuses {resource.label} ({view.source}) and renders nothing of it: "
            f'{where(view, finding.path)} {paths_in(view, finding.found)} (it logs "{finding.words}"; {SOURCES[refusal.operator]} '
            f"{refusal.source})",
            "the rule allows only custom resources the pinned operator reconciles",
            paths_in(view, finding.fix),
            field=where(view, finding.path),
        )
    for refusal, problem in verdict.unreadable:
        with ctx.checking("C2"):
            raise Malformed(where(view, problem.path), f"{problem.problem} (the operator's {refusal.field})")
    for _, unknown in verdict.unjudged:
        ctx.not_judged("C2", not_known(view, unknown.path, unknown.value))


POLICY = resource_policy(SPEC, check)
