"""One database cluster (PXC or group replication) with its proxy, sized for the target's database pool.

Order inside the component: generated passwords -> the cluster's Secret -> (PMM token Job) -> the
custom resource. The custom resource depends on the operator's CRDs and release and on everything in
``ClusterTarget.ready``, so ``pulumi destroy`` deletes it while the operator is still running to
process its finalizer, before the node pools go (INTERFACES §1, §7.1). When an in-cluster PMM server is
given, the token is in the Secret before the pods start, so they come up reporting to PMM instead of
restarting later. With backups, ``spec.backup`` is written from the :class:`BackupPlan` with the backup Jobs,
the PXC binlog collector and the PS binlog server on the monitoring pool (K5), and the custom resource waits
for ``backup_ready`` (the credentials Secret, the ServiceAccount, the bucket): the PS backup controller
refuses a storage whose Secret is missing (pkg/controller/psbackup/controller.go).
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
from percona_mysql_k8s.core.backup import BackupPlan
from percona_mysql_k8s.core.errors import InputError
from percona_mysql_k8s.core.sidecars import ContainerSize
from percona_mysql_k8s.core.sizing import SizingResult
from percona_mysql_k8s.plan.database.manifests import custom_resource
from percona_mysql_k8s.plan.database.pods import labels
from percona_mysql_k8s.plan.database.sources import mirror_images
from percona_mysql_k8s.plan.database.spec import PMM_TOKEN_KEY, DatabaseSpec, Endpoint, Placement, size_for_pool, writer_endpoint

from .common import child_options, generated_password
from .operator import PerconaOperator
from .pmm import ExternalPmm, PmmServer, PmmToken, PmmTokenArgs


@dataclass(frozen=True)
class DatabaseClusterArgs:
    spec: DatabaseSpec
    target: ClusterTarget
    operator: PerconaOperator | None = None  # None: the cluster already runs the operator
    pmm: PmmServer | ExternalPmm | None = None
    helper_resources: ContainerSize = monitoring.HELPER
    depends_on: Sequence[pulumi.Resource] = field(default=())
    image_registry: str = ""  # a mirror of Docker Hub for every image the custom resource names (database.sources)
    backup: BackupPlan | None = None  # required when spec.backup is on (R1)
    backup_ready: Sequence[pulumi.Resource] = field(default=())  # what the backups need before the CR exists


class DatabaseCluster(pulumi.ComponentResource):
    """``sizing`` and ``placement`` are plain values, computed when the component is constructed."""

    def __init__(self, name: str, args: DatabaseClusterArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__(token("DatabaseCluster"), name, None, renamed("DatabaseCluster", opts))
        spec, target = args.spec, args.target
        provider = target.provider
        protect = not spec.ephemeral  # S4: persistent stacks protect their database resources
        if spec.pmm_enabled and args.pmm is None:
            raise InputError(
                "pmmEnabled", "PMM is enabled but no PMM server is given (install one or name an existing one)", "S5"
            )

        self.spec = spec
        self.placement: Placement
        self.sizing: SizingResult
        self.placement, self.sizing = size_for_pool(spec, target.database_pool)
        pmm_host = args.pmm.host if (args.pmm is not None and spec.pmm_enabled) else None
        backup_placement = target.monitoring_pool.placement() if spec.backup else None
        self.manifest = mirror_images(
            custom_resource(spec, self.sizing, self.placement, pmm_host, args.backup, backup_placement), args.image_registry
        )
        self.writer: Endpoint = writer_endpoint(spec)

        after = [*target.ready, *args.depends_on]
        self._secret(name, args, after, protect)
        before_cr: list[pulumi.Resource] = [self.secret, *after, *args.backup_ready]
        if args.operator is not None:
            before_cr += args.operator.ready
        before_cr += self._pmm_token(name, args, after)

        body = self.manifest
        self.custom_resource = k8s.apiextensions.CustomResource(
            f"{name}-cr",
            api_version=body["apiVersion"],
            kind=body["kind"],
            metadata=body["metadata"],
            spec=body["spec"],
            opts=child_options(
                self,
                provider,
                before_cr,
                protect=protect,
                custom_timeouts=pulumi.CustomTimeouts(create="45m", update="45m", delete="30m"),
            ),
        )
        self.ready: list[pulumi.Resource] = [self.custom_resource]
        self.register_outputs(
            {
                "name": spec.name,
                "namespace": spec.namespace,
                "writer": f"{self.writer.host}:{self.writer.port}",
                "secretName": spec.secret_name,
            }
        )

    def _secret(self, name: str, args: DatabaseClusterArgs, after: list[pulumi.Resource], protect: bool) -> None:
        """The users' generated passwords (and an existing PMM server's token) in the cluster's Secret."""
        spec, provider = args.spec, args.target.provider
        self.passwords = {key: generated_password(f"{name}-{key}", self) for key in spec.secret_keys}
        string_data: dict[str, pulumi.Input[str]] = {
            key: pulumi.Output.secret(password.result) for key, password in self.passwords.items()
        }
        if spec.pmm_enabled and isinstance(args.pmm, ExternalPmm):
            string_data[PMM_TOKEN_KEY] = pulumi.Output.secret(args.pmm.token)
        # Every key the operator needs is set, so it adds none of its own (INTERFACES §2.9, §3.8).
        self.secret = k8s.core.v1.Secret(
            f"{name}-secrets",
            metadata={"name": spec.secret_name, "namespace": spec.namespace, "labels": labels("mysql", spec.name)},
            type="Opaque",
            string_data=string_data,
            opts=child_options(self, provider, after, protect=protect),
        )

    def _pmm_token(self, name: str, args: DatabaseClusterArgs, after: list[pulumi.Resource]) -> list[pulumi.Resource]:
        """The PMM server's service token in the Secret (this stack's PMM server); what the custom resource waits for."""
        spec, provider = args.spec, args.target.provider
        self.pmm_token: PmmToken | None = None
        if spec.pmm_enabled and isinstance(args.pmm, PmmServer):
            self.pmm_token = PmmToken(
                f"{name}-pmm-token",
                PmmTokenArgs(
                    server=args.pmm,
                    cluster_name=spec.name,
                    secret_name=spec.secret_name,
                    secret_namespace=spec.namespace,
                    provider=provider,
                    resources=args.helper_resources,
                    depends_on=[self.secret, *after],
                    image_registry=args.image_registry,
                ),
                opts=pulumi.ResourceOptions(parent=self),
            )
            return self.pmm_token.ready
        return []
