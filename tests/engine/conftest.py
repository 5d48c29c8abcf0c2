"""The real-engine tier: the real Pulumi CLI on the stack program, against a real control plane with the real
kube-scheduler and kwok (docs/engine.md).

Needs ``ENGINE_KUBECONFIG`` (``scripts/engine.sh up`` writes one; ``run-tier`` sets it), a ``pulumi`` on PATH
(yours, or the one ``scripts/engine.sh`` builds) and the Percona chart archives. Without them every test marked
``engine`` is skipped with the reason; with ``ENGINE_TIER_REQUIRED=1`` (``run-tier`` sets it) that is an error
instead, so CI cannot pass by skipping.
"""

from __future__ import annotations

import os
import secrets
import shutil
import subprocess
import tarfile
from dataclasses import dataclass
from pathlib import Path

import pytest
from engine_cli import PulumiCli, copy_clone
from engine_cluster import PoolNode, create_pool_nodes, delete_nodes, wait_for
from kubernetes import client as k8s_client
from kubernetes import config as k8s_config
from kubernetes.client.rest import ApiException
from operator_process import operator_binaries
from reference_material.resolve import reference_path

REPOSITORY = Path(__file__).resolve().parents[2]
CHARTS = ("pxc-operator-1.20.0.tgz", "pmm-1.8.1.tgz")

# The pools of stacks/Pulumi.existing.yaml (databasePoolLabels, databasePoolTaint, monitoringPoolLabels): three
# database Nodes for three members, one monitoring Node. Allocatable as `kubectl describe node` shows an
# 8 vCPU / 32 GiB machine (the figure the stack file's own comment uses), for both pools.
# one database Node per zone: the existing stack reads the zones from the Nodes and spreads the members over them (K7)
DATABASE_NODES = [
    PoolNode(f"engine-db-{i}", "database", "7910m", "28Gi", tainted=True, zone=f"us-east-1{'abc'[i]}") for i in range(3)
]
MONITORING_NODES = [PoolNode("engine-mon-0", "monitoring", "7910m", "28Gi", tainted=False)]
# A Node of no pool, untainted and the largest: a pod the stack does not pin to its pool (nodeSelector) lands here
# rather than on the monitoring Node, since the scheduler's default scoring (NodeResourcesFit, LeastAllocated)
# prefers the Node with the most room left. The placement assertions can then fail.
OTHER_NODES = [PoolNode("engine-other-0", None, "15910m", "60Gi", tainted=False)]


def pytest_collection_modifyitems(items):
    # the control plane serves a self-signed certificate on loopback (kubeconfig: insecure-skip-tls-verify)
    for item in items:
        if item.get_closest_marker("engine"):
            item.add_marker(pytest.mark.filterwarnings("ignore:Unverified HTTPS request"))


def unavailable(reason: str):
    if os.environ.get("ENGINE_TIER_REQUIRED") == "1":
        pytest.fail(f"{reason} (ENGINE_TIER_REQUIRED=1)", pytrace=False)
    pytest.skip(reason)


@pytest.fixture(scope="session")
def pulumi_binary() -> str:
    binary = shutil.which("pulumi")
    if not binary:
        unavailable("no `pulumi` on PATH: run `scripts/engine.sh run-tier` (it builds one, or uses yours)")
    version = subprocess.run([binary, "version"], capture_output=True, text=True, timeout=60).stdout.strip()
    print(f"\npulumi {version} ({binary})")
    return binary


@pytest.fixture(scope="session")
def helm_binary() -> str:
    """Helm, for what a user does with Helm's own records (a release a crash left in pending-install)."""
    binary = shutil.which("helm")
    if not binary:
        unavailable("no `helm` on PATH: `scripts/engine.sh run-tier` builds it (go install helm.sh/helm/v3/cmd/helm@v3.19.2)")
    return binary


@pytest.fixture(scope="session")
def pxc_operator_binary() -> Path:
    """The real PXC operator (1.20.0), built from the source kit by scripts/operators.sh (run-tier builds it)."""
    binary = Path(operator_binaries(REPOSITORY)["PXC_OPERATOR"])
    if not binary.is_file():
        unavailable(f"no PXC operator at {binary}: run scripts/operators.sh ensure-built (scripts/engine.sh run-tier does)")
    return binary


@pytest.fixture(scope="session")
def kubeconfig() -> str:
    """The kubeconfig of the tier's control plane: what the stack's `kubeconfig` key is set to."""
    path = os.environ.get("ENGINE_KUBECONFIG")
    if not path:
        unavailable(
            "ENGINE_KUBECONFIG is not set: start the tier's control plane with `scripts/engine.sh up` or run "
            "`scripts/engine.sh run-tier` (docs/engine.md)"
        )
    if not Path(path).is_file():
        unavailable(f"ENGINE_KUBECONFIG={path} does not exist: is the control plane up?")
    return str(Path(path).resolve())


@pytest.fixture(scope="session")
def kube(kubeconfig) -> k8s_client.ApiClient:
    api = k8s_config.new_client_from_config(kubeconfig)
    try:
        version = k8s_client.VersionApi(api).get_code(_request_timeout=10).git_version
    except Exception as error:  # noqa: BLE001 - any failure to connect means: no API server here
        unavailable(f"the API server in {kubeconfig} is unreachable: {type(error).__name__}: {error}")
    print(f"\nAPI server {api.configuration.host} ({version})")
    return api


@pytest.fixture(scope="session")
def core(kube) -> k8s_client.CoreV1Api:
    return k8s_client.CoreV1Api(kube)


@dataclass(frozen=True)
class Material:
    """The chart archives (verified by scripts/fetch-reference.sh's manifest) and the operator's CRDs from its own chart."""

    operator_chart: Path
    pmm_chart: Path
    operator_crds: Path


@pytest.fixture(scope="session")
def material(tmp_path_factory) -> Material:
    # verified against the pinned manifest (their files' sums) by the one resolver, or a skip naming
    # scripts/fetch-reference.sh; run-tier makes a missing archive an error
    required = os.environ.get("ENGINE_TIER_REQUIRED") == "1"
    operator, pmm = (reference_path(f"charts/{name}", required=required) for name in CHARTS)
    # The operatorCrds key wants the release's crd.yaml: the pxc-operator chart carries it as crds/crd.yaml.
    crds = tmp_path_factory.mktemp("crds") / "crd.yaml"
    with tarfile.open(operator) as archive:
        crds.write_bytes(archive.extractfile("pxc-operator/crds/crd.yaml").read())
    return Material(operator, pmm, crds)


@pytest.fixture(scope="session")
def pool_nodes(core):
    """The kwok-managed Nodes of both pools and the one outside them (a leftover from an interrupted run is replaced)."""
    nodes = DATABASE_NODES + MONITORING_NODES + OTHER_NODES
    delete_nodes(core, [n.name for n in nodes])
    wait_for("leftover Nodes gone", lambda: not [n for n in nodes if _node_exists(core, n.name)], timeout=60)
    create_pool_nodes(core, nodes)
    yield nodes
    delete_nodes(core, [n.name for n in nodes])


def _node_exists(core, name: str) -> bool:
    try:
        core.read_node(name)
        return True
    except ApiException as error:
        if error.status == 404:
            return False
        raise


@pytest.fixture(scope="session")
def project(tmp_path_factory, pulumi_binary) -> PulumiCli:
    """A copy of this clone with its own local file backend and passphrase."""
    root = tmp_path_factory.mktemp("engine")
    clone = copy_clone(REPOSITORY, root / "clone")
    backend = root / "state"
    backend.mkdir()
    cli = PulumiCli(pulumi_binary, clone, backend, secrets.token_urlsafe(24), root / "pulumi.log")
    print(f"\nproject copy {clone}, state {backend}, log {cli.log}")
    return cli


def _readme_pack_install() -> str:
    """The README's command that installs the pack for `pulumi preview --policy-pack policies`."""
    lines = [
        line.split("  #")[0].strip()
        for line in (REPOSITORY / "README.md").read_text().splitlines()
        if line.startswith("(cd policies &&") and "pip install" in line
    ]
    assert len(lines) == 1, f"README.md should tell users one way to install the pack, found {lines}"
    return lines[0]


@pytest.fixture(scope="session")
def pack(project) -> str:
    """The pack of the project copy, installed once with the README's command (a few minutes of pip)."""
    command = _readme_pack_install()
    done = subprocess.run(
        ["bash", "-c", command], cwd=project.project, env=project.env(), capture_output=True, text=True, timeout=900
    )
    assert done.returncode == 0, f"{command}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return "policies"
