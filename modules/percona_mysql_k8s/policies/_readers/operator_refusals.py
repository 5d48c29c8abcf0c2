"""The operator's own validation of a database resource (rule C2; R1 reads its backup part), through the core's one
definition of it (percona_mysql_k8s.core.operator_validation).

A custom resource is judged as the API server stores it (the view's spec and metadata); chart values as the custom
resource the pinned chart renders from them, its paths named by the values' own (``values.backup...``). The pxc-db
chart names the cluster with its fullname, which it cuts to 21 characters: the name is the chart's, never refused.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from percona_mysql_k8s.core.operator_validation import Refusal, Verdict, validate
from percona_mysql_k8s.plan.database import versions

from .database import DatabaseView
from .values import Malformed, NotKnown, Unknown, Unrenderable

# The images a fix names: the pinned releases' own (plan.database.versions), for MySQL 8.4.
_EXAMPLES = {
    "pxc": {
        "pxc": versions.PXC.image("8.4", "mysql"),
        "haproxy": versions.PXC.image("8.4", "haproxy"),
        "proxysql": versions.PXC.image("8.4", "proxysql"),
        "pmm": versions.PXC.image("8.4", "pmm-client"),
        "backup": versions.PXC.image("8.4", "backup"),
    },
    "ps": {"backup": versions.PS.image("8.4", "backup")},
}


def operator_verdict(view: DatabaseView, resource_name: str, only: Callable[[Refusal], bool] | None = None) -> Verdict:
    """Every refusal of the operator the view's resource meets (``only``: some of them)."""
    if view.chart:
        resource = {"metadata": {}, "spec": view.root}
        autonamed_from = None
    else:
        resource = {"metadata": view.metadata, "spec": view.root}
        autonamed_from = resource_name if not view.metadata.get("name") else None
    return validate(
        view.operator,
        resource,
        lambda value: isinstance(value, Unknown),
        examples=_EXAMPLES[view.operator],
        autonamed_from=autonamed_from,
        only=only,
        is_opaque=lambda value: isinstance(value, Unrenderable),
    )


def where(view: DatabaseView, path: str) -> str:
    """A path of the custom resource (``spec.backup.image``) as the resource names it (``values.backup.image``)."""
    if path.startswith("spec.") or path == "spec":
        return view.path(path[5:]) if view.chart else path
    return path


_SPEC_PATH = re.compile(r"\bspec\.(?=[A-Za-z])")


def paths_in(view: DatabaseView, text: str) -> str:
    """A finding's text with the custom resource's paths named as the resource names them (chart values)."""
    return _SPEC_PATH.sub(f"{view.root_path}.", text) if view.chart else text


def not_known(view: DatabaseView, path: str, value: object) -> NotKnown:
    return value.error(where(view, path)) if isinstance(value, Unknown) else NotKnown(where(view, path))


BACKUP_REFUSALS = frozenset({"pxc-backup", "ps-backup"})
_STEP = {"pxc": "Validate", "ps": "CheckNSetDefaults"}


def backup_refusal(view: DatabaseView) -> str | None:
    """Why the operator refuses the whole cluster for its backup section (R1: then no backup runs), or None. Raises
    NotKnown when no known refusal decides it and a value it reads is unknown at preview, Malformed on a value the
    operator cannot hold."""
    verdict = operator_verdict(view, "", only=lambda refusal: refusal.id in BACKUP_REFUSALS)
    if verdict.findings:
        finding = verdict.findings[0]
        return f"the operator refuses the cluster ({_STEP[view.operator]}): {where(view, finding.path)} {paths_in(view, finding.found)}"
    for _, problem in verdict.unreadable:
        raise Malformed(where(view, problem.path), problem.problem)
    for _, unknown in verdict.unjudged:
        raise not_known(view, unknown.path, unknown.value)
    return None
