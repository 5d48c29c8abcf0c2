"""The admission server as resources: the objects :mod:`percona_mysql_k8s.plan.admission` decides, with a CA and a
serving certificate pulumi-tls makes and the stack's state keeps (secrets: the private keys never leave it in plain
text; the Kubernetes Secret's data is a Pulumi secret too).

Rotation: the serving certificate lives SERVING_HOURS and is replaced by the first ``pulumi up`` within
RENEW_HOURS of its end (pulumi-tls ``early_renewal_hours``); its checksum is in the pod template, so the
Deployment rolls onto it while the PodDisruptionBudget keeps a replica answering. The CA (ten years) stays, so the
webhook's ``caBundle`` does not change. Replacing the CA itself (``pulumi up --replace`` on it) changes the bundle and
the certificate together: docs/admission.md says how to do it without refusing anything.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field

import pulumi

from percona_mysql_k8s._extras import missing_extra
from percona_mysql_k8s._tokens import options as renamed
from percona_mysql_k8s._tokens import token

try:
    import pulumi_kubernetes as k8s
    import pulumi_tls as tls
except ModuleNotFoundError as missing:  # a provider SDK of an extra (pyproject.toml): say which one installs it
    raise missing_extra(missing, __name__) from None

from percona_mysql_k8s.clusters.target import ClusterTarget
from percona_mysql_k8s.plan import admission as plan

from .common import child_options

CA_HOURS = 10 * 365 * 24
SERVING_HOURS = 365 * 24
RENEW_HOURS = 30 * 24


@dataclass(frozen=True)
class AdmissionServerArgs:
    settings: plan.AdmissionSettings
    target: ClusterTarget
    depends_on: Sequence[pulumi.Resource] = field(default=())


def _resource(name: str, body: dict, opts: pulumi.ResourceOptions) -> pulumi.CustomResource:
    """One object of the plan as its typed resource (the plan's kinds only)."""
    meta = body["metadata"]
    kind = body["kind"]
    if kind == "Namespace":
        return k8s.core.v1.Namespace(name, metadata=meta, opts=opts)
    if kind == "ServiceAccount":
        return k8s.core.v1.ServiceAccount(name, metadata=meta, opts=opts)
    if kind == "ClusterRole":
        return k8s.rbac.v1.ClusterRole(name, metadata=meta, rules=body["rules"], opts=opts)
    if kind == "ClusterRoleBinding":
        return k8s.rbac.v1.ClusterRoleBinding(name, metadata=meta, role_ref=body["roleRef"], subjects=body["subjects"], opts=opts)
    if kind == "Secret":
        return k8s.core.v1.Secret(
            name, metadata=meta, type=body["type"], string_data=pulumi.Output.secret(body["stringData"]), opts=opts
        )
    if kind == "Deployment":
        return k8s.apps.v1.Deployment(name, metadata=meta, spec=body["spec"], opts=opts)
    if kind == "Service":
        return k8s.core.v1.Service(name, metadata=meta, spec=body["spec"], opts=opts)
    if kind == "PodDisruptionBudget":
        return k8s.policy.v1.PodDisruptionBudget(name, metadata=meta, spec=body["spec"], opts=opts)
    if kind == "NetworkPolicy":
        return k8s.networking.v1.NetworkPolicy(name, metadata=meta, spec=body["spec"], opts=opts)
    if kind == "ValidatingWebhookConfiguration":
        return k8s.admissionregistration.v1.ValidatingWebhookConfiguration(
            name, metadata=meta, webhooks=body["webhooks"], opts=opts
        )
    raise ValueError(f"the admission plan holds a {kind}, which this component does not register")


class AdmissionServer(pulumi.ComponentResource):
    """The webhook server, its certificate and its ValidatingWebhookConfiguration (none in audit mode)."""

    def __init__(self, name: str, args: AdmissionServerArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__(token("AdmissionServer"), name, None, renamed("AdmissionServer", opts))
        settings = args.settings
        child = pulumi.ResourceOptions(parent=self)
        ca_key = tls.PrivateKey(f"{name}-ca-key", algorithm="ECDSA", ecdsa_curve="P256", opts=child)
        ca = tls.SelfSignedCert(
            f"{name}-ca",
            private_key_pem=ca_key.private_key_pem,
            is_ca_certificate=True,
            validity_period_hours=CA_HOURS,
            allowed_uses=["cert_signing", "crl_signing"],
            subject=tls.SelfSignedCertSubjectArgs(common_name="percona-mysql-admission CA"),
            opts=child,
        )
        key = tls.PrivateKey(f"{name}-key", algorithm="ECDSA", ecdsa_curve="P256", opts=child)
        names = list(plan.dns_names(settings))
        request = tls.CertRequest(
            f"{name}-csr",
            private_key_pem=key.private_key_pem,
            dns_names=names,
            subject=tls.CertRequestSubjectArgs(common_name=names[0]),
            opts=child,
        )
        cert = tls.LocallySignedCert(
            f"{name}-cert",
            cert_request_pem=request.cert_request_pem,
            ca_private_key_pem=ca_key.private_key_pem,
            ca_cert_pem=ca.cert_pem,
            validity_period_hours=SERVING_HOURS,
            early_renewal_hours=RENEW_HOURS,
            allowed_uses=["digital_signature", "key_encipherment", "server_auth"],
            opts=child,
        )
        material = plan.Tls(
            ca_pem=ca.cert_pem,
            cert_pem=cert.cert_pem,
            key_pem=pulumi.Output.secret(key.private_key_pem),
            ca_bundle=ca.cert_pem.apply(lambda pem: base64.b64encode((pem or "").encode()).decode()),
            checksum=cert.cert_pem.apply(lambda pem: hashlib.sha256((pem or "").encode()).hexdigest()),
        )
        after = [*args.target.ready, *args.depends_on]
        self.objects: dict[str, pulumi.CustomResource] = {}
        namespace_ready: list[pulumi.Resource] = []
        for body in plan.admission_objects(settings, material):
            label = f"{name}-{body['kind'].lower()}"
            depends = after + (namespace_ready if body["kind"] != "Namespace" else [])
            if body["kind"] == "ValidatingWebhookConfiguration":  # only once the server can answer (failurePolicy Fail)
                depends = depends + [self.objects["deployment"], self.objects["service"], self.objects["networkpolicy"]]
            resource = _resource(label, body, child_options(self, args.target.provider, depends))
            self.objects[body["kind"].lower()] = resource
            if body["kind"] == "Namespace":
                namespace_ready = [resource]
        self.ca_pem = ca.cert_pem
        self.register_outputs({"namespace": settings.namespace, "mode": settings.mode, "caCertificate": ca.cert_pem})
