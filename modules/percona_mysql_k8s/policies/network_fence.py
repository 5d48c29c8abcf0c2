"""R6 (stack, advisory): on a production stack, some NetworkPolicy selects each database cluster's pods.

The database pods are recognised by the labels their operator puts on them
(:mod:`percona_mysql_k8s.core.operator_labels`); a NetworkPolicy counts when it is in the cluster's
namespace, applies to ingress (``policyTypes`` absent or listing Ingress) and its ``podSelector`` selects
such a pod. Whether its rules are tight enough is not judged here: the stacks' own policies are tested
flow by flow. Only production databases are judged (data_protection.production: not an ephemeral stack
as S4 decides it, ``ephemeral_stacks`` or config ``ephemeral: true``, and not under the unsafe size flag). Only custom resources are checked: a pxc-db/ps-db release
names its cluster from templates this pack does not render.
"""

from __future__ import annotations

from percona_mysql_k8s.core.operator_labels import mysqld_pod_labels, selector_matches

from ._framework import Context, Spec, stack_policy
from ._readers.stack import read_stack
from .data_protection import SPEC as DATA_PROTECTION
from .data_protection import production

NETWORK_POLICY = "kubernetes:networking.k8s.io/v1:NetworkPolicy"

SPEC = Spec(
    name="database-network-policy",
    rules=("R6",),
    settings=DATA_PROTECTION.settings,
    description="a NetworkPolicy selects the database pods of every cluster on production stacks",
    remediation="Keep the stack's networkPolicies on, or add a NetworkPolicy selecting the database pods.",
)


def _ingress_selectors(ctx: Context) -> list[tuple[str, object]]:
    found = []
    for resource in ctx.resources:
        if resource.type != NETWORK_POLICY:
            continue
        props = resource.props if isinstance(resource.props, dict) else {}
        metadata = props.get("metadata") if isinstance(props.get("metadata"), dict) else {}
        spec = props.get("spec") if isinstance(props.get("spec"), dict) else {}
        types = spec.get("policyTypes")
        if types is None or (isinstance(types, list) and "Ingress" in types):
            found.append((str(metadata.get("namespace") or ""), spec.get("podSelector")))
    return found


def check(ctx: Context) -> None:
    selectors = _ingress_selectors(ctx)
    for resource, view in read_stack(ctx.resources).databases:
        if view.chart is not None or not production(ctx, view):
            continue
        namespace = str(view.metadata.get("namespace") or "")
        pod = mysqld_pod_labels(view.operator, view.name)
        if any(ns == namespace and selector_matches(selector, pod) for ns, selector in selectors):
            continue
        ctx.violation(
            "R6",
            f"no NetworkPolicy selects the database pods of {resource.label} "
            f"(labels {', '.join(f'{k}={v}' for k, v in sorted(pod.items()) if k.endswith(('instance', 'component')))}) "
            f"in namespace {namespace or '(default)'}",
            "the rule lets database pods accept traffic only from their proxies, members, the operator, "
            "monitoring and backup Jobs",
            "set networkPolicies true in the stack config, or add an Ingress NetworkPolicy selecting these pods",
            resource.urn,
        )


POLICY = stack_policy(SPEC, check)
