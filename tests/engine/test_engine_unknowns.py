"""A custom resource with a computed value under the real engine: judged at preview on what is known, in full at `up`.

programs/computed_cluster is a hand-written PXC cluster whose backup endpoint is a random name's output (unknown
during the preview of a fresh stack) and whose only backup schedule never fires (known). Run as a user runs it:

1. ``pulumi preview --policy-pack policies``: the preview fails on R1 (mandatory: no backup ever runs, whatever the
   endpoint is), and backup-endpoints says, advisory, that R4 could not judge
   ``spec.backup.storages.minio.s3.endpointUrl``; it reports no R4 violation, and nothing says "could not evaluate".
2. ``pulumi up --skip-preview --policy-pack policies``: the engine creates the random name first, so the custom
   resource's inputs are known when the pack sees them (unknowns are allowed only in a dry run): R4 now judges the
   endpoint (plain HTTP), R1 still stands, no preview note is left, and the engine refuses the custom resource.

docs/preview-unknowns.md cites the engine and SDK code each step rests on.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import pytest
import yaml
from conftest import REPOSITORY
from engine_stack import set_config
from kubernetes import client as k8s_client
from kubernetes.client.rest import ApiException

pytestmark = pytest.mark.engine

PROGRAM = REPOSITORY / "tests" / "engine" / "programs" / "computed_cluster"
NAMESPACE = "unknowns"
STACK = "computed"
ENDPOINT = "spec.backup.storages.minio.s3.endpointUrl"
NOTE = f"during preview: R4 could not judge {ENDPOINT} (a string)"
# "- [mandatory] [severity: high]  backup-schedule  (kubernetes:pxc.percona.com/v1:PerconaXtraDBCluster: computed-cluster)"
HEADER = re.compile(r"^\s+- \[(\w+)\](?: \[severity: \w+\])?\s+(\S+)\s+(.*)$")


@dataclass
class Entry:
    """One diagnostic as the CLI prints it: ``- [level] [severity: s]  policy  (resource)`` and its indented lines."""

    level: str
    policy: str
    resource: str
    text: str


def entries(output: str) -> list[Entry]:
    found: list[Entry] = []
    for line in output.splitlines():
        header = HEADER.match(line)
        if header:
            found.append(Entry(*header.groups(), ""))
        elif found and line.startswith(" ") and line.strip():
            found[-1].text += line.strip() + "\n"
        elif found and line.strip() and not line.startswith(" "):
            found.append(Entry("", "", "", ""))  # the section ended: later lines belong to nothing
    return [entry for entry in found if entry.level]


@pytest.fixture(scope="module")
def crds(kube, material):
    """The operator's CRDs, as a user who installed the operator has them (a previous module may have left them)."""
    api = k8s_client.ApiextensionsV1Api(kube)
    for document in yaml.safe_load_all(material.operator_crds.read_text()):
        if document and document.get("kind") == "CustomResourceDefinition":
            try:
                api.create_custom_resource_definition(document)
            except ApiException as error:
                if error.status != 409:
                    raise


@pytest.fixture(scope="module")
def namespace(core, crds):
    try:
        core.create_namespace({"metadata": {"name": NAMESPACE}})
    except ApiException as error:
        if error.status != 409:
            raise
    yield NAMESPACE
    core.delete_namespace(NAMESPACE)


@pytest.fixture(scope="module")
def cli(project, kubeconfig, namespace, tmp_path_factory):
    program = project.program(PROGRAM, tmp_path_factory.mktemp("computed-cluster"), "engine-tier-computed-cluster")
    program.run("stack", "rm", "--yes", "--force", stack=STACK, check=False, timeout=120)
    program.run("stack", "init", STACK, "--secrets-provider", "passphrase", timeout=120)
    set_config(program, STACK, {"kubeconfig": kubeconfig}, project="engine-tier-computed-cluster")
    yield program
    program.run("destroy", "--yes", "--skip-preview", stack=STACK, check=False, timeout=600)
    program.run("stack", "rm", "--yes", "--force", stack=STACK, check=False, timeout=120)


def test_preview_reports_the_known_breach_and_names_the_unknown_endpoint(cli, project, pack):
    result = cli.run("preview", "--policy-pack", str(project.project / pack), stack=STACK, timeout=900, check=False)
    found = entries(result.stdout)  # the custom resource is the only resource the pack judges
    assert found, f"no diagnostics for the custom resource:\n{result.stdout[-4000:]}"
    assert result.returncode != 0, "a mandatory violation must fail the preview"
    never = [e for e in found if e.policy == "backup-schedule" and e.level == "mandatory"]
    assert never and "'0 0 30 2 *' cannot be run by the operator" in never[0].text, never
    notes = [e for e in found if NOTE in e.text]
    assert [(e.policy, e.level) for e in notes] == [("backup-endpoints", "advisory")], notes
    assert not [e for e in found if e.policy == "backup-endpoints" and e.level == "mandatory"], found
    assert "could not evaluate" not in result.stdout
    print(f"\npreview: {sorted({(e.level, e.policy) for e in found})}")


def test_up_gives_the_full_verdict_once_the_endpoint_is_known(cli, project, pack, core):
    result = cli.run(
        "up", "--yes", "--skip-preview", "--policy-pack", str(project.project / pack), stack=STACK, timeout=900, check=False
    )
    found = entries(result.stdout)  # the custom resource is the only resource the pack judges
    assert result.returncode != 0, f"the pack must refuse the custom resource at up:\n{result.stdout[-4000:]}"
    endpoint = [e for e in found if e.policy == "backup-endpoints" and e.level == "mandatory"]
    assert endpoint and "plain HTTP" in endpoint[0].text and ".minio.backup.svc:9000" in endpoint[0].text, found
    assert [e for e in found if e.policy == "backup-schedule" and e.level == "mandatory"], found
    assert "during preview" not in result.stdout
    # refused: the engine never asked the API server to create it
    objects = k8s_client.CustomObjectsApi(core.api_client).list_namespaced_custom_object(
        "pxc.percona.com", "v1", NAMESPACE, "perconaxtradbclusters"
    )
    assert objects["items"] == []
    print(f"\nup: {sorted({(e.level, e.policy) for e in found})}")
