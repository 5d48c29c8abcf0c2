"""The operator tier: the real Percona operators reconcile every stack's custom resources (docs/operators.md).

Needs ``OPERATOR_TIER_KUBECONFIG`` (a control plane with kube-scheduler and kwok: ``scripts/operators.sh run-tier``
starts one and sets it) and the operator binaries ``scripts/operators.sh ensure-built`` builds (their paths from
``scripts/operators.sh paths``, or ``PXC_OPERATOR``/``PS_OPERATOR`` and ``PXC_OPERATOR_SRC``/``PS_OPERATOR_SRC``).
Without them every test marked ``operators`` is skipped with the reason; with ``OPERATOR_TIER_REQUIRED=1``
(``run-tier`` sets it) that is a failure instead, and ``run-tier`` fails under ``CI=true`` when a prerequisite is
missing, so CI cannot pass by skipping.

One PXC operator and one PS operator run for the whole session, each watching every namespace of its kind (the stack
cases' and the differential corpus'): the PXC operator's webhook binds :9443, so a second one cannot start beside it.
"""

from __future__ import annotations

import os
import secrets
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml
from kubernetes import client as k8s_client
from kubernetes import config as k8s_config
from kubernetes.client.rest import ApiException
from kubernetes.dynamic import DynamicClient
from operator_health import operator_failure
from operator_inputs import STACK_CASES, tier_required
from operator_log import operator_errors
from operator_process import FLAVORS, OperatorProcess, operator_binaries, placeholder_pod

REPOSITORY = Path(__file__).resolve().parents[2]
FIELD_MANAGER = "percona-mysql-operator-tier"

OPERATOR_NAMESPACES = {"pxc": "op-pxc-operator", "ps": "op-ps-operator"}
# The operators' own setting (cmd/manager/main.go configureGroupKindConcurrency; default 1): the differential corpus
# is a hundred clusters, each reconciled every 5 s, so one worker would render the stack cases' changes late.
OPERATOR_SETTINGS = {"MAX_CONCURRENT_RECONCILES": "4"}


def unavailable(reason: str):
    if tier_required():
        pytest.fail(f"{reason} (OPERATOR_TIER_REQUIRED=1: the tier must run)", pytrace=False)
    pytest.skip(reason)


def pytest_collection_modifyitems(items):
    # the control plane serves a self-signed certificate on loopback (kubeconfig: insecure-skip-tls-verify)
    for item in items:
        if item.get_closest_marker("operators"):
            item.add_marker(pytest.mark.filterwarnings("ignore:Unverified HTTPS request"))
    # a test that leaves the operators a namespace-less error (test_operator_refusals) runs after every other one
    items.sort(key=lambda item: item.get_closest_marker("operators_last") is not None)


@dataclass
class Tier:
    """The control plane and the two operator processes, for the whole session."""

    api: k8s_client.ApiClient
    dynamic: DynamicClient
    operators: dict[str, OperatorProcess]
    sources: dict[str, Path]  # pxc | ps -> the operator's unpacked source (deploy/cr.yaml, deploy/crd.yaml)
    workdir: Path
    deployed: dict[str, Any] = field(default_factory=dict)  # stack case id -> its Deployment (test_operator_stacks)
    # (namespace, name) of clusters a test makes an operator panic on purpose (operator_health): C2's ps-cr-version
    expected_panics: set[tuple[str, str]] = field(default_factory=set)

    @property
    def core(self) -> k8s_client.CoreV1Api:
        return k8s_client.CoreV1Api(self.api)

    @property
    def apps(self) -> k8s_client.AppsV1Api:
        return k8s_client.AppsV1Api(self.api)

    @property
    def policy(self) -> k8s_client.PolicyV1Api:
        return k8s_client.PolicyV1Api(self.api)

    @property
    def custom(self) -> k8s_client.CustomObjectsApi:
        return k8s_client.CustomObjectsApi(self.api)

    def apply(self, body: dict[str, Any]) -> dict[str, Any]:
        """Server-side apply, one field manager, as pulumi-kubernetes v4 sends an object."""
        resource = self.dynamic.resources.get(api_version=body["apiVersion"], kind=body["kind"])
        namespace = body.get("metadata", {}).get("namespace") if resource.namespaced else None
        return self.dynamic.server_side_apply(
            resource, body=body, namespace=namespace, field_manager=FIELD_MANAGER, force_conflicts=True
        ).to_dict()

    def assert_operators_healthy(self) -> bool:
        """Fail now, in the operator's own words, when one died or panicked (operator_health); False otherwise, so
        a wait's check can begin with ``tier.assert_operators_healthy() or ...``."""
        problem = operator_failure(self.operators, self.expected_panics)
        if problem:
            pytest.fail(problem, pytrace=False)
        return False

    def errors(self, operator: str, namespace: str, name: str | None = None) -> list[str]:
        """The operator's ERROR lines about ``namespace`` (and the cluster ``name`` in it), as operator_log reads them."""
        return operator_errors(operator, self.operators[operator].errors(), namespace, name)


def _create_namespace(core: k8s_client.CoreV1Api, name: str) -> None:
    try:
        core.create_namespace({"metadata": {"name": name, "labels": {"operator-tier": "true"}}})
    except ApiException as error:
        if error.status != 409:
            raise


def _operator_paths() -> dict[str, str]:
    paths = {
        key: os.environ[key]
        for key in ("PXC_OPERATOR", "PS_OPERATOR", "PXC_OPERATOR_SRC", "PS_OPERATOR_SRC")
        if key in os.environ
    }
    if len(paths) < 4:
        paths = {**operator_binaries(REPOSITORY), **paths}
    return paths


@pytest.fixture(scope="session")
def tier(tmp_path_factory) -> Tier:
    from refusal_cases import WATCHED as REFUSAL_NAMESPACES
    from render_corpus import corpus_namespaces

    kubeconfig = os.environ.get("OPERATOR_TIER_KUBECONFIG")
    if not kubeconfig:
        unavailable("OPERATOR_TIER_KUBECONFIG is not set: run `scripts/operators.sh run-tier` (docs/operators.md)")
    if not Path(kubeconfig).is_file():
        unavailable(f"OPERATOR_TIER_KUBECONFIG={kubeconfig} does not exist: is the control plane up?")
    paths = _operator_paths()
    for key in ("PXC_OPERATOR", "PS_OPERATOR"):
        if not Path(paths.get(key, "")).is_file():
            unavailable(f"no operator binary at {paths.get(key)} ({key}): run `scripts/operators.sh ensure-built`")
    api = k8s_config.new_client_from_config(kubeconfig)
    try:
        version = k8s_client.VersionApi(api).get_code(_request_timeout=10).git_version
    except Exception as error:  # noqa: BLE001 - any failure to connect means: no API server here
        unavailable(f"the API server in {kubeconfig} is unreachable: {type(error).__name__}: {error}")
    workdir = tmp_path_factory.mktemp("operators")
    sources = {"pxc": Path(paths["PXC_OPERATOR_SRC"]), "ps": Path(paths["PS_OPERATOR_SRC"])}
    tier = Tier(api, DynamicClient(api), {}, sources, workdir)
    print(f"\nAPI server {api.configuration.host} ({version}); operator logs in {workdir}")
    for source in sources.values():  # the CRDs of the very source the binaries were built from
        for body in yaml.safe_load_all((source / "deploy" / "crd.yaml").read_text()):
            if body:
                tier.apply(body)
    watched: dict[str, list[str]] = {"pxc": [], "ps": []}
    for case in STACK_CASES:
        watched[case.operator].append(case.namespace)
    for operator, names in corpus_namespaces(sources).items():
        watched[operator] += names
    for operator, names in REFUSAL_NAMESPACES.items():  # test_operator_refusals
        watched[operator] += names
    core = tier.core
    for operator, names in watched.items():
        for name in [OPERATOR_NAMESPACES[operator], *names]:
            _create_namespace(core, name)
    try:
        for operator, names in watched.items():
            flavor = FLAVORS[operator]
            pod = placeholder_pod(core, flavor, OPERATOR_NAMESPACES[operator], f"{operator}-operator-{secrets.token_hex(3)}")
            binary = paths[flavor.binary_env]
            process = OperatorProcess(
                flavor, binary, kubeconfig, [OPERATOR_NAMESPACES[operator], *names], pod, workdir, OPERATOR_SETTINGS
            )
            tier.operators[operator] = process.start(timeout=120)
        yield tier
    finally:
        for process in tier.operators.values():
            process.stop()
