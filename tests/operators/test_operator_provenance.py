"""What the tier reads back was made by the operator, not by the tier (issue 34).

For every stack case: each StatefulSet, ConfigMap and PodDisruptionBudget the checks read is owned by the custom
resource, by its UID (``ownerReferences``: the operator's ``controllerutil.SetControllerReference``), and the API
server recorded the operator's own client as a writer of it (``managedFields``: client-go names the manager after
the process, the operator binary), never the tier's field manager. Member 0 of each StatefulSet is the StatefulSet
controller's (kube-controller-manager), owned by the set's UID; the members the tier stands in for are named as such.
"""

from __future__ import annotations

import pytest
from operator_inputs import STACK_CASES
from stack_deployment import live_cr
from test_operator_stacks import deployed

pytestmark = pytest.mark.operators
FIELD_MANAGER = "percona-mysql-operator-tier"  # conftest.FIELD_MANAGER: what the tier applies with
CASES = [pytest.param(case, id=case.id) for case in STACK_CASES]


def _owned_by(obj, kind: str, name: str, uid: str) -> bool:
    return any(
        ref.kind == kind and ref.name == name and ref.uid == uid and ref.controller for ref in obj.metadata.owner_references or []
    )


def _owned_through(obj, cr: dict, statefulsets: list) -> bool:
    """Owned by the custom resource, or by one of the StatefulSets it owns (PXC gives the HAProxy and ProxySQL
    PodDisruptionBudgets their StatefulSet as owner: pkg/controller/pxc/controller.go reconcilePDB)."""
    if _owned_by(obj, cr["kind"], cr["metadata"]["name"], cr["metadata"]["uid"]):
        return True
    return any(
        _owned_by(obj, "StatefulSet", sts.metadata.name, sts.metadata.uid)
        and _owned_by(sts, cr["kind"], cr["metadata"]["name"], cr["metadata"]["uid"])
        for sts in statefulsets
    )


def _managers(obj) -> set[str]:
    return {entry.manager for entry in obj.metadata.managed_fields or []}


def _rendered(tier, deployment) -> list:
    """The objects the checks read: the StatefulSets, the my.cnf ConfigMaps, the PodDisruptionBudgets."""
    namespace, name = deployment.namespace, deployment.name
    objects = [tier.apps.read_namespaced_stateful_set(sts, namespace) for sts in deployment.statefulsets]
    component = "pxc" if deployment.case.operator == "pxc" else "mysql"
    configmaps = {cm.metadata.name: cm for cm in tier.core.list_namespaced_config_map(namespace).items}
    objects += [configmaps[f"{name}-{component}"]]
    objects += [b for b in tier.policy.list_namespaced_pod_disruption_budget(namespace).items if b.metadata.name.startswith(name)]
    return objects


@pytest.mark.parametrize("case", CASES)
def test_the_operator_made_what_the_tier_reads(tier, case):
    deployment = deployed(tier, case)
    cr = live_cr(tier, deployment)
    operator = tier.operators[case.operator]
    own = {operator.binary.name}  # client-go's default field manager: the process's base name (rest.DefaultKubernetesUserAgent)
    rendered = _rendered(tier, deployment)
    statefulsets = rendered[: len(deployment.statefulsets)]
    for obj in rendered:
        what = f"{type(obj).__name__.removeprefix('V1')} {obj.metadata.name}"
        assert _owned_through(obj, cr, statefulsets), (
            f"{what}: owners {[(r.kind, r.name, r.uid) for r in obj.metadata.owner_references or []]}, not the custom resource"
        )
        managers = _managers(obj)
        assert own & managers and FIELD_MANAGER not in managers, f"{what}: written by {sorted(managers)}"
    print(f"{case.id}: every rendered object owned by {cr['kind']} {cr['metadata']['uid']}, written by {sorted(own)}")


@pytest.mark.parametrize("case", CASES)
def test_member_zero_is_the_statefulset_controllers_and_the_rest_the_tiers_stand_ins(tier, case):
    deployment = deployed(tier, case)
    for name in deployment.statefulsets:
        sts = tier.apps.read_namespaced_stateful_set(name, deployment.namespace)
        pods = {p.metadata.name: p for p in tier.core.list_namespaced_pod(deployment.namespace).items}
        first = pods[f"{name}-0"]
        assert _owned_by(first, "StatefulSet", name, sts.metadata.uid)
        assert "kube-controller-manager" in _managers(first), _managers(first)
        for ordinal in range(1, sts.spec.replicas):
            member = pods[f"{name}-{ordinal}"]
            assert _owned_by(member, "StatefulSet", name, sts.metadata.uid)  # operator_cluster.member_pod
            assert "kube-controller-manager" not in _managers(member), "the tier stands in for the controller here"
