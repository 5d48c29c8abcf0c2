"""spec.backup of both custom resources and the restore objects (R1-R4, M3, K5), validated against the CRDs."""

from __future__ import annotations

import dataclasses

import pytest
from percona_mysql_k8s.core.backup import GCS_ENDPOINT, STORAGE_NAME, BackupStorage
from percona_mysql_k8s.core.errors import InputError
from percona_mysql_k8s.core.units import cpu_to_millicores, memory_to_bytes
from percona_mysql_k8s.plan.database import versions
from percona_mysql_k8s.plan.database.backup_manifests import ps_backup, pxc_backup
from percona_mysql_k8s.plan.database.manifests import custom_resource
from percona_mysql_k8s.plan.database.restore import parse_point_in_time, restore_manifest
from percona_mysql_k8s.plan.database.spec import DatabaseSpec, size_for_pool

from . import crd
from .fixtures import BACKUP_JOB, COLLECTOR, GCS_STORAGE, MINIO_STORAGE, S3_STORAGE, backup_plan, eks_pools, gke_pools
from .test_manifests import assert_valid

PXC_CRD = versions.PXC.reference_crd
PS_CRD = versions.PS.reference_crd
STORAGES = {"gcs": GCS_STORAGE, "s3": S3_STORAGE, "minio": MINIO_STORAGE}


def _pair(block: dict) -> tuple[int, int]:
    """(cpu millicores, memory bytes), asserting request = limit (M3)."""
    assert block["requests"] == block["limits"]
    return cpu_to_millicores(block["requests"]["cpu"]), memory_to_bytes(block["requests"]["memory"])


def _cluster(engine: str, storage=GCS_STORAGE, pitr: bool = True):
    database, monitoring = gke_pools()
    proxy = "haproxy"
    spec = DatabaseSpec(name="db1", namespace="mysql", engine=engine, proxy=proxy, backup=True, storage_class="premium-rwo")
    place, sizing = size_for_pool(spec, database)
    plan = backup_plan(storage, pitr=pitr)
    return spec, sizing, monitoring, custom_resource(spec, sizing, place, "monitoring-service", plan, monitoring.placement())


@pytest.mark.parametrize("engine", ["pxc", "group-replication"])
@pytest.mark.parametrize("storage", sorted(STORAGES))
@pytest.mark.parametrize("pitr", [True, False])
def test_backup_blocks_validate_against_the_crds(engine, storage, pitr):
    _, _, _, cr = _cluster(engine, STORAGES[storage], pitr)
    assert_valid(cr)  # strict schema (no field the API server would prune) + CEL + the PXC operator's checks


def test_pxc_backup_storage_schedule_retention_and_pitr():
    spec, _, monitoring, cr = _cluster("pxc", S3_STORAGE)
    backup = cr["spec"]["backup"]
    assert backup["image"] == versions.PXC.image("8.4", "backup")
    assert backup["serviceAccountName"] == "db1-backup"
    storage = backup["storages"][STORAGE_NAME]
    assert set(backup["storages"]) == {STORAGE_NAME}
    # PXC has no prefix field: BucketAndPrefix splits "<bucket>/<prefix>"
    assert storage["type"] == "s3"
    assert storage["s3"] == {"bucket": "acme-db-backups/db1", "credentialsSecret": "db1-backup-s3", "region": "eu-west-1"}
    assert storage["verifyTLS"] is True
    # xbcloud's parallelism is pinned to what the Job's memory was sized for (core.backup: --parallel=4), not the
    # node's CPU count the backup script would take
    assert storage["containerOptions"] == {"args": {"xbcloud": ["--parallel=4"]}}
    # The Job and the collector run on the monitoring pool (K5), each with its own request = limit (M3).
    assert storage["nodeSelector"] == dict(monitoring.placement().node_selector)
    assert "tolerations" not in storage  # the monitoring pool of gke_pools has no taint
    assert _pair(storage["resources"]) == (BACKUP_JOB.cpu_millicores, BACKUP_JOB.memory_bytes)
    assert backup["schedule"] == [
        {
            "name": "daily",
            "schedule": "0 3 * * *",
            "storageName": STORAGE_NAME,
            "retention": {"type": "count", "count": 8, "deleteFromStorage": True},
        }
    ]
    assert "keep" not in backup["schedule"][0]  # deprecated in 1.19 (pxc_types.go)
    pitr = backup["pitr"]
    assert pitr["enabled"] is True and pitr["storageName"] == STORAGE_NAME and pitr["timeBetweenUploads"] == 60
    assert _pair(pitr["resources"]) == (COLLECTOR.cpu_millicores, COLLECTOR.memory_bytes)


def test_pxc_on_gcs_uses_the_s3_interoperable_endpoint():
    _, _, _, cr = _cluster("pxc", GCS_STORAGE)
    s3 = cr["spec"]["backup"]["storages"][STORAGE_NAME]["s3"]
    assert s3 == {"bucket": "acme-db-backups/db1", "credentialsSecret": "db1-backup-hmac", "endpointUrl": GCS_ENDPOINT}


def test_ps_backup_gcs_storage_keep_full_and_binlog_server():
    spec, sizing, monitoring, cr = _cluster("group-replication", GCS_STORAGE)
    backup = cr["spec"]["backup"]
    assert backup["enabled"] is True and backup["image"] == versions.PS.image("8.4", "backup")
    # the xtrabackup sidecar in every mysqld pod keeps its member-budget size (M3)
    sidecar = sizing.containers["xtrabackup"]
    assert _pair(backup["resources"]) == (sidecar.cpu_millicores, sidecar.memory_bytes)
    storage = backup["storages"][STORAGE_NAME]
    assert storage["type"] == "gcs"
    assert storage["gcs"] == {
        "bucket": "acme-db-backups",
        "prefix": "db1",
        "credentialsSecret": "db1-backup-hmac",
        "endpointUrl": GCS_ENDPOINT,
    }
    assert _pair(storage["resources"]) == (BACKUP_JOB.cpu_millicores, BACKUP_JOB.memory_bytes)
    assert storage["nodeSelector"] == dict(monitoring.placement().node_selector)
    assert backup["schedule"] == [
        {"name": "daily", "schedule": "0 3 * * *", "keep": 8, "storageName": STORAGE_NAME, "type": "full"}
    ]
    server = backup["pitr"]["binlogServer"]
    assert backup["pitr"]["enabled"] is True
    assert server["image"] == versions.BINLOG_SERVER_IMAGE and server["size"] == 1
    # S3 only (config.go s3URI): GCS through its XML API with the same HMAC keys
    assert server["storage"] == {
        "s3": {
            "bucket": "acme-db-backups",
            "prefix": "db1/binlogs",
            "credentialsSecret": "db1-backup-hmac",
            "endpointUrl": GCS_ENDPOINT,
        }
    }
    assert server["checkpointInterval"] == "60s"
    assert _pair(server["resources"]) == (COLLECTOR.cpu_millicores, COLLECTOR.memory_bytes)
    assert server["nodeSelector"] == dict(monitoring.placement().node_selector)


def test_tolerations_of_a_tainted_monitoring_pool_reach_every_backup_pod():
    """A monitoring pool kept for itself by a taint (K4): the Job, the collector and the binlog server tolerate it."""
    _, monitoring = eks_pools()
    from percona_mysql_k8s.core.scheduling import PodPlacement

    tolerations = ({"key": "dedicated", "operator": "Equal", "value": "monitoring", "effect": "NoSchedule"},)
    placement = PodPlacement(dict(monitoring.placement().node_selector), None, tolerations)
    spec = DatabaseSpec(name="db1", namespace="mysql", engine="pxc", backup=True)
    pxc = pxc_backup(spec, backup_plan(S3_STORAGE), placement)
    assert pxc["storages"][STORAGE_NAME]["tolerations"] == [dict(tolerations[0])]
    ps_spec = DatabaseSpec(name="db1", namespace="mysql", engine="group-replication", backup=True)
    ps = ps_backup(ps_spec, backup_plan(S3_STORAGE), placement)
    assert ps["storages"][STORAGE_NAME]["tolerations"] == [dict(tolerations[0])]
    assert ps["pitr"]["binlogServer"]["tolerations"] == [dict(tolerations[0])]


@pytest.mark.parametrize("engine", ["pxc", "group-replication"])
def test_without_pitr_there_is_no_collector(engine):
    _, _, _, cr = _cluster(engine, S3_STORAGE, pitr=False)
    assert "pitr" not in cr["spec"]["backup"]


def test_s3_compatible_endpoint_and_verify_tls_reach_both_engines():
    _, _, _, pxc = _cluster("pxc", MINIO_STORAGE)
    _, _, _, ps = _cluster("group-replication", MINIO_STORAGE)
    assert ps["spec"]["backup"]["pitr"]["binlogServer"]["storage"]["s3"]["prefix"] == "binlogs"  # no storage prefix
    for storage in (pxc["spec"]["backup"]["storages"][STORAGE_NAME], ps["spec"]["backup"]["storages"][STORAGE_NAME]):
        assert storage["s3"]["endpointUrl"] == "https://minio.storage.svc:9000" and storage["verifyTLS"] is False
    assert "region" not in pxc["spec"]["backup"]["storages"][STORAGE_NAME]["s3"]


# ---- refusals -------------------------------------------------------------------------------------


def _bare(engine: str, backup: bool):
    database, monitoring = gke_pools()
    spec = DatabaseSpec(name="db1", namespace="mysql", engine=engine, backup=backup)
    place, sizing = size_for_pool(spec, database)
    return spec, sizing, place, monitoring


@pytest.mark.parametrize("engine", ["pxc", "group-replication"])
def test_backups_on_without_a_plan_are_refused(engine):
    spec, sizing, place, monitoring = _bare(engine, True)
    with pytest.raises(InputError) as caught:
        custom_resource(spec, sizing, place, "pmm", None, monitoring.placement())
    assert caught.value.key == "backup" and caught.value.rule == "R1"
    with pytest.raises(InputError) as caught:
        custom_resource(spec, sizing, place, "pmm", backup_plan(), None)
    assert caught.value.key == "backup" and caught.value.rule == "K5"


def test_a_plan_with_backups_off_is_refused_not_dropped():
    spec, sizing, place, monitoring = _bare("pxc", False)
    with pytest.raises(InputError, match="backups are off") as caught:
        custom_resource(spec, sizing, place, "pmm", backup_plan(), monitoring.placement())
    assert caught.value.rule == "R1"


def test_pxc_refuses_a_storage_without_credentials_secret():
    """restore.go reads the keys from the Secret named in the backup's status: without one, no restore."""
    spec = DatabaseSpec(name="db1", namespace="mysql", engine="pxc", backup=True)
    irsa = dataclasses.replace(S3_STORAGE, credentials_secret="")
    with pytest.raises(InputError, match="restore") as caught:
        pxc_backup(spec, backup_plan(irsa), gke_pools()[1].placement())
    assert (caught.value.key, caught.value.rule) == ("backup", "R1")


def test_ps_refuses_a_storage_without_credentials_secret():
    spec = DatabaseSpec(name="db1", namespace="mysql", engine="group-replication", backup=True)
    with pytest.raises(InputError) as caught:
        ps_backup(spec, backup_plan(dataclasses.replace(GCS_STORAGE, credentials_secret="")), gke_pools()[1].placement())
    assert (caught.value.key, caught.value.rule) == ("backup", "R4")


@pytest.mark.parametrize(
    "storage,match",
    [
        (BackupStorage(kind="s3", bucket="", credentials_secret="k"), "no bucket"),
        (BackupStorage(kind="s3-compatible", bucket="b", credentials_secret="k"), "endpoint"),
        (BackupStorage(kind="s3", bucket="b", region="eu-west-1", credentials_secret="Bad_Name"), "Secret name"),
        (BackupStorage(kind="s3", bucket="b", credentials_secret="k"), "region"),  # s3.amazonaws.com would mean us-east-1
        (BackupStorage(kind="azure", bucket="b", credentials_secret="k"), "storage kind"),
    ],
)
def test_incomplete_storages_are_refused(storage, match):
    spec = DatabaseSpec(name="db1", namespace="mysql", engine="pxc", backup=True)
    with pytest.raises(InputError, match=match) as caught:
        pxc_backup(spec, backup_plan(storage), gke_pools()[1].placement())
    assert caught.value.rule == "R1"


def test_pitr_without_a_collector_size_or_interval_is_refused():
    spec = DatabaseSpec(name="db1", namespace="mysql", engine="group-replication", backup=True)
    placement = gke_pools()[1].placement()
    with pytest.raises(InputError) as caught:
        ps_backup(spec, dataclasses.replace(backup_plan(S3_STORAGE), pitr_collector=None), placement)
    assert (caught.value.key, caught.value.rule) == ("pitr", "R2")
    with pytest.raises(InputError) as caught:
        pxc_backup(spec, dataclasses.replace(backup_plan(S3_STORAGE), pitr_upload_seconds=0), placement)
    assert (caught.value.key, caught.value.rule) == ("pitrUploadSeconds", "R2")


# ---- restore objects ------------------------------------------------------------------------------

RESTORE_CRDS = {"pxc": (PXC_CRD, "PerconaXtraDBClusterRestore"), "group-replication": (PS_CRD, "PerconaServerMySQLRestore")}


def assert_valid_restore(obj: dict, engine: str) -> None:
    crd_file, kind = RESTORE_CRDS[engine]
    assert obj["kind"] == kind
    assert crd.schema_errors(obj, crd_file, kind) == []
    assert crd.cel_violations(obj, crd_file, kind) == []


@pytest.mark.parametrize("engine", ["pxc", "group-replication"])
@pytest.mark.parametrize("when", [None, "2026-11-23 10:15:00"])
def test_restore_objects_validate_against_the_restore_crds(engine, when):
    obj = restore_manifest(
        engine, "db1", "mysql", name="restore-1", backup_name="cron-db1-offsite-2026112303", point_in_time=when
    )
    assert_valid_restore(obj, engine)


def test_pxc_restore_fields():
    named = restore_manifest("pxc", "db1", "mysql", name="r1", backup_name="b1")
    assert named == {
        "apiVersion": "pxc.percona.com/v1",
        "kind": "PerconaXtraDBClusterRestore",
        "metadata": {"name": "r1", "namespace": "mysql"},
        "spec": {"pxcCluster": "db1", "backupName": "b1"},
    }
    timed = restore_manifest("pxc", "db1", "mysql", name="r1", backup_name="b1", point_in_time="2026-11-23 10:15:00")
    assert timed["spec"]["pitr"] == {"type": "date", "date": "2026-11-23 10:15:00", "backupSource": {"storageName": STORAGE_NAME}}
    other = restore_manifest(
        "pxc", "db1", "mysql", name="r1", backup_name="b1", point_in_time="2026-11-23 10:15:00", storage=S3_STORAGE
    )
    assert other["spec"]["pitr"]["backupSource"] == {
        "s3": {"bucket": "acme-db-backups/db1", "credentialsSecret": "db1-backup-s3", "region": "eu-west-1"}
    }
    assert_valid_restore(other, "pxc")


def test_ps_restore_fields():
    timed = restore_manifest(
        "group-replication", "db1", "mysql", name="r1", backup_name="b1", point_in_time="2026-11-23 10:15:00"
    )
    assert timed == {
        "apiVersion": "ps.percona.com/v1",
        "kind": "PerconaServerMySQLRestore",
        "metadata": {"name": "r1", "namespace": "mysql"},
        "spec": {"clusterName": "db1", "backupName": "b1", "pitr": {"type": "date", "date": "2026-11-23 10:15:00"}},
    }


def test_the_pxc_crd_rule_would_reject_another_date_format():
    """The harness evaluates the PXC 1.20 date rule: an ISO 'T' date fails it, so ours passing means something."""
    obj = restore_manifest("pxc", "db1", "mysql", name="r1", backup_name="b1", point_in_time="2026-11-23 10:15:00")
    obj["spec"]["pitr"]["date"] = "2026-11-23T10:15:00"
    assert crd.cel_violations(obj, PXC_CRD, "PerconaXtraDBClusterRestore")


@pytest.mark.parametrize(
    "kwargs,key",
    [
        ({"backup_name": None}, "backup"),
        ({"backup_name": "B_1"}, "backup"),
        ({"point_in_time": "2026-11-23T10:15:00"}, "time"),
        ({"point_in_time": "2026-02-30 10:15:00"}, "time"),
        ({"point_in_time": "2026-11-23 24:00:00"}, "time"),
        ({"name": "Restore"}, "name"),
    ],
)
def test_bad_restore_input_names_its_key(kwargs, key):
    args = {"name": "r1", "backup_name": "b1", **kwargs}
    with pytest.raises(InputError) as caught:
        restore_manifest("pxc", "db1", "mysql", **args)
    assert caught.value.key == key


def test_restore_refuses_an_unknown_engine_and_a_ps_storage():
    with pytest.raises(InputError) as caught:
        restore_manifest("mongodb", "db1", "mysql", name="r1", backup_name="b1")
    assert caught.value.key == "engine"
    with pytest.raises(InputError) as caught:
        restore_manifest(
            "group-replication",
            "db1",
            "mysql",
            name="r1",
            backup_name="b1",
            point_in_time="2026-11-23 10:15:00",
            storage=S3_STORAGE,
        )
    assert caught.value.key == "storage"


def test_point_in_time_is_read_as_utc_seconds():
    assert parse_point_in_time("2026-11-23 10:15:07").isoformat() == "2026-11-23T10:15:07"


def test_a_registry_mirror_reaches_the_backup_and_binlog_server_images():
    """Air-gapped installs (database.sources): every image spec.backup names is pulled from the mirror."""
    from percona_mysql_k8s.plan.database.sources import mirror_images

    _, _, _, cr = _cluster("group-replication", GCS_STORAGE)
    backup = mirror_images(cr, "registry.example.com/hub")["spec"]["backup"]
    assert backup["image"] == f"registry.example.com/hub/{versions.PS.image('8.4', 'backup')}"
    assert backup["pitr"]["binlogServer"]["image"] == f"registry.example.com/hub/{versions.BINLOG_SERVER_IMAGE}"
