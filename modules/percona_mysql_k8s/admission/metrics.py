"""The server's Prometheus metrics, in a registry of its own (prometheus_client), served on their own port over TLS
so the NetworkPolicy can admit the API server to the webhook and a scraper (PMM's vmagent, a Prometheus) to these."""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

PREFIX = "percona_mysql_admission"


class Metrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        self.reviews = Counter(
            f"{PREFIX}_reviews",
            "AdmissionReviews answered, by kind, operation and answer (allowed, denied, warned, invalid)",
            ["kind", "operation", "answer"],
            registry=self.registry,
        )
        self.review_seconds = Histogram(
            f"{PREFIX}_review_seconds",
            "Time to judge one AdmissionReview, body read to answer written",
            ["kind"],
            buckets=(0.005, 0.01, 0.02, 0.03, 0.05, 0.075, 0.1, 0.25, 0.5, 1.0, 2.5),
            registry=self.registry,
        )
        self.nodes = Gauge(f"{PREFIX}_nodes", "Nodes in the watched cache the Node rules read", registry=self.registry)
        self.audit_findings = Gauge(
            f"{PREFIX}_audit_findings",
            "Findings of the last audit sweep, per custom resource and rule (level: mandatory or advisory)",
            ["namespace", "kind", "name", "rule", "level"],
            registry=self.registry,
        )
        self.audit_objects = Gauge(
            f"{PREFIX}_audit_objects", "Percona custom resources judged by the last audit sweep", registry=self.registry
        )
        self.audit_last = Gauge(
            f"{PREFIX}_audit_last_run_timestamp_seconds", "When the last audit sweep finished (Unix time)", registry=self.registry
        )
        self.audit_errors = Counter(
            f"{PREFIX}_audit_errors", "Audit sweeps or objects that could not be read or recorded", registry=self.registry
        )
