"""Every stack config as a whole program under mocks (percona_mysql_k8s.cli.offline.run_stack): pools, operator, custom
resource, PMM, sysbench and their placement; sizes equal to the sizing engine's answer; no plain-text
password (S1); bad config stops the program before anything is registered."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from database import crd
from database.harness import SecretAwareMonitor, plaintext_secrets, stack_outputs
from percona_mysql_k8s.cli import offline
from percona_mysql_k8s.core.allocatable import node_budget
from percona_mysql_k8s.core.kind_host import KindHost, worker_budget
from percona_mysql_k8s.core.mycnf import mysqld_options
from percona_mysql_k8s.core.pools import DATABASE_TAINT, POOL_LABEL
from percona_mysql_k8s.core.sizing import SizingInput, size
from percona_mysql_k8s.core.units import GIB, cpu_to_millicores, memory_to_bytes
from percona_mysql_k8s.plan.clusters import kind as kind_plan
from percona_mysql_k8s.plan.database import versions
from pulumi.runtime.settings import get_root_resource
from pulumi.runtime.sync_await import _sync_await

REPOSITORY = Path(__file__).resolve().parents[2]

STACKS = ("kind", "gke", "eks", "existing")
LAPTOP = (8000, 32 * GIB)  # the machine kind runs on, fixed so the kind stack sizes the same everywhere
CR_TYPES = ("kubernetes:pxc.percona.com/v1:PerconaXtraDBCluster", "kubernetes:ps.percona.com/v1:PerconaServerMySQL")
JOB = "kubernetes:batch/v1:Job"
RELEASE = "kubernetes:helm.sh/v3:Release"

# The member budget of each stack, derived here from the stack config by hand (K1), not by the program.
BUDGETS = {
    # kindHostShare auto: 1 member + 1 monitoring worker split the laptop (core.kind_host)
    "kind": lambda: worker_budget(KindHost(*LAPTOP), 2),
    "gke": lambda: node_budget("n2-standard-16", "gke"),
    "eks": lambda: node_budget("m6i.4xlarge", "eks"),
    "existing": lambda: None,  # 7910m / 28Gi as the (fake) cluster's Nodes report allocatable
}
EXPECTED = {
    "kind": {"engine": "pxc", "proxy": "haproxy", "size": 1, "log_collector": False, "pmm": True},
    "gke": {"engine": "pxc", "proxy": "haproxy", "size": 3, "log_collector": True, "pmm": True},
    "eks": {"engine": "group-replication", "proxy": "haproxy", "size": 3, "log_collector": None, "pmm": True},
    "existing": {"engine": "pxc", "proxy": "haproxy", "size": 3, "log_collector": True, "pmm": True},
}


@pytest.fixture
def run(monkeypatch):
    """run_stack with a fixed kind host (the existing cluster is conftest's), recording secrets and outputs."""
    monkeypatch.setattr(kind_plan, "host_resources", lambda: LAPTOP)
    monkeypatch.setattr(offline, "RecordingMonitor", SecretAwareMonitor)

    def go(stack: str, overrides=None, secrets=None, previous_outputs=None):
        SecretAwareMonitor.instances.clear()
        registrations = offline.run_stack(stack, overrides=overrides, secrets=secrets, previous_outputs=previous_outputs)
        return registrations, SecretAwareMonitor.instances[-1]

    return go


@pytest.fixture(scope="module")
def config_values():
    def values(stack: str) -> dict[str, str]:
        return {
            key.split(":", 1)[1]: value for key, value in offline.stack_config(stack).items() if key.startswith("percona-mysql:")
        }

    return values


def _one(registrations, type_, name_contains=""):
    found = [r for r in registrations if r.type == type_ and name_contains in r.name]
    assert len(found) == 1, f"{type_} *{name_contains}*: {[r.name for r in found]}"
    return found[0]


def _cr(registrations):
    found = [r for r in registrations if r.type in CR_TYPES]
    assert len(found) == 1
    return found[0]


def _engine_answer(stack: str):
    """The sizing engine asked directly for one member on one database node of this stack."""
    budget = BUDGETS[stack]()
    cpu, memory = (budget.usable_cpu_millicores, budget.usable_memory_bytes) if budget else (7910, 28 * GIB)
    expected = EXPECTED[stack]
    return size(
        SizingInput(
            engine=expected["engine"],
            proxy=expected["proxy"],
            cluster_size=expected["size"],
            pmm=expected["pmm"],
            log_collector=expected["log_collector"],
            mysql_version="8.4",
            load="light-oltp",
            disk_iops={"gke": 6000}.get(stack, 3000),
            allow_unsafe_size=stack == "kind",
            # backups are on except on kind (Pulumi.kind.yaml: backup false): group replication's xtrabackup sidecar
            # then takes its budget from the member (M3)
            backup=stack != "kind",
            connections=0,  # every stack derives them (M6)
            # storageSize of stacks/Pulumi.<stack>.yaml: it bounds the redo log (K6)
            volume_bytes={"kind": 100, "gke": 200, "eks": 200, "existing": 100}[stack] * GIB,  # storageSize (kind: the default)
            cpu_millicores=cpu,
            memory_bytes=memory,
        )
    )


def _amounts(resources):
    assert resources["requests"] == resources["limits"], "request = limit (K2, K3)"
    return cpu_to_millicores(resources["requests"]["cpu"]), memory_to_bytes(resources["requests"]["memory"])


def _size(sizing, container):
    c = sizing.containers[container]
    return c.cpu_millicores, c.memory_bytes


@pytest.mark.parametrize("stack", STACKS)
def test_custom_resource_sizes_are_the_engines_answer_for_the_target(stack, run):
    registrations, _ = run(stack)
    body = crd._ints(_cr(registrations).inputs)["spec"]
    sizing = _engine_answer(stack)
    if EXPECTED[stack]["engine"] == "pxc":
        member, proxy = body["pxc"], body["haproxy"]
        assert _amounts(proxy["sidecarResources"]) == _size(sizing, "pxc-monit")
        if EXPECTED[stack]["log_collector"]:
            assert _amounts(body["logcollector"]["resources"]) == _size(sizing, "logs")
        else:
            assert body["logcollector"] == {"enabled": False}
    else:
        member, proxy = body["mysql"], body["proxy"]["haproxy"]
        assert _amounts(proxy["sidecarResources"]["mysql-monit"]) == _size(sizing, "mysql-monit")
    assert _amounts(member["resources"]) == _size(sizing, "mysqld")
    assert _amounts(proxy["resources"]) == _size(sizing, "haproxy")
    assert _amounts(body["pmm"]["resources"]) == _size(sizing, "pmm-client")
    assert mysqld_options(member["configuration"]) == {
        key: value for key, value in mysqld_options("\n".join(f"{k}={v}" for k, v in sizing.mysqld.items())).items()
    }
    assert member["size"] == proxy["size"] == EXPECTED[stack]["size"]


@pytest.mark.parametrize("stack", STACKS)
def test_custom_resource_validates_against_its_crd(stack, run):
    registrations, _ = run(stack)
    cr = crd._ints(_cr(registrations).inputs)
    release = versions.PXC if cr["kind"] == "PerconaXtraDBCluster" else versions.PS
    assert crd.schema_errors(cr, release.reference_crd, release.kind) == []
    assert crd.cel_violations(cr, release.reference_crd, release.kind) == []


@pytest.mark.parametrize("stack", STACKS)
def test_no_password_in_plain_text(stack, run):
    _, monitor = run(stack)
    assert plaintext_secrets(monitor) == []


# A production stack benchmarks only on an explicit request (R5): a run id and the data it may prepare.
REQUEST = {"sysbenchEnabled": True, "sysbenchRunId": "r1", "sysbenchDataSize": "20Gi"}


@pytest.mark.parametrize("stack", STACKS)
def test_operator_pmm_and_sysbench_are_on_the_monitoring_pool(stack, run):
    registrations, _ = run(stack, overrides=None if stack == "kind" else REQUEST)
    engine = EXPECTED[stack]["engine"]
    info = versions.PXC if engine == "pxc" else versions.PS
    operator = _one(registrations, RELEASE, "operator-release").inputs
    assert (operator["chart"], operator["version"], operator["skipCrds"]) == (info.chart, info.chart_version, True)
    pmm = _one(registrations, RELEASE, "pmm-release").inputs
    assert (pmm["chart"], pmm["version"]) == ("pmm", versions.PMM.chart_version)
    monitoring_selector = {POOL_LABEL: "monitoring"}
    for values in (operator["values"], pmm["values"]):
        assert values["nodeSelector"] == monitoring_selector
        assert DATABASE_TAINT.as_toleration() not in values.get("tolerations", [])
    jobs = [r for r in registrations if r.type == JOB]
    names = sorted(j.inputs["metadata"]["name"] for j in jobs)
    cluster = names[0].rsplit("-pmm-token", 1)[0]
    sysbench = f"{cluster}-sysbench" if stack == "kind" else f"{cluster}-sysbench-r1"
    assert names == [f"{cluster}-pmm-token", sysbench, f"{sysbench}-user"]  # the user's setup Job holds root
    bench = next(j for j in jobs if j.inputs["metadata"]["name"] == sysbench).inputs["spec"]["template"]["spec"]
    assert [c["name"] for c in bench["initContainers"] + bench["containers"]] == [
        "schema",
        "prepare",
        "warmup",
        "ladder",
        "publish",
    ]
    for job in jobs:
        pod = job.inputs["spec"]["template"]["spec"]
        assert pod["nodeSelector"] == monitoring_selector  # B1
        assert DATABASE_TAINT.as_toleration() not in pod.get("tolerations", [])  # K4


@pytest.mark.parametrize("stack", STACKS)
def test_database_and_proxy_pods_are_on_the_database_pool(stack, run):
    registrations, _ = run(stack)
    body = crd._ints(_cr(registrations).inputs)["spec"]
    blocks = [body["pxc"], body["haproxy"]] if "pxc" in body else [body["mysql"], body["proxy"]["haproxy"]]
    for block in blocks:
        assert block["nodeSelector"] == {POOL_LABEL: "database"}
        assert block["tolerations"] == [DATABASE_TAINT.as_toleration()]
        assert block["affinity"] == {"antiAffinityTopologyKey": "kubernetes.io/hostname"}


def test_gke_pools_and_ordering(run):
    registrations, _ = run("gke")
    pools = {
        r.inputs["nodeConfig"]["labels"][POOL_LABEL]: r for r in registrations if r.type == "gcp:container/nodePool:NodePool"
    }
    assert pools["database"].inputs["nodeConfig"]["machineType"] == "n2-standard-16"
    assert pools["database"].inputs["nodeConfig"]["taints"] == [{"key": POOL_LABEL, "value": "database", "effect": "NO_SCHEDULE"}]
    assert pools["monitoring"].inputs["nodeConfig"]["machineType"] == "n2-standard-8"
    cr = _cr(registrations)
    assert _reaches(registrations, cr, pools["database"]) and _reaches(registrations, cr, pools["monitoring"])
    assert _reaches(registrations, cr, _one(registrations, RELEASE, "operator-release"))
    assert cr.protect is True


def test_eks_pools_and_group_replication(run):
    registrations, _ = run("eks")
    groups = {r.inputs["labels"][POOL_LABEL]: r for r in registrations if r.type == "aws:eks/nodeGroup:NodeGroup"}
    assert groups["database"].inputs["instanceTypes"] == ["m6i.4xlarge"]
    assert groups["database"].inputs["taints"]
    cr = _cr(registrations)
    assert cr.inputs["kind"] == "PerconaServerMySQL" and cr.inputs["spec"]["mysql"]["clusterType"] == "group-replication"
    assert _reaches(registrations, cr, groups["database"])


def test_kind_is_ephemeral_small_and_unprotected(run):
    registrations, monitor = run("kind")
    create = _one(registrations, "command:local:Command", "kind-mysql-kind").inputs["stdin"]
    assert "mysql.percona.com/pool: database" in create and "mysql.percona.com/pool: monitoring" in create
    cr = _cr(registrations)
    assert cr.protect is False
    assert cr.inputs["spec"]["unsafeFlags"]["pxcSize"] is True and cr.inputs["spec"]["unsafeFlags"]["tls"] is False
    bench = _one(registrations, JOB, "sysbench-job").inputs["spec"]["template"]["spec"]
    env = {e["name"]: e.get("value") for e in bench["containers"][0]["env"]}
    assert env["THREADS"] == "1 4 16" and env["DURATION_SECONDS"] == "60"
    outputs = stack_outputs()
    assert outputs["sysbench"]["resultsConfigMap"] == "kind-mysql-sysbench-results"
    assert outputs["database"]["writerEndpoint"] == "kind-mysql-haproxy.mysql.svc:3306"
    assert outputs["pmm"]["url"] == "https://monitoring-service.mysql.svc"
    assert outputs["sizing"]["maxConnections"] > 16


def test_existing_with_operator_and_pmm_already_installed(run):
    registrations, monitor = run(
        "existing",
        overrides={"installOperator": False, "installPmm": False, "pmmServerHost": "monitoring-service.pmm"},
        secrets={"pmmServerToken": "offline0123456789abcdef"},
    )
    assert not [r for r in registrations if r.type == RELEASE]
    assert not [r for r in registrations if r.type == "kubernetes:core/v1:Namespace"]
    secret = _one(registrations, "kubernetes:core/v1:Secret", "existing-mysql-secrets")
    assert "pmmservertoken" in secret.inputs["stringData"]
    assert _cr(registrations).inputs["spec"]["pmm"]["serverHost"] == "monitoring-service.pmm"
    assert plaintext_secrets(monitor) == []


@pytest.mark.parametrize(
    "stack,overrides,message",
    [
        ("gke", {"proxy": "router"}, "T2: proxy"),
        ("gke", {"clusterSize": 4, "databaseNodeCount": 4}, "T1: clusterSize"),
        ("gke", {"clusterSize": 5}, "K5: databaseNodeCount"),
        ("eks", {"proxy": "proxysql"}, "T2: proxy"),
        ("gke", {"sysbenchThreads": [1, 4, 100000]}, "B3: sysbenchThreads"),
        ("gke", {"sysbenchThreads": [16, 4]}, "B3: sysbenchThreads"),
        ("gke", {**REQUEST, "sysbenchDataSize": "80Gi", "storageSize": "100Gi"}, "R7: storageSize"),
        ("gke", {"sysbenchEnabled": True}, "R5: sysbenchRunId"),
        ("gke", {"sysbenchEnabled": True, "sysbenchRunId": "r1"}, "R5: sysbenchDataSize"),
        ("eks", {**REQUEST, "sysbenchRunId": "Run 1"}, "R5: sysbenchRunId"),
        ("gke", {"mysqlVersion": "5.7"}, "mysqlVersion"),
        ("gke", {"storageSize": "a lot"}, "storageSize"),
        ("gke", {"databaseNodeType": "m6i.4xlarge"}, "databaseNodeType"),
        ("gke", {"installPmm": False}, "S5: pmmServerHost"),
        ("gke", {"installPmm": False, "pmmServerHost": "monitoring-service.pmm"}, "S5: pmmServerToken"),
        ("gke", {"pmmServerHost": "pmm.example"}, "pmmServerHost"),
        ("kind", {"kindHostShare": "0.01"}, "databaseNodeType|kindHostShare"),
        ("gke", {"clusterName": "a-cluster-name-over-22c"}, "dbClusterName"),
        # 100,000 connections x 0.53 MiB each (session and performance_schema) exceed the 58 GiB node (M1)
        ("gke", {"connections": 100000}, "M1: connections"),
        ("gke", {"sysbenchEnabled": "maybe"}, "sysbenchEnabled"),
    ],
)
def test_bad_config_stops_before_any_resource(stack, overrides, message, run):
    import pulumi

    with pytest.raises(pulumi.RunError, match=message):
        run(stack, overrides)
    assert SecretAwareMonitor.instances[-1].registrations == []


def test_every_database_key_is_declared_in_pulumi_yaml_with_the_same_default():
    import yaml
    from percona_mysql_k8s.stack.settings import CONFIG_KEYS

    declared = yaml.safe_load((REPOSITORY / "Pulumi.yaml").read_text())["config"]
    for key, (_, default) in CONFIG_KEYS.items():
        assert key in declared, key
        assert declared[key]["default"] == default, key


def _reaches(registrations, dependent, dependency) -> bool:
    from database.harness import depends_on

    return depends_on(registrations, dependent, dependency)


@pytest.mark.parametrize("stack", STACKS)
def test_every_key_of_the_stack_file_is_declared_in_pulumi_yaml(stack):
    """The CLI refuses a project key the project does not declare ("... which is not defined by the
    project configuration"), so a stack file may only use declared keys."""
    import yaml

    project = yaml.safe_load((REPOSITORY / "Pulumi.yaml").read_text())
    stack_file = REPOSITORY / "stacks" / f"Pulumi.{stack}.yaml"
    keys = yaml.safe_load(stack_file.read_text())["config"]
    for key in keys:
        namespace, _, name = key.partition(":")
        if namespace == project["name"]:
            assert name in project["config"], f"{stack_file.name}: {key} is not declared in Pulumi.yaml"


@pytest.mark.parametrize("stack", ["gke", "eks", "existing"])
def test_production_stacks_run_no_benchmark_unless_asked(stack, run):
    registrations, _ = run(stack)
    assert not [r for r in registrations if r.type == JOB and "sysbench" in r.inputs["metadata"]["name"]]


def _sysbench_job(registrations):
    (job,) = [
        r
        for r in registrations
        if r.type == JOB and "-sysbench" in r.inputs["metadata"]["name"] and not r.inputs["metadata"]["name"].endswith("-user")
    ]
    return job.inputs


def test_a_requested_run_does_not_follow_the_database(run):
    """R5: once requested, the run is the same Job whatever the database becomes (no replace, no rerun);
    a new request is a new Job; the data set is what was asked, never more."""
    first = _sysbench_job(run("gke", overrides=REQUEST)[0])
    resized = _sysbench_job(
        run("gke", overrides={**REQUEST, "connections": 3000, "databaseNodeType": "n2-standard-32", "load": "heavy-oltp"})[0]
    )
    assert resized == first
    again = _sysbench_job(run("gke", overrides={**REQUEST, "sysbenchRunId": "r2"})[0])
    assert again["metadata"]["name"].endswith("-sysbench-r2") and first["metadata"]["name"].endswith("-sysbench-r1")
    env = {e["name"]: e.get("value") for c in first["spec"]["template"]["spec"]["initContainers"] for e in c.get("env", [])}
    # 16 tables x rows of 230 bytes, rounded down: at most the 20Gi asked
    assert 16 * int(env["TABLE_SIZE"]) * 230 <= 20 * GIB


def test_an_ephemeral_run_follows_the_database(run):
    first = _sysbench_job(run("kind")[0])
    resized = _sysbench_job(run("kind", overrides={"load": "read-heavy"})[0])
    assert resized["spec"] != first["spec"]  # a new plan reruns the benchmark on a throwaway stack


# S4: a protected stack keeps its database's identity. The previous outputs are those the stack's own first
# deployment exported (run under mocks), so the test compares exactly what the program would read back.
IDENTITY_CHANGES = [
    ({"engine": "group-replication"}, "engine"),
    ({"dbClusterName": "other-db"}, "dbClusterName"),
    ({"namespace": "mysql-two"}, "namespace"),
]


def _deployed(run, stack: str, overrides=None) -> dict:
    run(stack, overrides)
    return stack_outputs()


@pytest.mark.parametrize("change,key", IDENTITY_CHANGES)
def test_a_protected_stack_refuses_a_new_identity_before_anything_is_registered(change, key, run):
    import pulumi

    previous = _deployed(run, "gke")
    with pytest.raises(pulumi.RunError, match=f"S4: {key}: changing it from .* replaces the database"):
        run("gke", change, previous_outputs=previous)
    assert SecretAwareMonitor.instances[-1].registrations == []


def test_a_protected_stack_redeploys_and_resizes_under_the_same_identity(run):
    previous = _deployed(run, "gke")
    assert previous["database"]["engine"] == "pxc"  # the output the check reads back
    registrations, _ = run("gke", {"storageSize": "300Gi", "connections": 500}, previous_outputs=previous)
    assert [r for r in registrations if r.type in CR_TYPES]


@pytest.mark.parametrize("change,key", IDENTITY_CHANGES)
def test_an_ephemeral_stack_may_change_its_identity(change, key, run):
    previous = _deployed(run, "kind")
    registrations, _ = run("kind", change, previous_outputs=previous)
    (cr,) = [r for r in registrations if r.type in CR_TYPES]
    assert cr.inputs["metadata"]["name"] == change.get("dbClusterName", previous["database"]["name"])


@pytest.mark.parametrize("stack", STACKS)
def test_the_identity_check_reads_the_stacks_own_outputs(stack, run):
    """A persistent stack asks the backend for its own outputs by its fully qualified name (a DIY backend's
    organization is "organization"); an ephemeral one (kind) has nothing to protect and asks nothing."""
    _, monitor = run(stack, overrides=None if stack == "kind" else REQUEST)
    expected = [] if stack == "kind" else [f"organization/{offline.project_name()}/{stack}"]
    assert monitor.mocks.stack_output_reads == expected


def test_a_protected_stacks_volumes_only_grow(run):
    """S4: the last deployment's storageSize (gke ships 200Gi) is a floor; the same size in another spelling
    (204800Mi = 200 x 1024 Mi) and a larger one pass, a smaller one stops before anything is registered."""
    import pulumi

    previous = _deployed(run, "gke")
    assert previous["database"]["storageSize"] == "200Gi"
    for same_or_larger in ("204800Mi", "300Gi"):
        assert run("gke", {"storageSize": same_or_larger}, previous_outputs=previous)[0]
    with pytest.raises(pulumi.RunError, match="S4: storageSize: '150Gi' is smaller than the '200Gi'"):
        run("gke", {"storageSize": "150Gi"}, previous_outputs=previous)
    assert SecretAwareMonitor.instances[-1].registrations == []


def test_a_first_deployment_and_an_older_output_pass_the_identity_check(run):
    """No outputs (never deployed) or outputs without a database (a deployment that stopped early): nothing
    to compare, so nothing is refused."""
    for previous in ({}, {"target": {"kind": "gke"}}):
        registrations, _ = run("gke", {"namespace": "mysql-two"}, previous_outputs=previous)
        assert registrations


@pytest.mark.parametrize("stack", ["kind", "gke", "eks", "existing"])
def test_crds_are_never_deleted_by_a_protected_stack(stack, run):
    """S4: deleting a CRD deletes every custom resource of it. On a persistent stack the CRDs are protected
    (a destroy stops) and retained (once unprotected, Pulumi forgets them instead of deleting them); both
    options pass from the ConfigFile component to each CRD. kind is ephemeral: neither."""
    registrations, _ = run(stack)
    configs = [r for r in registrations if r.type == "kubernetes:yaml/v2:ConfigFile" and r.name.endswith("-crds")]
    (crds,) = configs
    persistent = stack != "kind"
    assert (crds.protect, crds.retain_on_delete) == (persistent, persistent)


@pytest.mark.parametrize("ephemeral", [False, True])
def test_an_existing_cluster_adopts_the_crds_it_finds_and_never_deletes_them(ephemeral, run):
    """On a cluster the stack did not create, the operator's CRDs may be there already (an operator installed
    before, another stack, or this stack's own, retained by an earlier destroy): they go through the shared provider,
    which adopts an existing object instead of failing with "already exists" (pulumi-kubernetes' default create
    since #4278; the engine tier hit it), and are retained whatever the stack, even an ephemeral one: they may be
    another install's."""
    registrations, _ = run("existing", {"ephemeral": True, "clusterSize": 1, "backup": False} if ephemeral else None)
    (crds,) = [r for r in registrations if r.type == "kubernetes:yaml/v2:ConfigFile" and r.name.endswith("-crds")]
    providers = {r.urn: r.inputs for r in registrations if r.type == "pulumi:providers:kubernetes"}

    def provider_of(registration):  # a provider reference is "<provider URN>::<provider ID>"
        return providers[registration.provider.rsplit("::", 1)[0]]

    assert provider_of(crds).get("upsertExistingObjects") in (True, "true"), crds.provider
    others = [r for r in registrations if r.custom and r.type.startswith("kubernetes:") and r.provider]
    assert others and all("upsertExistingObjects" not in provider_of(r) for r in others)
    assert (crds.protect, crds.retain_on_delete) == (not ephemeral, True)


ROLE = "kubernetes:rbac.authorization.k8s.io/v1:Role"


@pytest.mark.parametrize("stack", STACKS)
def test_jobs_hold_only_the_credentials_they_use(stack, run):
    """Least privilege: the benchmark pod reads only the benchmark user's Secret (root's password is only in
    the one-shot user setup Job), and every Role reaches Secrets only by name: the PMM token Job's exactly
    the cluster Secret it patches, nothing else."""
    registrations, _ = run(stack, overrides=None if stack == "kind" else REQUEST)
    bench = _sysbench_job(registrations)
    cluster = bench["metadata"]["name"].split("-sysbench")[0]
    pod = bench["spec"]["template"]["spec"]
    secrets_read = {
        e["valueFrom"]["secretKeyRef"]["name"]
        for c in pod["initContainers"] + pod["containers"]
        for e in c.get("env", [])
        if "secretKeyRef" in e.get("valueFrom", {})
    }
    assert secrets_read == {f"{cluster}-sysbench"}
    # the only Secret volume is the operator's CA certificate, projected alone (a certificate, not a credential)
    assert [v for v in pod["volumes"] if set(v) & {"secret", "projected"}] == [
        {"name": "mysql-ca", "secret": {"secretName": f"{cluster}-ssl", "items": [{"key": "ca.crt", "path": "ca.crt"}]}}
    ]
    (setup,) = [r.inputs for r in registrations if r.type == JOB and r.inputs["metadata"]["name"].endswith("-user")]
    setup_reads = {
        e["valueFrom"]["secretKeyRef"]["name"]
        for c in setup["spec"]["template"]["spec"]["containers"]
        for e in c.get("env", [])
        if "secretKeyRef" in e.get("valueFrom", {})
    }
    assert setup_reads == {f"{cluster}-secrets", f"{cluster}-sysbench"}
    secret_rules = [
        (role.name, rule)
        for role in registrations
        if role.type == ROLE
        for rule in role.inputs["rules"]
        if "secrets" in rule["resources"]
    ]
    assert secret_rules, "the PMM token Job's Role"
    for name, rule in secret_rules:
        assert rule.get("resourceNames") == [f"{cluster}-secrets"], name
        assert set(rule["verbs"]) <= {"get", "patch"}, name


@pytest.mark.parametrize(
    ("stack", "plugin"),
    [
        ("gke", ["gke-gcloud-auth-plugin"]),
        ("eks", ["aws", "--region", "eu-west-1", "eks", "get-token", "--cluster-name", "eks-mysql", "--output", "json"]),
    ],
)
def test_cloud_stacks_export_their_kubeconfig_as_a_secret(stack, plugin, run, config_values):
    # After `up`, the way in: `pulumi stack output kubeconfig --show-secrets > kubeconfig` (README), authenticated
    # by the cloud's exec credential plugin; the output is a secret (it names the cluster's endpoint and CA).
    run(stack)
    exported = get_root_resource().outputs["kubeconfig"]
    assert _sync_await(exported.is_secret()) is True
    kubeconfig = json.loads(stack_outputs()["kubeconfig"])
    name = config_values(stack)["clusterName"]
    assert kubeconfig["current-context"] == name
    (cluster,) = kubeconfig["clusters"]
    assert cluster["name"] == name and cluster["cluster"]["certificate-authority-data"]
    assert cluster["cluster"]["server"].startswith("https://")
    (user,) = kubeconfig["users"]
    plugin_run = user["user"]["exec"]
    assert [plugin_run["command"], *plugin_run.get("args", [])] == plugin


def test_the_existing_stack_exports_no_kubeconfig(run):
    run("existing")
    assert "kubeconfig" not in stack_outputs()  # the user's own kubeconfig reaches a cluster this stack did not make
