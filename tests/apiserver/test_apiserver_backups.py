"""Backups and restores on a real API server: the custom resources with ``spec.backup`` (both engines, each
storage kind) and both restore kinds are accepted by the operators' CRDs and read back unchanged (nothing
pruned), and the restore CRDs' own rules are live (a wrong date format, a second binlog server are refused).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from apiserver_cluster import apply_and_verify
from apiserver_objects import from_manifests
from database.fixtures import GCS_STORAGE, MINIO_STORAGE, S3_STORAGE, backup_plan, gke_pools
from percona_mysql_k8s.plan.database import versions
from percona_mysql_k8s.plan.database.manifests import custom_resource
from percona_mysql_k8s.plan.database.restore import restore_manifest
from percona_mysql_k8s.plan.database.spec import DatabaseSpec, size_for_pool

pytestmark = pytest.mark.apiserver

NAMESPACE = "apiserver-tier-backups"
CRDS = ("helm-pxc-operator-1.20.0-crds-crd.yaml", "ps-operator-v1.2.0-crd.yaml")


def _namespace():
    return from_manifests([{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE}}], source="namespace")


def _cluster_cr(name: str, engine: str, storage, pitr: bool) -> dict:
    database, monitoring = gke_pools()
    proxy = "haproxy"
    spec = DatabaseSpec(name=name, namespace=NAMESPACE, engine=engine, proxy=proxy, backup=True, storage_class="premium-rwo")
    place, sizing = size_for_pool(spec, database)
    return custom_resource(spec, sizing, place, "monitoring-service", backup_plan(storage, pitr=pitr), monitoring.placement())


def test_custom_resources_with_backups_and_the_restores_are_stored_as_written(cluster, reference: Path):
    cluster.install_crds([reference / name for name in CRDS])
    documents = [
        _cluster_cr("pxc-s3", "pxc", S3_STORAGE, True),
        _cluster_cr("pxc-gcs", "pxc", GCS_STORAGE, True),
        _cluster_cr("pxc-minio", "pxc", MINIO_STORAGE, False),
        _cluster_cr("gr-gcs", "group-replication", GCS_STORAGE, True),
        _cluster_cr("gr-s3", "group-replication", S3_STORAGE, True),
        _cluster_cr("gr-minio", "group-replication", MINIO_STORAGE, False),
        restore_manifest("pxc", "pxc-s3", NAMESPACE, name="pxc-named", backup_name="cron-pxc-s3-offsite-2026112303"),
        restore_manifest(
            "pxc",
            "pxc-s3",
            NAMESPACE,
            name="pxc-pitr",
            backup_name="cron-pxc-s3-offsite-2026112303",
            point_in_time="2026-11-23 10:15:00",
        ),
        restore_manifest("group-replication", "gr-gcs", NAMESPACE, name="gr-named", backup_name="gr-gcs-full"),
        restore_manifest(
            "group-replication",
            "gr-gcs",
            NAMESPACE,
            name="gr-pitr",
            backup_name="gr-gcs-full",
            point_in_time="2026-11-23 10:15:00",
        ),
    ]
    namespace = _namespace()
    report = apply_and_verify(
        cluster, namespace + from_manifests(documents, source="backups", namespace=NAMESPACE, depends_on=[namespace[0].key])
    )
    print(report.summary())
    outcomes = {o.obj.name: o for o in report.outcomes}
    assert {"pxc-s3", "gr-gcs", "pxc-pitr", "gr-pitr"} <= set(outcomes)
    assert all(o.accepted for o in report.outcomes), [o.error for o in report.outcomes if not o.accepted]
    assert report.problems() == []  # nothing pruned, nothing left over
    stored = outcomes["gr-gcs"].obj.body["spec"]["backup"]["pitr"]["binlogServer"]
    assert stored["image"] == versions.BINLOG_SERVER_IMAGE


def test_the_restore_crds_refuse_what_the_operators_could_not_run(cluster, reference: Path):
    """Not vacuous: the same path refuses a PXC restore date in ISO form (the 1.20 CRD's CEL pattern) and a PS
    restore naming two binlog servers (CEL: size <= 1)."""
    cluster.install_crds([reference / name for name in CRDS])
    good = restore_manifest("pxc", "pxc-s3", NAMESPACE, name="good-date", backup_name="b1", point_in_time="2026-11-23 10:15:00")
    iso = restore_manifest("pxc", "pxc-s3", NAMESPACE, name="iso-date", backup_name="b1", point_in_time="2026-11-23 10:15:00")
    iso["spec"]["pitr"]["date"] = "2026-11-23T10:15:00"
    two = restore_manifest(
        "group-replication", "gr-gcs", NAMESPACE, name="two-servers", backup_name="b1", point_in_time="2026-11-23 10:15:00"
    )
    two["spec"]["pitr"]["backupSource"] = {"binlogServer": {"size": 2, "image": versions.BINLOG_SERVER_IMAGE}}
    namespace = _namespace()
    report = apply_and_verify(
        cluster,
        namespace
        + from_manifests([good, iso, two], source="restore-rejects", namespace=NAMESPACE, depends_on=[namespace[0].key]),
    )
    print(report.summary())
    outcomes = {o.obj.name: o for o in report.outcomes}
    assert outcomes["good-date"].accepted, outcomes["good-date"].error
    for name in ("iso-date", "two-servers"):
        assert not outcomes[name].accepted, f"the API server accepted {name}"
        assert outcomes[name].error.startswith("422 "), outcomes[name].error
    assert "binlogServer size cannot be more than 1" in outcomes["two-servers"].error
    assert not report.leftovers, report.leftovers
