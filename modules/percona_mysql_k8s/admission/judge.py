"""The admission server's verdict: the offline checker's own path (percona_mysql_k8s.cli.check.check_manifests), so
the webhook and ``percona-mysql-policy-check --manifests`` agree by construction.

An object under review goes to the pack as the object ``--manifests`` reads from a file (cli.manifests), beside the
cluster's Nodes from the watched cache (admission.nodes), which the pack reads as pools (K4, K5;
policies/_readers/node_pools.py) exactly as it reads the Nodes of ``kubectl get nodes -o yaml``. What the Nodes alone
are found to breach (a database pool without its taint, say) is the cluster's, not the object's: it is judged once
per state of the cache and left out of every object's verdict, so a Backup is never refused for a Node.

The pack runs as the engine runs it (a process speaking the analyzer protocol, cli.engine.Pack), one per worker:
the pack's Python evaluates one request at a time, so two packs use two cores.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from percona_mysql_k8s.cli.check import Finding, analyze, check_manifests, manifest_resources
from percona_mysql_k8s.cli.engine import Pack
from percona_mysql_k8s.cli.manifests import ManifestObject, type_token
from percona_mysql_k8s.policies import SHELL

NODE_TYPE = "kubernetes:core/v1:Node"
SOURCE = "admission review"
# What the API server writes into an object's metadata before the validating webhooks see it (registry
# rest.FillObjectMetaSystemFields, the field manager's managedFields, generation from the CRD strategy's
# PrepareForCreate, resourceVersion from storage on UPDATE): no client sends them, and server-side apply refuses a
# client's managedFields (C1), so the object is judged without them.
SERVER_WRITTEN_METADATA = frozenset({"managedFields", "uid", "creationTimestamp", "generation", "resourceVersion"})


@dataclass(frozen=True)
class Verdict:
    findings: tuple[Finding, ...] = field(default_factory=tuple)

    @property
    def mandatory(self) -> list[Finding]:
        return [f for f in self.findings if f.diagnostic.level == "mandatory"]

    @property
    def advisory(self) -> list[Finding]:
        return [f for f in self.findings if f.diagnostic.level != "mandatory"]

    @property
    def rules(self) -> list[str]:
        return sorted({f.diagnostic.rule for f in self.findings})


def finding_line(finding: Finding) -> str:
    """The finding as the pack words it, without the policy's description line: ``F2: ... Fix: ...``."""
    lines = finding.diagnostic.message.splitlines()
    return " ".join(lines[1:] or lines).strip()


def manifest_object(obj: Mapping[str, Any], *, namespace: str = "", name: str = "") -> ManifestObject:
    """An object as ``--manifests`` reads one (cli.manifests.read_manifests): its type token, ``namespace/name``, and
    its properties without ``status`` (a Node's kept: its allocatable is what the pack places pods against) and
    without ``metadata.managedFields``: the API server writes those before admission, and C1 refuses them in what a
    user sends (server-side apply: "metadata.managedFields must be nil"), so a review would refuse every object."""
    metadata = obj.get("metadata") if isinstance(obj.get("metadata"), Mapping) else {}
    name = str(metadata.get("name") or name or metadata.get("generateName") or "(generated)")
    namespace = str(metadata.get("namespace") or namespace or "")
    kind, api_version = str(obj.get("kind") or ""), str(obj.get("apiVersion") or "")
    keep_status = api_version == "v1" and kind == "Node"
    props = {key: value for key, value in obj.items() if key != "status" or keep_status}
    if isinstance(props.get("metadata"), Mapping):  # the object as its author sent it (C1 judges what a client sends)
        props["metadata"] = {key: value for key, value in props["metadata"].items() if key not in SERVER_WRITTEN_METADATA}
    return ManifestObject(
        type_token(api_version, kind), f"{namespace}/{name}" if namespace else name, props, SOURCE, 1, 1, described=SOURCE
    )


def _key(finding: Finding) -> tuple[str, str]:
    return finding.diagnostic.policy, finding.diagnostic.message


class Judge:
    """Judges objects with the pack, beside the Nodes ``nodes()`` returns as ``(generation, Node objects)``."""

    def __init__(
        self,
        *,
        pack_dir: Path | None = None,
        policy_config: Mapping[str, Mapping[str, Any]] | None = None,
        workers: int = 1,
        nodes: Callable[[], tuple[int, Sequence[Mapping[str, Any]]]] | None = None,
    ):
        self.policy_config = dict(policy_config or {})
        self.nodes = nodes or (lambda: (0, ()))
        self._packs: queue.Queue[Pack] = queue.Queue()
        self._all: list[Pack] = []
        try:
            for _ in range(max(1, workers)):
                pack = Pack(pack_dir or SHELL, stack="", project="manifests")
                self._all.append(pack)
                pack.configure(self.policy_config)
                self._packs.put(pack)
        except Exception:
            self.close()
            raise
        self._baseline: tuple[int, frozenset] | None = None
        self._baseline_lock = threading.Lock()

    def _report(self, objects: list[ManifestObject]) -> list[Finding]:
        pack = self._packs.get()
        try:
            return check_manifests(objects, policy_config=self.policy_config, pack=pack).findings
        finally:
            self._packs.put(pack)

    def _object_report(self, obj: ManifestObject, nodes: list[ManifestObject]) -> list[Finding]:
        """``check_manifests([obj, *nodes])`` less each Node's own ``Analyze``: what those find is the Nodes' alone, in
        the cluster's findings (_cluster_findings) and left out of every verdict anyway, so the pack is not asked
        again per review (one call per Node: most of a review's time in a large cluster)."""
        resources, subjects = manifest_resources([obj, *nodes])
        pack = self._packs.get()
        try:
            pack.configure(self.policy_config)
            return analyze(pack, resources[:1], resources, subjects)
        finally:
            self._packs.put(pack)

    def _node_objects(self, nodes: Sequence[Mapping[str, Any]]) -> list[ManifestObject]:
        return [manifest_object(node) for node in nodes]

    def _cluster_findings(self, generation: int, nodes: list[ManifestObject]) -> frozenset:
        """What the Nodes alone are found to breach, once per state of the cache."""
        with self._baseline_lock:
            if self._baseline is None or self._baseline[0] != generation:
                found = frozenset(_key(f) for f in self._report(nodes)) if nodes else frozenset()
                self._baseline = (generation, found)
            return self._baseline[1]

    def judge(self, obj: Mapping[str, Any], *, namespace: str = "", name: str = "") -> Verdict:
        """The pack's findings on ``obj`` among the cluster's Nodes, less the Nodes' own."""
        generation, raw_nodes = self.nodes()
        nodes = self._node_objects(raw_nodes)
        findings = self._object_report(manifest_object(obj, namespace=namespace, name=name), nodes)
        cluster = self._cluster_findings(generation, nodes)
        return Verdict(tuple(f for f in findings if _key(f) not in cluster))

    def alive(self) -> bool:
        return all(pack.process.poll() is None for pack in self._all)

    def close(self) -> None:
        for pack in self._all:
            pack.close()
        self._all.clear()
