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
from ._readers.values import NotKnown, known
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


def _ingress_selectors(ctx: Context) -> tuple[list[tuple[str, object]], list[NotKnown]]:
    """(namespace, podSelector) of every Ingress NetworkPolicy, and the NotKnown of each whose namespace, policy
    types or selector is unknown at preview (it may select any pod)."""
    found, undecided = [], []
    for resource in ctx.resources:
        if resource.type != NETWORK_POLICY:
            continue
        try:
            props = resource.props if isinstance(resource.props, dict) else {}
            metadata = known(props.get("metadata"), "metadata")
            metadata = metadata if isinstance(metadata, dict) else {}
            spec = known(props.get("spec"), "spec")
            spec = spec if isinstance(spec, dict) else {}
            types = known(spec.get("policyTypes"), "spec.policyTypes")
            if not (types is None or (isinstance(types, list) and "Ingress" in types)):
                if isinstance(types, list):
                    for index, item in enumerate(types):
                        known(item, f"spec.policyTypes[{index}]")
                continue
            namespace = known(metadata.get("namespace"), "metadata.namespace")
            selector = spec.get("podSelector")
            _known_all(selector, "spec.podSelector")
            found.append((str(namespace or ""), selector))
        except NotKnown as error:
            error.subject = resource.label
            undecided.append(error)
    return found, undecided


def _known_all(value, path: str) -> None:
    """NotKnown for the first value unknown at preview below ``value``."""
    known(value, path)
    if isinstance(value, dict):
        for key, item in value.items():
            _known_all(item, f"{path}.{key}")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            _known_all(item, f"{path}[{index}]")


def check(ctx: Context) -> None:
    selectors, undecided = _ingress_selectors(ctx)
    for resource, view in read_stack(ctx.resources).databases:
        with ctx.checking("R6", resource.urn, resource.label):  # each database on its own fields
            if view.chart is not None or not production(ctx, view):
                continue
            namespace = str(known(view.metadata.get("namespace"), "metadata.namespace") or "")
            pod = mysqld_pod_labels(view.operator, known(view.name, "metadata.name"))
            if any(ns == namespace and selector_matches(selector, pod) for ns, selector in selectors):
                continue
            if undecided:  # a NetworkPolicy not known yet may select them
                raise undecided[0]
            ctx.violation(
                "R6",
                f"no NetworkPolicy selects the database pods of {resource.label} "
                f"(labels {', '.join(f'{k}={v}' for k, v in sorted(pod.items()) if k.endswith(('instance', 'component')))}) "
                f"in namespace {namespace or '(default)'}",
                "the rule lets database pods accept traffic only from their proxies, members, the operator, "
                "monitoring and backup Jobs",
                "set networkPolicies true in the stack config, or add an Ingress NetworkPolicy selecting these pods",
                resource.urn,
                field="",
            )


POLICY = stack_policy(SPEC, check)
