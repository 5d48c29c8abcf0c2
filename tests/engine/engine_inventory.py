"""What is in the cluster, read generically: every object of every listable kind, Helm releases as Helm stores
them, and the accounting of a namespace's objects against a stack's state."""

from __future__ import annotations

import base64
import gzip
import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import yaml
from kubernetes import client as k8s_client
from kubernetes.dynamic import DynamicClient

# Objects Kubernetes itself keeps in every namespace, and records that are not part of anything.
NAMESPACE_DEFAULTS = {("ServiceAccount", "default"), ("ConfigMap", "kube-root-ca.crt")}
RECORD_KINDS = {"Event"}


@dataclass(frozen=True)
class Live:
    kind: str
    api_version: str
    namespace: str | None
    name: str
    body: dict[str, Any]

    @property
    def label(self) -> str:
        return f"{self.kind} {self.namespace + '/' if self.namespace else ''}{self.name}"


def _listable(dynamic: DynamicClient) -> list:
    kinds = []
    for resource in dynamic.resources.search():
        if "list" not in (resource.verbs or []) or "/" in resource.name or not resource.kind or resource.kind.endswith("List"):
            continue
        kinds.append(resource)
    # one entry per kind: the preferred version of its group (the same object is served in several versions)
    preferred = {}
    for resource in kinds:
        key = (resource.group, resource.kind)
        if key not in preferred or resource.preferred:
            preferred[key] = resource
    return list(preferred.values())


def everything(api: k8s_client.ApiClient, namespace: str | None, *, cluster_scoped: bool = False) -> list[Live]:
    """Every object in ``namespace`` (and, with ``cluster_scoped``, every cluster-scoped object), Events left out."""
    dynamic = DynamicClient(api)
    # discovery is cached in a file per API server address (the client's osrcp-<hash>.json in the temp folder), made
    # by any earlier run against the same port: read the kinds the server serves now (CRDs come and go)
    dynamic.resources.invalidate_cache()
    found = []
    for resource in _listable(dynamic):
        if resource.kind in RECORD_KINDS:
            continue
        if resource.namespaced and namespace is None or not resource.namespaced and not cluster_scoped:
            continue
        try:
            items = dynamic.get(resource, namespace=namespace if resource.namespaced else None).to_dict()["items"]
        except Exception:  # noqa: BLE001 - a kind the server lists in discovery but refuses to list (rare aggregated APIs)
            continue
        for item in items:
            meta = item["metadata"]
            found.append(Live(resource.kind, resource.group_version, meta.get("namespace"), meta["name"], item))
    return found


def helm_releases(core: k8s_client.CoreV1Api, namespace: str) -> dict[str, dict[str, Any]]:
    """The newest revision of each Helm release in ``namespace`` as Helm stores it (Secret driver: the release is
    base64(gzip(JSON)) in ``data.release``, labelled owner=helm, name, version, status)."""
    newest: dict[str, dict[str, Any]] = {}
    for secret in core.list_namespaced_secret(namespace, label_selector="owner=helm").items:
        raw = base64.b64decode(base64.b64decode(secret.data["release"]))
        release = json.loads(gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw)
        if release["name"] not in newest or release["version"] > newest[release["name"]]["version"]:
            newest[release["name"]] = release
    return newest


def rendered_objects(release: dict[str, Any]) -> list[tuple[str, str, str | None]]:
    """(kind, name, namespace) of every object the chart rendered for the release (its stored manifest)."""
    objects = []
    for document in yaml.safe_load_all(release.get("manifest") or ""):
        if isinstance(document, dict) and document.get("kind"):
            meta = document.get("metadata") or {}
            objects.append((document["kind"], meta["name"], meta.get("namespace")))
    return objects


def unaccounted(
    objects: Iterable[Live],
    state_resources: list[dict[str, Any]],
    releases: dict[str, dict[str, Any]],
    stand_ins: set[tuple[str, str]],
    operator_made: set[tuple[str, str]] = frozenset(),
) -> list[str]:
    """Objects in a namespace that nothing explains: not a resource of the stack's state, not rendered by one of
    its Helm releases, not owned (ownerReferences, transitively) by an explained object, not one the operator makes
    for the stack's cluster without an owner (``operator_made``), not a namespace default, not a stand-in of the
    test. An object an interrupted run created and a later run created again under another name, or left behind, is
    listed here."""
    objects = list(objects)
    explained: set[str] = set()
    state_ids = {r.get("id") for r in state_resources if r.get("id")}
    rendered = {(kind, name) for release in releases.values() for kind, name, _ in rendered_objects(release)}
    for obj in objects:
        key = (obj.kind, obj.name)
        if (
            key in NAMESPACE_DEFAULTS
            or key in stand_ins
            or key in operator_made
            or key in rendered
            or f"{obj.namespace}/{obj.name}" in state_ids
            or (
                obj.kind == "Secret"
                and obj.body["metadata"].get("labels", {}).get("owner") == "helm"
                and obj.body["metadata"]["labels"].get("name") in releases
            )
        ):
            explained.add(obj.body["metadata"]["uid"])
    changed = True
    while changed:  # ownership chains: Deployment -> ReplicaSet -> Pod, StatefulSet -> Pod, Job -> Pod, ...
        changed = False
        made = _made_by(obj for obj in objects if obj.body["metadata"]["uid"] in explained)
        for obj in objects:
            uid = obj.body["metadata"]["uid"]
            owners = {ref["uid"] for ref in obj.body["metadata"].get("ownerReferences") or []}
            if uid not in explained and (owners & explained or (obj.kind, obj.name) in made):
                explained.add(uid)
                changed = True
    return [obj.label for obj in objects if obj.body["metadata"]["uid"] not in explained]


def _made_by(explained: Iterable[Live]) -> set[tuple[str, str]]:
    """Objects controllers make without an ownerReference: a Service's Endpoints (same name) and the claims of a
    StatefulSet's volumeClaimTemplates (``<template>-<statefulset>-<ordinal>``, kept after the StatefulSet by its
    retention policy)."""
    made = set()
    for obj in explained:
        if obj.kind == "Service":
            made.add(("Endpoints", obj.name))
        elif obj.kind == "StatefulSet":
            for template in obj.body["spec"].get("volumeClaimTemplates") or []:
                for ordinal in range(obj.body["spec"].get("replicas") or 1):
                    made.add(("PersistentVolumeClaim", f"{template['metadata']['name']}-{obj.name}-{ordinal}"))
    return made
