"""Custom resources as the pinned operators validate them before they reconcile anything (rule C2).

C1 (core.crd) is the API server's answer; this is the operator's, one step later. The PXC operator 1.20.0 and the PS
operator v1.2.0 check a custom resource in ``CheckNSetDefaults``/``Validate`` at the start of every reconcile, and
an error there stops the whole reconcile: nothing is rendered, no pod, no backup, and the cluster never comes.
:func:`validate` replays each of those refusals (``pxc.REFUSALS``, ``ps.REFUSALS``: the field, the operator's
words, the source line) on a custom resource as the API server stores it, one check at a time, so a value not known
at preview leaves only the checks that read it undecided. The policy pack (rule C2, policy ``operator-validation``)
and the stacks' config (the cluster name) read them from here; docs/operator-validation.md lists them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from . import ps, pxc
from .model import ABSENT, Finding, Reader, Refusal, UnknownField, Unreadable, Verdict, judge

REFUSALS: tuple[Refusal, ...] = (*pxc.REFUSALS, *ps.REFUSALS)
BY_OPERATOR = {"pxc": pxc.REFUSALS, "ps": ps.REFUSALS}
CLUSTER_NAME_MAX = pxc.CLUSTER_NAME_MAX
cluster_name_problem = pxc.cluster_name_problem
shorten_cluster_name = pxc.shorten

__all__ = [
    "ABSENT",
    "BY_OPERATOR",
    "CLUSTER_NAME_MAX",
    "REFUSALS",
    "Finding",
    "Reader",
    "Refusal",
    "UnknownField",
    "Unreadable",
    "Verdict",
    "cluster_name_problem",
    "shorten_cluster_name",
    "validate",
]


def validate(
    operator: str,
    resource: dict,
    is_unknown: Callable[[Any], bool] = lambda value: False,
    *,
    examples: Mapping[str, str] | None = None,
    autonamed_from: str | None = None,
    only: Callable[[Refusal], bool] | None = None,
    is_opaque: Callable[[Any], bool] | None = None,
) -> Verdict:
    """Every refusal of ``operator`` (``pxc`` or ``ps``) this custom resource meets. ``resource`` is the object as the
    API server stores it (``metadata``, ``spec``); ``is_unknown`` tells a value not known yet; ``examples`` gives the
    images a fix may name; ``autonamed_from`` the Pulumi resource name when ``metadata.name`` is left to Pulumi;
    ``only`` keeps some refusals (the backup ones, for R1); ``is_opaque`` tells a value that is set but cannot be read
    as text here (a chart's rendering the pack cannot compute), which counts as a non-empty string."""
    refusals = tuple(refusal for refusal in BY_OPERATOR[operator] if only is None or only(refusal))
    return judge(refusals, Reader(resource, is_unknown, examples, autonamed_from, is_opaque))
