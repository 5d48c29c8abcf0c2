"""Each example program runs under mocks (percona_mysql_k8s.cli.offline.run_program) and builds what its README says."""

from __future__ import annotations

from pathlib import Path

import percona_mysql_k8s.plan.clusters as plan_clusters
import pytest
from database import crd
from database.harness import SecretAwareMonitor, plaintext_secrets
from percona_mysql_k8s.cli import check, offline
from percona_mysql_k8s.core.pools import DATABASE_TAINT, POOL_LABEL
from percona_mysql_k8s.core.units import GIB, format_memory
from percona_mysql_k8s.plan.clusters import kind as kind_plan
from percona_mysql_k8s.plan.database import versions

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
CR_TYPES = ("kubernetes:pxc.percona.com/v1:PerconaXtraDBCluster", "kubernetes:ps.percona.com/v1:PerconaServerMySQL")


@pytest.fixture
def run(monkeypatch):
    laptop = lambda: (8000, 32 * GIB)  # noqa: E731  the machine kind runs on, fixed
    monkeypatch.setattr(kind_plan, "host_resources", laptop)
    # the examples call cluster_settings_from_config(values): its host is host_resources, looked up at call time
    monkeypatch.setattr(offline, "RecordingMonitor", SecretAwareMonitor)

    def go(example: str, config: dict[str, str] | None = None):
        SecretAwareMonitor.instances.clear()
        registrations = offline.run_program(EXAMPLES / example, stack="dev", project=example, config=config or {})
        return registrations, SecretAwareMonitor.instances[-1]

    return go


def _cr(registrations):
    (cr,) = [r for r in registrations if r.type in CR_TYPES]
    return crd._ints(cr.inputs)


def _valid(cr):
    release = versions.PXC if cr["kind"] == "PerconaXtraDBCluster" else versions.PS
    assert crd.schema_errors(cr, release.reference_crd, release.kind) == []
    assert crd.cel_violations(cr, release.reference_crd, release.kind) == []


def test_every_example_has_a_readme_and_a_project():
    examples = sorted(path.name for path in EXAMPLES.iterdir() if path.is_dir())
    assert len(examples) >= 3
    for name in examples:
        for needed in ("README.md", "Pulumi.yaml", "__main__.py"):
            assert (EXAMPLES / name / needed).is_file(), f"{name}/{needed}"


def test_gke_group_replication_router(run):
    registrations, monitor = run("gke-group-replication-router", {"gke-group-replication-router:gcpProject": "my-project-1"})
    cr = _cr(registrations)
    _valid(cr)
    router = cr["spec"]["proxy"]["router"]
    assert router["enabled"] is True and cr["spec"]["proxy"]["haproxy"]["enabled"] is False
    assert router["size"] == 3 and router["nodeSelector"] == {POOL_LABEL: "database"}
    assert cr["spec"]["mysql"]["clusterType"] == "group-replication"
    # backed up daily to a private GCS bucket it creates, keeping 8 (7 days: (keep - 1) daily gaps), with a binlog server
    (bucket,) = [r.inputs for r in registrations if r.type == "gcp:storage/bucket:Bucket"]
    assert bucket["name"] == "my-project-1-gr-router-backups" and bucket["publicAccessPrevention"] == "enforced"
    backup = cr["spec"]["backup"]
    assert backup["enabled"] is True and backup["storages"]["offsite"]["gcs"]["bucket"] == bucket["name"]
    assert backup["schedule"][0]["keep"] == 8 and backup["pitr"]["binlogServer"]["size"] == 1
    assert plaintext_secrets(monitor) == []


def test_eks_pxc_proxysql(run):
    registrations, monitor = run("eks-pxc-proxysql")
    cr = _cr(registrations)
    _valid(cr)
    assert cr["spec"]["proxysql"]["enabled"] is True and cr["spec"]["haproxy"] == {"enabled": False}
    assert cr["spec"]["proxysql"]["volumeSpec"]["persistentVolumeClaim"]["resources"]["requests"]["storage"] == "2Gi"
    assert cr["spec"]["pxc"]["image"] == versions.PXC.image("8.0", "mysql")
    # every 6 hours keeping 57: 56 gaps of 6 h = 14 days of restore points right after a run (R3)
    (bucket,) = [r.inputs for r in registrations if r.type == "aws:s3/bucket:Bucket"]
    assert bucket["bucket"] == "pxc-proxysql-eu-west-1-backups"
    backup = cr["spec"]["backup"]
    assert backup["schedule"][0]["schedule"] == "0 */6 * * *" and backup["schedule"][0]["retention"]["count"] == 57
    assert backup["storages"]["offsite"]["s3"]["bucket"] == bucket["bucket"] and backup["pitr"]["enabled"] is True
    assert plaintext_secrets(monitor) == []


def test_kind_pxc_benchmark(run):
    registrations, monitor = run("kind-pxc-benchmark")
    cr = _cr(registrations)
    _valid(cr)
    assert cr["spec"]["pmm"] == {"enabled": False} and cr["spec"]["unsafeFlags"]["pxcSize"] is True
    jobs = [r.inputs for r in registrations if r.type == "kubernetes:batch/v1:Job"]
    assert [j["metadata"]["name"] for j in jobs] == ["bench-sysbench-user", "bench-sysbench"]  # setup as root, then the run
    phases = jobs[1]["spec"]["template"]["spec"]
    assert [c["name"] for c in phases["initContainers"] + phases["containers"]] == [
        "schema",
        "prepare",
        "warmup",
        "ladder",
        "publish",
    ]
    for job in jobs:
        pod = job["spec"]["template"]["spec"]
        assert pod["nodeSelector"] == {POOL_LABEL: "monitoring"}
        assert DATABASE_TAINT.as_toleration() not in pod.get("tolerations", [])
    assert not [r for r in registrations if r.type == "kubernetes:helm.sh/v3:Release" and r.inputs["chart"] == "pmm"]
    assert plaintext_secrets(monitor) == []


def _members_budget(registrations) -> dict:
    cr = _cr(registrations)
    return cr["spec"]["pxc"]["resources"]


def test_kind_benchmark_sizes_for_the_machine_its_config_declares(run):
    # kindHostCpu/kindHostMemory replace the machine running the program (the fixture's 8 CPUs / 32 GiB), as
    # `percona-mysql-policy-check --program examples/kind-pxc-benchmark --set kindHostCpu=...` passes them
    from percona_mysql_k8s.plan.database.spec import DatabaseSpec, size_for_pool

    def measured():
        raise AssertionError("the declared machine must be used, not this one")

    declared = {"kindHostCpu": "16", "kindHostMemory": "64Gi"}
    registrations, _ = run("kind-pxc-benchmark", {f"kind-pxc-benchmark:{key}": value for key, value in declared.items()})
    # Expected: the core's answer for the example's member on a quarter of the declared machine
    settings = plan_clusters.cluster_settings_from_config(
        {"target": "kind", "clusterName": "bench", "clusterSize": 1, "ephemeral": True, "kindHostShare": "0.25", **declared},
        measured,
    )
    spec = DatabaseSpec(
        name="bench",
        namespace="bench",
        engine="pxc",
        proxy="haproxy",
        cluster_size=1,
        ephemeral=True,
        log_collector=False,
        pmm_enabled=False,
        load="read-heavy",
        storage_size="16Gi",  # the example's spec, field for field
    )
    _placement, sizing = size_for_pool(spec, settings.database_pool)
    assert _members_budget(registrations)["limits"]["memory"] == format_memory(sizing.mysqld_memory_bytes)
    on_this_machine, _ = run("kind-pxc-benchmark")
    assert _members_budget(on_this_machine) != _members_budget(registrations)


def test_kind_benchmark_on_too_small_a_machine_names_the_setting_to_change(run):
    with pytest.raises(Exception, match=r"config: K5: kindHostShare: .*raise kindHostShare.*kindHostCpu/kindHostMemory"):
        run("kind-pxc-benchmark", {"kind-pxc-benchmark:kindHostCpu": "2", "kind-pxc-benchmark:kindHostMemory": "4Gi"})


@pytest.mark.parametrize(
    ("example", "config"),
    [
        ("gke-group-replication-router", {"gke-group-replication-router:gcpProject": "my-project-1"}),
        ("eks-pxc-proxysql", {}),
    ],
)
def test_the_production_examples_pass_the_whole_pack(run, example, config):
    # a production stack name (not one of ephemeral_stacks): backups (R1-R4), NetworkPolicies (R6) and every
    # sizing rule hold, advisories included
    registrations, _ = run(example, config)
    report = check.check_registrations(registrations, stack="prod", project=example)
    assert [f.diagnostic.message for f in report.findings] == []
