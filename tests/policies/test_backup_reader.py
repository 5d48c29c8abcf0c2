"""The backup section reader (R1-R4): where an endpoint is, and what the operators make of the section."""

from __future__ import annotations

import pytest
from harness import resolve_resource
from percona_mysql_k8s.policies._readers.backup import backup_section, endpoint_in_cluster, endpoint_scheme
from percona_mysql_k8s.policies._readers.database import database_view
from percona_mysql_k8s.policies._readers.values import Malformed


@pytest.mark.parametrize(
    "endpoint",
    [
        "http://minio.minio.svc:9000",
        "https://minio.backups.svc.cluster.local",
        "http://minio.ns.svc.cluster.local.:9000",
        "https://minio.cluster.local",
        "http://localhost:9000",
        "https://127.0.0.1",
        "https://127.8.9.10:9000",
        "http://[::1]:9000",
        "https://minio",
        "minio-service:9000",
        "https://s3.localhost",
    ],
)
def test_endpoints_inside_the_cluster(endpoint):
    assert endpoint_in_cluster(endpoint)


@pytest.mark.parametrize(
    "endpoint",
    [
        "",
        "https://storage.googleapis.com",
        "https://s3.eu-west-1.amazonaws.com",
        "https://minio.backups.example.com:9000",
        "https://10.0.0.5:9000",  # a private address may be a MinIO outside the cluster: not judged in-cluster
        "https://acct.blob.core.windows.net",
    ],
)
def test_endpoints_outside(endpoint):
    assert endpoint_in_cluster(endpoint) is None


def test_an_endpoint_without_a_host_is_not_outside():
    assert "names no host" in endpoint_in_cluster("https://")


@pytest.mark.parametrize(
    ("endpoint", "scheme"), [("https://a.example", "https"), ("HTTP://a.example", "http"), ("a.example:9000", None)]
)
def test_scheme(endpoint, scheme):
    assert endpoint_scheme(endpoint) == scheme


def _section(base: str, patch: dict):
    resource = resolve_resource({"base": base, "patch": patch})
    return backup_section(database_view(resource["type"], resource["props"], resource["name"]))


def test_pxc_retention_replaces_keep_and_deletes_from_storage_by_default():
    # pkg/apis/pxc/v1/pxc_types.go GetRetention: retention wins; keep alone means deleteFromStorage true
    section = _section(
        "pxc-backed-up",
        {
            "spec": {
                "backup": {
                    "schedule": [
                        {
                            "name": "a",
                            "schedule": "0 3 * * *",
                            "storageName": "offsite",
                            "keep": 30,
                            "retention": {"type": "count", "count": 3},
                        },
                        {"name": "b", "schedule": "0 3 * * *", "storageName": "offsite", "keep": 30},
                    ]
                }
            }
        },
    )
    a, b = section.schedules
    assert (a.keep, a.keep_path, a.deletes_from_storage) == (3, "spec.backup.schedule[0].retention.count", True)
    assert (b.keep, b.keep_path, b.deletes_from_storage) == (30, "spec.backup.schedule[1].keep", True)


def test_ps_keep_is_read_and_retention_is_not_a_ps_field():
    section = _section(
        "ps-gr-backed-up",
        {
            "spec": {
                "backup": {
                    "schedule": [
                        {
                            "name": "a",
                            "schedule": "0 3 * * *",
                            "storageName": "offsite",
                            "keep": 4,
                            "retention": {"type": "count", "count": 9},
                        }
                    ]
                }
            }
        },
    )
    assert section.schedules[0].keep == 4


def test_pxc_has_backups_without_an_enabled_flag_and_ps_needs_it():
    assert _section("pxc-backed-up", {}).off is None
    assert _section("ps-gr-backed-up", {"spec": {"backup": {"enabled": None}}}).off == (
        "spec.backup.enabled is absent: the operator runs no backups"
    )


def test_a_malformed_keep_is_reported_with_its_path_to_the_judgement_that_reads_it():
    section = _section(
        "pxc-backed-up",
        {"spec": {"backup": {"schedule": [{"name": "a", "schedule": "0 3 * * *", "storageName": "offsite", "keep": "many"}]}}},
    )
    assert section.schedules[0].schedule == "0 3 * * *"  # the rest of the entry is read (R1 needs no keep)
    with pytest.raises(Malformed) as error:
        _ = section.schedules[0].keep  # R3 reads it, and reports it
    assert error.value.path == "spec.backup.schedule[0].keep"
