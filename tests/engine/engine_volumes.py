"""Volumes for the engine tier's claims: no provisioner runs on a bare control plane, so these stand in for one.

Both make PersistentVolumes of exactly the size the claim asks (the PXC operator compares a member's claim with its
volume: a larger volume makes it report "requested storage ... is less than actual storage" and stop reconciling,
../shared/tools/percona-operators/README.md) on a hostPath nobody mounts (kwok runs no container).

* :func:`bound_volume`: static provisioning, what the administrator of a cluster without a provisioner does for a
  claim with no storage class: a volume made beforehand, pre-bound to the claim by name (``claimRef``).
* :class:`LocalPathProvisioner`: what kind's own provisioner (rancher.io/local-path, behind kind's default
  StorageClass ``standard``, ``WaitForFirstConsumer``) does: once the scheduler has picked a Node for a pod with an
  unbound claim of that class (the claim's ``volume.kubernetes.io/selected-node`` annotation), a volume on that
  Node (``nodeAffinity``), bound to the claim; a released one is deleted (``reclaimPolicy: Delete``).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kubernetes import client as k8s_client
from kubernetes import config as k8s_config
from kubernetes.client.rest import ApiException

LOCAL_PATH = "rancher.io/local-path"  # kind's provisioner (kind's default StorageClass `standard`)
SELECTED_NODE = "volume.kubernetes.io/selected-node"
PROVISIONED_BY = "pv.kubernetes.io/provisioned-by"


def bound_volume(core: k8s_client.CoreV1Api, name: str, namespace: str, claim: str, size: str) -> None:
    """The PersistentVolume an administrator makes for a claim with no storage class (static provisioning).

    Assumes the claim asks for ReadWriteOnce and exactly ``size`` with no storage class (the pmm chart's
    ``storage.storageClassName: ""``, the custom resource's volumeSpec without storageClassName, and no default
    StorageClass here). Pre-bound to the claim, so no other claim takes it."""
    core.create_persistent_volume(
        {
            "metadata": {"name": name, "labels": {"engine-tier/stand-in": "volume"}},
            "spec": {
                "capacity": {"storage": size},
                "accessModes": ["ReadWriteOnce"],
                "persistentVolumeReclaimPolicy": "Retain",
                "storageClassName": "",
                "claimRef": {"namespace": namespace, "name": claim},
                "hostPath": {"path": f"/var/lib/engine-tier/{name}"},
            },
        }
    )


def delete_volumes(core: k8s_client.CoreV1Api, names: list[str]) -> None:
    for name in names:
        try:
            core.delete_persistent_volume(name)
        except ApiException as error:
            if error.status != 404:
                raise


class LocalPathProvisioner:
    """Provisions, in the cluster ``kubeconfig`` names (a path, or a callable returning one once the cluster exists),
    every claim of a StorageClass whose provisioner is rancher.io/local-path, as that provisioner does."""

    def __init__(self, kubeconfig: Callable[[], Path | None], interval: float = 0.5):
        self._kubeconfig = kubeconfig
        self.interval = interval
        self.provisioned: list[str] = []  # "<namespace>/<claim> -> <volume> on <node> (<size>)"
        self.errors: list[str] = []
        self._core: k8s_client.CoreV1Api | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="local-path-provisioner", daemon=True)

    def __enter__(self) -> LocalPathProvisioner:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join(timeout=30)

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self._tend()
            except Exception as error:  # noqa: BLE001 - the cluster not there yet, or gone: retried, kept for the report
                self.errors.append(f"{type(error).__name__}: {str(error)[:200]}")
                del self.errors[:-20]
                self._core = None
            self._stop.wait(self.interval)

    def _tend(self) -> None:
        if self._core is None:
            path = self._kubeconfig()
            if path is None or not Path(path).is_file():
                return
            self._core = k8s_client.CoreV1Api(k8s_config.new_client_from_config(str(path)))
        core = self._core
        storage = k8s_client.StorageV1Api(core.api_client)
        classes = {c.metadata.name for c in storage.list_storage_class(_request_timeout=20).items if c.provisioner == LOCAL_PATH}
        if not classes:
            return
        for claim in core.list_persistent_volume_claim_for_all_namespaces(_request_timeout=20).items:
            node = (claim.metadata.annotations or {}).get(SELECTED_NODE)
            if claim.spec.storage_class_name in classes and not claim.spec.volume_name and node:
                self._provision(core, claim, node)
        for volume in core.list_persistent_volume(_request_timeout=20).items:
            annotations = volume.metadata.annotations or {}
            if annotations.get(PROVISIONED_BY) == LOCAL_PATH and volume.status.phase == "Released":
                core.delete_persistent_volume(volume.metadata.name)

    def _provision(self, core: k8s_client.CoreV1Api, claim: k8s_client.V1PersistentVolumeClaim, node: str) -> None:
        meta = claim.metadata
        name = f"pvc-{meta.uid}"  # local-path names a volume after its claim's uid
        size = claim.spec.resources.requests["storage"]
        body: dict[str, Any] = {
            "metadata": {"name": name, "annotations": {PROVISIONED_BY: LOCAL_PATH}},
            "spec": {
                "capacity": {"storage": size},
                "accessModes": claim.spec.access_modes,
                "persistentVolumeReclaimPolicy": "Delete",
                "storageClassName": claim.spec.storage_class_name,
                "claimRef": {"namespace": meta.namespace, "name": meta.name, "uid": meta.uid},
                "hostPath": {
                    "path": f"/var/local-path-provisioner/{name}_{meta.namespace}_{meta.name}",
                    "type": "DirectoryOrCreate",
                },
                "nodeAffinity": {
                    "required": {
                        "nodeSelectorTerms": [
                            {"matchExpressions": [{"key": "kubernetes.io/hostname", "operator": "In", "values": [node]}]}
                        ]
                    }
                },
            },
        }
        try:
            core.create_persistent_volume(body)
        except ApiException as error:
            if error.status == 409:  # made on an earlier poll; the PV controller binds it
                return
            raise
        self.provisioned.append(f"{meta.namespace}/{meta.name} -> {name} on {node} ({size})")
