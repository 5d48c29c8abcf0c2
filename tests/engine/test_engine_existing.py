"""The ``existing`` stack under the real Pulumi engine, from ``pulumi stack init`` to ``pulumi destroy``.

The stack is stacks/Pulumi.existing.yaml as shipped, in a copy of this clone, with what a user of an air-gapped
cluster sets (``pulumi config set``): the cluster's kubeconfig, the operator and PMM charts as local archives and
the operator's CRDs as a local file. Its pools are found by the shipped labels and taint on the kwok-managed Nodes
(conftest.py). The user creates the database namespace and the backup credentials Secret first
(createNamespace: false; docs/backups.md), so the test does. The tests run in file order on one deployment:
up, what it created (secrets, charts, scheduling), a second up, bigger Nodes, the policy pack, destroy.
"""

from __future__ import annotations

import base64
import json
import re
import subprocess

import pytest
import yaml
from conftest import DATABASE_NODES, REPOSITORY
from engine_cluster import scheduled_by_the_scheduler, set_allocatable, wait_for
from engine_inventory import everything, helm_releases, rendered_objects
from engine_operator import DeploymentOperator
from engine_stack import (
    CLUSTER,
    CR,
    EXISTING,
    NAMESPACE,
    OPERATOR_KEEPS,
    PMM_CLAIM,
    existing_stack,
    preview_steps,
    remove_namespace,
    set_config,
    stack_volumes,
    tear_down,
    up,
    user_namespace,
)
from engine_volumes import delete_volumes
from kubernetes import client as k8s_client
from operator_process import PXC
from percona_mysql_k8s.core.units import GIB, cpu_to_millicores, memory_to_bytes

pytestmark = pytest.mark.engine

STACK = EXISTING

# Replace steps: any of them on a database resource would recreate it (and lose its data).
REPLACING = {"replace", "create-replacement", "delete-replaced", "discard-replaced", "import-replacement"}
# What the PXC operator renders for the custom resource: the members' and the proxies' StatefulSets
# (pkg/pxc/app/statefulset: <cluster>-pxc, <cluster>-haproxy), with the app.kubernetes.io/component of their pods.
RENDERED = {f"{CLUSTER}-pxc": "pxc", f"{CLUSTER}-haproxy": "haproxy"}


@pytest.fixture(scope="module")
def deployment(project, kubeconfig, kube, core, pool_nodes, material, pxc_operator_binary, tmp_path_factory):
    """The stack after its first `up`, the real PXC operator reconciling; torn down (documented recovery, unprotect,
    destroy) whatever happens."""
    user_namespace(core)
    volumes = stack_volumes(core, "engine-tier")
    existing_stack(project, REPOSITORY, kubeconfig, material)
    venv_existed = (project.project / ".venv").exists()
    baseline = {obj.label for obj in everything(kube, NAMESPACE)}
    cluster_baseline = {obj.label for obj in everything(kube, None, cluster_scoped=True)}
    operator = DeploymentOperator(PXC, pxc_operator_binary, kubeconfig, NAMESPACE, tmp_path_factory.mktemp("operator"))
    problems: list[str] = []
    try:
        with operator:
            try:
                output = up(project, STACK, core)
                yield {
                    "output": output,
                    "venv_existed": venv_existed,
                    "baseline": baseline,
                    "cluster_baseline": cluster_baseline,
                    "operator": operator,
                }
            finally:
                problems = tear_down(project, STACK)
    finally:
        print(f"\noperator: {operator.history}")
        remove_namespace(core)
        delete_volumes(core, volumes)
    assert not problems, "\n".join(problems)


def _generated_passwords(core: k8s_client.CoreV1Api) -> dict[str, str]:
    """Every password the stack generated, as the cluster's Secrets hold them."""
    found = {}
    for name in (f"{CLUSTER}-secrets", "pmm-secret"):
        data = core.read_namespaced_secret(name, NAMESPACE).data or {}
        found.update({f"{name}/{key}": base64.b64decode(value).decode() for key, value in data.items()})
    return found


# --------------------------------------------------------------------------------------------------------------


def test_up_from_a_fresh_stack_init_creates_the_stack(deployment, project):
    # The language host made the program's virtualenv (Pulumi.yaml: .venv) from stacks/requirements.txt, as on a
    # user's first `up` from a clone, and the program ran this clone's library from it: without the library in
    # stacks/requirements.txt the program cannot start (ModuleNotFoundError: percona_mysql_k8s).
    assert not deployment["venv_existed"]
    library = subprocess.run(
        [str(project.project / ".venv" / "bin" / "python"), "-c", "import percona_mysql_k8s; print(percona_mysql_k8s.__file__)"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert library.startswith(str(project.project / "modules")), library
    resources = project.resources(STACK)
    types = sorted(r["type"] for r in resources)
    print(f"\n{len(resources)} resources in the state:\n  " + "\n  ".join(types))
    assert "kubernetes:pxc.percona.com/v1:PerconaXtraDBCluster" in types
    assert types.count("kubernetes:helm.sh/v3:Release") == 2  # the operator and PMM
    assert "Resources:" in deployment["output"] and "created" in deployment["output"]


def test_no_secret_in_plain_text_in_the_state_or_any_object_but_a_secret(deployment, project, kube, core):
    passwords = _generated_passwords(core)
    generated = [r for r in project.resources(STACK) if r["type"] == "random:index/randomPassword:RandomPassword"]
    # not vacuous: the state does hold every password, encrypted; decrypted they are the cluster's
    shown, _ = project.export(STACK, show_secrets=True)
    plain, state = project.export(STACK)
    assert len(generated) == 7, [r["urn"] for r in generated]  # six for the cluster's users, one for PMM's admin
    for resource in generated:
        assert resource["outputs"]["result"].get("4dabf18193072939515e22adb298388d") == "1b47061264138c4ac30d75fd1eb44270", (
            f"{resource['urn']}: result is not a secret in the state"
        )
    values = {v for k, v in passwords.items() if not k.endswith("pmmservertoken")}
    assert len(values) >= 7 and all(v in shown for v in values)

    leaks = []
    for key, value in passwords.items():
        if value in plain:
            leaks.append(f"{key} in `pulumi stack export`")
        for path in project.backend.rglob("*"):  # checkpoints, history, backups of the file backend
            if path.is_file() and value.encode() in path.read_bytes():
                leaks.append(f"{key} in {path.relative_to(project.backend)}")
        if value in deployment["output"]:
            leaks.append(f"{key} in the output of `pulumi up`")
        if value in json.dumps(project.outputs(STACK)):
            leaks.append(f"{key} in the stack outputs")
    objects = everything(kube, NAMESPACE, cluster_scoped=True)
    assert len(objects) > 20
    for obj in objects:
        if obj.kind == "Secret":
            continue
        text = json.dumps(obj.body, default=str)
        leaks += [f"{key} in {obj.label}" for key, value in passwords.items() if value in text]
    assert not leaks, leaks
    print(
        f"\n{len(passwords)} secret values, none in the state ({len(plain)} characters), the outputs, `up`'s output "
        f"or {len(objects)} objects that are not Secrets"
    )


def test_charts_render_and_apply_from_the_local_archives(deployment, kube, core):
    releases = helm_releases(core, NAMESPACE)
    assert sorted(releases) == ["pmm", "pxc-operator"], sorted(releases)
    live = {(obj.kind, obj.name) for obj in everything(kube, NAMESPACE, cluster_scoped=True)}
    report = []
    for name, release in sorted(releases.items()):
        assert release["info"]["status"] == "deployed", (name, release["info"]["status"])
        assert release["chart"]["metadata"]["version"] in ("1.20.0", "1.8.1")
        objects = rendered_objects(release)
        missing = [(kind, obj) for kind, obj, _ in objects if (kind, obj) not in live]
        assert not missing, f"{name}: rendered but not in the cluster: {missing}"
        report.append(f"{name} {release['chart']['metadata']['version']}: " + ", ".join(sorted({k for k, _, _ in objects})))
    kinds = {kind for release in releases.values() for kind, _, _ in rendered_objects(release)}
    assert {"Deployment", "StatefulSet", "ServiceAccount"} <= kinds and kinds & {"Role", "ClusterRole"}, kinds
    crds = k8s_client.ApiextensionsV1Api(kube).read_custom_resource_definition("perconaxtradbclusters.pxc.percona.com")
    assert any(c.type == "Established" and c.status == "True" for c in crds.status.conditions)
    print("\n" + "\n".join(report))


def _pool_of(pod: k8s_client.V1Pod) -> str:
    """The pool a pod of the stack belongs on (K4): the members and the proxies on the database pool, everything
    else (the operator, PMM, the PMM token Job, backups) on the monitoring pool."""
    component = (pod.metadata.labels or {}).get("app.kubernetes.io/component")
    return "database" if component in RENDERED.values() else "monitoring"


def test_every_pod_is_placed_by_the_scheduler_on_its_pool(deployment, core):
    pods = core.list_namespaced_pod(NAMESPACE).items
    nodes = {n.metadata.name: n.metadata.labels.get("mysql.percona.com/pool") for n in core.list_node().items}
    placed = []
    for pod in pods:
        # a pod without its pool's nodeSelector would go to engine-other-0, the emptiest Node (conftest.py)
        assert pod.spec.node_name, f"{pod.metadata.name} is not scheduled"
        assert nodes[pod.spec.node_name] == _pool_of(pod), f"{pod.metadata.name} runs on {pod.spec.node_name}"
        assert scheduled_by_the_scheduler(core, pod), f"{pod.metadata.name}: no Scheduled event from default-scheduler"
        assert pod.status.phase in ("Running", "Succeeded"), (pod.metadata.name, pod.status.phase)
        placed.append(f"{pod.metadata.name} -> {pod.spec.node_name} ({pod.status.phase})")
    owners = {ref.kind for pod in pods for ref in pod.metadata.owner_references or []}
    assert {"ReplicaSet", "StatefulSet", "Job"} <= owners, owners  # the operator, PMM and the members, the PMM token Job
    assert {_pool_of(pod) for pod in pods} == {"database", "monitoring"}, placed  # the operator rendered the members
    print("\n" + "\n".join(placed))


def _amounts(resources: dict[str, str]) -> dict[str, int]:
    """CPU in millicores and memory in bytes (the API server writes a quantity in its canonical form)."""
    return {"cpu": cpu_to_millicores(resources["cpu"]), "memory": memory_to_bytes(resources["memory"])}


def test_the_real_operator_reconciled_the_custom_resource(deployment, kube, core):
    """`up` returned once the operator had reconciled the resource (databaseAwait: reconciled): it is `initializing`
    (no mysqld answers here, so never `ready`), and what it rendered carries the sizing's resources."""
    custom = k8s_client.CustomObjectsApi(kube)
    cr = custom.get_namespaced_custom_object(*CR[:2], NAMESPACE, CR[2], CLUSTER)
    assert cr["status"]["state"] == "initializing", cr["status"]
    apps = k8s_client.AppsV1Api(kube)
    for name, component in RENDERED.items():
        statefulset = apps.read_namespaced_stateful_set(name, NAMESPACE)
        assert statefulset.metadata.owner_references[0].uid == cr["metadata"]["uid"], name
        container = next(c for c in statefulset.spec.template.spec.containers if c.name == component)
        block = cr["spec"][component]["resources"]
        for kind in ("requests", "limits"):
            assert _amounts(getattr(container.resources, kind)) == _amounts(block[kind]), (name, kind)
    pod = core.read_namespaced_pod(f"{CLUSTER}-pxc-0", NAMESPACE)
    assert pod.status.qos_class == "Guaranteed", pod.status.qos_class  # the API server's verdict on every container
    operator = deployment["operator"]
    assert len(operator.processes) == 1 and operator.current is not None, operator.history
    assert not operator.errors(), "\n".join(operator.errors())
    print(f"\nstate {cr['status']['state']}; {sorted(RENDERED)} rendered; pxc-0 {pod.status.qos_class}; {operator.history}")


def test_a_second_up_shows_no_diff(deployment, project, core):
    steps, _ = preview_steps(project, STACK, "--diff")
    changing = [f"{s.op} {s.type} {s.name} {s.diffs}" for s in steps if s.op != "same"]
    assert not changing, changing
    output = up(project, STACK, core, "--expect-no-changes")
    assert "unchanged" in output


def test_bigger_database_nodes_update_the_custom_resource_in_place(deployment, project, kube, core):
    custom = k8s_client.CustomObjectsApi(kube)
    before = custom.get_namespaced_custom_object(*CR[:2], NAMESPACE, CR[2], CLUSTER)
    set_allocatable(core, [n.name for n in DATABASE_NODES], "7910m", "56Gi")  # the pool moved to a machine with 2x memory

    steps, _ = preview_steps(project, STACK, "--diff")
    changing = {s.name: s for s in steps if s.op != "same"}
    assert not [s for s in steps if s.op in REPLACING], [f"{s.op} {s.name}" for s in steps if s.op in REPLACING]
    assert changing[f"{CLUSTER}-cr"].op == "update", changing[f"{CLUSTER}-cr"]
    assert "spec.pxc.resources.limits.memory" in changing[f"{CLUSTER}-cr"].diffs, changing[f"{CLUSTER}-cr"].diffs

    apps = k8s_client.AppsV1Api(kube)
    members = apps.read_namespaced_stateful_set(f"{CLUSTER}-pxc", NAMESPACE)
    up(project, STACK, core)
    after = custom.get_namespaced_custom_object(*CR[:2], NAMESPACE, CR[2], CLUSTER)
    assert after["metadata"]["uid"] == before["metadata"]["uid"]  # updated, not deleted and created again
    memory = [cr["spec"]["pxc"]["resources"]["limits"]["memory"] for cr in (before, after)]
    gained = memory_to_bytes(memory[1]) - memory_to_bytes(memory[0])
    # One member per node: of the 28Gi each node gained, mysqld gets all but what its sidecars grow by (the PMM
    # client's share is capped at 500 MB, the log sidecars are fixed), and never more than the node gained.
    assert 27 * GIB < gained <= 28 * GIB, memory

    def rendered():  # the operator re-renders the members' StatefulSet in place with the new limit
        live = apps.read_namespaced_stateful_set(f"{CLUSTER}-pxc", NAMESPACE)
        mysqld = next(c for c in live.spec.template.spec.containers if c.name == "pxc")
        return live if mysqld.resources.limits["memory"] == memory[1] else None

    live = wait_for("the operator re-renders the members with the new memory limit", rendered, timeout=120)
    assert live.metadata.uid == members.metadata.uid  # the same StatefulSet, updated
    print(f"\nchanged: {sorted(changing)}; mysqld memory limit {memory[0]} -> {memory[1]}, custom resource and StatefulSet kept")


# --------------------------------------------------------------------------------------------------------------
# the policy pack, installed as the README says (conftest.py: pack)


def _policy_report(output: str) -> tuple[str, dict[str, set[str]]]:
    """The pack's verdict line in the `Policies:` section, and per enforcement level the rule IDs its violation
    messages start with. The CLI prints each violation as a ``- [level]  policy  (resource)`` line followed by
    indented lines: the policy's description, then its message ("G1: spec.pxc.configuration sets ...")."""
    section = output.split("\nPolicies:\n", 1)
    assert len(section) == 2, f"no Policies section in the output:\n{output[-3000:]}"
    lines = section[1].split("\n\n", 1)[0].splitlines()
    found: dict[str, set[str]] = {"mandatory": set(), "advisory": set()}
    level = None
    for line in lines[1:]:
        header = re.match(r"\s+- \[(\w+)\]", line)
        rule = re.match(r"\s+([A-Z][0-9]+): ", line)
        if header:
            level = header.group(1)
        elif rule and level in found:
            found[level].add(rule.group(1))
    return lines[0].strip(), found


def test_the_pack_passes_our_stack(deployment, project, pack):
    result = project.run("preview", "--policy-pack", pack, stack=STACK, timeout=900)
    verdict, found = _policy_report(result.stdout)
    assert verdict.startswith("✅ percona-mysql@"), verdict
    assert not found["mandatory"], found
    print(f"\n{verdict}; advisory: {sorted(found['advisory']) or 'none'}")


BAD_CLUSTER = REPOSITORY / "tests" / "engine" / "programs" / "bad_cluster"
# The rules the hand-written cluster breaks on purpose (programs/bad_cluster/__main__.py): two members without the
# unsafe flag are also a size the operator refuses to reconcile (C2, with T1). And those any custom resource written
# without this project's components breaks: no backup schedule (R1) and so no PITR (R2), the proxy's containers
# without a budget (M3), mysqld without a memory limit for its modeled peak (M1) and without an explicit buffer pool
# (M2), no CPU limit equal to the request (K3), its pods pinned to no pool (K4), the proxies kept apart only by
# hostname, so one zone may hold both (K7), the resource not protected by its program (S4).
ON_PURPOSE = {"T1", "C2", "G1", "S2", "K2"}
WITHOUT_THE_MODULES = {"R1", "R2", "M1", "M2", "M3", "K3", "K4", "K7", "S4"}


def test_the_pack_rejects_a_hand_written_bad_cluster(deployment, project, pack, kubeconfig, tmp_path):
    cli = project.program(BAD_CLUSTER, tmp_path / "bad-cluster", "engine-tier-bad-cluster")
    cli.run("stack", "init", "bad", "--secrets-provider", "passphrase", timeout=120)
    set_config(cli, "bad", {"kubeconfig": kubeconfig}, project="engine-tier-bad-cluster")
    result = cli.run("preview", "--policy-pack", str(project.project / pack), stack="bad", timeout=900, check=False)
    verdict, found = _policy_report(result.stdout)
    assert result.returncode != 0, "a mandatory violation must fail the preview"
    assert verdict.startswith("❌ percona-mysql@"), verdict
    assert found["mandatory"] == ON_PURPOSE | WITHOUT_THE_MODULES, found
    print(f"\n{verdict}; mandatory {sorted(found['mandatory'])}, advisory {sorted(found['advisory'])}")
    cli.run("stack", "rm", "--yes", "--force", stack="bad", timeout=120)


# --------------------------------------------------------------------------------------------------------------


def test_destroy_after_the_documented_unprotect_leaves_nothing_of_the_stack(deployment, project, kube, core, material):
    claims = {
        f"PersistentVolumeClaim {NAMESPACE}/{c.metadata.name}"
        for c in core.list_namespaced_persistent_volume_claim(NAMESPACE).items
    }
    project.run("state", "unprotect", "--all", "--yes", stack=STACK, timeout=120)  # docs/database.md, "To tear down"
    # The custom resource goes only once the operator has removed its delete-pxc-pods-in-order finalizer (having
    # deleted the members' pods), and Pulumi waits for it to go: nothing else here touches that finalizer.
    project.run("destroy", "--yes", "--skip-preview", stack=STACK, timeout=900)
    assert project.resources(STACK) == []
    left = sorted({obj.label for obj in everything(kube, NAMESPACE)} - deployment["baseline"])
    # Every data claim outlives the stack (S4): PMM's (the chart's retention policy) and each member's (the operator
    # deletes them only with its delete-pxc-pvc finalizer, which the stack never sets); docs/database.md tells the
    # user to delete them by hand when the namespace is not the stack's
    assert (
        f"PersistentVolumeClaim {NAMESPACE}/{PMM_CLAIM}" in claims
        and f"PersistentVolumeClaim {NAMESPACE}/datadir-{CLUSTER}-pxc-0" in claims
    )
    # and what the operator made for the cluster without an owner, so that a cluster made again on those claims finds
    # them: its TLS Secrets (removed only by its delete-ssl finalizer, pkg/controller/pxc/controller.go: deleteCerts)
    # and its own copy of the users' passwords, which the data on the claims still holds
    kept = {f"Secret {NAMESPACE}/{name}" for name in OPERATOR_KEEPS}
    assert left == sorted(claims | kept), left
    # the operator's pod went with the release (the garbage collector deletes it after Helm's uninstall returns)
    wait_for("the operator process stops with its pod", lambda: deployment["operator"].current is None, timeout=120)
    cluster_scoped = {obj.label for obj in everything(kube, None, cluster_scoped=True)}
    documents = [
        doc
        for doc in yaml.safe_load_all(material.operator_crds.read_text())
        if doc and doc.get("kind") == "CustomResourceDefinition"
    ]
    crds = {f"CustomResourceDefinition {doc['metadata']['name']}" for doc in documents}
    assert crds <= cluster_scoped  # the CRDs are retained on purpose (retainOnDelete, S4; docs/database.md)
    # with them, the APIServices the API server registers for each of their group versions
    served = {f"APIService {version['name']}.{doc['spec']['group']}" for doc in documents for version in doc["spec"]["versions"]}
    new = sorted(cluster_scoped - deployment["cluster_baseline"] - crds - served)
    assert not new, f"cluster-wide objects the stack left: {new}"
