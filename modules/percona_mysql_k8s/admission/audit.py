"""``audit``: every so often, judge the Percona custom resources already in the cluster (made before the webhook, or
let through by ``warn``, or by ``failurePolicy: Ignore`` while the server was away) with the same judge, and record
what is found where people and tools look: an Event on each custom resource (``kubectl describe`` shows it; type
Warning, reason ``PolicyViolation`` for a mandatory rule, ``PolicyAdvisory`` otherwise) and the
``percona_mysql_admission_audit_findings`` gauge, one series per custom resource and rule, which PMM or any
Prometheus scrapes.

An Event is named after the custom resource and a digest of the finding, so the next sweep that finds the same thing
counts it again on the same Event (``count``, ``lastTimestamp``), as the kubelet and the controllers record theirs.
"""

from __future__ import annotations

import datetime
import hashlib
import logging
import threading
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from percona_mysql_k8s.plan.admission import PERCONA_KINDS, PerconaKind

from .judge import Judge, Verdict, finding_line
from .metrics import Metrics

LOG = logging.getLogger("percona_mysql_k8s.admission")
COMPONENT = "percona-mysql-admission"
EVENT_MESSAGE_LIMIT = 1024  # what the API server keeps of an Event's message


def event_name(obj: Mapping[str, Any], policy: str, message: str) -> str:
    digest = hashlib.sha256(f"{(obj.get('metadata') or {}).get('uid')}\0{policy}\0{message}".encode()).hexdigest()[:16]
    return f"{(obj.get('metadata') or {}).get('name')}.{digest}"


def event(obj: Mapping[str, Any], policy: str, level: str, message: str, now: str, count: int = 1) -> dict[str, Any]:
    metadata = obj.get("metadata") or {}
    return {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"name": event_name(obj, policy, message), "namespace": metadata.get("namespace")},
        "involvedObject": {
            "apiVersion": obj.get("apiVersion"),
            "kind": obj.get("kind"),
            "name": metadata.get("name"),
            "namespace": metadata.get("namespace"),
            "uid": metadata.get("uid"),
        },
        "reason": "PolicyViolation" if level == "mandatory" else "PolicyAdvisory",
        "message": message[:EVENT_MESSAGE_LIMIT],
        "type": "Warning",
        "source": {"component": COMPONENT},
        "reportingComponent": COMPONENT,
        "firstTimestamp": now,
        "lastTimestamp": now,
        "count": count,
    }


class Auditor:
    """One sweep (:meth:`sweep`) lists, judges and records; :meth:`start` runs one every ``seconds``."""

    def __init__(
        self,
        judge: Judge,
        metrics: Metrics,
        *,
        list_objects: Callable[[PerconaKind], Iterable[Mapping[str, Any]]],
        record_event: Callable[[dict[str, Any]], None],
        kinds: Iterable[PerconaKind] = PERCONA_KINDS,
    ):
        self.judge = judge
        self.metrics = metrics
        self.list_objects = list_objects
        self.record_event = record_event
        self.kinds = tuple(kinds)
        self._stop = threading.Event()

    def sweep(self) -> dict[tuple[str, str, str], Verdict]:
        """Judge every custom resource of the kinds; record Events and the gauges. Returns the verdicts by
        (kind, namespace, name)."""
        verdicts: dict[tuple[str, str, str], Verdict] = {}
        series: list[tuple[tuple[str, str, str, str, str], int]] = []
        now = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        for kind in self.kinds:
            try:
                objects = list(self.list_objects(kind))
            except Exception as error:  # noqa: BLE001 - a kind whose CRD is not installed, or a refused list
                LOG.info("audit: cannot list %s: %s", kind.plural, getattr(error, "reason", None) or type(error).__name__)
                continue
            for obj in objects:
                metadata = obj.get("metadata") or {}
                namespace, name = str(metadata.get("namespace") or ""), str(metadata.get("name") or "")
                try:
                    verdict = self.judge.judge(obj)
                except Exception as error:  # noqa: BLE001 - one object's trouble never stops the sweep
                    self.metrics.audit_errors.inc()
                    LOG.warning("audit: %s %s/%s not judged: %s", kind.kind, namespace, name, type(error).__name__)
                    continue
                verdicts[(kind.kind, namespace, name)] = verdict
                counts: dict[tuple[str, str], int] = {}
                for finding in verdict.findings:
                    level = finding.diagnostic.level
                    counts[(finding.diagnostic.rule, level)] = counts.get((finding.diagnostic.rule, level), 0) + 1
                    try:
                        self.record_event(event(obj, finding.diagnostic.policy, level, finding_line(finding), now))
                    except Exception as error:  # noqa: BLE001 - recorded in the metrics, retried next sweep
                        self.metrics.audit_errors.inc()
                        LOG.warning("audit: event on %s %s/%s not recorded: %s", kind.kind, namespace, name, error)
                series += [((namespace, kind.kind, name, rule, level), n) for (rule, level), n in counts.items()]
        self.metrics.audit_findings.clear()  # a finding gone since the last sweep leaves no stale series
        for labels, n in series:
            self.metrics.audit_findings.labels(*labels).set(n)
        self.metrics.audit_objects.set(len(verdicts))
        self.metrics.audit_last.set_to_current_time()
        LOG.info(
            "audit: %d custom resources judged, %d with findings", len(verdicts), sum(1 for v in verdicts.values() if v.findings)
        )
        return verdicts

    def start(self, seconds: int) -> threading.Thread:
        def loop() -> None:
            while True:
                try:
                    self.sweep()
                except Exception as error:  # noqa: BLE001 - the next sweep tries again
                    self.metrics.audit_errors.inc()
                    LOG.warning("audit sweep failed: %s: %s", type(error).__name__, error)
                if self._stop.wait(seconds):
                    return

        thread = threading.Thread(target=loop, name="audit", daemon=True)
        thread.start()
        return thread

    def stop(self) -> None:
        self._stop.set()


def kubernetes_recorder(api_client) -> tuple[Callable, Callable]:
    """(list_objects, record_event) on the official client: a list of each kind in every namespace; an Event created,
    or on a conflict (the same finding again) counted once more on the one there."""
    from kubernetes import client
    from kubernetes.client.rest import ApiException

    custom = client.CustomObjectsApi(api_client)
    core = client.CoreV1Api(api_client)
    counts: dict[str, int] = {}

    def list_objects(kind: PerconaKind) -> list[dict[str, Any]]:
        return custom.list_cluster_custom_object(kind.group, kind.version, kind.plural, _request_timeout=30)["items"]

    def record_event(body: dict[str, Any]) -> None:
        name, namespace = body["metadata"]["name"], body["metadata"]["namespace"]
        try:
            core.create_namespaced_event(namespace, body, _request_timeout=10)
            counts[name] = 1
        except ApiException as error:
            if error.status != 409:
                raise
            counts[name] = counts.get(name, 1) + 1
            core.patch_namespaced_event(
                name, namespace, {"count": counts[name], "lastTimestamp": body["lastTimestamp"]}, _request_timeout=10
            )

    return list_objects, record_event
