"""Rule C1 against the real API server: the pack's CRD reader (percona_mysql_k8s.core.crd) and kube-apiserver give
the same accept/refuse answer on every custom resource of a corpus.

The corpus: every Percona custom resource the shipped stacks create; the operators' and charts' custom resources
of ``upstream-corpus.json`` (reference material); and breakages in other people's styles (:data:`MUTATIONS`): a
required field missing, a wrong type, an enum broken, a CEL rule broken, a string where an integer is wanted,
int-or-string quantities, formats, list keys, names, versions, and unknown fields the API server prunes rather
than refuses. Each object is sent with a server-side apply dry run (pulumi-kubernetes v4's way, validated like a
real write, nothing stored) to the pinned operators' CRDs; the pack judges the same body. Where both refuse a
mutation, the API server's message must name what the pack names (a field path or the reason's text).
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from apiserver_cluster import Cluster, error_message
from apiserver_objects import from_manifests
from kubernetes.dynamic.exceptions import DynamicApiError, ResourceNotFoundError
from percona_mysql_k8s.core.crd import admit, kinds
from reference_material.resolve import reference_path
from test_apiserver_stacks import STACKS, collected_for

pytestmark = pytest.mark.apiserver

NAMESPACE = "apiserver-tier-crd-admission"
CRDS = ("helm-pxc-operator-1.20.0-crds-crd.yaml", "ps-operator-v1.2.0-crd.yaml")  # the carried ones (core/crd/generate.py)
BASES = Path(__file__).resolve().parents[1] / "policies" / "_bases"


@dataclass
class Case:
    name: str
    body: dict[str, Any]
    mutation: bool = False


def _merged(base: Any, patch: Any) -> Any:
    """The policy cases' patch (tests/policies/harness.py): objects merge, null deletes, anything else replaces."""
    if not (isinstance(base, dict) and isinstance(patch, dict)):
        return copy.deepcopy(patch)
    merged = copy.deepcopy(base)
    for key, value in patch.items():
        if value is None:
            merged.pop(key, None)
        else:
            merged[key] = _merged(merged.get(key), value)
    return merged


def _resource(name: str) -> dict[str, Any]:
    data = json.loads((BASES / f"{name}.json").read_text())
    if "base" in data:
        below = _resource(data["base"])
        return {**below, "props": _merged(below["props"], data.get("patch", {}))}
    return data


def _base(name: str) -> dict[str, Any]:
    data = _resource(name)
    group_version, kind = data["type"].split(":")[1:]
    return {**copy.deepcopy(data["props"]), "apiVersion": group_version, "kind": kind}


def _set(path: str, value: Any) -> Callable[[dict], None]:
    def mutate(body: dict) -> None:
        *parents, leaf = path.split(".")
        node = body
        for step in parents:
            node = node.setdefault(step, {})
        if value is DELETE:
            node.pop(leaf, None)
        else:
            node[leaf] = value

    return mutate


DELETE = object()
SIDECAR_ENV = [{"name": "probe", "image": "busybox", "env": [{"name": "FOO", "value": "1"}, {"name": "FOO", "value": "2"}]}]
BACKUP = {"apiVersion": "ps.percona.com/v1", "kind": "PerconaServerMySQLBackup", "metadata": {"name": "manual"}, "spec": {}}
RESTORE = {
    "apiVersion": "pxc.percona.com/v1",
    "kind": "PerconaXtraDBClusterRestore",
    "metadata": {"name": "restore1"},
    "spec": {"pxcCluster": "orders", "backupName": "daily", "pitr": {"type": "date", "backupSource": {"storageName": "s3"}}},
}

# (case, base, how): base is a policy base (tests/policies/_bases) or a whole body
MUTATIONS: list[tuple[str, str | dict, Callable[[dict], None]]] = [
    # PerconaServerMySQL (group replication, tests/policies/_bases/ps-gr.json)
    ("ps-as-is", "ps-gr", lambda body: None),
    ("ps-size-quoted", "ps-gr", _set("spec.mysql.size", "3")),
    ("ps-size-whole-float", "ps-gr", _set("spec.mysql.size", 3.0)),
    ("ps-size-fraction", "ps-gr", _set("spec.mysql.size", 3.5)),
    ("ps-size-even", "ps-gr", _set("spec.mysql.size", 4)),
    ("ps-size-one", "ps-gr", _set("spec.mysql.size", 1)),
    ("ps-size-int32-overflow", "ps-gr", _set("spec.mysql.size", 2**33 + 1)),
    ("ps-cluster-type-capitalised", "ps-gr", _set("spec.mysql.clusterType", "Group-Replication")),
    ("ps-no-router-block", "ps-gr", _set("spec.proxy.router", DELETE)),
    ("ps-router-and-haproxy", "ps-gr", _set("spec.proxy.router.enabled", True)),
    ("ps-probe-in-pxc-spelling", "ps-gr", _set("spec.mysql.readinessProbes", {"timeoutSeconds": 10})),
    ("ps-unknown-root-field", "ps-gr", _set("extra", {"note": "hand-written"})),
    ("ps-cpu-fraction-number", "ps-gr", _set("spec.mysql.resources.requests.cpu", 1.5)),
    ("ps-cpu-fraction-string", "ps-gr", _set("spec.mysql.resources.requests.cpu", "1.5")),
    ("ps-cpu-whole-number", "ps-gr", _set("spec.mysql.resources.requests.cpu", 4)),
    ("ps-memory-bytes-number", "ps-gr", _set("spec.mysql.resources.requests.memory", 17179869184)),
    ("ps-memory-trailing-newline", "ps-gr", _set("spec.mysql.resources.requests.memory", "16Gi\n")),
    ("ps-memory-leading-blank", "ps-gr", _set("spec.mysql.resources.requests.memory", " 16Gi")),
    ("ps-memory-gb", "ps-gr", _set("spec.mysql.resources.requests.memory", "16GB")),
    ("ps-memory-exponent", "ps-gr", _set("spec.mysql.resources.requests.memory", "1.6e10")),
    ("ps-duplicate-env", "ps-gr", _set("spec.mysql.sidecars", SIDECAR_ENV)),
    ("ps-pmm-null", "ps-gr", _set("spec.pmm", None)),
    (
        "ps-growth-step-small",
        "ps-gr",
        _set("spec.storageScaling", {"enableVolumeScaling": True, "autoscaling": {"enabled": True, "maxSize": "512Mi"}}),
    ),
    (
        "ps-growth-step-number",
        "ps-gr",
        _set("spec.storageScaling", {"enableVolumeScaling": True, "autoscaling": {"enabled": True, "growthStep": 2}}),
    ),
    (
        "ps-growth-step-negative",
        "ps-gr",
        _set("spec.storageScaling", {"enableVolumeScaling": True, "autoscaling": {"enabled": True, "growthStep": "-1Gi"}}),
    ),
    (
        "ps-growth-step-garbage",
        "ps-gr",
        _set("spec.storageScaling", {"enableVolumeScaling": True, "autoscaling": {"enabled": True, "growthStep": "2 GiB"}}),
    ),
    ("ps-autoscaling-without-volume-scaling", "ps-gr", _set("spec.storageScaling", {"autoscaling": {"enabled": True}})),
    ("ps-trigger-above-maximum", "ps-gr", _set("spec.storageScaling", {"autoscaling": {"triggerThresholdPercent": 99}})),
    ("ps-trigger-quoted", "ps-gr", _set("spec.storageScaling", {"autoscaling": {"triggerThresholdPercent": "80"}})),
    ("ps-name-underscore", "ps-gr", _set("metadata.name", "orders_db")),
    ("ps-name-capitals", "ps-gr", _set("metadata.name", "Orders")),
    ("ps-pitr-without-binlog-server", "ps-gr-backed-up", _set("spec.backup.pitr.binlogServer.image", DELETE)),
    ("ps-backed-up-as-is", "ps-gr-backed-up", lambda body: None),
    ("ps-keep-quoted", "ps-gr-backed-up", lambda body: body["spec"]["backup"]["schedule"][0].__setitem__("keep", "8")),
    (
        "ps-schedule-type-unknown",
        "ps-gr-backed-up",
        lambda body: body["spec"]["backup"]["schedule"][0].__setitem__("type", "differential"),
    ),
    # PerconaXtraDBCluster (tests/policies/_bases/pxc.json)
    ("pxc-as-is", "pxc", lambda body: None),
    ("pxc-size-quoted", "pxc", _set("spec.pxc.size", "3")),
    ("pxc-size-negative", "pxc", _set("spec.pxc.size", -1)),
    ("pxc-size-int32-overflow", "pxc", _set("spec.pxc.size", 3000000000)),
    ("pxc-probe-in-ps-spelling", "pxc", _set("spec.pxc.readinessProbe", {"timeoutSeconds": 3})),
    ("pxc-unknown-root-field", "pxc", _set("extra", {"note": "hand-written"})),
    ("pxc-tls-enabled-quoted", "pxc", _set("spec.tls.enabled", "false")),
    ("pxc-auto-recovery-yes", "pxc", _set("spec.pxc.autoRecovery", "yes")),
    (
        "pxc-load-balancer-class-on-cluster-ip",
        "pxc",
        _set("spec.haproxy.exposePrimary", {"type": "ClusterIP", "loadBalancerClass": "x"}),
    ),
    ("pxc-password-lengths-crossed", "pxc", _set("spec.passwordGenerationOptions", {"minLength": 20, "maxLength": 16})),
    ("pxc-memory-gb", "pxc", _set("spec.pxc.resources.limits.memory", "16GB")),
    (
        "pxc-proxysql-max-connections-quoted",
        "pxc",
        _set("spec.proxysql", {"enabled": False, "scheduler": {"maxConnections": "1000"}}),
    ),
    (
        "pxc-retention-type-age",
        "pxc-backed-up",
        lambda body: body["spec"]["backup"]["schedule"][0].__setitem__("retention", {"type": "age", "count": 3}),
    ),
    ("pxc-backed-up-as-is", "pxc-backed-up", lambda body: None),
    (
        "pxc-storage-unknown-field",
        "pxc-backed-up",
        lambda body: next(iter(body["spec"]["backup"]["storages"].values())).__setitem__("vendor", "minio"),
    ),
    ("pxc-unserved-version", "pxc", _set("apiVersion", "pxc.percona.com/v1-2-0")),
    (
        "pxc-old-version-anything-goes",
        "pxc",
        lambda body: body.update(apiVersion="pxc.percona.com/v1-11-0", spec={"pxc": {"size": "three"}}),
    ),
    # backup and restore kinds
    ("ps-backup-missing-storage", {**BACKUP, "spec": {"clusterName": "orders"}}, lambda body: None),
    ("ps-backup-good", {**BACKUP, "spec": {"clusterName": "orders", "storageName": "s3"}}, lambda body: None),
    ("pxc-restore-date-garbage", RESTORE, _set("spec.pitr.date", "yesterday")),
    ("pxc-restore-date-missing", RESTORE, lambda body: None),
    ("pxc-restore-date-good", RESTORE, _set("spec.pitr.date", "2026-11-23 10:15:00")),
]


def _mutations() -> list[Case]:
    cases = []
    for name, base, how in MUTATIONS:
        body = _base(base) if isinstance(base, str) else copy.deepcopy(base)
        how(body)
        cases.append(Case(f"mutation {name}", body, mutation=True))
    return cases


def _ours(group_version: str, kind: str) -> bool:
    return (group_version.rpartition("/")[0], kind) in set(kinds())


def _upstream() -> list[Case]:
    entries = json.loads(reference_path("upstream-corpus.json").read_text())["entries"]
    cases = []
    for entry in entries:
        parts = entry["type"].split(":")
        if len(parts) == 3 and _ours(parts[1], parts[2]):
            cases.append(
                Case(f"upstream {entry['id']}", {**copy.deepcopy(entry["props"]), "apiVersion": parts[1], "kind": parts[2]})
            )
    return cases


def _stacks() -> list[Case]:
    return [
        Case(f"stack {stack}: {obj.label()}", copy.deepcopy(obj.body))
        for stack in STACKS
        for obj in collected_for(stack).objects
        if _ours(obj.api_version, obj.kind)
    ]


def _sent(value: Any) -> Any:
    """What pulumi-kubernetes sends: a property set to null is not sent (the engine's SkipNulls)."""
    if isinstance(value, dict):
        return {key: _sent(item) for key, item in value.items() if item is not None}
    if isinstance(value, list):
        return [_sent(item) for item in value]
    return value


def _server(cluster: Cluster, body: dict) -> tuple[bool, str]:
    body = _sent(body)
    metadata = body.setdefault("metadata", {})
    metadata["namespace"] = NAMESPACE
    metadata.setdefault("name", "unnamed")
    try:
        cluster.apply(body, dry_run=True)
    except DynamicApiError as error:
        return False, f"{error.status} {error_message(error)}"
    except ResourceNotFoundError as error:  # discovery lists no such version: the API server serves none (404)
        return False, f"404 {error}"
    return True, ""


def _dotted(text: str) -> str:
    """Field paths in one notation: ``spec.a[0].b`` (field.Path, server-side apply) and ``spec.a.0.b`` (kube-openapi)."""
    return re.sub(r"\[(\w+)\]", r".\1", text).replace(" .", " ")


def _names_the_same(answer, message: str) -> bool:
    """The API server's message names a field the pack names, quotes a reason it gives, or the value it refuses."""
    message = _dotted(message)
    for error in answer.errors:
        path = _dotted(error.path).lstrip(".")
        if path not in ("", "<nil>") and path in message:
            return True
        head, _, last = path.rpartition(".")
        if last.isdigit() and head and head in message:  # server-side apply names the list, the pack its item
            return True
        if error.detail and error.detail[:50] in message:
            return True
        if isinstance(error.value, str) and len(error.value) > 3 and error.value in message:
            return True
    return False


def test_the_pack_and_the_api_server_accept_and_refuse_the_same_custom_resources(cluster: Cluster):
    cluster.install_crds([reference_path(name, required=True) for name in CRDS])
    namespace = from_manifests([{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE}}], source="ns")
    cluster.apply(namespace[0].body)
    cases = _stacks() + _upstream() + _mutations()
    disagreements, unnamed, tally = [], [], {"accepted": 0, "refused": 0}
    try:
        for case in cases:
            accepted, message = _server(cluster, case.body)
            answer = admit(case.body["apiVersion"], case.body["kind"], case.body)
            assert answer is not None, case.name
            tally["accepted" if accepted else "refused"] += 1
            if accepted == answer.refused:
                ours = "; ".join(str(error) for error in answer.errors) or "accepted"
                disagreements.append(
                    f"{case.name}: API server {'accepts' if accepted else 'refuses: ' + message[:400]} | pack: {ours[:400]}"
                )
            elif not accepted and case.mutation and not _names_the_same(answer, message):
                unnamed.append(f"{case.name}: API server: {message[:300]} | pack: {'; '.join(map(str, answer.errors))[:300]}")
    finally:
        cluster.delete("v1", "Namespace", NAMESPACE, None)
    print(f"\n{len(cases)} custom resources ({len(_mutations())} mutations): {tally}")
    assert disagreements == [], "\n".join(disagreements)
    assert unnamed == [], "\n".join(unnamed)
    assert len(cases) >= 200 and tally["refused"] >= 30 and tally["accepted"] >= 150, tally
