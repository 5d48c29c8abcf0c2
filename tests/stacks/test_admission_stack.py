"""The stack program with the admission server on (``admission``): the component registers the plan's objects on the
target's provider, after its certificate and the operator, the webhook last, and the whole stack still passes the
pack (its two replicas fit the monitoring pool they are reserved on, K5; they stay off the database pool, K4)."""

from __future__ import annotations

import pytest
from percona_mysql_k8s.cli.check import check_registrations
from percona_mysql_k8s.cli.offline import run_stack

IMAGE = "registry.example/percona-mysql-admission:0.2.0"
KIND_HOST = {"kindHostCpu": "8", "kindHostMemory": "32Gi"}


@pytest.fixture(scope="module")
def gke():
    return run_stack(
        "gke", overrides={"admission": "enforce", "admissionImage": IMAGE, "admissionApiServerCidrs": ["172.16.0.0/28"]}
    )


def of_type(registrations, suffix: str):
    return [r for r in registrations if r.type.endswith(suffix) and "admission" in r.name]


def test_the_component_registers_the_plan_with_its_certificate(gke):
    kinds = sorted(r.type.rsplit(":", 1)[1] for r in gke if "admission" in r.name and r.custom)
    assert kinds == sorted(
        [
            "CertRequest",
            "ClusterRole",
            "ClusterRoleBinding",
            "Deployment",
            "LocallySignedCert",
            "Namespace",
            "NetworkPolicy",
            "PodDisruptionBudget",
            "PrivateKey",
            "PrivateKey",
            "Secret",
            "SelfSignedCert",
            "Service",
            "ServiceAccount",
            "ValidatingWebhookConfiguration",
        ]
    )
    (cert,) = of_type(gke, ":LocallySignedCert")
    assert cert.inputs["validityPeriodHours"] == 365 * 24 and cert.inputs["earlyRenewalHours"] == 30 * 24
    (webhook,) = of_type(gke, ":ValidatingWebhookConfiguration")
    assert webhook.inputs["webhooks"][0]["failurePolicy"] == "Fail"
    (deployment,) = of_type(gke, ":Deployment")
    (service,) = of_type(gke, ":Service")
    assert {deployment.urn, service.urn} <= set(webhook.dependencies)  # the webhook only once the server can answer
    pod = deployment.inputs["spec"]["template"]["spec"]
    assert pod["nodeSelector"] == {"mysql.percona.com/pool": "monitoring"}


def test_the_stack_with_the_server_passes_the_pack(gke):
    report = check_registrations(gke, stack="gke", project="percona-mysql")
    assert report.mandatory == [], [f.diagnostic.message for f in report.mandatory]


def test_an_ephemeral_stack_ignores_the_servers_failures():
    kind = run_stack("kind", overrides={**KIND_HOST, "admission": "warn", "admissionImage": IMAGE})
    (webhook,) = of_type(kind, ":ValidatingWebhookConfiguration")
    assert webhook.inputs["webhooks"][0]["failurePolicy"] == "Ignore"
    (deployment,) = of_type(kind, ":Deployment")
    assert deployment.inputs["spec"]["template"]["spec"]["containers"][0]["args"][:3] == ["serve", "--mode", "warn"]


def test_audit_registers_no_webhook():
    audit = run_stack("kind", overrides={**KIND_HOST, "admission": "audit", "admissionImage": IMAGE})
    assert of_type(audit, ":ValidatingWebhookConfiguration") == [] and of_type(audit, ":Deployment")
