"""PMM: the server (the ``pmm`` chart on the monitoring pool) and the PMM 3 token for a cluster (S1, S5).

* :class:`PmmServer` generates the admin password (``pulumi_random``, a Pulumi secret), writes it into a
  pre-created ``pmm-secret`` (chart ``secret.create: false``: the chart would otherwise generate one
  we cannot know), and installs the chart with a ClusterIP service named ``monitoring-service`` (the
  name the operators' ``serverHost`` expects; nothing is exposed outside the cluster, S3).
* :class:`PmmToken` is a Job that waits for ``/v1/readyz``, creates a Grafana service account and
  token under ``/graph/api/serviceaccounts`` and patches it into the cluster's Secret as
  ``pmmservertoken`` (INTERFACES §5), so the database pods report to PMM with no manual step.
* :class:`ExternalPmm` points a cluster at a PMM server this stack does not install.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import pulumi

from percona_mysql_k8s._extras import missing_extra
from percona_mysql_k8s._tokens import options as renamed
from percona_mysql_k8s._tokens import token

try:
    import pulumi_kubernetes as k8s
except ModuleNotFoundError as missing:  # a provider SDK of an extra (pyproject.toml): say which one installs it
    raise missing_extra(missing, __name__) from None

from percona_mysql_k8s.clusters.target import ClusterTarget
from percona_mysql_k8s.core import monitoring
from percona_mysql_k8s.core.pools import PoolShape
from percona_mysql_k8s.core.sidecars import ContainerSize
from percona_mysql_k8s.plan.database import scripts, versions
from percona_mysql_k8s.plan.database.pods import labels, pool_scheduling, resources, restricted_security
from percona_mysql_k8s.plan.database.sources import ChartSource, chart_source, mirror_images
from percona_mysql_k8s.plan.database.spec import PMM_TOKEN_KEY

from .common import child_options, generated_password, release_chart

PMM_SECRET = "pmm-secret"
PMM_PASSWORD_KEY = "PMM_ADMIN_PASSWORD"
PMM_SERVICE = "monitoring-service"
PMM_STORAGE = "20Gi"


@dataclass(frozen=True)
class PmmServerArgs:
    namespace: str
    target: ClusterTarget
    resources: ContainerSize | None = None  # None: the monitoring plan's share (percona_mysql_k8s.core.monitoring)
    storage_class: str = ""
    storage_size: str = PMM_STORAGE
    protect: bool = False
    depends_on: Sequence[pulumi.Resource] = field(default=())
    chart: ChartSource | None = None  # None: the pinned chart from the public repository (database.sources)
    image_registry: str = ""  # a mirror of Docker Hub for the server image (database.sources)


def helm_values(args: PmmServerArgs, size: ContainerSize) -> dict:
    storage: dict = {"size": args.storage_size}
    if args.storage_class:
        storage["storageClassName"] = args.storage_class
    return {
        "image": {"repository": versions.PMM.server_repository, "tag": versions.PMM.server_tag},
        "secret": {"create": False, "name": PMM_SECRET},
        "service": {"name": PMM_SERVICE, "type": "ClusterIP"},
        "storage": storage,
        # memory request = limit; CPU request only, so PMM uses idle CPU but never the load generator's share
        "pmmResources": resources(size, cpu_limit=False),
        "pmmEnv": {"PMM_ENABLE_UPDATES": "0"},
        **pool_scheduling(args.target.monitoring_pool),
    }


class PmmServer(pulumi.ComponentResource):
    def __init__(self, name: str, args: PmmServerArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__(token("PmmServer"), name, None, renamed("PmmServer", opts))
        provider = args.target.provider
        after_target = [*args.target.ready, *args.depends_on]
        size = (
            args.resources
            or monitoring.plan(args.target.monitoring_pool.node, operator=True, pmm_server=True, sysbench=True).pmm_server
        )

        self.admin_password = generated_password(f"{name}-admin-password", self)
        # The chart applies the password on PMM's first start only; the secret is protected with the
        # server's data on persistent stacks.
        self.admin_secret = k8s.core.v1.Secret(
            f"{name}-admin-secret",
            metadata={"name": PMM_SECRET, "namespace": args.namespace, "labels": labels("pmm", name)},
            type="Opaque",
            string_data={PMM_PASSWORD_KEY: pulumi.Output.secret(self.admin_password.result)},
            opts=child_options(self, provider, after_target, protect=args.protect),
        )
        self.release = k8s.helm.v3.Release(
            f"{name}-release",
            name="pmm",
            **release_chart(args.chart or chart_source("pmmChart", "", versions.PMM.chart, versions.PMM.chart_version)),
            namespace=args.namespace,
            create_namespace=False,
            max_history=5,
            # seconds: a ~2 GB image, then PMM's own startup probe allows 60 s + 20 x 15 s
            timeout=900,
            values=mirror_images(helm_values(args, size), args.image_registry),
            opts=child_options(self, provider, [self.admin_secret, *after_target], protect=args.protect),
        )
        self.namespace = args.namespace
        self.pool: PoolShape = args.target.monitoring_pool
        self.resources = size
        # A bare host for the operators' serverHost (the client adds :443); it resolves from any namespace.
        self.host = f"{PMM_SERVICE}.{args.namespace}"
        self.url = f"https://{PMM_SERVICE}.{args.namespace}.svc"
        self.ready: list[pulumi.Resource] = [self.release]
        self.register_outputs({"host": self.host, "url": self.url, "adminSecret": PMM_SECRET})


@dataclass(frozen=True)
class ExternalPmm:
    """A PMM 3 server the stack does not install: its host and a service-account token (a secret)."""

    host: str
    token: pulumi.Input[str]


@dataclass(frozen=True)
class PmmTokenArgs:
    server: PmmServer
    cluster_name: str
    secret_name: str
    secret_namespace: str
    provider: k8s.Provider
    resources: ContainerSize = monitoring.HELPER
    depends_on: Sequence[pulumi.Resource] = field(default=())
    image_registry: str = ""  # a mirror of Docker Hub for the helper image (database.sources)


def token_job_spec(args: PmmTokenArgs, service_account: str) -> dict:
    pod_security, container_security = restricted_security()
    return {
        "backoffLimit": 6,
        "activeDeadlineSeconds": 30 * 60,
        "template": {
            "metadata": {"labels": labels("pmm-token", args.cluster_name)},
            "spec": {
                "serviceAccountName": service_account,
                "restartPolicy": "OnFailure",
                "securityContext": pod_security,
                **pool_scheduling(args.server.pool),
                "containers": [
                    {
                        "name": "pmm-token",
                        "image": versions.KUBECTL_IMAGE,
                        "command": ["/bin/sh", "-c", scripts.PMM_TOKEN],
                        "env": [
                            {"name": "PMM_URL", "value": args.server.url},
                            {
                                "name": "PMM_ADMIN_PASSWORD",
                                "valueFrom": {"secretKeyRef": {"name": PMM_SECRET, "key": PMM_PASSWORD_KEY}},
                            },
                            {"name": "CREDENTIALS_NAME", "value": args.secret_name},
                            {"name": "CLUSTER_NAMESPACE", "value": args.secret_namespace},
                            {"name": "SERVICE_ACCOUNT", "value": f"pmm-{args.secret_namespace}-{args.cluster_name}"},
                            {"name": "CREDENTIALS_FIELD", "value": PMM_TOKEN_KEY},
                        ],
                        "resources": resources(args.resources),
                        "securityContext": container_security,
                    }
                ],
            },
        },
    }


class PmmToken(pulumi.ComponentResource):
    """Mint the PMM 3 token and patch it into ``<cluster>-secrets`` as ``pmmservertoken``.

    Why Pulumi does not fight over that key: the Secret is applied server-side by Pulumi's field
    manager with the password keys only (``stringData``); the Job writes ``data.pmmservertoken`` with
    its own field manager (``kubectl patch``). A later ``pulumi up`` applies just the fields Pulumi
    manages, so it neither removes the token nor sees it as drift (its diff is over its own inputs),
    and the operator finds every key present so it adds none of its own.

    The Job runs in PMM's namespace (it reads ``pmm-secret`` through ``secretKeyRef``); its
    ServiceAccount may only ``get``/``patch`` that one Secret, through a Role in the cluster's
    namespace.
    """

    def __init__(self, name: str, args: PmmTokenArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__(token("PmmToken"), name, None, renamed("PmmToken", opts))
        provider, server = args.provider, args.server
        account = f"{args.cluster_name}-pmm-token"
        self.service_account = k8s.core.v1.ServiceAccount(
            f"{name}-sa",
            metadata={"name": account, "namespace": server.namespace, "labels": labels("pmm-token", args.cluster_name)},
            opts=child_options(self, provider, args.depends_on),
        )
        self.role = k8s.rbac.v1.Role(
            f"{name}-role",
            metadata={"name": account, "namespace": args.secret_namespace, "labels": labels("pmm-token", args.cluster_name)},
            rules=[{"apiGroups": [""], "resources": ["secrets"], "resourceNames": [args.secret_name], "verbs": ["get", "patch"]}],
            opts=child_options(self, provider, args.depends_on),
        )
        self.role_binding = k8s.rbac.v1.RoleBinding(
            f"{name}-rolebinding",
            metadata={"name": account, "namespace": args.secret_namespace, "labels": labels("pmm-token", args.cluster_name)},
            role_ref={"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": account},
            subjects=[{"kind": "ServiceAccount", "name": account, "namespace": server.namespace}],
            opts=child_options(self, provider, [self.role, self.service_account]),
        )
        self.job = k8s.batch.v1.Job(
            f"{name}-job",
            metadata={"name": account, "namespace": server.namespace, "labels": labels("pmm-token", args.cluster_name)},
            spec=mirror_images(token_job_spec(args, account), args.image_registry),
            opts=child_options(
                self,
                provider,
                [self.role_binding, *server.ready, *args.depends_on],
                delete_before_replace=True,
                custom_timeouts=pulumi.CustomTimeouts(create="30m", update="30m"),
            ),
        )
        self.ready: list[pulumi.Resource] = [self.job]
        self.register_outputs({"job": account})
