"""An existing cluster: any conformant Kubernetes cluster the user already has.

Nothing is created but the Kubernetes provider: it reads ``kubeconfig`` (a path; empty = ``$KUBECONFIG``
or ``~/.kube/config``) and ``kubeContext`` (empty = the current context). The pools are described in
config by their node labels (``databasePoolLabels``, ``monitoringPoolLabels``) and the database pool's
taint (``databasePoolTaint``); their allocatable comes from ``databaseNodeType`` (a catalog machine) or
``existingNodeCpu``/``existingNodeMemory`` as ``kubectl describe node`` reports it (K1).
"""

from __future__ import annotations

import pulumi

from percona_mysql_k8s._extras import missing_extra
from percona_mysql_k8s._tokens import options as renamed
from percona_mysql_k8s._tokens import token

try:
    import pulumi_kubernetes as k8s
except ModuleNotFoundError as missing:  # a provider SDK of an extra (pyproject.toml): say which one installs it
    raise missing_extra(missing, __name__) from None


from percona_mysql_k8s.plan.clusters.shape import ClusterArgs

from .target import ClusterTarget


class ExistingClusterArgs(ClusterArgs):
    """The existing cluster's part of the plan (plan.clusters.shape.ClusterArgs: one shape for every target)."""

    TARGET = "existing"


class ExistingCluster(pulumi.ComponentResource):
    """A provider for a cluster made elsewhere; ``.target`` is what the database layer uses."""

    def __init__(self, name: str, args: ExistingClusterArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__(token("ExistingCluster"), name, None, renamed("ExistingCluster", opts))
        existing = args.existing
        self.provider = k8s.Provider(
            f"{name}-k8s",
            kubeconfig=existing.kubeconfig or None,
            context=existing.context or None,
            opts=pulumi.ResourceOptions(parent=self),
        )
        # the operators' CRDs may be there before the stack (ClusterTarget.shared_provider)
        self.shared_provider = k8s.Provider(
            f"{name}-k8s-shared",
            kubeconfig=existing.kubeconfig or None,
            context=existing.context or None,
            upsert_existing_objects=True,
            opts=pulumi.ResourceOptions(parent=self),
        )
        self.target = ClusterTarget(
            name=args.cluster_name,
            kind="existing",
            provider=self.provider,
            shared_provider=self.shared_provider,
            database_pool=args.database_pool,
            monitoring_pool=args.monitoring_pool,
        )
        self.register_outputs({})
