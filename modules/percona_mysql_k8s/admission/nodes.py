"""The cluster's Nodes, listed once and kept current by a watch (the informer pattern of client-go, on the official
Python client): what the pack places a custom resource on under review (K4, K5), as the existing target reads them.

Only what the reading needs is kept of a Node (core.node_inventory.observe: name, labels, taints, ``unschedulable``,
``status.allocatable``, the ``Ready`` condition): a Node object carries its images and addresses too, which would
only lengthen every review. A watch that ends is resumed from its last resourceVersion; one the API server no
longer holds (410 Gone) lists again. Until the first list, :meth:`NodeCache.snapshot` holds no Node and the readiness
probe says so: the Node rules would pass what the Nodes refuse.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Mapping
from typing import Any

LOG = logging.getLogger("percona_mysql_k8s.admission")
WATCH_SECONDS = 300  # the API server ends a watch by then at the latest; resumed at once
RETRY_SECONDS = 5


def trimmed(node: Mapping[str, Any]) -> dict[str, Any]:
    """What the Node reading needs of ``node`` (API JSON, camelCase)."""
    metadata = node.get("metadata") or {}
    spec = node.get("spec") or {}
    status = node.get("status") or {}
    kept_spec = {key: spec[key] for key in ("taints", "unschedulable") if key in spec}
    kept_status = {key: status[key] for key in ("allocatable", "capacity") if key in status}
    kept_status["conditions"] = [c for c in status.get("conditions") or [] if isinstance(c, Mapping) and c.get("type") == "Ready"]
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": metadata.get("name"), "labels": dict(metadata.get("labels") or {})},
        "spec": kept_spec,
        "status": kept_status,
    }


class NodeCache:
    """Nodes by name, with a generation that changes whenever one does."""

    def __init__(self) -> None:
        self._nodes: dict[str, dict[str, Any]] = {}
        self._generation = 0
        self._lock = threading.Lock()
        self.listed = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def snapshot(self) -> tuple[int, tuple[dict[str, Any], ...]]:
        with self._lock:
            return self._generation, tuple(self._nodes[name] for name in sorted(self._nodes))

    def replace(self, nodes: list[Mapping[str, Any]]) -> None:
        with self._lock:
            self._nodes = {str((n.get("metadata") or {}).get("name")): trimmed(n) for n in nodes}
            self._generation += 1
        self.listed.set()

    def apply(self, event_type: str, node: Mapping[str, Any]) -> None:
        name = str((node.get("metadata") or {}).get("name"))
        with self._lock:
            if event_type == "DELETED":
                self._nodes.pop(name, None)
            elif event_type in ("ADDED", "MODIFIED"):
                kept = trimmed(node)
                if self._nodes.get(name) == kept:
                    return  # a heartbeat: nothing the rules read changed
                self._nodes[name] = kept
            else:
                return
            self._generation += 1

    # ---- the watch ---------------------------------------------------------------------------------
    def start(self, api_client) -> None:
        self._thread = threading.Thread(target=self._run, args=(api_client,), name="node-watch", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()

    def _run(self, api_client) -> None:
        from kubernetes import client, watch
        from kubernetes.client.rest import ApiException

        core = client.CoreV1Api(api_client)
        serialize = api_client.sanitize_for_serialization
        version = None
        while not self._stop.is_set():
            try:
                if version is None:
                    listed = core.list_node(_request_timeout=30)
                    self.replace([serialize(node) for node in listed.items])
                    version = listed.metadata.resource_version
                    LOG.info("nodes listed: %d", len(listed.items))
                stream = watch.Watch().stream(
                    core.list_node, resource_version=version, timeout_seconds=WATCH_SECONDS, allow_watch_bookmarks=True
                )
                for event in stream:
                    if self._stop.is_set():
                        return
                    raw = event.get("raw_object") or {}
                    version = (raw.get("metadata") or {}).get("resourceVersion") or version
                    if event.get("type") == "ERROR":
                        version = None  # 410 Gone: list again
                        break
                    self.apply(str(event.get("type")), raw)
            except ApiException as error:
                if error.status == 410:
                    version = None
                    continue
                LOG.warning("node watch: %s %s; retrying in %ss", error.status, error.reason, RETRY_SECONDS)
                time.sleep(RETRY_SECONDS)
            except Exception as error:  # noqa: BLE001 - the connection to the API server: retried, never fatal
                LOG.warning("node watch: %s: %s; retrying in %ss", type(error).__name__, error, RETRY_SECONDS)
                time.sleep(RETRY_SECONDS)
