"""The Percona operator: its CRDs (server-side apply) and its Helm release (INTERFACES §1, §7.1, §7.3).

Helm installs a chart's ``crds/`` on first install only and never upgrades them, and the CRD files are
too large for client-side apply (the 256 KiB ``last-applied-configuration`` annotation). So the chart
runs with ``skip_crds`` and the CRDs are applied from the operator's pinned ``crd.yaml`` with
``yaml.v2.ConfigFile``, which pulumi-kubernetes v4 applies server-side: an operator upgrade (a change
in :mod:`percona_mysql_k8s.plan.database.versions`) updates the CRDs with it (percona-helm-charts#375).

The operator Deployment runs on the monitoring pool: nothing but database and proxy pods tolerates
the database pool's taint (K4).
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
from percona_mysql_k8s.core.sidecars import ContainerSize
from percona_mysql_k8s.plan.database import versions
from percona_mysql_k8s.plan.database.pods import pool_scheduling, resources
from percona_mysql_k8s.plan.database.sources import ChartSource, chart_source, mirror_images

from .common import child_options, release_chart


@dataclass(frozen=True)
class OperatorArgs:
    engine: str
    namespace: str
    target: ClusterTarget
    resources: ContainerSize = monitoring.OPERATOR
    depends_on: Sequence[pulumi.Resource] = field(default=())
    # Air-gapped installs (database.sources): the chart from a mirror, an OCI registry or a local archive
    # or directory, and the CRDs from a mirror URL or a local file. None / "": the public pinned sources.
    chart: ChartSource | None = None
    crds: str = ""
    image_registry: str = ""  # a mirror of Docker Hub for the operator image (database.sources)
    # A protected (persistent) stack never deletes the CRDs (S4): deleting a CRD deletes every custom
    # resource of it, in every namespace, whichever stack made them.
    protect: bool = False


def helm_values(release: versions.OperatorRelease, args: OperatorArgs) -> dict:
    """The chart values: image pinned, resources request = limit, placed on the monitoring pool."""
    values: dict = {
        "resources": resources(args.resources),
        **pool_scheduling(args.target.monitoring_pool),
        # Both charts' DISABLE_TELEMETRY (default false). With it on, the PXC operator calls Percona's version
        # service (check.percona.com) at every cluster's first reconcile and hourly (pkg/controller/pxc/version.go:
        # telemetryEnabled, "send telemetry on startup"), and logs an ERROR where that host is unreachable, as on
        # an air-gapped cluster (operatorChart, imageRegistry). The stack pins every version (upgradeOptions.apply:
        # disabled), so the version service has nothing to give it.
        "disableTelemetry": True,
    }
    if release.chart == "pxc-operator":
        values["image"] = release.operator_image  # the chart takes the whole reference in `image`
    else:
        values["image"] = {"repository": release.operator_repository, "tag": release.operator_tag}
    return values


class PerconaOperator(pulumi.ComponentResource):
    """CRDs + the operator release for one engine, watching its own namespace.

    ``ready`` is what a custom resource must depend on: destroy then deletes the CR while the operator
    still runs to process its finalizers (INTERFACES §1).
    """

    def __init__(self, name: str, args: OperatorArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__(token("PerconaOperator"), name, None, renamed("PerconaOperator", opts))
        self.release_info = versions.operator_for(args.engine)
        info = self.release_info
        provider = args.target.provider
        after_target = [*args.target.ready, *args.depends_on]

        chart = args.chart or chart_source("operatorChart", "", info.chart, info.chart_version)
        crds = args.crds or info.crd_url
        # protect: a destroy or replace that would delete them stops with an error; retain_on_delete: once
        # unprotected, Pulumi forgets them rather than deleting them (another stack's clusters may still use
        # them; remove them by hand, docs/database.md). Both options pass from this component to every CRD
        # it creates (pulumi.com/docs/iac/concepts/resources/options/protect/ and .../retainondelete/).
        # On a cluster the stack did not create, the CRDs may exist already: they are applied through the
        # target's shared provider, which adopts them, and always retained, since they may be another install's.
        crd_provider = args.target.shared_provider or provider
        self.crds = k8s.yaml.v2.ConfigFile(
            f"{name}-crds",
            file=crds,
            opts=pulumi.ResourceOptions(
                parent=self,
                providers=[crd_provider],
                depends_on=after_target,
                protect=args.protect,
                retain_on_delete=args.protect or args.target.shared_provider is not None,
            ),
        )
        self.release = k8s.helm.v3.Release(
            f"{name}-release",
            name=info.chart,
            **release_chart(chart),
            namespace=args.namespace,
            create_namespace=False,
            skip_crds=True,
            max_history=5,
            timeout=600,  # seconds: the operator image pull on a fresh node
            values=mirror_images(helm_values(info, args), args.image_registry),
            opts=child_options(self, provider, [self.crds, *after_target]),
        )
        self.namespace = args.namespace
        self.ready: list[pulumi.Resource] = [self.crds, self.release]
        self.register_outputs({"chart": chart.chart, "chartVersion": info.chart_version, "crdUrl": crds})
