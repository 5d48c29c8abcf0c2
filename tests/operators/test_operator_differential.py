"""The pack's model of the operators against the real operators, over a corpus (render_corpus), field by field.

Wherever the pack decides what an operator renders from a custom resource (which pods, their containers and init
containers, each one's requests and limits, the pod's QoS class, sidecars on and off, nodeSelector, tolerations,
affinity and the generated anti-affinity: policies/_readers/operator_pods.py), that decision is compared with the
StatefulSets the real operator rendered and the QoS class the API server gave their first pod. Every item is its own
cluster; the whole corpus goes in at once and the two operator processes render it side by side. A disagreement is
fixed in the pack, never here. The stacks' own custom resources are compared in test_operator_stacks.py.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field

import pytest
from kubernetes.dynamic.exceptions import DynamicApiError
from operator_inputs import tier_required
from reference_material.resolve import reference_path
from render_compare import auto_config_name, compare_pod, expected_auto_config, expected_statefulsets, rendered_auto_config
from render_corpus import CORPUS_ITEM, CorpusItem, upstream_items, variant_items
from render_spread import compare_spread

pytestmark = pytest.mark.operators
RENDER_TIMEOUT = 360.0  # for the whole corpus at once; on a loaded 2-core machine its slowest items took 240 s
SETTLED = 20.0  # an item in the same state this long has settled there (the operators requeue every 5 s)
# Errors an operator retries until they pass: its cache behind the API server (a create of what it made a moment ago,
# an update of an object changed meanwhile). Any other error on an item it rendered nothing of is a refusal.
TRANSIENT = ("already exists", "the object has been modified")


def error_message(error: DynamicApiError) -> str:
    try:
        return json.loads(error.body).get("message") or str(error.body)
    except (TypeError, ValueError):
        return str(error)


def _error_text(line: str) -> str:
    """The ``error`` field of an operator's ERROR line."""
    start = line.find('"error": "')
    return line[start + 10 :].split('", "', 1)[0] if start >= 0 else line[-300:]


@dataclass
class Outcome:
    """What became of each item: compared (with its differences), or refused by the API server or the operator."""

    items: list[CorpusItem]
    differences: list[str] = field(default_factory=list)
    compared: set[str] = field(default_factory=set)
    fields: int = 0
    refused: dict[str, str] = field(default_factory=dict)  # by the API server: item id -> its message
    operator_refused: dict[str, str] = field(default_factory=dict)  # logged an error, rendered nothing

    def of(self, operator: str, source: str) -> Outcome:
        ids = {item.id for item in self.items if item.operator == operator and item.source == source}
        prefixes = tuple(f"{item_id} (" for item_id in ids)
        return Outcome(
            [item for item in self.items if item.id in ids],
            [d for d in self.differences if d.startswith(prefixes)],
            self.compared & ids,
            self.fields,
            {k: v for k, v in self.refused.items() if k in ids},
            {k: v for k, v in self.operator_refused.items() if k in ids},
        )


def _apply(tier, items: list[CorpusItem], outcome: Outcome) -> None:
    """Apply every item; the API server refuses some (a field the operator's CRD does not declare, a value its
    schema or CEL rules refuse): no operator sees those."""
    for item in items:
        try:
            if item.secret is not None:
                tier.apply(item.secret)
            tier.apply(item.body)
        except DynamicApiError as error:
            if error.status not in (400, 422, 500):
                raise
            outcome.refused[item.id] = error_message(error)


def _configmap(tier, namespace: str, name: str):
    from kubernetes.client.rest import ApiException

    try:
        return tier.core.read_namespaced_config_map(name, namespace)
    except ApiException as error:
        if error.status == 404:
            return None
        raise


def _statefulsets(tier, namespace: str) -> dict[str, object]:
    return {sts.metadata.name: sts for sts in tier.apps.list_namespaced_stateful_set(namespace).items}


def _refused_pods(tier, namespace: str, statefulsets: list[str]) -> bool:
    """Every one of ``statefulsets`` has a FailedCreate event: the API server refuses its pods."""
    for name in statefulsets:
        events = tier.core.list_namespaced_event(namespace, field_selector=f"involvedObject.name={name},reason=FailedCreate")
        if not events.items:
            return False
    return True


def _settled(since: dict[str, float], item_id: str) -> bool:
    return time.monotonic() - since.setdefault(item_id, time.monotonic()) >= SETTLED


def _wait(tier, items: list[CorpusItem], expected: dict[str, dict], outcome: Outcome) -> dict[str, dict]:
    """Until every item is rendered (its StatefulSets, and the first pod of each that has members) or settled as
    refused by the operator; the first pods of the rendered ones. A first pod the API server will not admit (a
    RuntimeClass that does not exist here, say: the StatefulSet controller's FailedCreate) leaves that pod's QoS
    class uncompared, and the rest of its render compared."""
    pending = {item.id: item for item in items}
    firsts: dict[str, dict] = {}
    refusing: dict[str, float] = {}
    podless: dict[str, float] = {}
    deadline = time.monotonic() + RENDER_TIMEOUT
    while pending and time.monotonic() < deadline:
        tier.assert_operators_healthy()
        namespaces = {item.namespace for item in pending.values()}
        statefulsets = {namespace: _statefulsets(tier, namespace) for namespace in namespaces}
        pods = {ns: {p.metadata.name: p for p in tier.core.list_namespaced_pod(ns).items} for ns in namespaces}
        for item_id, item in list(pending.items()):
            present = statefulsets[item.namespace]
            wanted = expected[item_id]
            if set(wanted) <= set(present):
                first = {name: pods[item.namespace].get(f"{name}-0") for name in wanted}
                missing = [name for name in wanted if not first[name] and present[name].spec.replicas]
                if not missing or (_settled(podless, item_id) and _refused_pods(tier, item.namespace, missing)):
                    firsts[item_id] = first
                    del pending[item_id]
                continue
            errors = tier.errors(item.operator, item.namespace, item.name)
            last = _error_text(errors[-1]) if errors else ""
            mine = any(name.rsplit("-", 1)[0] == item.name for name in present)
            if errors and not mine and not any(text in last for text in TRANSIENT):
                if _settled(refusing, item_id):
                    outcome.operator_refused[item_id] = last
                    del pending[item_id]
            else:
                refusing.pop(item_id, None)
        time.sleep(1.0)
    for item in pending.values():
        present = sorted(name for name in _statefulsets(tier, item.namespace) if name.rsplit("-", 1)[0] == item.name)
        errors = tier.errors(item.operator, item.namespace, item.name)
        outcome.differences.append(
            f"{item.id} ({item.namespace}/{item.name}): the pack expects StatefulSets {sorted(expected[item.id])}, "
            f"the operator rendered {present} in {RENDER_TIMEOUT:.0f} s"
            + (f" and logged: {_error_text(errors[-1])}" if errors else "")
        )
    return firsts


def compare_all(tier, items: list[CorpusItem]) -> Outcome:
    """Every item applied at once, then each render compared with the pack's model of it."""
    outcome = Outcome(items)
    _apply(tier, items, outcome)
    items = [item for item in items if item.id not in outcome.refused]
    expected = {item.id: expected_statefulsets(item.body) for item in items}
    firsts = _wait(tier, items, expected, outcome)
    present = {namespace: set(_statefulsets(tier, namespace)) for namespace in {item.namespace for item in items}}
    for item in items:
        if item.id not in firsts:
            continue
        outcome.compared.add(item.id)
        rendered = {name for name in present[item.namespace] if name.rsplit("-", 1)[0] == item.name}
        if rendered != set(expected[item.id]):  # the same set, not a superset: an extra pod type is a finding
            outcome.differences.append(
                f"{item.id} ({item.namespace}/{item.name}): the operator rendered StatefulSets {sorted(rendered)}, "
                f"the pack expects {sorted(expected[item.id])}"
            )
        name, key = auto_config_name(item.body)
        configmap = _configmap(tier, item.namespace, name)
        expected_auto = expected_auto_config(item.body)
        rendered = rendered_auto_config((configmap.data or {}).get(key)) if configmap else {}
        outcome.fields += 1
        if rendered != expected_auto:
            outcome.differences.append(
                f"{item.id} ({item.namespace}/{item.name}) ConfigMap {name}: the pack says the operator auto-tunes "
                f"{expected_auto}, it wrote {rendered}"
            )
        for name, model in expected[item.id].items():
            sts = tier.apps.read_namespaced_stateful_set(name, item.namespace)
            template = tier.api.sanitize_for_serialization(sts.spec.template)
            pod = firsts[item.id][name]
            qos = pod.status.qos_class if pod is not None else None
            comparison = compare_pod(model, template, qos, f"{item.id} ({item.namespace}/{item.name}) {name}")
            outcome.differences += comparison.differences
            outcome.fields += len(comparison.compared)
            spread = compare_spread(item.body, model, template, f"{item.id} ({item.namespace}/{item.name}) {name}")
            outcome.differences += spread.differences
            outcome.fields += len(spread.compared)
    return outcome


@pytest.fixture(scope="module")
def corpus_outcome(tier) -> Outcome:
    """The whole corpus, both operators, upstream and variants, applied at once and compared."""
    corpus = reference_path(CORPUS_ITEM, required=tier_required())
    items = upstream_items(tier.sources, corpus) + variant_items()
    started = time.monotonic()
    outcome = compare_all(tier, items)
    print(
        f"\n{len(outcome.compared)} of {len(items)} custom resources rendered and compared, {outcome.fields} fields, "
        f"in {time.monotonic() - started:.0f} s"
    )
    return outcome


# Every upstream item that does not render, by the start of its id, with the reason the API server or the operator
# gives (a part of its message). The PS corpus is from a later commit than v1.2.0; some e2e CRs need what their
# scripts set up first. Every other item must render and be compared: none drops out unnamed.
DROPPED = {
    "pxc": (
        ("pxc-op:e2e-tests/tls-issue-cert-manager-ref/", "setup cert-manager correctly"),
        ("pxc-op:e2e-tests/proxy-protocol/", "a valid label must be an empty string"),  # its script fills the value in
        ("pxc-op:e2e-tests/security-context/conf/sec-context-changes.yml", "privileged: Forbidden"),
        ("pxc-op:e2e-tests/tls-issue-self/compare/pxc_some-name-enabled.yml", "pxc.Image can't be empty"),  # expected output
        ("pxc-op:e2e-tests/tls-issue-self/compare/pxc_some-name.yml", "pxc.Image can't be empty"),
    ),
    "ps": (
        ("ps-op:config/samples/ps_v2_perconaserverformysql.yaml", "failed to create typed patch object"),
        ("ps-op:e2e-tests/tests/sidecars/01-create-cluster.yaml", "field not declared in schema"),
        ("ps-op:e2e-tests/tests/async-data-at-rest-encryption/", "validate vault secret"),
        ("ps-op:e2e-tests/tests/gr-data-at-rest-encryption/", "validate vault secret"),
        ("ps-op:e2e-tests/tests/gr-security-context/", "privileged: Forbidden"),
        ("ps-op:e2e-tests/tests/limits/07-create-cluster-no-storage.yaml", "volumeSpec provided is nil"),
    ),
}


def _why_dropped(item_id: str) -> tuple[str, str] | None:
    found = [entry for entries in DROPPED.values() for entry in entries if item_id.startswith(entry[0])]
    return found[0] if len(found) == 1 else None


@pytest.mark.parametrize("operator", ["pxc", "ps"])
def test_the_packs_model_agrees_with_the_operator_on_the_upstream_crs(corpus_outcome, operator):
    """Every upstream custom resource the operator's CRD accepts and the operator renders (the PS corpus is from a
    later commit than v1.2.0, and some e2e CRs need what their scripts set up: cert-manager, a Vault secret, a
    nodeSelector filled in at run time): every item that drops out is named in DROPPED with its reason, and every
    other one is compared."""
    outcome = corpus_outcome.of(operator, "upstream")
    print(f"{operator}: {len(outcome.compared)} of {len(outcome.items)} upstream custom resources compared")
    for item_id, message in sorted(outcome.refused.items()):
        print(f"  refused by the API server: {item_id}: {message}")
    for item_id, message in sorted(outcome.operator_refused.items()):
        print(f"  refused by the operator: {item_id}: {message}")
    assert not outcome.differences, "\n".join(outcome.differences)
    dropped = {**outcome.refused, **outcome.operator_refused}
    named = {item_id: _why_dropped(item_id) for item_id in dropped}
    unnamed = sorted(item_id for item_id, why in named.items() if why is None)
    assert not unnamed, f"upstream items dropped out without a reason in DROPPED: {unnamed}"
    wrong = {item_id: dropped[item_id] for item_id, why in named.items() if why[1] not in dropped[item_id]}
    assert not wrong, f"upstream items dropped out for another reason than DROPPED names: {wrong}"
    missing = sorted(prefix for prefix, _ in DROPPED[operator] if not any(item_id.startswith(prefix) for item_id in dropped))
    assert not missing, f"items DROPPED names that rendered: {missing}; drop them from the list"
    assert len(outcome.compared) == len(outcome.items) - len(dropped)


@pytest.mark.parametrize("operator", ["pxc", "ps"])
def test_the_packs_model_agrees_with_the_operator_on_the_variants(corpus_outcome, operator):
    outcome = corpus_outcome.of(operator, "variants")
    print(f"{operator}: {len(outcome.compared)} of {len(outcome.items)} variants compared")
    assert not outcome.refused, f"variants the API server refuses: {outcome.refused}"
    assert not outcome.operator_refused, f"variants the operator refuses: {outcome.operator_refused}"
    assert not outcome.differences, "\n".join(outcome.differences)
    assert len(outcome.compared) == len(outcome.items)


# What the operators log when CheckNSetDefaults refuses a cluster (PXC controller.go:267-270, PS k8s/utils.go:506-508).
VALIDATION_REFUSED = {"pxc": "wrong PXC options: ", "ps": "check and set defaults for "}


@pytest.mark.parametrize("operator", ["pxc", "ps"])
def test_c2_refuses_exactly_what_the_operator_refuses_in_the_corpus(corpus_outcome, operator):
    """Rule C2 (core.operator_validation) on every item the API server admitted: no refusal where the operator
    rendered, and where the operator's own validation refused the item, the refusal it logged."""
    from percona_mysql_k8s.core.operator_validation import validate

    outcome = corpus_outcome.of(operator, "upstream")
    variants = corpus_outcome.of(operator, "variants")
    wrong = []
    for item in outcome.items + variants.items:
        if item.id in outcome.refused or item.id in variants.refused:
            continue
        words = [finding.words for finding in validate(operator, item.body).findings]
        logged = outcome.operator_refused.get(item.id) or variants.operator_refused.get(item.id)
        if item.id in outcome.compared | variants.compared and words:
            wrong.append(f"{item.id}: the operator rendered it, C2 refuses it: {words}")
        elif logged and VALIDATION_REFUSED[operator] in logged and not any(word in logged for word in words):
            wrong.append(f"{item.id}: the operator's validation refused it ({logged}), C2 says {words or 'nothing'}")
    assert wrong == [], "\n".join(wrong)
