"""Every shipped stack: each Kubernetes object it would create is accepted by a real API server.

For each ``stacks/Pulumi.<stack>.yaml``: the stack program runs under mocks (``percona_mysql_k8s.cli.offline.run_stack``),
every Kubernetes object it registers is collected (Helm releases and manifest components are recorded,
not rendered), the Percona CRDs that match the stack's operator are installed with server-side apply,
and the objects are applied in dependency order, read back and compared with what was sent, then
deleted until their namespaces are gone. A known-bad variant of the stack's own custom resource is
rejected. When an object is rejected, fix the generator, not this test.

A throwaway stack (its own Pulumi.yaml, stacks/__main__.py and stack file in a temporary folder) goes
through the same two checks, so the per-stack path is exercised before the real stacks land.
"""

from __future__ import annotations

import copy
import textwrap
from pathlib import Path

import pytest
from apiserver_cluster import Cluster, apply_and_verify, error_message
from apiserver_objects import Collected, KubeObject, collect, crd_files, from_manifests
from kubernetes.dynamic.exceptions import DynamicApiError
from percona_mysql_k8s.cli.offline import run_stack, stack_config
from percona_mysql_k8s.plan.clusters import kind as kind_plan

pytestmark = pytest.mark.apiserver
REPOSITORY = Path(__file__).resolve().parents[2]

STACKS = sorted(path.name[len("Pulumi.") : -len(".yaml")] for path in (REPOSITORY / "stacks").glob("Pulumi.*.yaml"))
assert STACKS, "stacks/Pulumi.*.yaml: the shipped stack configs are missing"
_collected: dict[str, Collected] = {}


# The kind stack sizes its nodes as a share of the machine running the program (K1); pin a developer
# laptop so the tier does not depend on the CI host (a 2-CPU runner cannot hold the kind stack's member).
KIND_HOST = (8000, 32 * 2**30)
# The existing stack reads its cluster's Nodes at preview/up (test_apiserver_existing_nodes.py does that
# against this API server); here it plans offline from one declared node so only its objects are judged.
OFFLINE_EXISTING = {
    "existingNodeSource": "config",
    "existingNodeCpu": "7910m",
    "existingNodeMemory": "28Gi",
    "existingNodeZones": ["us-east-1a", "us-east-1b", "us-east-1c"],
}


def collected_for(stack: str, repository: Path = REPOSITORY) -> Collected:
    key = f"{repository}:{stack}"
    if key not in _collected:
        host = kind_plan.host_resources
        kind_plan.host_resources = lambda: KIND_HOST
        try:
            overrides = OFFLINE_EXISTING if stack == "existing" else None
            _collected[key] = collect(run_stack(stack, repository=repository, overrides=overrides))
        finally:
            kind_plan.host_resources = host
    return _collected[key]


# --------------------------------------------------------------------------------------------------
# the two checks


def helm_namespaces(collected: Collected) -> list[KubeObject]:
    """Namespaces a Helm release would create (``createNamespace``) and no object of the stack creates."""
    created = {obj.name for obj in collected.objects if obj.kind == "Namespace"}
    wanted = sorted(
        {rel["namespace"] for rel in collected.helm_releases if rel["createNamespace"] and rel["namespace"]} - created
    )
    return [
        obj
        for name in wanted
        for obj in from_manifests(
            [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}}], source="stand-in for Helm createNamespace"
        )
    ]


def prerequisite_namespaces(stack: str) -> list[KubeObject]:
    """The database namespace when the stack config says it exists before the stack runs (createNamespace
    false: stacks/Pulumi.existing.yaml, whose backup credentials Secret lives there): the user creates it, as
    docs/backups.md says, so a stand-in does here."""
    config = stack_config(stack)
    if str(config.get("percona-mysql:createNamespace", "true")).lower() != "false":
        return []
    name = str(config.get("percona-mysql:namespace", "mysql"))
    return from_manifests(
        [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}}],
        source="stand-in for the namespace the user creates (createNamespace false)",
    )


def check_objects_accepted(
    cluster: Cluster, reference: Path, stack: str, collected: Collected, prerequisites: list[KubeObject] = ()
):
    print(f"\nstack {stack}\n{collected.summary()}")
    for release in collected.helm_releases:
        print(
            f"  Helm {release['chart']} {release['version']} into {release['namespace']} ({release['repo']}): recorded, not rendered"
        )
    assert collected.objects, f"stack {stack} registers no Kubernetes object the tier can apply"
    crds = crd_files(collected, reference)
    for path, reason in crds:
        print(f"  CRDs {path.name}: {reason}")
    cluster.install_crds([path for path, _ in crds])

    objects = copy.deepcopy(collected.objects)
    extra = helm_namespaces(collected) + list(prerequisites)
    for obj in objects:  # objects going into a namespace the Helm release (or the user) creates wait for it
        obj.depends_on += [ns.key for ns in extra if ns.name in (obj.namespace, obj.default_namespace)]
    report = apply_and_verify(cluster, extra + objects)
    print(report.summary())
    assert not report.problems(), f"stack {stack}:\n" + "\n".join(report.problems())
    return report


def _broken(obj: KubeObject) -> tuple[dict, str] | None:
    """The stack's own custom resource with one rule broken, and the message the API server must give."""
    body = copy.deepcopy(obj.body)
    spec = body.setdefault("spec", {})
    if obj.kind == "PerconaServerMySQL":
        proxy = spec.setdefault("proxy", {})
        for name in ("haproxy", "router"):
            proxy.setdefault(name, {}).update(enabled=True, size=3)
            proxy[name].setdefault("image", f"percona/{name}")
        spec.setdefault("unsafeFlags", {})["proxy"] = False
        return body, "MySQL Router and HAProxy can't be enabled at the same time"
    if obj.kind == "PerconaXtraDBCluster":  # the PXC CRD's few CEL rules: one guards service exposure
        spec.setdefault("pxc", {}).setdefault("expose", {}).update(type="ClusterIP", loadBalancerClass="offline")
        return body, "'loadBalancerClass' can only be set when service type is 'LoadBalancer'"
    return None


def check_known_bad_rejected(cluster: Cluster, reference: Path, stack: str, collected: Collected) -> list[str]:
    variants = [(obj, broken) for obj in collected.objects if (broken := _broken(obj))]
    if not variants:
        pytest.skip(f"stack {stack} creates no Percona custom resource")
    cluster.install_crds([path for path, _ in crd_files(collected, reference)])
    messages = []
    for obj, (body, message) in variants:
        body["metadata"]["namespace"] = "default"  # dry run: nothing is stored, the namespace need not exist
        body["metadata"]["name"] = f"{obj.name}-bad"[:63]
        with pytest.raises(DynamicApiError) as rejected:
            cluster.apply(body, dry_run=True)
        text = f"{rejected.value.status} {error_message(rejected.value)}"
        print(f"{obj.label()} with one rule broken: {text}")
        assert rejected.value.status == 422, text
        assert message in text
        messages.append(text)
    return messages


# --------------------------------------------------------------------------------------------------
# the shipped stacks


@pytest.mark.parametrize("stack", STACKS)
def test_every_object_of_the_stack_is_accepted_read_back_and_deleted(cluster, reference: Path, stack: str):
    check_objects_accepted(cluster, reference, stack, collected_for(stack), prerequisite_namespaces(stack))


@pytest.mark.parametrize("stack", STACKS)
def test_a_known_bad_variant_of_the_stack_custom_resource_is_rejected(cluster, reference: Path, stack: str):
    check_known_bad_rejected(cluster, reference, stack, collected_for(stack))


# --------------------------------------------------------------------------------------------------
# a throwaway stack through the same path

THROWAWAY_PROJECT = """\
name: tier-demo
runtime: python
main: stacks/
stackConfigDir: stacks
config:
  namespace: {type: string, default: tier-demo-db}
  size: {type: integer, default: 3}
"""

THROWAWAY_PROGRAM = textwrap.dedent("""
    import pulumi, pulumi_kubernetes as k8s
    config = pulumi.Config()
    provider = k8s.Provider("cluster", kubeconfig="offline", namespace=config.require("namespace"))
    opts = pulumi.ResourceOptions(provider=provider)
    ns = k8s.core.v1.Namespace("db", metadata={"name": config.require("namespace")}, opts=opts)
    operator = k8s.helm.v3.Release("pxc-operator", chart="pxc-operator", version="1.20.0", namespace="tier-demo-operator",
                                   create_namespace=True, repository_opts={"repo": "https://percona.github.io/percona-helm-charts/"},
                                   values={"watchNamespace": config.require("namespace")}, opts=opts)
    secrets = k8s.core.v1.Secret("secrets", metadata={"name": "demo-secrets"},  # namespace: the provider's
                                 string_data={"root": "r00t", "operator": "op", "monitor": "mon"},
                                 opts=pulumi.ResourceOptions(provider=provider, depends_on=[ns]))
    k8s.core.v1.ConfigMap("operator-settings", metadata={"namespace": "tier-demo-operator"}, data={"LOG_LEVEL": "INFO"},
                          opts=pulumi.ResourceOptions(provider=provider, depends_on=[operator]))
    k8s.apiextensions.CustomResource("pxc", api_version="pxc.percona.com/v1", kind="PerconaXtraDBCluster",
        metadata={"name": "demo", "namespace": config.require("namespace"), "finalizers": ["percona.com/delete-pxc-pods-in-order"]},
        spec={"crVersion": "1.20.0", "secretsName": "demo-secrets", "upgradeOptions": {"apply": "disabled"},
              "pxc": {"size": config.require_int("size"), "image": "percona/percona-xtradb-cluster:8.4.8-8.1",
                      "resources": {"requests": {"cpu": "2", "memory": "8Gi"}, "limits": {"memory": "8Gi"}},
                      "configuration": "[mysqld]\\ninnodb_buffer_pool_size=4G\\n",
                      "readinessProbes": {"timeoutSeconds": 15}, "livenessProbes": {"timeoutSeconds": 450},
                      "volumeSpec": {"persistentVolumeClaim": {"resources": {"requests": {"storage": "100Gi"}}}}},
              "haproxy": {"enabled": True, "size": 3, "image": "percona/haproxy:2.8.18-1"},
              "proxysql": {"enabled": False}},  # backup: absent turns it off (INTERFACES 2.12)
        opts=pulumi.ResourceOptions(provider=provider, depends_on=[operator, secrets]))
""")


@pytest.fixture
def throwaway_stack(tmp_path: Path) -> Path:
    (tmp_path / "Pulumi.yaml").write_text(THROWAWAY_PROJECT)
    (tmp_path / "stacks").mkdir()
    (tmp_path / "stacks" / "__main__.py").write_text(THROWAWAY_PROGRAM)
    (tmp_path / "stacks" / "Pulumi.demo.yaml").write_text("config:\n  tier-demo:size: 3\n")
    return tmp_path


def test_the_per_stack_path_on_a_throwaway_stack(cluster, reference: Path, throwaway_stack: Path):
    collected = collected_for("demo", throwaway_stack)
    assert [item.reason.split(" ")[0] for item in collected.skipped if item.type.startswith("kubernetes:helm")] == ["Helm"]
    report = check_objects_accepted(cluster, reference, "demo", collected)
    labels = [o.obj.label() for o in report.outcomes]
    # the Helm release's namespace was stood in for, and the ConfigMap that depends on the release waited for it
    assert labels.index("Namespace tier-demo-operator (stand-in for Helm createNamespace)") < next(
        i for i, label in enumerate(labels) if label.startswith("ConfigMap tier-demo-operator/")
    )
    # the Secret without a namespace went into the provider's namespace
    assert any(label.startswith("Secret tier-demo-db/demo-secrets") for label in labels), labels
    assert crd_files(collected, reference)[0][0].name == "helm-pxc-operator-1.20.0-crds-crd.yaml"
    check_known_bad_rejected(cluster, reference, "demo", collected)
