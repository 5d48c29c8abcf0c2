"""The database components under Pulumi mocks: what they register, where, in which order, with which secrets."""

from __future__ import annotations

import pulumi
import pulumi_kubernetes as k8s
import pytest
from percona_mysql_k8s.core import monitoring
from percona_mysql_k8s.core.errors import InputError
from percona_mysql_k8s.core.pools import DATABASE_TAINT
from percona_mysql_k8s.database import (
    DatabaseCluster,
    DatabaseClusterArgs,
    DatabaseSpec,
    ExternalPmm,
    OperatorArgs,
    PerconaOperator,
    PmmServer,
    PmmServerArgs,
    Sysbench,
    SysbenchArgs,
    create_namespace,
    custom_resource,
    size_for_pool,
)
from percona_mysql_k8s.plan.database import scripts, versions

from . import crd
from .fixtures import S3_STORAGE, backup_plan, eks_pools, gke_pools, kind_pools
from .harness import collect, collect_with_secrets, depends_on, one, plaintext_secrets, target

CR_TYPES = ("kubernetes:pxc.percona.com/v1:PerconaXtraDBCluster", "kubernetes:ps.percona.com/v1:PerconaServerMySQL")
RELEASE = "kubernetes:helm.sh/v3:Release"
JOB = "kubernetes:batch/v1:Job"
SECRET = "kubernetes:core/v1:Secret"
CONFIG_FILE = "kubernetes:yaml/v2:ConfigFile"


def the_cr(registrations):
    found = [r for r in registrations if r.type in CR_TYPES]
    assert len(found) == 1, [r.name for r in found]
    return found[0]


def _stack(
    spec: DatabaseSpec,
    pools,
    *,
    install_operator=True,
    pmm="server",
    sysbench=True,
    threads=(1, 4, 16),
    cleanup=False,
    backup=None,
):
    database, monitoring_pool = pools

    def program():
        tgt = target(database, monitoring_pool)
        namespace = create_namespace(spec.namespace, tgt, protect=not spec.ephemeral)
        plan = monitoring.plan(monitoring_pool.node, operator=install_operator, pmm_server=pmm == "server", sysbench=sysbench)
        operator = (
            PerconaOperator("op", OperatorArgs(engine=spec.engine, namespace=spec.namespace, target=tgt, depends_on=[namespace]))
            if install_operator
            else None
        )
        server = None
        if pmm == "server":
            server = PmmServer(
                "pmm",
                PmmServerArgs(
                    namespace=spec.namespace,
                    target=tgt,
                    resources=plan.pmm_server,
                    depends_on=[namespace],
                    protect=not spec.ephemeral,
                ),
            )
        elif pmm == "external":
            server = ExternalPmm(host="monitoring-service.pmm", token=pulumi.Output.secret("offline-token"))
        backup_ready = []
        if backup is not None:  # the storage component's credentials Secret stands for everything the backups need
            backup_ready.append(
                k8s.core.v1.Secret(
                    "backup-keys", metadata={"name": backup.storage.credentials_secret, "namespace": spec.namespace}
                )
            )
        cluster = DatabaseCluster(
            "db",
            DatabaseClusterArgs(
                spec=spec,
                target=tgt,
                operator=operator,
                pmm=server,
                depends_on=[namespace],
                backup=backup,
                backup_ready=backup_ready,
            ),
        )
        if sysbench:
            Sysbench(
                "sb",
                SysbenchArgs(
                    cluster=cluster,
                    target=tgt,
                    threads=threads,
                    duration_seconds=60,
                    warmup_seconds=30,
                    resources=plan.sysbench,
                    cleanup=cleanup,
                ),
            )

    return program


@pytest.fixture
def gke_pxc():
    spec = DatabaseSpec(name="db1", namespace="mysql", engine="pxc", proxy="haproxy", storage_class="premium-rwo")
    pools = gke_pools()
    registrations, monitor = collect_with_secrets(_stack(spec, pools))
    return spec, pools, registrations, monitor


def test_operator_release_is_pinned_with_crds_applied_separately(gke_pxc):
    spec, (database, monitoring_pool), registrations, _ = gke_pxc
    release = one(registrations, RELEASE, "op-release").inputs
    assert (release["chart"], release["version"]) == ("pxc-operator", versions.PXC.chart_version)
    assert release["repositoryOpts"]["repo"] == versions.HELM_REPOSITORY
    assert release["skipCrds"] is True
    assert release["values"]["image"] == versions.PXC.operator_image
    assert release["values"]["nodeSelector"] == monitoring_pool.node_selector()
    assert DATABASE_TAINT.as_toleration() not in release["values"].get("tolerations", [])  # K4
    crds = one(registrations, CONFIG_FILE, "op-crds")
    assert crds.inputs["file"] == versions.PXC.crd_url


def test_custom_resource_is_the_engines_answer_and_waits_for_operator_and_pmm_token(gke_pxc):
    spec, (database, _), registrations, _ = gke_pxc
    cr = the_cr(registrations)
    place, sizing = size_for_pool(spec, database)
    expected = custom_resource(spec, sizing, place, "monitoring-service.mysql")
    assert crd._ints(cr.inputs["spec"]) == expected["spec"]
    assert cr.inputs["metadata"]["finalizers"] == ["percona.com/delete-pxc-pods-in-order"]
    assert cr.protect is True  # S4: persistent stack
    for dependency in (
        one(registrations, RELEASE, "op-release"),
        one(registrations, CONFIG_FILE),
        one(registrations, SECRET, "db-secrets"),
        one(registrations, JOB, "pmm-token"),
    ):
        assert depends_on(registrations, cr, dependency), dependency.name
    assert crd.schema_errors(cr.inputs, versions.PXC.reference_crd, "PerconaXtraDBCluster") == []


def test_cluster_secret_has_every_key_as_a_pulumi_secret(gke_pxc):
    spec, _, registrations, monitor = gke_pxc
    secret = one(registrations, SECRET, "db-secrets")
    assert set(secret.inputs["stringData"]) == set(spec.secret_keys)
    assert secret.inputs["metadata"]["name"] == "db1-secrets"
    assert secret.protect is True
    assert plaintext_secrets(monitor) == []


def test_pmm_server_on_the_monitoring_pool_with_a_precreated_secret(gke_pxc):
    _, (_, monitoring_pool), registrations, _ = gke_pxc
    release = one(registrations, RELEASE, "pmm-release")
    values = release.inputs["values"]
    assert (release.inputs["chart"], release.inputs["version"]) == ("pmm", versions.PMM.chart_version)
    assert values["secret"] == {"create": False, "name": "pmm-secret"}
    assert values["service"]["type"] == "ClusterIP" and values["service"]["name"] == "monitoring-service"
    assert values["image"]["tag"] == versions.PMM.server_tag
    assert values["nodeSelector"] == monitoring_pool.node_selector()
    assert values["pmmResources"]["requests"]["memory"] == values["pmmResources"]["limits"]["memory"]
    admin = one(registrations, SECRET, "pmm-admin-secret")
    assert admin.inputs["metadata"]["name"] == "pmm-secret" and set(admin.inputs["stringData"]) == {"PMM_ADMIN_PASSWORD"}
    assert depends_on(registrations, release, admin)


def test_pmm_token_job_is_narrowly_allowed_and_runs_on_the_monitoring_pool(gke_pxc):
    spec, (_, monitoring_pool), registrations, _ = gke_pxc
    job = one(registrations, JOB, "pmm-token").inputs
    pod = job["spec"]["template"]["spec"]
    assert pod["nodeSelector"] == monitoring_pool.node_selector()
    assert DATABASE_TAINT.as_toleration() not in pod.get("tolerations", [])
    env = {e["name"]: e for e in pod["containers"][0]["env"]}
    assert env["PMM_ADMIN_PASSWORD"]["valueFrom"]["secretKeyRef"] == {"name": "pmm-secret", "key": "PMM_ADMIN_PASSWORD"}
    assert env["CREDENTIALS_FIELD"]["value"] == "pmmservertoken" and env["CREDENTIALS_NAME"]["value"] == spec.secret_name
    assert pod["containers"][0]["image"] == versions.KUBECTL_IMAGE
    role = one(registrations, "kubernetes:rbac.authorization.k8s.io/v1:Role", "pmm-token").inputs
    assert role["rules"] == [
        {"apiGroups": [""], "resources": ["secrets"], "resourceNames": ["db1-secrets"], "verbs": ["get", "patch"]}
    ]


def _benchmark(registrations):
    job = one(registrations, JOB, "sb-job")
    return job, job.inputs["spec"]["template"]["spec"]


def test_sysbench_phases_run_in_order_in_one_job_on_the_monitoring_pool(gke_pxc):
    spec, (_, monitoring_pool), registrations, _ = gke_pxc
    job, pod = _benchmark(registrations)
    assert job.inputs["metadata"]["name"] == "db1-sysbench"
    assert [c["name"] for c in pod["initContainers"]] == ["schema", "prepare", "warmup"]
    assert [c["name"] for c in pod["containers"]] == ["ladder", "publish"]
    assert depends_on(registrations, job, the_cr(registrations))
    assert pod["nodeSelector"] == monitoring_pool.node_selector()  # B1
    assert DATABASE_TAINT.as_toleration() not in pod.get("tolerations", [])  # K4
    sysbench = [c for c in pod["initContainers"] + pod["containers"] if c["image"] == versions.SYSBENCH_IMAGE]
    assert len(sysbench) == 4
    for container in sysbench:
        env = {e["name"]: e.get("value") for e in container["env"]}
        assert (env["MYSQL_HOST"], env["MYSQL_PORT"]) == ("db1-haproxy.mysql.svc", "3306")  # T3
        assert container["resources"]["requests"] == container["resources"]["limits"]
    # no root in the benchmark pod: neither in an env var nor in a volume (least privilege)
    assert not [
        c["name"]
        for c in pod["initContainers"] + pod["containers"]
        if any(
            "secretKeyRef" in e.get("valueFrom", {}) and e["valueFrom"]["secretKeyRef"]["name"] == "db1-secrets"
            for e in c.get("env", [])
        )
    ]
    # no Secret volume but the operator's CA certificate, projected alone (not a credential)
    assert [v for v in pod.get("volumes", []) if "secret" in v or "projected" in v] == [
        {"name": "mysql-ca", "secret": {"secretName": "db1-ssl", "items": [{"key": "ca.crt", "path": "ca.crt"}]}}
    ]
    # root only in the one-shot setup Job, which the benchmark waits for
    setup = one(registrations, JOB, "sb-user-job")
    assert setup.inputs["metadata"]["name"] == "db1-sysbench-user"
    (user,) = setup.inputs["spec"]["template"]["spec"]["containers"]
    refs = {e["name"]: e["valueFrom"]["secretKeyRef"] for e in user["env"] if "valueFrom" in e}
    assert refs == {
        "ROOT_PASSWORD": {"name": "db1-secrets", "key": "root"},
        "SYSBENCH_PASSWORD": {"name": "db1-sysbench", "key": "password"},
    }
    assert user["command"][-1] == scripts.USER_SETUP
    assert setup.inputs["spec"]["template"]["spec"]["automountServiceAccountToken"] is False
    assert setup.inputs["spec"]["template"]["spec"]["nodeSelector"] == monitoring_pool.node_selector()  # B1
    assert depends_on(registrations, job, setup) and depends_on(registrations, setup, the_cr(registrations))
    ladder_env = {e["name"]: e.get("value") for e in pod["containers"][0]["env"]}
    assert ladder_env["THREADS"] == "1 4 16"
    assert pod["containers"][1]["image"] == versions.KUBECTL_IMAGE  # the publisher
    assert pod["serviceAccountName"] == "db1-sysbench"
    results = one(registrations, "kubernetes:core/v1:ConfigMap", "sb-results")
    assert results.inputs["metadata"]["name"] == "db1-sysbench-results"
    role = one(registrations, "kubernetes:rbac.authorization.k8s.io/v1:Role", "sb-role").inputs
    assert role["rules"][0]["resourceNames"] == ["db1-sysbench-results"]


def test_the_benchmark_pod_requests_the_largest_phase_and_fits_the_monitoring_node(gke_pxc):
    from percona_mysql_k8s.core.units import cpu_to_millicores

    _, (_, monitoring_pool), registrations, _ = gke_pxc
    _, pod = _benchmark(registrations)
    init = max(cpu_to_millicores(c["resources"]["requests"]["cpu"]) for c in pod["initContainers"])
    main = sum(cpu_to_millicores(c["resources"]["requests"]["cpu"]) for c in pod["containers"])
    plan = monitoring.plan(monitoring_pool.node, operator=True, pmm_server=True, sysbench=True)
    assert max(init, main) == plan.sysbench.cpu_millicores + plan.helper.cpu_millicores
    assert plan.total.cpu_millicores <= monitoring_pool.node.usable_cpu_millicores


def test_the_proxysql_and_router_writers():
    for engine, proxy, host, port in (
        ("pxc", "proxysql", "db1-proxysql.mysql.svc", "3306"),
        ("group-replication", "router", "db1-router.mysql.svc", "6446"),
    ):
        spec = DatabaseSpec(name="db1", namespace="mysql", engine=engine, proxy=proxy)
        registrations = collect(_stack(spec, eks_pools()))
        _, pod = _benchmark(registrations)
        env = {e["name"]: e.get("value") for e in pod["containers"][0]["env"]}
        assert (env["MYSQL_HOST"], env["MYSQL_PORT"]) == (host, port)


def test_group_replication_cluster_validates_and_uses_the_ps_operator():
    spec = DatabaseSpec(name="gr", namespace="db", engine="group-replication", proxy="haproxy")
    registrations, monitor = collect_with_secrets(_stack(spec, eks_pools()))
    cr = the_cr(registrations)
    assert cr.inputs["kind"] == "PerconaServerMySQL"
    obj = crd._ints(cr.inputs)
    assert crd.schema_errors(obj, versions.PS.reference_crd, "PerconaServerMySQL") == []
    assert crd.cel_violations(obj, versions.PS.reference_crd, "PerconaServerMySQL") == []
    release = one(registrations, RELEASE, "op-release").inputs
    assert release["chart"] == "ps-operator" and release["values"]["image"]["tag"] == "1.2.0"
    assert set(one(registrations, SECRET, "db-secrets").inputs["stringData"]) == set(spec.secret_keys)
    assert plaintext_secrets(monitor) == []


def test_ephemeral_stack_is_not_protected():
    spec = DatabaseSpec(name="kind", namespace="mysql", cluster_size=1, ephemeral=True)
    registrations = collect(_stack(spec, kind_pools(), threads=(1, 4)))
    assert the_cr(registrations).protect is False
    assert one(registrations, SECRET, "db-secrets").protect is False
    assert one(registrations, "kubernetes:core/v1:Namespace").protect is False


def test_without_operator_install_the_cluster_still_registers():
    spec = DatabaseSpec(name="db1", namespace="mysql")
    registrations = collect(_stack(spec, gke_pools(), install_operator=False))
    assert not [r for r in registrations if r.type == RELEASE and "op" in r.name]
    assert not [r for r in registrations if r.type == CONFIG_FILE]
    the_cr(registrations)


def test_external_pmm_token_goes_into_the_secret_as_a_secret():
    spec = DatabaseSpec(name="db1", namespace="mysql")
    registrations, monitor = collect_with_secrets(_stack(spec, gke_pools(), pmm="external", sysbench=False))
    assert "pmmservertoken" in one(registrations, SECRET, "db-secrets").inputs["stringData"]
    assert the_cr(registrations).inputs["spec"]["pmm"]["serverHost"] == "monitoring-service.pmm"
    assert not [r for r in registrations if r.type == JOB]
    assert plaintext_secrets(monitor) == []


def test_pmm_enabled_without_a_server_is_refused():
    spec = DatabaseSpec(name="db1", namespace="mysql")
    with pytest.raises(InputError, match="S5: pmmEnabled"):
        collect(_stack(spec, gke_pools(), pmm=None, sysbench=False))


def test_cleanup_runs_after_the_ladder_when_asked():
    from percona_mysql_k8s.plan.database import scripts

    spec = DatabaseSpec(name="db1", namespace="mysql")
    registrations = collect(_stack(spec, gke_pools(), cleanup=True))
    _, pod = _benchmark(registrations)
    ladder = pod["containers"][0]
    assert ladder["command"][-1] == scripts.LADDER_AND_CLEANUP
    env = {e["name"]: e for e in ladder["env"]}
    assert "ROOT_PASSWORD" not in env  # the cleanup drops the schema as the benchmark user


def test_plaintext_check_catches_an_unwrapped_value():
    import pulumi_kubernetes as k8s

    def program():
        k8s.core.v1.ConfigMap("leak", data={"password": "offline0123456789"})

    _, monitor = collect_with_secrets(program)
    assert plaintext_secrets(monitor) == ["leak.data.password: a generated secret in plain text"]


@pytest.mark.parametrize("engine,pools", [("pxc", gke_pools), ("group-replication", eks_pools)])
def test_backups_on_the_monitoring_pool_wait_for_their_storage(engine, pools):
    """R1, K5: spec.backup is the plan's, its pods go to the monitoring pool, the CR waits for backup_ready."""
    spec = DatabaseSpec(name="db1", namespace="mysql", engine=engine, backup=True)
    database, monitoring_pool = pools()
    plan = backup_plan(S3_STORAGE)
    registrations = collect(_stack(spec, (database, monitoring_pool), sysbench=False, backup=plan))
    cr = the_cr(registrations)
    place, sizing = size_for_pool(spec, database)
    expected = custom_resource(spec, sizing, place, "monitoring-service.mysql", plan, monitoring_pool.placement())
    assert crd._ints(cr.inputs["spec"]) == expected["spec"]
    assert cr.inputs["spec"]["backup"]["storages"]["offsite"]["nodeSelector"] == monitoring_pool.node_selector()
    assert depends_on(registrations, cr, one(registrations, SECRET, "backup-keys"))
    kind = "PerconaXtraDBCluster" if engine == "pxc" else "PerconaServerMySQL"
    reference = versions.PXC.reference_crd if engine == "pxc" else versions.PS.reference_crd
    assert crd.schema_errors(crd._ints(cr.inputs), reference, kind) == []
    assert crd.cel_violations(crd._ints(cr.inputs), reference, kind) == []


def test_backups_on_without_a_plan_are_refused_before_anything_registers():
    spec = DatabaseSpec(name="db1", namespace="mysql", backup=True)
    with pytest.raises(InputError, match="R1: backup"):
        collect(_stack(spec, gke_pools(), sysbench=False))
