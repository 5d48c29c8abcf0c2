"""What the operator tier hands the real operators to prove rule C2 and the QoS rule (test_operator_refusals.py).

* **Refusals**: every case of ``tests/policies/operator-validation`` whose custom resource C2 refuses, as its case
  file builds it (the base and patch of the policy test: one definition of each case for the rule test and the tier).
  Each goes in as written, renamed ``r<n>`` unless the case is about the name, into one namespace per operator. A
  case whose values are unknown at preview, or that is chart values, is not a custom resource the tier can apply.
  The one refusal that blinds the operator to its whole namespace (a TLS duration Go cannot decode: the informer's
  list fails) goes into a namespace of its own, and runs after every other operator test (conftest).
* **QoS**: the stacks' own custom resources (gke with PXC, eks with group replication, from the stack program), each
  pinned to a pool no Node carries (render_corpus.NOWHERE), as rendered and with one CPU limit dropped: the pods' QoS
  class, as the API server computes it, against K3's verdict.
"""

from __future__ import annotations

import copy
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from operator_inputs import wire
from render_corpus import VARIANT_BASES, CorpusItem, _drop, _pinned_nowhere, _pmm_secret, _set, _stack_cr

POLICY_CASES = Path(__file__).resolve().parents[1] / "policies"
CASES = POLICY_CASES / "operator-validation"
NAMESPACES = {"pxc": "dx-pxc-refusals", "ps": "dx-ps-refusals"}
UNDECODABLE_NAMESPACE = "dx-pxc-undecodable"
UNDECODABLE_REFUSAL = "pxc-tls-duration-syntax"
QOS_NAMESPACES = {"pxc": "dx-pxc-qos", "ps": "dx-ps-qos"}
# Every namespace the operators must watch for this file (conftest adds them to WATCH_NAMESPACE).
WATCHED = {
    "pxc": [NAMESPACES["pxc"], UNDECODABLE_NAMESPACE, QOS_NAMESPACES["pxc"]],
    "ps": [NAMESPACES["ps"], QOS_NAMESPACES["ps"]],
}
KINDS = {"PerconaXtraDBCluster": "pxc", "PerconaServerMySQL": "ps"}


def _harness():
    if str(POLICY_CASES) not in sys.path:
        sys.path.insert(0, str(POLICY_CASES))
    import harness

    return harness


@dataclass(frozen=True)
class RefusalCase:
    case: str  # the policy case's file name
    operator: str  # pxc | ps
    body: dict[str, Any]  # the custom resource as the tier applies it

    @property
    def namespace(self) -> str:
        return self.body["metadata"]["namespace"]

    @property
    def name(self) -> str:
        return self.body["metadata"]["name"]


def refusal_cases() -> list[RefusalCase]:
    """Every policy case of C2 that expects a refusal and is a custom resource known in full."""
    from percona_mysql_k8s.core.operator_validation import validate

    harness = _harness()
    found = []
    for index, path in enumerate(sorted(CASES.glob("*.json"))):
        written = harness.load_case(path)
        case = harness.resolve_resource(written)
        if (
            not case["expect"].get("violations")
            or case["expect"].get("unknown")
            or case.get("type", "").startswith("kubernetes:helm")
        ):
            continue
        body = wire(copy.deepcopy(case["props"]))
        operator = KINDS[body["kind"]]
        names_itself = "name" in ((written.get("patch") or {}).get("metadata") or {})
        metadata = body.setdefault("metadata", {})
        metadata.pop("finalizers", None)  # deletion only
        if not names_itself:
            metadata["name"] = f"r{index:02d}"
        ids = {finding.refusal.id for finding in validate(operator, body).findings}
        metadata["namespace"] = UNDECODABLE_NAMESPACE if UNDECODABLE_REFUSAL in ids else NAMESPACES[operator]
        found.append(RefusalCase(path.stem, operator, body))
    return found


# (label, the stack case's operator, the changes) of the QoS cases; the stack's CR is Guaranteed as rendered.
QOS_VARIANTS = [
    ("pxc as the stack renders it", "pxc", []),
    ("pxc without a CPU limit on mysqld", "pxc", [_drop("pxc.resources.limits.cpu")]),
    (
        "pxc init container with a CPU request and no CPU limit",
        "pxc",
        [_set("initContainer.resources", {"requests": {"cpu": "50m", "memory": "50M"}, "limits": {"memory": "50M"}})],
    ),
    ("pxc PMM client without a CPU limit", "pxc", [_drop("pmm.resources.limits.cpu")]),
    ("ps as the stack renders it", "ps", []),
    ("ps without a CPU limit on mysql (and so on mysql-init)", "ps", [_drop("mysql.resources.limits.cpu")]),
]


def qos_items() -> list[CorpusItem]:
    items = []
    for index, (label, operator, changes) in enumerate(QOS_VARIANTS):
        body = wire(_stack_cr(VARIANT_BASES[operator], {}))
        spec = body["spec"]
        _pinned_nowhere(spec)
        for change in changes:
            change(spec)
        body["metadata"] = {"name": f"q{operator}{index}", "namespace": QOS_NAMESPACES[operator]}
        spec.pop("secretsName", None)
        items.append(CorpusItem(label, operator, "qos", body, _pmm_secret(body)))
    return items
