"""A fault: the CLI SIGKILLed in the middle of `pulumi up` on the ``existing`` stack, then the recovery Pulumi
documents for a self-managed backend, and `up` again.

Where the CLI dies is made deterministic, and is where a crash hits in practice: during the longest wait of an
`up`, Helm installing PMM (its release waits for PMM's pod up to 15 minutes). PMM's volume is provided late (the
stand-in for a provisioner is "slow"), so PMM's pod waits for its claim; the test waits until the engine's checkpoint
(the file backend writes it after every step) shows that install as the only operation in flight, while the
passwords, the cluster's Secret, the CRDs and the operator exist. Then SIGKILL: the CLI writes nothing more, and
whatever it started that outlives it is killed too, as on a crashed machine.

The recovery, as https://www.pulumi.com/docs/iac/operations/troubleshooting/interrupted-updates/ and
`pulumi refresh --help` describe it: remove the lock the killed CLI left (`pulumi cancel`: on a self-managed
backend it deletes the lock file); check each pending create against the provider's truth. For a Helm release that
is Helm's record of it: ``pending-install``, so the create did not complete; Helm's own way out of a release stuck
in ``pending-install`` is `helm uninstall`, after which the pending create is cleared (`pulumi refresh
--clear-pending-creates`) and `pulumi up` installs it again. docs/engine.md writes the procedure down for users.

Converged means: no pending operation; no object in the namespace that nothing in the state explains (an orphan,
or a duplicate under another name); protected resources kept (the same objects, protect still set); the passwords
unchanged (a rotated password would lock the operator out of its own cluster); a further `up` changes nothing.
The CRDs were in the cluster before this stack (an earlier stack retained them, or, run alone, the operator's own
install put them there): the stack adopts them, the same objects.
"""

from __future__ import annotations

import base64
import json
import subprocess

import pytest
import yaml
from conftest import REPOSITORY
from engine_cli import kill_with_plugins
from engine_cluster import wait_for
from engine_inventory import everything, helm_releases, unaccounted
from engine_operator import DeploymentOperator
from engine_stack import (
    BACKUP_SECRET,
    CLUSTER,
    EXISTING,
    NAMESPACE,
    OPERATOR_KEEPS,
    PMM_CLAIM,
    PMM_STORAGE,
    PROJECT,
    existing_stack,
    remove_namespace,
    stack_volumes,
    tear_down,
    up,
    user_namespace,
)
from engine_volumes import bound_volume, delete_volumes
from kubernetes import client as k8s_client
from kubernetes.client.rest import ApiException
from kubernetes.dynamic import DynamicClient
from operator_process import PXC

pytestmark = pytest.mark.engine

STACK = EXISTING
PMM_VOLUME = "engine-tier-pmm-late"
SECRET = f"{CLUSTER}-secrets"
PMM_RELEASE = f"{CLUSTER}-pmm-release"


def _crds_present(kube: k8s_client.ApiClient, crd_file) -> dict[str, str]:
    """The operator's CRDs as they are before this stack's `up`, installed as the operator's docs install them
    (`kubectl apply --server-side -f crd.yaml`) when no earlier stack left them: the stack must adopt them."""
    dynamic = DynamicClient(kube)
    api = dynamic.resources.get(api_version="apiextensions.k8s.io/v1", kind="CustomResourceDefinition")
    uids = {}
    for document in yaml.safe_load_all(crd_file.read_text()):
        if not document or document.get("kind") != "CustomResourceDefinition":
            continue
        name = document["metadata"]["name"]
        try:
            uids[name] = dynamic.get(api, name=name).metadata.uid
        except ApiException as error:
            if error.status != 404:
                raise
            uids[name] = dynamic.server_side_apply(api, body=document, field_manager="kubectl").metadata.uid
    return uids


def _checkpoint_pending(project) -> list[tuple[str, str]] | None:
    """(operation, resource name) in flight, as the engine's last checkpoint says (None while it is being written)."""
    path = project.backend / ".pulumi" / "stacks" / PROJECT / f"{STACK}.json"
    try:
        latest = json.loads(path.read_text())["checkpoint"]["latest"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return sorted((op["type"], op["resource"]["urn"].rsplit("::", 1)[1]) for op in latest.get("pending_operations") or [])


def _only_pmm_in_flight(project, core: k8s_client.CoreV1Api) -> bool:
    try:
        pod = core.read_namespaced_pod("pmm-0", NAMESPACE)
    except ApiException as error:
        if error.status == 404:
            return False
        raise
    return not pod.spec.node_name and _checkpoint_pending(project) == [("creating", PMM_RELEASE)]


def _secret_values(core: k8s_client.CoreV1Api) -> tuple[dict[str, str], dict[str, str]]:
    """The Secrets holding the generated passwords (the cluster's users', PMM's admin): their uids and values."""
    uids, values = {}, {}
    for name in (SECRET, "pmm-secret"):
        secret = core.read_namespaced_secret(name, NAMESPACE)
        uids[name] = secret.metadata.uid
        values.update({f"{name}/{k}": base64.b64decode(v).decode() for k, v in (secret.data or {}).items()})
    return uids, values


@pytest.fixture(scope="module")
def operator(pxc_operator_binary, kubeconfig, tmp_path_factory):
    """The real PXC operator for the operator chart's pod, from the first `up` to the end of the module."""
    return DeploymentOperator(PXC, pxc_operator_binary, kubeconfig, NAMESPACE, tmp_path_factory.mktemp("operator"))


@pytest.fixture(scope="module")
def interrupted(project, kubeconfig, kube, core, pool_nodes, material, operator):
    """The stack with its first `up` killed while Helm installs PMM; torn down whatever happens."""
    user_namespace(core)
    volumes = stack_volumes(core, "engine-tier-fault", pmm=False) + [PMM_VOLUME]  # PMM's comes late
    crds = _crds_present(kube, material.operator_crds)
    existing_stack(project, REPOSITORY, kubeconfig, material)
    output = project.log.with_name("up-killed.log")
    problems: list[str] = []
    try:
        with operator:
            try:
                process = project.start("up", "--yes", "--skip-preview", stack=STACK, output=output)
                try:
                    wait_for(
                        "Helm's install of PMM the only operation in flight",
                        lambda: _only_pmm_in_flight(project, core),
                        timeout=900,
                    )
                    assert process.poll() is None, f"pulumi up ended before the fault:\n{output.read_text()[-4000:]}"
                    before = _secret_values(core)
                finally:
                    killed = kill_with_plugins(process)
                print(f"\nSIGKILL while Helm installs PMM; killed after the CLI: {killed}")
                yield {"before": before, "crds": crds}
            finally:
                problems = tear_down(project, STACK)
    finally:
        print(f"\noperator: {operator.history}")
        remove_namespace(core)
        delete_volumes(core, volumes)
    assert not problems, "\n".join(problems)


def _pending(project) -> list[tuple[str, str]]:
    operations = project.export(STACK)[1]["deployment"].get("pending_operations") or []
    return sorted((op["type"], op["resource"]["urn"].rsplit("::", 1)[1]) for op in operations)


def test_the_killed_up_left_its_pending_install_and_its_lock(interrupted, project):
    assert _pending(project) == [("creating", PMM_RELEASE)]
    blocked = project.run("up", "--yes", "--skip-preview", stack=STACK, check=False, timeout=300)
    said = blocked.stderr + blocked.stdout
    assert blocked.returncode != 0 and "currently locked" in said and "pulumi cancel" in said, blocked.text()


def test_the_documented_recovery_converges(interrupted, project, kube, core, kubeconfig, helm_binary):
    secret_uids, passwords = interrupted["before"]
    assert len(passwords) == 7, sorted(passwords)  # six users' and PMM's admin were in the cluster when the CLI died

    project.run("cancel", "--yes", stack=STACK, timeout=120)  # a self-managed backend: deletes the lock file
    # the provider's truth for the pending create: Helm's record of the release
    assert helm_releases(core, NAMESPACE)["pmm"]["info"]["status"] == "pending-install"
    subprocess.run(
        [helm_binary, "uninstall", "pmm", "--namespace", NAMESPACE, "--kubeconfig", kubeconfig, "--wait"],
        check=True,
        capture_output=True,
        text=True,
        timeout=300,
    )
    project.run("refresh", "--yes", "--clear-pending-creates", stack=STACK, timeout=900)
    assert not _pending(project)

    bound_volume(core, PMM_VOLUME, NAMESPACE, PMM_CLAIM, PMM_STORAGE)  # the late volume comes
    wait_for(
        "PMM's claim bound",
        lambda: core.read_namespaced_persistent_volume_claim(PMM_CLAIM, NAMESPACE).status.phase == "Bound",
        timeout=180,
    )
    up(project, STACK, core)  # the real operator reconciles the custom resource this run creates
    up(project, STACK, core, "--expect-no-changes")  # converged: a further run changes nothing

    after_uids, after = _secret_values(core)
    assert after_uids == secret_uids, "a Secret was replaced"
    changed = sorted(key for key in passwords if after.get(key) != passwords[key])
    assert not changed, f"passwords rotated by the recovery: {changed}"

    state = project.resources(STACK)
    protected = {r["urn"].rsplit("::", 1)[1] for r in state if r.get("protect")}
    for name in (SECRET, f"{CLUSTER}-cr", PMM_RELEASE, f"{CLUSTER}-pmm-admin-secret"):
        assert name in protected, f"{name} is not protected: {sorted(protected)}"
    # the CRDs that were there before the stack are the stack's now, the same objects (adopted, not re-created)
    crd_ids = {r["id"] for r in state if r["type"] == "kubernetes:apiextensions.k8s.io/v1:CustomResourceDefinition"}
    assert crd_ids == set(interrupted["crds"]), crd_ids
    dynamic = DynamicClient(kube)
    crd_api = dynamic.resources.get(api_version="apiextensions.k8s.io/v1", kind="CustomResourceDefinition")
    assert {name: dynamic.get(crd_api, name=name).metadata.uid for name in crd_ids} == interrupted["crds"]
    releases = helm_releases(core, NAMESPACE)
    assert {name: r["info"]["status"] for name, r in releases.items()} == {"pmm": "deployed", "pxc-operator": "deployed"}
    made = {("Secret", name) for name in OPERATOR_KEEPS}  # the operator's, for the cluster in the state
    orphans = unaccounted(everything(kube, NAMESPACE), state, releases, stand_ins={("Secret", BACKUP_SECRET)}, operator_made=made)
    assert not orphans, f"objects nothing in the state explains: {orphans}"
