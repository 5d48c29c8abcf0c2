"""The monitoring pool plan with backups (K5, M3): backup containers are reserved before PMM's share."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from percona_mysql_k8s.core import backup, monitoring
from percona_mysql_k8s.core.allocatable import kind_node_budget, node_budget
from percona_mysql_k8s.core.backup import S3_COMPATIBLE, BackupStorage, backup_plan
from percona_mysql_k8s.core.cron import parse_schedule
from percona_mysql_k8s.core.errors import InputError
from percona_mysql_k8s.core.memory import GROUP_REPLICATION, PXC
from percona_mysql_k8s.core.units import GIB

STORAGE = BackupStorage(
    kind=S3_COMPATIBLE, bucket="backups", endpoint_url="https://minio.example:9000", credentials_secret="minio-keys"
)


def _backup(engine: str, pitr: bool = True):
    return backup_plan(
        STORAGE,
        engine=engine,
        schedule=parse_schedule("0 2 * * *"),
        retention_days=7,
        min_retention_days=7,
        pitr=pitr,
        pitr_upload_seconds=60,
    )


def test_backup_containers_count_in_the_total_and_come_out_of_pmms_share():
    node = node_budget("n2-standard-8", "gke")
    without = monitoring.plan(node, operator=True, pmm_server=True, sysbench=True)
    plan = monitoring.plan(node, operator=True, pmm_server=True, sysbench=True, backup=_backup(PXC))
    assert (plan.backup_job, plan.pitr_collector) == (backup.PXC_BACKUP_JOB, backup.PXC_PITR_COLLECTOR)
    # PMM takes half of the CPU left after the fixed parts (sysbench shares the node), so it gives up half
    # of the backup containers' 600m + 700m = 650m, up to rounding to 10m (its memory is at the 8 GiB cap
    # on this 32 GB node either way)
    assert abs((without.pmm_server.cpu_millicores - plan.pmm_server.cpu_millicores) - 650) <= 10
    assert plan.pmm_server.memory_bytes == without.pmm_server.memory_bytes == monitoring.PMM_SERVER_MAX.memory_bytes
    assert plan.total.memory_bytes <= node.usable_memory_bytes
    assert plan.total.cpu_millicores <= node.usable_cpu_millicores
    parts = [
        plan.operator,
        plan.pmm_server,
        plan.helper,
        plan.helper,
        plan.helper,
        plan.sysbench,
        plan.backup_job,
        plan.pitr_collector,
    ]
    assert plan.total.memory_bytes == sum(p.memory_bytes for p in parts)


def test_without_pitr_only_the_backup_job_is_reserved():
    node = node_budget("n2-standard-8", "gke")
    plan = monitoring.plan(node, operator=True, pmm_server=True, sysbench=False, backup=_backup(GROUP_REPLICATION, pitr=False))
    assert (plan.backup_job, plan.pitr_collector) == (backup.PS_BACKUP_JOB, None)
    assert monitoring.plan(node, operator=True, pmm_server=True, sysbench=False).backup_job is None


def test_a_node_too_small_for_the_backup_containers_names_them():
    # a 1-CPU, 2 GiB kind node: after the operator (200m / 500 MiB) and the PMM token helper there is not
    # room for the PXC backup Job (600m) and collector (700m)
    node = kind_node_budget(1000, 2 * GIB, 1.0)
    with pytest.raises(InputError, match=r"K5: kindHostShare: .*backup"):
        monitoring.plan(node, operator=True, pmm_server=False, sysbench=False, backup=_backup(PXC))


@settings(max_examples=300, deadline=None)
@given(
    cpu=st.integers(500, 64_000),
    memory=st.integers(GIB, 256 * GIB),
    operator=st.booleans(),
    pmm_server=st.booleans(),
    sysbench=st.booleans(),
    engine=st.sampled_from([None, PXC, GROUP_REPLICATION]),
    pitr=st.booleans(),
)
def test_the_plan_never_exceeds_the_node(cpu, memory, operator, pmm_server, sysbench, engine, pitr):
    node = kind_node_budget(cpu, memory, 1.0)
    plan_backup = _backup(engine, pitr) if engine else None
    try:
        plan = monitoring.plan(node, operator=operator, pmm_server=pmm_server, sysbench=sysbench, backup=plan_backup)
    except InputError as error:
        assert (error.key, error.rule) == ("kindHostShare", "K5")  # a kind node: its share of the machine
        return
    assert plan.total.cpu_millicores <= node.usable_cpu_millicores
    assert plan.total.memory_bytes <= node.usable_memory_bytes
    if plan_backup is not None:
        assert plan.backup_job == plan_backup.backup_job and plan.pitr_collector == plan_backup.pitr_collector
