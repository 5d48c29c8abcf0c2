"""The admission server in front of the real PXC operator: a custom resource it refuses never reaches the operator,
so it never yields a pod, while the same resource admitted (warn mode) is rendered into its StatefulSet and pods.

The server runs as a process on loopback (tests/admission/server_process.py), watching the tier's Nodes; a
ValidatingWebhookConfiguration from the plan (percona_mysql_k8s.plan.admission, the URL form) points the tier's API
server at it. The breach is the gke stack's own PXC custom resource without its backups (R1, R2: mandatory on any
cluster the pack judges without a stack).
"""

from __future__ import annotations

import base64
import copy
import os
import sys
import time
from pathlib import Path

import pytest
from kubernetes.client.rest import ApiException
from operator_cluster import wait_for
from operator_inputs import STACK_CASES
from stack_deployment import RENDER_TIMEOUT
from test_operator_stacks import deployed

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "admission"))
from percona_mysql_k8s.plan import admission as plan  # noqa: E402
from server_process import Server  # noqa: E402

pytestmark = pytest.mark.operators
CASE = next(case for case in STACK_CASES if case.id == "gke-pxc")
WEBHOOK = ("admissionregistration", "v1", plan.NAME)


def _register(tier, server: Server) -> None:
    settings = plan.AdmissionSettings(mode="enforce", image="unused")
    ca = base64.b64encode((server.tls_dir / "ca.crt").read_bytes()).decode()
    tier.apply(plan.webhook_configuration(settings, ca, url=server.url))
    time.sleep(1)  # the API server's webhook informer picks it up


def _unregister(tier) -> None:
    from kubernetes import client

    try:
        client.AdmissionregistrationV1Api(tier.api).delete_validating_webhook_configuration(plan.NAME)
    except ApiException as error:
        if error.status != 404:
            raise
    time.sleep(1)


def _breach(deployment, name: str) -> dict:
    cr = copy.deepcopy(deployment.cr)
    cr["metadata"] = {"name": name, "namespace": deployment.namespace}
    cr["spec"].pop("backup", None)
    return cr


def _pods(tier, namespace: str, prefix: str) -> list[str]:
    return [p.metadata.name for p in tier.core.list_namespaced_pod(namespace).items if p.metadata.name.startswith(prefix)]


def _create(tier, deployment, body: dict):
    group, version, plural = deployment.plural
    return tier.custom.create_namespaced_custom_object(group, version, deployment.namespace, plural, body)


def test_a_refused_custom_resource_never_yields_a_pod(tier, tmp_path):
    deployment = deployed(tier, CASE)  # the operator reconciles this namespace: its own cluster runs there
    kubeconfig = os.environ["OPERATOR_TIER_KUBECONFIG"]
    enforce = Server(tmp_path / "enforce", mode="enforce", extra=("--kubeconfig", kubeconfig, "--audit-seconds", "0"))
    warn = Server(tmp_path / "warn", mode="warn", extra=("--kubeconfig", kubeconfig, "--audit-seconds", "0"))
    group, version, plural = deployment.plural
    try:
        _register(tier, enforce.start())
        with pytest.raises(ApiException) as refused:
            _create(tier, deployment, _breach(deployment, "refused"))
        assert refused.value.status == 403 and "R1:" in refused.value.body, refused.value.body
        enforce.stop()

        _register(tier, warn.start())  # the same resource admitted: the operator renders it
        _create(tier, deployment, _breach(deployment, "warned"))
        wait_for(
            "the admitted custom resource's pods",
            lambda: _pods(tier, deployment.namespace, "warned-pxc-"),
            timeout=RENDER_TIMEOUT,
        )
        # by now the operator has reconciled what reached it; the refused resource did not
        assert _pods(tier, deployment.namespace, "refused-") == []
        statefulsets = [s.metadata.name for s in tier.apps.list_namespaced_stateful_set(deployment.namespace).items]
        assert not any(name.startswith("refused-") for name in statefulsets), statefulsets
        with pytest.raises(ApiException) as missing:
            tier.custom.get_namespaced_custom_object(group, version, deployment.namespace, plural, "refused")
        assert missing.value.status == 404
    finally:
        _unregister(tier)
        enforce.stop()
        warn.stop()
        try:
            tier.custom.patch_namespaced_custom_object(
                group, version, deployment.namespace, plural, "warned", {"metadata": {"finalizers": None}}
            )
            tier.custom.delete_namespaced_custom_object(group, version, deployment.namespace, plural, "warned")
        except ApiException as error:
            if error.status != 404:
                raise
