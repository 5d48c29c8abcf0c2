"""Sanity of the tier itself: what upstream ships, and a small program, go through the same code path.

Both operators' example custom resources (and their secrets) are accepted by the API server with the
matching CRDs, read back unchanged, and deleted again (their operator finalizers are removed by the tier,
since no operator runs here). A throwaway Pulumi program run under mocks (Namespace, Secret, ConfigMap,
a PS custom resource and a Job) is applied in dependency order, read back, and garbage-collected: the
Job's Pods, made by the job controller, are removed with it.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from apiserver_cluster import apply_and_verify
from apiserver_objects import KubeObject, collect, from_manifests, load_manifests
from percona_mysql_k8s.cli.offline import run_program

pytestmark = pytest.mark.apiserver

EXAMPLES = {
    "ps-1.2.0": ("ps-operator-v1.2.0-crd.yaml", "ps-operator-v1.2.0"),
    "pxc-1.19.0": ("pxc-operator-v1.19.0-crd.yaml", "pxc-operator-v1.19.0"),
    # the released pxc-operator chart's CRDs still accept the 1.19.0 examples
    "pxc-1.19.0-on-helm-1.20.0-crds": ("helm-pxc-operator-1.20.0-crds-crd.yaml", "pxc-operator-v1.19.0"),
}


def _namespace(name: str) -> KubeObject:
    return from_manifests([{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}}], source=f"namespace {name}")[0]


@pytest.mark.parametrize("example", sorted(EXAMPLES))
def test_operator_example_custom_resources_are_accepted(cluster, reference: Path, example: str):
    crd_file, prefix = EXAMPLES[example]
    installed = cluster.install_crds([reference / crd_file])
    assert installed, f"no CRDs in {crd_file}"
    namespace = _namespace(f"apiserver-tier-{example.replace('.', '-')}")
    objects = [namespace]
    for suffix in ("secrets", "cr", "cr-minimal"):
        path = reference / f"{prefix}-{suffix}.yaml"
        objects += from_manifests(load_manifests(path), source=path.name, namespace=namespace.name, depends_on=[namespace.key])
    report = apply_and_verify(cluster, objects)
    print(report.summary())
    assert not report.problems(), "\n".join(report.problems())
    kinds = {o.obj.kind for o in report.outcomes if o.accepted}
    assert {"Namespace", "Secret"} < kinds and kinds & {"PerconaServerMySQL", "PerconaXtraDBCluster"}, kinds
    # the example CR carries the operator's finalizer: deleting it is only possible because the tier takes
    # the operator's place, which it reports
    assert any("percona.com/delete-" in item for item in report.cleanup), report.cleanup


PROGRAM = textwrap.dedent("""
    import pulumi, pulumi_random as random, pulumi_kubernetes as k8s
    ns = k8s.core.v1.Namespace("ns", metadata={"name": "apiserver-tier-program"})
    password = random.RandomPassword("root", length=20, special=False)
    secret = k8s.core.v1.Secret("secrets", metadata={"name": "tier-secrets", "namespace": ns.metadata["name"]},
                                string_data={"root": password.result, "operator": "op"})
    config = k8s.core.v1.ConfigMap("mycnf", metadata={"namespace": ns.metadata["name"]},
                                   data={"my.cnf": "[mysqld]\\ninnodb_buffer_pool_size=1G\\n"})
    unsafe = {key: False for key in ("mysqlSize", "proxy", "proxySize", "orchestrator", "orchestratorSize", "backupNonReadyCluster")}
    k8s.apiextensions.CustomResource(
        "ps", api_version="ps.percona.com/v1", kind="PerconaServerMySQL",
        metadata={"name": "tier", "namespace": ns.metadata["name"], "finalizers": ["percona.com/delete-mysql-pods-in-order"]},
        spec={
            "crVersion": "1.2.0", "secretsName": secret.metadata["name"], "updateStrategy": "SmartUpdate", "unsafeFlags": unsafe,
            "mysql": {"clusterType": "group-replication", "size": 3, "image": "percona/percona-server:8.4.10-10.1",
                      "resources": {"requests": {"memory": "2Gi", "cpu": "1500m"}, "limits": {"memory": "4Gi", "cpu": 2}},
                      "volumeSpec": {"persistentVolumeClaim": {"resources": {"requests": {"storage": "10Gi"}}}}},
            "proxy": {"haproxy": {"enabled": True, "size": 3, "image": "percona/haproxy:2.8.18-1"},
                      "router": {"enabled": False, "size": 3, "image": "percona/percona-mysql-router:8.4.10"}},
            "orchestrator": {"enabled": False, "size": 3, "image": "percona/percona-orchestrator:3.2.6-22"},
        },
        opts=pulumi.ResourceOptions(depends_on=[secret, config]))
    k8s.batch.v1.Job("sysbench", metadata={"namespace": ns.metadata["name"]}, spec={
        "backoffLimit": 0,
        "template": {"spec": {"restartPolicy": "Never", "containers": [{
            "name": "sysbench", "image": "perconalab/sysbench:latest", "args": ["sysbench", "--version"],
            "resources": {"requests": {"cpu": 0.5, "memory": "256Mi"}, "limits": {"memory": "268435456"}}}]}}})
""")


def test_program_objects_are_applied_read_back_and_garbage_collected(cluster, reference: Path, tmp_path: Path):
    (tmp_path / "__main__.py").write_text(PROGRAM)
    collected = collect(run_program(tmp_path, stack="apiserver", config={}, project="tier"))
    print(collected.summary())
    assert sorted(obj.kind for obj in collected.objects) == ["ConfigMap", "Job", "Namespace", "PerconaServerMySQL", "Secret"]
    cluster.install_crds([reference / "ps-operator-v1.2.0-crd.yaml"])
    report = apply_and_verify(cluster, collected.objects)
    print(report.summary())
    assert not report.problems(), "\n".join(report.problems())
    order = [o.obj.kind for o in report.outcomes]
    assert order[0] == "Namespace" and order.index("PerconaServerMySQL") > max(order.index("Secret"), order.index("ConfigMap"))
    # the server filled in defaults (Job selector, pod template defaults, CRD defaults) and they were read back
    job = next(o for o in report.outcomes if o.obj.kind == "Job")
    assert any(path.startswith(".spec.template.spec") for path in job.defaulted), job.defaulted
    # the job controller made a Pod for the Job; deleting the Job garbage-collected it
    assert any(item.startswith("Pod apiserver-tier-program/") for item in report.garbage_collected), report.summary()
