"""The pack's model of the operators against the real operators, over a corpus (render_corpus), field by field.

Wherever the pack decides what an operator renders from a custom resource (which pods, their containers and init
containers, each one's requests and limits, the pod's QoS class, sidecars on and off, nodeSelector, tolerations,
affinity and the generated anti-affinity: policies/_readers/operator_pods.py), that decision is compared with the
StatefulSets the real operator rendered and the QoS class the API server gave their first pod. Every item is its own
cluster; all of a source go in at once and one operator process renders them all. A disagreement is fixed in the
pack, never here. The stacks' own custom resources are compared in test_operator_stacks.py.
"""

from __future__ import annotations

import time

import pytest
from operator_inputs import tier_required
from reference_material.resolve import reference_path
from render_compare import compare_pod, expected_statefulsets
from render_corpus import CORPUS_ITEM, CorpusItem, upstream_items, variant_items

pytestmark = pytest.mark.operators
RENDER_TIMEOUT = 240.0


def _apply(tier, items: list[CorpusItem]) -> None:
    for item in items:
        if item.secret is not None:
            tier.apply(item.secret)
        tier.apply(item.body)


def _rendered(tier, item: CorpusItem, wanted: list[str]) -> dict | None:
    """The first pod of each wanted StatefulSet, once they all exist; None before."""
    statefulsets = {sts.metadata.name for sts in tier.apps.list_namespaced_stateful_set(item.namespace).items}
    if not set(wanted) <= statefulsets:
        return None
    pods = {pod.metadata.name: pod for pod in tier.core.list_namespaced_pod(item.namespace).items}
    first = {name: pods.get(f"{name}-0") for name in wanted}
    return first if all(first.values()) else None


def compare_all(tier, items: list[CorpusItem]) -> tuple[list[str], int, int]:
    """(differences, items compared, fields compared) over ``items``, applied at once."""
    _apply(tier, items)
    expected = {item.id: expected_statefulsets(item.body) for item in items}
    pending = {item.id: item for item in items}
    firsts: dict[str, dict] = {}
    deadline = time.monotonic() + RENDER_TIMEOUT
    while pending and time.monotonic() < deadline:
        for item_id, item in list(pending.items()):
            found = _rendered(tier, item, sorted(expected[item_id]))
            if found is not None:
                firsts[item_id] = found
                del pending[item_id]
        time.sleep(1.0)
    differences = [
        f"{item.id} ({item.namespace}/{item.name}): not rendered in {RENDER_TIMEOUT:.0f} s; the operator's errors: "
        + "; ".join(tier.errors(item.operator, item.namespace)[-3:])
        for item in pending.values()
    ]
    fields = 0
    for item in items:
        if item.id not in firsts:
            continue
        for name, model in expected[item.id].items():
            sts = tier.apps.read_namespaced_stateful_set(name, item.namespace)
            template = tier.api.sanitize_for_serialization(sts.spec.template)
            comparison = compare_pod(model, template, firsts[item.id][name].status.qos_class, f"{item.id}: {name}")
            differences += comparison.differences
            fields += len(comparison.compared)
    return differences, len(firsts), fields


@pytest.mark.parametrize("operator", ["pxc", "ps"])
def test_the_packs_model_agrees_with_the_operator_on_the_upstream_crs(tier, operator):
    corpus = reference_path(CORPUS_ITEM, required=tier_required())
    items = [item for item in upstream_items(tier.sources, corpus) if item.operator == operator]
    differences, compared, fields = compare_all(tier, items)
    print(f"{operator}: {compared} of {len(items)} upstream custom resources compared, {fields} fields")
    assert not differences, "\n".join(differences)


@pytest.mark.parametrize("operator", ["pxc", "ps"])
def test_the_packs_model_agrees_with_the_operator_on_the_variants(tier, operator):
    items = [item for item in variant_items() if item.operator == operator]
    differences, compared, fields = compare_all(tier, items)
    print(f"{operator}: {compared} of {len(items)} variants compared, {fields} fields")
    assert not differences, "\n".join(differences)
