"""The API-server tier: a real kube-apiserver (with etcd and kube-controller-manager) and the Percona CRDs.

Set ``K8S_APISERVER_KUBECONFIG`` to the kubeconfig of a running control plane (``scripts/apiserver.sh up``
writes one); without it every test marked ``apiserver`` is skipped with the reason. With
``K8S_APISERVER_REQUIRED=1`` (``scripts/apiserver.sh run-tier`` sets it) a missing or unreachable API server
or missing reference material (the Percona CRDs and examples: ``scripts/fetch-reference.sh``) is an error
instead, so CI cannot pass by skipping.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from apiserver_cluster import Cluster
from reference_material.resolve import reference_dir

# What the tier reads from the reference material (tests/reference_material/manifest.toml): every CRD a stack
# may need (apiserver_objects.crd_files picks among them) and the operators' examples.
REFERENCE_ITEMS = (
    "ps-operator-v1.2.0-crd.yaml",
    "helm-ps-operator-1.1.0-crds-crd.yaml",
    "pxc-operator-v1.19.0-crd.yaml",
    "helm-pxc-operator-1.20.0-crds-crd.yaml",
    *(
        f"{prefix}-{suffix}.yaml"
        for prefix in ("ps-operator-v1.2.0", "pxc-operator-v1.19.0")
        for suffix in ("secrets", "cr", "cr-minimal")
    ),
)


def pytest_collection_modifyitems(items):
    # the control plane serves a self-signed certificate on loopback (kubeconfig: insecure-skip-tls-verify)
    for item in items:
        if item.get_closest_marker("apiserver"):
            item.add_marker(pytest.mark.filterwarnings("ignore:Unverified HTTPS request"))


def _unavailable(reason: str):
    if os.environ.get("K8S_APISERVER_REQUIRED") == "1":
        pytest.fail(f"{reason} (K8S_APISERVER_REQUIRED=1)", pytrace=False)
    pytest.skip(reason)


@pytest.fixture(scope="session")
def cluster(tmp_path_factory) -> Cluster:
    """The API server named by ``K8S_APISERVER_KUBECONFIG``; skips the tier when there is none."""
    kubeconfig = os.environ.get("K8S_APISERVER_KUBECONFIG")
    if not kubeconfig:
        _unavailable(
            "K8S_APISERVER_KUBECONFIG is not set: start a control plane with `scripts/apiserver.sh up` "
            "(docs/apiserver.md) or run `scripts/apiserver.sh run-tier`"
        )
    if not Path(kubeconfig).is_file():
        _unavailable(f"K8S_APISERVER_KUBECONFIG={kubeconfig} does not exist: is the control plane up?")
    timeout = float(os.environ.get("K8S_APISERVER_TIMEOUT", "180"))
    try:
        connection = Cluster(Path(kubeconfig), tmp_path_factory.mktemp("discovery"), timeout=timeout)
        version = connection.version()
    except Exception as error:  # noqa: BLE001 - any failure to connect means: no API server here
        _unavailable(f"the API server in {kubeconfig} is unreachable: {type(error).__name__}: {error}")
    print(f"\nAPI server {connection.api.configuration.host} ({version})")
    return connection


@pytest.fixture(scope="session")
def reference() -> Path:
    """The directory of verified copies of REFERENCE_ITEMS; skips (fails when the tier is required) without them."""
    return reference_dir(REFERENCE_ITEMS, required=os.environ.get("K8S_APISERVER_REQUIRED") == "1")
