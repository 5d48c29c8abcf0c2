"""Rule C2 and the QoS rule (K3) against the real operators (docs/operator-validation.md).

* Every custom resource C2 refuses in its policy cases (refusal_cases) goes to the real operator, all at once, one
  namespace per operator: the operator logs the refusal, in the words C2 quotes, renders nothing of the cluster (no
  StatefulSet, Service, ConfigMap, Secret or PodDisruptionBudget of it: the refusal comes before any of them; a PS
  crVersion it cannot read, which panics later, no StatefulSet), and the pack, given that very object, reports that
  refusal at that field. What the operators render without a C2 finding is the differential corpus
  (test_operator_differential.py), where C2 must find nothing in a render.
* QoS: the stacks' custom resources as rendered and with one CPU limit dropped; K3 passes a pod type exactly when the
  API server makes its pod Guaranteed (``status.qosClass``), and the pack's model of the render holds.
"""

from __future__ import annotations

import json
import re
import time

import pytest
from refusal_cases import UNDECODABLE_NAMESPACE, RefusalCase, qos_items, refusal_cases
from render_compare import STATEFULSET_SUFFIX
from test_operator_differential import compare_all

pytestmark = pytest.mark.operators
REFUSAL_TIMEOUT = 180.0
CASES = refusal_cases()
APPLIED_TOGETHER = [case for case in CASES if case.namespace != UNDECODABLE_NAMESPACE]
UNDECODABLE = [case for case in CASES if case.namespace == UNDECODABLE_NAMESPACE]
PANICS = "ps-cr-version"  # the PS operator's refusal of a crVersion it cannot parse is a recovered panic
_ERROR = re.compile(r'"error": "((?:[^"\\]|\\.)*)"')


def _pack(body: dict):
    """C2's verdict (and K3's) on the object the tier applied, as the pack gives it."""
    from percona_mysql_k8s.policies import cpu_requests, operator_validation
    from refusal_cases import _harness

    harness = _harness()
    token = f"kubernetes:{body['apiVersion']}:{body['kind']}"
    return (
        harness.run_resource(operator_validation.POLICY, token, body, name=body["metadata"]["name"]),
        harness.run_resource(cpu_requests.POLICY, token, body, name=body["metadata"]["name"]),
    )


def _findings(body: dict):
    from percona_mysql_k8s.core.operator_validation import validate

    return validate("pxc" if body["kind"] == "PerconaXtraDBCluster" else "ps", body).findings


def _logged(tier, case: RefusalCase) -> list[str]:
    """The error texts the operator logged about the case's cluster (or, for a namespace it cannot list, about it)."""
    lines = tier.errors(case.operator, case.namespace, None if case.namespace == UNDECODABLE_NAMESPACE else case.name)
    found = []
    for line in lines:
        match = _ERROR.search(line)
        found.append(json.loads(f'"{match.group(1)}"') if match else line)
    return found


def _rendered(tier, case: RefusalCase, statefulsets_only: bool) -> list[str]:
    """Objects of the case's cluster in its namespace: named after it, or labelled as its instance."""
    namespace, prefix = case.namespace, f"{case.name}-"
    lists = [("StatefulSet", tier.apps.list_namespaced_stateful_set)]
    if not statefulsets_only:
        lists += [
            ("Service", tier.core.list_namespaced_service),
            ("ConfigMap", tier.core.list_namespaced_config_map),
            ("Secret", tier.core.list_namespaced_secret),
            ("PodDisruptionBudget", tier.policy.list_namespaced_pod_disruption_budget),
        ]
    found = []
    for kind, listing in lists:
        for item in listing(namespace).items:
            labels = item.metadata.labels or {}
            if item.metadata.name.startswith(prefix) or labels.get("app.kubernetes.io/instance") == case.name:
                found.append(f"{kind} {item.metadata.name}")
    return found


def _wait_for_refusals(tier, cases: list[RefusalCase]) -> dict[str, list[str]]:
    """Until the operator has logged, about each case, an error holding the words C2 quotes (or the time is up)."""
    pending = {case.case: case for case in cases}
    logged: dict[str, list[str]] = {}
    deadline = time.monotonic() + REFUSAL_TIMEOUT
    while pending and time.monotonic() < deadline:
        for key, case in list(pending.items()):
            logged[key] = _logged(tier, case)
            words = [finding.words for finding in _findings(case.body)]
            if any(word in text for text in logged[key] for word in words):
                del pending[key]
        time.sleep(1.0)
    return logged


@pytest.fixture(scope="module")
def refusals(tier):
    """Every refusal case and the QoS cases applied at once; then the renders and the refusals, side by side."""
    started = time.monotonic()
    for case in APPLIED_TOGETHER:
        if any(finding.refusal.id == PANICS for finding in _findings(case.body)):
            tier.expected_panics.add((case.namespace, case.name))  # the refusal itself (operator_health)
        tier.apply(case.body)
    qos = compare_all(tier, qos_items())
    logged = _wait_for_refusals(tier, APPLIED_TOGETHER)
    print(f"\n{len(APPLIED_TOGETHER)} refusals and {len(qos.items)} QoS renders in {time.monotonic() - started:.0f} s")
    return logged, qos


def _check_refusal(tier, case: RefusalCase, logged: list[str]) -> None:
    findings = _findings(case.body)
    assert len(findings) == 1, f"{case.case}: a tier case holds one refusal, C2 finds {[f.words for f in findings]}"
    finding = findings[0]
    assert any(finding.words in text for text in logged), (
        f"{case.case}: the {case.operator} operator did not log {finding.words!r} about {case.namespace}/{case.name} "
        f"in {REFUSAL_TIMEOUT:.0f} s; it logged {logged[-3:]}"
    )
    rendered = _rendered(tier, case, statefulsets_only=finding.refusal.id == PANICS)
    assert rendered == [], f"{case.case}: the operator refused the cluster yet rendered {rendered}"
    operator_validation, _ = _pack(case.body)
    assert [m for m in operator_validation.messages if m.startswith("C2:") and f": {finding.path} " in m], (
        f"{case.case}: the pack does not report {finding.path} under C2: {operator_validation.messages}"
    )


@pytest.mark.parametrize("case", APPLIED_TOGETHER, ids=[case.case for case in APPLIED_TOGETHER])
def test_the_operator_refuses_what_the_pack_refuses_and_renders_nothing(tier, refusals, case):
    logged, _ = refusals
    _check_refusal(tier, case, logged[case.case])


def test_every_refusal_of_the_rule_is_proven_here():
    """Each refusal C2 knows (but the two C1 leaves no way to reach, docs/operator-validation.md) has a case here."""
    from percona_mysql_k8s.core.operator_validation import REFUSALS

    proven = {finding.refusal.id for case in CASES for finding in _findings(case.body)}
    assert {refusal.id for refusal in REFUSALS} - proven == set()


def test_k3_passes_a_pod_exactly_when_the_api_server_makes_it_guaranteed(tier, refusals):
    _, qos = refusals
    assert not qos.refused and not qos.operator_refused, (qos.refused, qos.operator_refused)
    assert not qos.differences, "\n".join(qos.differences)
    seen = set()
    for item in qos.items:
        _, cpu = _pack(item.body)
        for key, suffix in STATEFULSET_SUFFIX.items():
            pod = _first_pod(tier, item.namespace, f"{item.name}-{suffix}")
            if pod is None:
                continue
            breaches = [m for m in cpu.messages if f" of the {key} pod" in m.split(": ", 2)[1]]
            guaranteed = pod.status.qos_class == "Guaranteed"
            seen.add((guaranteed, bool(breaches)))
            assert guaranteed == (not breaches), (
                f"{item.id}: the API server made {pod.metadata.name} {pod.status.qos_class}; K3 says {breaches or 'nothing'}"
            )
    assert seen == {(True, False), (False, True)}, "both verdicts must have been seen"


def _first_pod(tier, namespace: str, statefulset: str):
    from kubernetes.client.rest import ApiException

    try:
        return tier.core.read_namespaced_pod(f"{statefulset}-0", namespace)
    except ApiException as error:
        if error.status == 404:
            return None
        raise


@pytest.mark.operators_last
@pytest.mark.parametrize("case", UNDECODABLE, ids=[case.case for case in UNDECODABLE])
def test_a_duration_go_cannot_read_blinds_the_operator_to_its_namespace(tier, case):
    """The object cannot be decoded: the operator's informer fails to list the namespace, so it reconciles nothing
    there, this cluster or any other. It runs after every other operator test (conftest): the list error names no
    namespace, which the other tests would count as theirs. The cluster is deleted afterwards."""
    tier.apply(case.body)
    try:
        logged = _wait_for_refusals(tier, [case])[case.case]
        _check_refusal(tier, case, logged)
    finally:
        tier.custom.delete_namespaced_custom_object("pxc.percona.com", "v1", case.namespace, "perconaxtradbclusters", case.name)
