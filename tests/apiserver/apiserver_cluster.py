"""A real Kubernetes API server, driven with the official ``kubernetes`` client (dynamic client).

Everything is server-side apply with one field manager and ``force=True``, as pulumi-kubernetes v4 does.
Server-side apply refuses a field the schema does not declare ("field not declared in schema"), so a
misspelt field is a rejection, not a silently pruned setting.

:func:`apply_and_verify` is the one code path every test of the tier goes through: apply in dependency
order, read back and compare, then delete everything and wait until the namespaces empty.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from apiserver_objects import KubeObject, apply_order, defaulted, differences, expected_readback, load_manifests
from kubernetes import client as k8s_client
from kubernetes import config as k8s_config
from kubernetes.dynamic import DynamicClient
from kubernetes.dynamic.exceptions import DynamicApiError, ResourceNotFoundError

FIELD_MANAGER = "percona-mysql-apiserver-tier"
# Finalizers that controllers running here (namespace, garbage collector, job) take care of. Any other
# finalizer (percona.com/delete-*-pods-in-order, ...) belongs to an operator that does not run here.
_KUBERNETES_FINALIZERS = ("kubernetes", "foregroundDeletion", "orphan", "kubernetes.io/", "batch.kubernetes.io/")


def error_message(error: Exception) -> str:
    """The API server's own message (``Status.message``) of a failed request."""
    body = getattr(error, "body", None)
    if body:
        try:
            return json.loads(body).get("message") or str(body)
        except (TypeError, ValueError):
            return str(body)
    return str(error)


class Cluster:
    """A connection to the API server named by ``kubeconfig``."""

    def __init__(self, kubeconfig: Path, cache_dir: Path, timeout: float = 180.0):
        self.api = k8s_config.new_client_from_config(str(kubeconfig))
        self.dynamic = DynamicClient(self.api, cache_file=str(cache_dir / "discovery.json"))
        self.timeout = timeout

    def version(self) -> str:
        return k8s_client.VersionApi(self.api).get_code(_request_timeout=10).git_version

    def resource(self, api_version: str, kind: str):
        return self.dynamic.resources.get(api_version=api_version, kind=kind)

    # ---------------------------------------------------------------------------------------------
    def apply(self, body: dict[str, Any], *, dry_run: bool = False) -> dict[str, Any]:
        """Server-side apply ``body``; the stored object (raises ``DynamicApiError`` when rejected)."""
        resource = self.resource(body["apiVersion"], body["kind"])
        namespace = body.get("metadata", {}).get("namespace") if resource.namespaced else None
        result = self.dynamic.server_side_apply(
            resource,
            body=body,
            namespace=namespace,
            field_manager=FIELD_MANAGER,
            force_conflicts=True,
            dry_run="All" if dry_run else None,
            _request_timeout=60,
        )
        return result.to_dict()

    def get(self, api_version: str, kind: str, name: str, namespace: str | None) -> dict[str, Any] | None:
        resource = self.resource(api_version, kind)
        try:
            return self.dynamic.get(resource, name=name, namespace=namespace if resource.namespaced else None).to_dict()
        except DynamicApiError as error:
            if error.status == 404:
                return None
            raise

    def list(self, api_version: str, kind: str, namespace: str | None = None) -> list[dict[str, Any]]:
        resource = self.resource(api_version, kind)
        return self.dynamic.get(resource, namespace=namespace if resource.namespaced else None).to_dict()["items"]

    def delete(self, api_version: str, kind: str, name: str, namespace: str | None) -> None:
        resource = self.resource(api_version, kind)
        try:
            self.dynamic.delete(
                resource, name=name, namespace=namespace if resource.namespaced else None, propagation_policy="Background"
            )
        except DynamicApiError as error:
            if error.status != 404:
                raise

    def set_finalizers(self, live: dict[str, Any], finalizers: list[str]) -> None:
        resource = self.resource(live["apiVersion"], live["kind"])
        metadata = live["metadata"]
        self.dynamic.patch(
            resource,
            body={"metadata": {"finalizers": finalizers or None}},
            name=metadata["name"],
            namespace=metadata.get("namespace"),
            content_type="application/merge-patch+json",
        )

    # ---------------------------------------------------------------------------------------------
    def wait_established(self, names: Iterable[str]) -> None:
        pending = set(names)
        deadline = time.monotonic() + self.timeout
        while pending:
            for name in sorted(pending):
                crd = self.get("apiextensions.k8s.io/v1", "CustomResourceDefinition", name, None)
                conditions = (crd or {}).get("status", {}).get("conditions") or []
                if any(c["type"] == "Established" and c["status"] == "True" for c in conditions):
                    pending.discard(name)
            if pending and time.monotonic() > deadline:
                raise TimeoutError(f"CRDs not Established after {self.timeout}s: {sorted(pending)}")
            if pending:
                time.sleep(0.5)
        self.dynamic.resources.invalidate_cache()

    def install_crds(self, files: Sequence[Path]) -> list[str]:
        """Server-side apply every CRD in ``files`` and wait until they are Established."""
        names = []
        for path in files:
            for document in load_manifests(path):
                names.append(self.apply(document)["metadata"]["name"])
        self.wait_established(names)
        return names

    def wait_namespace_gone(self, name: str) -> None:
        deadline = time.monotonic() + self.timeout
        while self.get("v1", "Namespace", name, None) is not None:
            if time.monotonic() > deadline:
                raise TimeoutError(f"namespace {name} still there after {self.timeout}s")
            time.sleep(0.5)


# -------------------------------------------------------------------------------------------------


@dataclass
class Outcome:
    obj: KubeObject
    accepted: bool = False
    error: str | None = None
    differences: list[str] = field(default_factory=list)
    defaulted: list[str] = field(default_factory=list)


@dataclass
class Report:
    outcomes: list[Outcome] = field(default_factory=list)
    cleanup: list[str] = field(default_factory=list)  # what cleaning up had to do (finalizers removed, ...)
    leftovers: list[str] = field(default_factory=list)  # objects that did not go away
    garbage_collected: list[str] = field(default_factory=list)  # objects controllers made and GC removed

    def rejected(self) -> list[Outcome]:
        return [outcome for outcome in self.outcomes if not outcome.accepted]

    def problems(self) -> list[str]:
        found = [f"REJECTED {o.obj.label()}: {o.error}" for o in self.rejected()]
        found += [f"CHANGED {o.obj.label()}: {diff}" for o in self.outcomes for diff in o.differences]
        found += [f"LEFT OVER {item}" for item in self.leftovers]
        return found

    def summary(self) -> str:
        lines = []
        for outcome in self.outcomes:
            state = "accepted" if outcome.accepted else "REJECTED"
            lines.append(
                f"  {state:8} {outcome.obj.label()}" + (f"  [{'; '.join(outcome.obj.notes)}]" if outcome.obj.notes else "")
            )
            if outcome.defaulted:
                shown = ", ".join(outcome.defaulted[:6]) + (" ..." if len(outcome.defaulted) > 6 else "")
                lines.append(f"           {len(outcome.defaulted)} fields defaulted by the server: {shown}")
            lines += [f"           differs: {diff}" for diff in outcome.differences]
            if outcome.error:
                lines.append(f"           {outcome.error}")
        lines += [f"  cleanup: {item}" for item in self.cleanup]
        lines += [f"  garbage-collected: {item}" for item in self.garbage_collected]
        lines += [f"  LEFT OVER: {item}" for item in self.leftovers]
        return "\n".join(lines)


def _operator_finalizers(live: dict[str, Any]) -> list[str]:
    return [f for f in live.get("metadata", {}).get("finalizers") or [] if not f.startswith(_KUBERNETES_FINALIZERS)]


def apply_and_verify(cluster: Cluster, objects: Sequence[KubeObject], *, settle: float = 30.0) -> Report:
    """Apply ``objects`` in dependency order, compare each stored object with what was sent, then delete
    them all and wait until namespaces the objects created are gone and nothing of theirs is left.

    Up to ``settle`` seconds are given to the job controller to create the Pods of applied Jobs before
    deleting, so that garbage collection of dependents is exercised. Cleanup always runs, also when an
    apply raised.
    """
    report = Report()
    ordered = apply_order(objects)
    applied: list[tuple[KubeObject, dict[str, Any]]] = []
    try:
        for obj in ordered:
            outcome = Outcome(obj)
            report.outcomes.append(outcome)
            try:
                resource = cluster.resource(obj.api_version, obj.kind)
            except ResourceNotFoundError:
                outcome.error = f"the API server serves no {obj.kind} in {obj.api_version} (CRD missing?)"
                continue
            metadata = obj.body.setdefault("metadata", {})
            if resource.namespaced and not metadata.get("namespace"):
                metadata["namespace"] = obj.default_namespace
                obj.notes.append(f"namespace {obj.default_namespace} (provider default)")
            elif not resource.namespaced and metadata.get("namespace"):
                obj.notes.append(f"dropped metadata.namespace {metadata.pop('namespace')} (cluster-scoped)")
            if obj.kind == "Namespace" and obj.api_version == "v1":
                live = cluster.get("v1", "Namespace", obj.name, None)
                if live and live.get("status", {}).get("phase") == "Terminating":
                    cluster.wait_namespace_gone(obj.name)
            try:
                cluster.apply(obj.body)
            except DynamicApiError as error:
                outcome.error = f"{error.status} {error_message(error)}"
                continue
            if obj.kind == "CustomResourceDefinition":
                cluster.wait_established([obj.name])
            live = cluster.get(obj.api_version, obj.kind, obj.name, metadata.get("namespace"))
            if live is None:
                outcome.error = "accepted, but not found when read back"
                continue
            outcome.accepted = True
            applied.append((obj, live))
            expected = expected_readback(obj.body)
            outcome.differences = differences(expected, live)
            outcome.defaulted = [p for p in defaulted(expected, live) if not p.startswith((".metadata", ".status"))]
        _wait_for_job_pods(cluster, applied, settle, report)
    finally:
        _clean_up(cluster, applied, report)
    return report


def _wait_for_job_pods(cluster: Cluster, applied: list[tuple[KubeObject, dict[str, Any]]], settle: float, report: Report) -> None:
    jobs = {live["metadata"]["uid"]: obj for obj, live in applied if obj.kind == "Job" and obj.group == "batch"}
    deadline = time.monotonic() + settle
    while jobs:
        owners = {
            ref.get("uid")
            for pod in _owned_in(cluster, {o.namespace for o in jobs.values()}, set(jobs))
            for ref in pod["metadata"].get("ownerReferences") or []
        }
        if set(jobs) <= owners:
            return
        if time.monotonic() > deadline:
            report.cleanup += [
                f"the job controller made no Pod for {obj.label()} within {settle}s"
                for uid, obj in jobs.items()
                if uid not in owners
            ]
            return
        time.sleep(0.5)


def _owned_in(cluster: Cluster, namespaces: Iterable[str], uids: set[str]) -> list[dict[str, Any]]:
    """Pods in ``namespaces`` owned (directly) by one of ``uids``: what the job controller made."""
    found = []
    for namespace in namespaces:
        if cluster.get("v1", "Namespace", namespace, None) is None:
            continue
        for pod in cluster.list("v1", "Pod", namespace):
            if any(ref.get("uid") in uids for ref in pod["metadata"].get("ownerReferences") or []):
                found.append(pod)
    return found


def _clean_up(cluster: Cluster, applied: list[tuple[KubeObject, dict[str, Any]]], report: Report) -> None:
    uids = {live["metadata"]["uid"] for _, live in applied}
    namespaces = {obj.namespace for obj, _ in applied if obj.namespace}
    created_namespaces = [obj.name for obj, _ in applied if obj.kind == "Namespace" and obj.api_version == "v1"]
    dependents = {
        pod["metadata"]["uid"]: f"Pod {pod['metadata']['namespace']}/{pod['metadata']['name']}"
        for pod in _owned_in(cluster, namespaces, uids)
    }

    for obj, live in reversed(applied):
        cluster.delete(obj.api_version, obj.kind, obj.name, live["metadata"].get("namespace"))

    deadline = time.monotonic() + cluster.timeout
    remaining = list(applied)
    while True:
        still = []
        for obj, live in remaining:
            current = cluster.get(obj.api_version, obj.kind, obj.name, live["metadata"].get("namespace"))
            if current is None or current["metadata"]["uid"] != live["metadata"]["uid"]:
                continue
            foreign = _operator_finalizers(current)
            if current["metadata"].get("deletionTimestamp") and foreign:
                keep = [f for f in current["metadata"]["finalizers"] if f not in foreign]
                cluster.set_finalizers(current, keep)
                report.cleanup.append(f"removed {foreign} from {obj.label()}: no operator runs here to process them")
            still.append((obj, live))
        remaining = still
        if not remaining or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    report.leftovers += [f"{obj.label()} not deleted after {cluster.timeout}s" for obj, _ in remaining]

    for name in created_namespaces:
        try:
            cluster.wait_namespace_gone(name)
        except TimeoutError as error:
            report.leftovers.append(str(error))
    left = {pod["metadata"]["uid"] for pod in _owned_in(cluster, namespaces, uids)}
    report.leftovers += [f"{dependents.get(uid, uid)} (owned by an applied object) not garbage-collected" for uid in left]
    report.garbage_collected += [label for uid, label in dependents.items() if uid not in left]
