"""The admission server's Kubernetes objects, as data (pure): one plan, two renderers. The Pulumi component
(percona_mysql_k8s.database.admission) registers them; ``percona-mysql-admission manifests`` prints them as YAML.

* a Namespace of its own (``pod-security.kubernetes.io/enforce: restricted``), a ServiceAccount and least-privilege
  RBAC: read Nodes and the Percona kinds (the Node rules, the audit), create and patch Events (the audit's findings);
  nothing else, no Secrets;
* the serving certificate as a ``kubernetes.io/tls`` Secret (``ca.crt`` beside it), made by the renderer;
* a Deployment of two replicas on the monitoring pool, spread over its nodes where it has several, Guaranteed QoS
  (requests = limits), a restricted security context, probes on its own endpoints; a PodDisruptionBudget keeps one
  up through a drain; its pod template carries the certificate's checksum, so a new certificate rolls the pods;
* a Service (443 -> the webhook, 9443 -> the metrics) and a NetworkPolicy admitting the API server's addresses to the
  webhook port and the scrapers' namespaces to the metrics port, nothing else;
* a ValidatingWebhookConfiguration for the Percona kinds only (CREATE and UPDATE of the main resource, never
  ``/status``), ``failurePolicy: Fail`` on production stacks (``Ignore`` on ephemeral ones), a namespace selector
  that leaves out ``kube-system`` and the server's own namespace whatever else it selects. In ``audit`` mode there
  is none: the server only sweeps.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from percona_mysql_k8s.core.errors import InputError
from percona_mysql_k8s.core.monitoring import ADMISSION_REPLICAS, ADMISSION_SERVER
from percona_mysql_k8s.core.sidecars import ContainerSize
from percona_mysql_k8s.core.units import format_cpu, format_memory

MODES = ("enforce", "warn", "audit")
NAMESPACE = "percona-mysql-admission"
NAME = "percona-mysql-admission"
WEBHOOK_NAME = "rules.admission.mysql.percona.com"
WEBHOOK_PORT, METRICS_PORT = 8443, 9443
SERVICE_PORT = 443
PATH = "/validate"
REPLICAS = ADMISSION_REPLICAS
# Namespaces no webhook of ours may ever cover: the cluster's own, and ours (the server must start without itself).
NEVER_JUDGED = ("kube-system",)
# One server process and one pack process (cli.engine.Pack), reserved on the monitoring pool (core.monitoring).
RESOURCES: ContainerSize = ADMISSION_SERVER
AUDIT_SECONDS_DEFAULT, AUDIT_SECONDS_RANGE = 300, (30, 86400)


@dataclass(frozen=True)
class PerconaKind:
    group: str
    version: str
    kind: str
    plural: str


# The kinds the webhook judges: both operators' clusters, backups and restores, as their CRDs name them
# (pxc-operator 1.20.0 and ps-operator v1.2.0 deploy/crd.yaml; a test reads the CRDs).
PERCONA_KINDS = (
    PerconaKind("pxc.percona.com", "v1", "PerconaXtraDBCluster", "perconaxtradbclusters"),
    PerconaKind("pxc.percona.com", "v1", "PerconaXtraDBClusterBackup", "perconaxtradbclusterbackups"),
    PerconaKind("pxc.percona.com", "v1", "PerconaXtraDBClusterRestore", "perconaxtradbclusterrestores"),
    PerconaKind("ps.percona.com", "v1", "PerconaServerMySQL", "perconaservermysqls"),
    PerconaKind("ps.percona.com", "v1", "PerconaServerMySQLBackup", "perconaservermysqlbackups"),
    PerconaKind("ps.percona.com", "v1", "PerconaServerMySQLRestore", "perconaservermysqlrestores"),
)


@dataclass(frozen=True)
class AdmissionSettings:
    mode: str
    image: str
    failure_policy: str = "Fail"  # Ignore on ephemeral stacks
    audit_seconds: int = AUDIT_SECONDS_DEFAULT
    api_server_cidrs: tuple[str, ...] = ()  # empty: any address, on the webhook port only (ephemeral stacks)
    metrics_namespaces: tuple[str, ...] = ()  # namespaces whose pods may scrape the metrics
    placement: Mapping[str, Any] = field(default_factory=dict)  # nodeSelector/tolerations of the monitoring pool
    namespace: str = NAMESPACE
    resources: ContainerSize = RESOURCES
    workers: int = 1


@dataclass(frozen=True)
class Tls:
    """What the renderer made: PEM texts (or a renderer's own values holding them), the CA base64-encoded for the
    webhook's ``caBundle`` and a checksum of the serving certificate for the pod template."""

    ca_pem: Any
    cert_pem: Any
    key_pem: Any
    ca_bundle: Any
    checksum: Any


def check_settings(settings: AdmissionSettings, key: str = "admission") -> None:
    """Refuse what would deploy a server that cannot work, naming the key."""
    if settings.mode not in MODES:
        raise InputError(key, f"{settings.mode!r} is not one of {', '.join(MODES)} (empty: no admission server)")
    if not settings.image or any(c.isspace() for c in settings.image):
        raise InputError(
            "admissionImage",
            "the admission server needs its image: build modules/percona_mysql_k8s/admission/Dockerfile and push it "
            "(docs/admission.md), then name it here",
        )
    low, high = AUDIT_SECONDS_RANGE
    if not low <= settings.audit_seconds <= high:
        raise InputError("admissionAuditSeconds", f"{settings.audit_seconds} is outside {low} to {high} seconds")
    if settings.failure_policy not in ("Fail", "Ignore"):
        raise InputError(key, f"failurePolicy {settings.failure_policy!r} is neither Fail nor Ignore")


def labels() -> dict[str, str]:
    return {"app.kubernetes.io/name": NAME, "app.kubernetes.io/component": "admission-webhook"}


def _meta(name: str, namespace: str | None = None, **extra) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name, "labels": labels(), **extra}
    if namespace:
        meta["namespace"] = namespace
    return meta


def namespace_object(settings: AdmissionSettings) -> dict[str, Any]:
    meta = _meta(settings.namespace)
    meta["labels"] = {**meta["labels"], "pod-security.kubernetes.io/enforce": "restricted"}
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": meta}


def rbac(settings: AdmissionSettings) -> list[dict[str, Any]]:
    groups = sorted({kind.group for kind in PERCONA_KINDS})
    rules = [
        {"apiGroups": [""], "resources": ["nodes"], "verbs": ["get", "list", "watch"]},
        *(
            {
                "apiGroups": [group],
                "resources": [kind.plural for kind in PERCONA_KINDS if kind.group == group],
                "verbs": ["get", "list", "watch"],
            }
            for group in groups
        ),
        {"apiGroups": [""], "resources": ["events"], "verbs": ["create", "patch"]},
    ]
    subject = {"kind": "ServiceAccount", "name": NAME, "namespace": settings.namespace}
    return [
        {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": _meta(NAME, settings.namespace)},
        {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": _meta(NAME), "rules": rules},
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "ClusterRoleBinding",
            "metadata": _meta(NAME),
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": NAME},
            "subjects": [subject],
        },
    ]


def tls_secret(settings: AdmissionSettings, tls: Tls) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": _meta(f"{NAME}-tls", settings.namespace),
        "type": "kubernetes.io/tls",
        "stringData": {"tls.crt": tls.cert_pem, "tls.key": tls.key_pem, "ca.crt": tls.ca_pem},
    }


def server_args(settings: AdmissionSettings) -> list[str]:
    return [
        "serve",
        "--mode",
        settings.mode,
        "--port",
        str(WEBHOOK_PORT),
        "--metrics-port",
        str(METRICS_PORT),
        "--cert",
        "/tls/tls.crt",
        "--key",
        "/tls/tls.key",
        "--audit-seconds",
        str(settings.audit_seconds),
        "--workers",
        str(settings.workers),
    ]


def _probe(path: str, period: int) -> dict[str, Any]:
    return {"httpGet": {"path": path, "port": WEBHOOK_PORT, "scheme": "HTTPS"}, "periodSeconds": period, "timeoutSeconds": 5}


def deployment(settings: AdmissionSettings, tls: Tls) -> dict[str, Any]:
    size = {"cpu": format_cpu(settings.resources.cpu_millicores), "memory": format_memory(settings.resources.memory_bytes)}
    container = {
        "name": "server",
        "image": settings.image,
        "args": server_args(settings),
        "ports": [
            {"name": "webhook", "containerPort": WEBHOOK_PORT, "protocol": "TCP"},
            {"name": "metrics", "containerPort": METRICS_PORT, "protocol": "TCP"},
        ],
        "resources": {"requests": dict(size), "limits": dict(size)},  # Guaranteed QoS
        "readinessProbe": _probe("/readyz", 5),
        "livenessProbe": {**_probe("/healthz", 10), "failureThreshold": 6},
        "securityContext": {
            "allowPrivilegeEscalation": False,
            "readOnlyRootFilesystem": True,
            "runAsNonRoot": True,
            "capabilities": {"drop": ["ALL"]},
            "seccompProfile": {"type": "RuntimeDefault"},
        },
        "env": [{"name": "PYTHONDONTWRITEBYTECODE", "value": "1"}, {"name": "HOME", "value": "/tmp"}],
        "volumeMounts": [{"name": "tls", "mountPath": "/tls", "readOnly": True}, {"name": "tmp", "mountPath": "/tmp"}],
    }
    spread = {
        "podAntiAffinity": {
            "preferredDuringSchedulingIgnoredDuringExecution": [
                {
                    "weight": 100,
                    "podAffinityTerm": {"topologyKey": "kubernetes.io/hostname", "labelSelector": {"matchLabels": labels()}},
                }
            ]
        }
    }
    pod_spec = {
        "serviceAccountName": NAME,
        "securityContext": {"runAsNonRoot": True, "runAsUser": 10001, "runAsGroup": 10001, "fsGroup": 10001},
        "containers": [container],
        "volumes": [{"name": "tls", "secret": {"secretName": f"{NAME}-tls"}}, {"name": "tmp", "emptyDir": {"sizeLimit": "64Mi"}}],
        "affinity": spread,
        **{key: value for key, value in settings.placement.items() if key in ("nodeSelector", "tolerations")},
    }
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": _meta(NAME, settings.namespace),
        "spec": {
            "replicas": REPLICAS,
            "selector": {"matchLabels": labels()},
            "template": {
                "metadata": {"labels": labels(), "annotations": {"mysql.percona.com/tls-checksum": tls.checksum}},
                "spec": pod_spec,
            },
        },
    }


def service(settings: AdmissionSettings) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": _meta(NAME, settings.namespace),
        "spec": {
            "selector": labels(),
            "ports": [
                {"name": "webhook", "port": SERVICE_PORT, "targetPort": WEBHOOK_PORT, "protocol": "TCP"},
                {"name": "metrics", "port": METRICS_PORT, "targetPort": METRICS_PORT, "protocol": "TCP"},
            ],
        },
    }


def disruption_budget(settings: AdmissionSettings) -> dict[str, Any]:
    return {
        "apiVersion": "policy/v1",
        "kind": "PodDisruptionBudget",
        "metadata": _meta(NAME, settings.namespace),
        "spec": {"minAvailable": 1, "selector": {"matchLabels": labels()}},
    }


def network_policy(settings: AdmissionSettings) -> dict[str, Any]:
    webhook_from = [{"ipBlock": {"cidr": cidr}} for cidr in settings.api_server_cidrs]
    ingress: list[dict[str, Any]] = [
        {**({"from": webhook_from} if webhook_from else {}), "ports": [{"protocol": "TCP", "port": WEBHOOK_PORT}]}
    ]
    if settings.metrics_namespaces:
        scrapers = [
            {"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": namespace}}}
            for namespace in settings.metrics_namespaces
        ]
        ingress.append({"from": scrapers, "ports": [{"protocol": "TCP", "port": METRICS_PORT}]})
    return {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "NetworkPolicy",
        "metadata": _meta(NAME, settings.namespace),
        "spec": {"podSelector": {"matchLabels": labels()}, "policyTypes": ["Ingress"], "ingress": ingress},
    }


def webhook_rules() -> list[dict[str, Any]]:
    groups = sorted({kind.group for kind in PERCONA_KINDS})
    return [
        {
            "apiGroups": [group],
            "apiVersions": ["*"],
            "operations": ["CREATE", "UPDATE"],
            "resources": [kind.plural for kind in PERCONA_KINDS if kind.group == group],
            "scope": "Namespaced",
        }
        for group in groups
    ]


def namespace_selector(settings: AdmissionSettings) -> dict[str, Any]:
    never = sorted({*NEVER_JUDGED, settings.namespace})
    return {"matchExpressions": [{"key": "kubernetes.io/metadata.name", "operator": "NotIn", "values": never}]}


def webhook_configuration(settings: AdmissionSettings, ca_bundle: Any, *, url: str | None = None) -> dict[str, Any]:
    """The ValidatingWebhookConfiguration; ``url`` in place of the Service (a server outside the cluster: the tests')."""
    client: dict[str, Any] = (
        {"url": url} if url else {"service": {"namespace": settings.namespace, "name": NAME, "path": PATH, "port": SERVICE_PORT}}
    )
    client["caBundle"] = ca_bundle
    return {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingWebhookConfiguration",
        "metadata": _meta(NAME),
        "webhooks": [
            {
                "name": WEBHOOK_NAME,
                "clientConfig": client,
                "rules": webhook_rules(),
                "failurePolicy": settings.failure_policy,
                "matchPolicy": "Equivalent",
                "namespaceSelector": namespace_selector(settings),
                "sideEffects": "None",
                "admissionReviewVersions": ["v1"],
                "timeoutSeconds": 10,
            }
        ],
    }


def admission_objects(settings: AdmissionSettings, tls: Tls) -> list[dict[str, Any]]:
    """Every object, in the order they can be applied."""
    check_settings(settings)
    objects = [
        namespace_object(settings),
        *rbac(settings),
        tls_secret(settings, tls),
        deployment(settings, tls),
        service(settings),
        disruption_budget(settings),
        network_policy(settings),
    ]
    if settings.mode != "audit":
        objects.append(webhook_configuration(settings, tls.ca_bundle))
    return objects


def dns_names(settings: AdmissionSettings) -> Sequence[str]:
    """The names the API server reaches the Service by: what the serving certificate must name."""
    return (f"{NAME}.{settings.namespace}.svc", f"{NAME}.{settings.namespace}.svc.cluster.local")
