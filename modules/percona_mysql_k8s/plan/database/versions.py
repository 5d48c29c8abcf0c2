"""Every pinned version of the database layer, in one place.

Nothing here is resolved at run time: a chart version, an operator image, a ``crVersion`` and the
images a custom resource names are pinned together so an upgrade is one reviewed change of this file
(bump the operator and its CRDs first, then ``crVersion``; INTERFACES §2.1, §7.2). The sources are the
reference files pinned in ``tests/reference_material/manifest.toml`` (tests compare them; the files stay
outside the repository, ``scripts/fetch-reference.sh``):

* PXC: the ``pxc-operator``/``pxc-db`` **1.20.0** charts (``helm-pxc-*-1.20.0-*``). The 8.4 images are
  the pxc-db 1.20.0 defaults. pxc-db ships no 8.0 image, so 8.0 uses the newest 8.0 image the operator's
  own e2e list names (``pxc-operator-v1.19.0-release_versions.txt``). The CRDs are read from the chart's
  ``crds/crd.yaml`` at tag ``pxc-operator-1.20.0``: the same bytes as the operator's ``deploy/crd.yaml``
  (SOURCES.md checked that for 1.19.0), and that tag, unlike an operator ``v1.20.0`` tag, is one the
  reference snapshot could verify.
* PS: operator **v1.2.0** (``ps-operator-v1.2.0-*``). Its CRDs come from ``deploy/crd.yaml`` at tag
  ``v1.2.0``. The Helm chart is pinned to **1.2.0**: it was released upstream (percona-helm-charts
  PR #881, merged 2026-07-01) but is newer than the reference snapshot, which has the 1.1.0 chart only.
  Pairing the 1.1.0 chart with the 1.2.0 operator image was rejected: its RBAC predates the
  ``PerconaServerMySQLClusterSet`` kind, which would fail quietly at run time, whereas a missing chart
  version fails ``pulumi up`` loudly. The values we set (``image``, ``resources``, ``nodeSelector``,
  ``tolerations``) exist in the 1.1.0 chart already, and the operator image is set explicitly.
* PMM: the ``pmm`` chart **1.8.1** with ``percona/pmm-server:3.8.1``. Each operator gets the 3.x client
  its own release was tested with; client and server majors match (S5).
* sysbench: ``perconalab/sysbench:1.1`` (sysbench 1.1.0, the image Percona's PXC e2e tests use,
  INTERFACES §6). Helper jobs (PMM token, results publisher) use ``alpine/k8s`` for curl, jq and
  kubectl, pinned to a Kubernetes 1.33 patch release like the clusters.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

HELM_REPOSITORY = "https://percona.github.io/percona-helm-charts/"

PXC_ENGINE = "pxc"
GROUP_REPLICATION_ENGINE = "group-replication"


@dataclass(frozen=True)
class OperatorRelease:
    """One operator release: how it is installed, which CRDs it needs, which images its CR names."""

    engine: str
    chart: str
    chart_version: str
    operator_image: str
    cr_version: str
    crd_url: str
    api_version: str
    kind: str
    finalizer: str
    images: Mapping[str, Mapping[str, str]]  # mysql version -> component -> image
    reference_crd: str  # the reference item (tests/reference_material/manifest.toml) holding the same CRDs (tests)

    def image(self, mysql_version: str, component: str) -> str:
        try:
            return self.images[mysql_version][component]
        except KeyError:
            raise KeyError(f"{self.engine} {self.cr_version} pins no {component!r} image for MySQL {mysql_version}") from None

    @property
    def operator_repository(self) -> str:
        return self.operator_image.rsplit(":", 1)[0]

    @property
    def operator_tag(self) -> str:
        return self.operator_image.rsplit(":", 1)[1]


def _images(common: Mapping[str, str], per_version: Mapping[str, Mapping[str, str]]) -> Mapping[str, Mapping[str, str]]:
    return MappingProxyType({version: MappingProxyType({**common, **images}) for version, images in per_version.items()})


PXC = OperatorRelease(
    engine=PXC_ENGINE,
    chart="pxc-operator",
    chart_version="1.20.0",
    operator_image="percona/percona-xtradb-cluster-operator:1.20.0",
    cr_version="1.20.0",
    crd_url="https://raw.githubusercontent.com/percona/percona-helm-charts/pxc-operator-1.20.0/charts/pxc-operator/crds/crd.yaml",
    api_version="pxc.percona.com/v1",
    kind="PerconaXtraDBCluster",
    finalizer="percona.com/delete-pxc-pods-in-order",
    images=_images(
        {
            "haproxy": "percona/haproxy:2.8.18-1",
            "proxysql": "percona/proxysql2:2.7.3-1.3",
            "logcollector": "percona/fluentbit:5.0.6-1",
            "pmm-client": "percona/pmm-client:3.8.0",
        },
        {
            "8.4": {"mysql": "percona/percona-xtradb-cluster:8.4.8-8.1", "backup": "percona/percona-xtrabackup:8.4.0-5.1"},
            "8.0": {"mysql": "percona/percona-xtradb-cluster:8.0.44-35.1", "backup": "percona/percona-xtrabackup:8.0.35-34.1"},
        },
    ),
    reference_crd="helm-pxc-operator-1.20.0-crds-crd.yaml",
)

PS = OperatorRelease(
    engine=GROUP_REPLICATION_ENGINE,
    chart="ps-operator",
    chart_version="1.2.0",
    operator_image="percona/percona-server-mysql-operator:1.2.0",
    cr_version="1.2.0",
    crd_url="https://raw.githubusercontent.com/percona/percona-server-mysql-operator/v1.2.0/deploy/crd.yaml",
    api_version="ps.percona.com/v1",
    kind="PerconaServerMySQL",
    finalizer="percona.com/delete-mysql-pods-in-order",
    images=_images(
        {
            "haproxy": "percona/haproxy:2.8.18-1",
            "orchestrator": "percona/percona-orchestrator:3.2.6-22",
            "toolkit": "percona/percona-toolkit:3.7.1-4",
            "pmm-client": "percona/pmm-client:3.8.1",
        },
        {
            "8.4": {
                "mysql": "percona/percona-server:8.4.10-10.1",
                "router": "percona/percona-mysql-router:8.4.10",
                "backup": "percona/percona-xtrabackup:8.4.0-6.1",
            },
            "8.0": {
                "mysql": "percona/percona-server:8.0.46-37.1",
                "router": "percona/percona-mysql-router:8.0.46",
                "backup": "percona/percona-xtrabackup:8.0.35-36.1",
            },
        },
    ),
    reference_crd="ps-operator-v1.2.0-crd.yaml",
)

# The PS operator's binlog server (PITR for group replication), released with operator 1.2.0
# (ps-operator-v1.2.0-cr.yaml backup.pitr.binlogServer.image, INTERFACES §0).
BINLOG_SERVER_IMAGE = "percona/percona-server-mysql-operator:1.2.0-binlog-server-0.3.1"

OPERATORS: Mapping[str, OperatorRelease] = MappingProxyType({PXC.engine: PXC, PS.engine: PS})


@dataclass(frozen=True)
class PmmRelease:
    chart: str
    chart_version: str
    server_repository: str
    server_tag: str

    @property
    def server_image(self) -> str:
        return f"{self.server_repository}:{self.server_tag}"

    @property
    def major(self) -> int:
        return int(self.server_tag.split(".", 1)[0])


PMM = PmmRelease(chart="pmm", chart_version="1.8.1", server_repository="percona/pmm-server", server_tag="3.8.1")

SYSBENCH_IMAGE = "perconalab/sysbench:1.1"
KUBECTL_IMAGE = "alpine/k8s:1.33.4"


def operator_for(engine: str) -> OperatorRelease:
    try:
        return OPERATORS[engine]
    except KeyError:
        raise KeyError(f"no operator for engine {engine!r}; one of {', '.join(OPERATORS)}") from None


def image_major(image: str) -> int:
    """``percona/pmm-client:3.8.1`` -> 3."""
    return int(image.rsplit(":", 1)[1].split(".", 1)[0])
