"""The pack's model of the operators against the real operators, over a corpus (render_corpus), field by field.

Wherever the pack decides what an operator renders from a custom resource (which pods, their containers and init
containers, each one's requests and limits, the pod's QoS class, sidecars on and off, nodeSelector, tolerations,
affinity and the generated anti-affinity: policies/_readers/operator_pods.py), that decision is compared with the
StatefulSets the real operator rendered and the QoS class the API server gave their first pod. Every item is its own
cluster; all of a source go in at once and one operator process renders them all. A disagreement is fixed in the
pack, never here. The stacks' own custom resources are compared in test_operator_stacks.py.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass

import pytest
from kubernetes.dynamic.exceptions import DynamicApiError
from operator_inputs import tier_required
from reference_material.resolve import reference_path
from render_compare import compare_pod, expected_statefulsets
from render_corpus import CORPUS_ITEM, CorpusItem, upstream_items, variant_items

pytestmark = pytest.mark.operators
RENDER_TIMEOUT = 240.0


def _apply(tier, items: list[CorpusItem]) -> dict[str, str]:
    """Apply every item; the ones the API server refuses (the operator's CRD: a field it does not declare, a value
    its schema or CEL rules refuse), with the API server's message. No operator sees those."""
    refused = {}
    for item in items:
        try:
            if item.secret is not None:
                tier.apply(item.secret)
            tier.apply(item.body)
        except DynamicApiError as error:
            if error.status not in (400, 422, 500):
                raise
            refused[item.id] = error_message(error)
    return refused


def _error_text(line: str) -> str:
    """The ``error`` field of an operator's ERROR line."""
    start = line.find('"error": "')
    return line[start + 10 :].split('", "', 1)[0] if start >= 0 else line[-300:]


def error_message(error: DynamicApiError) -> str:
    try:
        return json.loads(error.body).get("message") or str(error.body)
    except (TypeError, ValueError):
        return str(error)


def _rendered(tier, item: CorpusItem, wanted: list[str]) -> dict | None:
    """The first pod of each wanted StatefulSet, once they all exist; None before."""
    statefulsets = {sts.metadata.name for sts in tier.apps.list_namespaced_stateful_set(item.namespace).items}
    if not set(wanted) <= statefulsets:
        return None
    pods = {pod.metadata.name: pod for pod in tier.core.list_namespaced_pod(item.namespace).items}
    first = {name: pods.get(f"{name}-0") for name in wanted}
    return first if all(first.values()) else None


@dataclass
class Outcome:
    differences: list[str]
    compared: int  # items rendered and compared
    fields: int  # fields compared over all of them
    refused: dict[str, str]  # items the API server refused: item id -> its message
    operator_refused: dict[str, str]  # items the operator logged an error for and rendered nothing of


def compare_all(tier, items: list[CorpusItem]) -> Outcome:
    """Every item of ``items`` applied at once, then each render compared with the pack's model of it."""
    refused = _apply(tier, items)
    items = [item for item in items if item.id not in refused]
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
    differences, operator_refused = [], {}
    for item in pending.values():
        present = sorted(sts.metadata.name for sts in tier.apps.list_namespaced_stateful_set(item.namespace).items)
        present = [name for name in present if name.rsplit("-", 1)[0] == item.name]
        errors = tier.errors(item.operator, item.namespace, item.name)
        if errors and not present:  # the operator refuses the custom resource: it renders nothing to compare
            operator_refused[item.id] = _error_text(errors[-1])
        else:
            differences.append(
                f"{item.id} ({item.namespace}/{item.name}): the pack expects StatefulSets {sorted(expected[item.id])}, "
                f"the operator rendered {present} in {RENDER_TIMEOUT:.0f} s"
                + (f" and logged: {_error_text(errors[-1])}" if errors else "")
            )
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
    return Outcome(differences, len(firsts), fields, refused, operator_refused)


@pytest.mark.parametrize("operator", ["pxc", "ps"])
def test_the_packs_model_agrees_with_the_operator_on_the_upstream_crs(tier, operator):
    """Every upstream custom resource the operator's CRD accepts (the PS corpus is from a later commit than v1.2.0,
    and some e2e CRs carry fields their scripts fill in at run time): the refusals are listed, and most items must
    get through."""
    corpus = reference_path(CORPUS_ITEM, required=tier_required())
    items = [item for item in upstream_items(tier.sources, corpus) if item.operator == operator]
    outcome = compare_all(tier, items)
    print(f"{operator}: {outcome.compared} of {len(items)} upstream custom resources compared, {outcome.fields} fields")
    for item_id, message in sorted(outcome.refused.items()):
        print(f"  refused by the API server: {item_id}: {message}")
    for item_id, message in sorted(outcome.operator_refused.items()):
        print(f"  refused by the operator: {item_id}: {message}")
    assert not outcome.differences, "\n".join(outcome.differences)
    assert outcome.compared >= len(items) // 2, f"only {outcome.compared} of {len(items)} compared"


@pytest.mark.parametrize("operator", ["pxc", "ps"])
def test_the_packs_model_agrees_with_the_operator_on_the_variants(tier, operator):
    items = [item for item in variant_items() if item.operator == operator]
    outcome = compare_all(tier, items)
    print(f"{operator}: {outcome.compared} of {len(items)} variants compared, {outcome.fields} fields")
    assert not outcome.refused, f"variants the API server refuses: {outcome.refused}"
    assert not outcome.operator_refused, f"variants the operator refuses: {outcome.operator_refused}"
    assert not outcome.differences, "\n".join(outcome.differences)
    assert outcome.compared == len(items)
