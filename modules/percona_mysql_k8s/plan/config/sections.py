"""The database layer's settings, one decoder a part: the database cluster, its backups, PMM, the sysbench run,
the clients NetworkPolicies admit, where the charts come from; each key against its domain, an
:class:`~percona_mysql_k8s.core.errors.InputError` naming the key and the rule.

Pure (no Pulumi). Each function takes the raw config mapping or, from :func:`percona_mysql_k8s.plan.config.decide`,
the one :class:`~percona_mysql_k8s.plan.config.keys.ConfigValues` of the stack, so a key is decoded once.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

from percona_mysql_k8s.core import benchmark as bench
from percona_mysql_k8s.core import monitoring, operator_validation
from percona_mysql_k8s.core.bounds import MAX_DISK_IOPS, MAX_VOLUME_BYTES, MIN_DISK_IOPS
from percona_mysql_k8s.core.errors import InputError
from percona_mysql_k8s.core.names import dns1123_label_problem, dns1123_subdomain_problem
from percona_mysql_k8s.core.units import memory_to_bytes, parse_quantity
from percona_mysql_k8s.plan.clusters import ClusterSettings
from percona_mysql_k8s.plan.database import sources, versions
from percona_mysql_k8s.plan.database.network_policies import ClientAccess, client_access
from percona_mysql_k8s.plan.database.sources import ChartSource
from percona_mysql_k8s.plan.database.spec import CLUSTER_NAME_MAX, DatabaseSpec

from .backup import BackupSettings, backup_settings
from .keys import BACKUP_KEYS, PMM_TOKEN_KEY, ConfigValues

Config = Mapping[str, object] | ConfigValues  # the raw stack config, or the stack's one decoded reader
_RUN_ID_MAX_LENGTH = 16  # a DNS-1123 label this short: it names the run's Job


@dataclass(frozen=True)
class PmmSettings:
    install: bool
    enabled: bool
    server_host: str  # an existing server (install false); "" when installed here
    storage_size: str


@dataclass(frozen=True)
class SysbenchSettings:
    threads: tuple[int, ...]
    duration_seconds: int
    warmup_seconds: int
    rate: int
    cleanup: bool
    run_request: str | None = None  # a production run's explicit id (R5); None: ephemeral, reruns on change
    max_data_bytes: int | None = None  # the most data the run may prepare (R5, B4)


@dataclass(frozen=True)
class Sources:
    operator_chart: ChartSource
    pmm_chart: ChartSource
    operator_crds: str  # URL or absolute path for yaml.v2.ConfigFile
    image_registry: str = ""  # a mirror of Docker Hub: "" = the images as versions.py names them


def sources_from_config(values: Config, engine: str) -> Sources:
    """The chart and CRD sources, each checked (a path exists and holds the pinned chart, a URL has a
    scheme Helm reads); errors name operatorChart, pmmChart or operatorCrds."""
    v = ConfigValues.of(values)
    try:
        release = versions.operator_for(engine)
    except KeyError as error:
        raise InputError("engine", str(error).strip('"')) from None
    return Sources(
        operator_chart=sources.chart_source("operatorChart", v.get("operatorChart"), release.chart, release.chart_version),
        pmm_chart=sources.chart_source("pmmChart", v.get("pmmChart"), versions.PMM.chart, versions.PMM.chart_version),
        operator_crds=sources.crd_source("operatorCrds", v.get("operatorCrds"), release),
        image_registry=sources.image_registry("imageRegistry", v.get("imageRegistry")),
    )


# ---- domains the component code does not bound itself: beyond them a value is a typo, not a plan -------

# The volume and IOPS bounds are core.bounds' (MAX_DISK_IOPS, MAX_VOLUME_BYTES), read by sizing too.


def _check_range(v: ConfigValues, key: str, low: int, high: int, why: str, rule: str | None = None) -> None:
    value = v.get(key)
    if not low <= value <= high:
        raise InputError(key, f"{value} is outside {low}..{high} ({why})", rule)


def _volume_bytes(key: str, text: str) -> int:
    """A volume size: a quantity the API server takes (ASCII digits, one suffix), whole bytes, at most 64Ti."""
    try:
        amount = parse_quantity(text)
    except ValueError as error:
        raise InputError(key, f"{text!r} is not a Kubernetes quantity the API server accepts, e.g. 100Gi ({error})") from None
    if amount != amount.to_integral_value():
        raise InputError(key, f"{text!r} is {amount} bytes: a volume is whole bytes (m is milli, not mega: write 100M or 100Mi)")
    if not 0 < amount <= MAX_VOLUME_BYTES:
        raise InputError(key, f"{text!r} must be more than zero and at most 64Ti (the largest persistent disk)")
    return int(amount)


def _check_quantity(v: ConfigValues, key: str) -> int:
    """The volume size ``key`` holds, in bytes, parsed once."""
    return v.parsed(key, lambda text: _volume_bytes(key, text))


def check_pmm_volume(values: Config, cluster_size: int) -> None:
    """The PMM server's volume against what PMM needs for the cluster it monitors (core.monitoring)."""
    v = ConfigValues.of(values)
    amount = _check_quantity(v, "pmmStorageSize")
    if not v.get("installPmm"):
        return  # no server here: the volume is not created
    monitored = cluster_size if v.get("pmmEnabled") else 0
    needed = monitoring.pmm_volume_bytes(monitored)
    if amount < needed:
        raise InputError(
            "pmmStorageSize",
            f"{v.get('pmmStorageSize')!r} is below what PMM Server needs for {max(1, monitored)} "
            f"monitored database node(s) (clusterSize): ~1 GB per node per week over its {monitoring.PMM_RETENTION_DAYS}-day "
            f"retention is {math.ceil(needed / 2**30)}Gi; set pmmStorageSize to at least that",
        )


def check_database_keys(values: Config) -> None:
    """The database layer's keys against their domains, before anything reads them."""
    v = ConfigValues.of(values)
    # connections: the sizing engine's own check (core.sizing.validate: 0 derives them, at most mysqld's 100000)
    _check_range(v, "diskIops", MIN_DISK_IOPS, MAX_DISK_IOPS, "the volume's provisioned IOPS; no volume offers more than 350000")
    # the ladder's own checks (B2, B3), even when sysbench is off: a bad value is never kept for later
    bench.ladder(v.get("sysbenchThreads"), v.get("sysbenchDuration"), v.get("sysbenchWarmup"), v.get("sysbenchRate"))
    namespace = v.get("namespace")
    # A namespace is a DNS-1123 label; the kube- prefix is reserved for Kubernetes' own namespaces
    # (https://kubernetes.io/docs/concepts/overview/working-with-objects/namespaces/).
    if dns1123_label_problem(namespace):
        raise InputError("namespace", f"{namespace!r} is not a namespace name (lowercase letters, digits, hyphens; at most 63)")
    if namespace.startswith("kube-"):
        raise InputError("namespace", f"{namespace!r} is reserved for Kubernetes itself: choose the database's own namespace")
    storage_class = v.get("storageClass")
    if storage_class and dns1123_subdomain_problem(storage_class):  # a StorageClass name is a DNS-1123 subdomain
        raise InputError("storageClass", f"{storage_class!r} is not a StorageClass name (lowercase DNS subdomain)")
    _check_quantity(v, "storageSize")
    _check_quantity(v, "pmmStorageSize")


def database_spec_from_config(values: Config, cluster: ClusterSettings) -> DatabaseSpec:
    v = ConfigValues.of(values)
    name = v.get("dbClusterName") or cluster.cluster_name
    if not v.get("dbClusterName") and operator_validation.cluster_name_problem(name):
        raise InputError(
            "dbClusterName",
            f"clusterName {name!r} is longer than the {CLUSTER_NAME_MAX} characters the PXC operator allows "
            f"for a database cluster (it would refuse the cluster and reconcile nothing): set dbClusterName, e.g. "
            f"{operator_validation.shorten_cluster_name(name)!r}",
            "C2",
        )
    return DatabaseSpec(
        name=name,
        namespace=v.get("namespace"),
        engine=v.get("engine"),
        cluster_size=cluster.cluster_size,
        proxy=v.get("proxy"),
        mysql_version=v.get("mysqlVersion"),
        load=v.get("load"),
        connections=v.get("connections"),
        storage_class=v.get("storageClass"),
        storage_size=v.get("storageSize"),
        disk_iops=v.get("diskIops"),
        log_collector=v.get("logCollector"),
        backup=v.get("backup"),
        pmm_enabled=v.get("pmmEnabled"),
        ephemeral=cluster.ephemeral,
        database_await=v.get("databaseAwait"),
        accept_zone_loss=cluster.accept_zone_loss,
    )


def backup_settings_from_config(values: Config, cluster: ClusterSettings, *, engine: str) -> BackupSettings | None:
    """Scheduled backups and PITR (plan.config.backup, which parses the schedule once): None when ``backup`` is
    false."""
    v = ConfigValues.of(values)
    place = cluster.gke.project if cluster.gke is not None else cluster.eks.region if cluster.eks is not None else ""
    return backup_settings(
        {key: v.get(key) for key in BACKUP_KEYS},
        target=cluster.target,
        cluster_name=cluster.cluster_name,
        place=place,
        engine=engine,
        ephemeral=cluster.ephemeral,
        volume_bytes=_check_quantity(v, "storageSize"),
    )


def pmm_settings_from_config(values: Config, *, token_set: bool) -> PmmSettings:
    v = ConfigValues.of(values)
    install, enabled, host = v.get("installPmm"), v.get("pmmEnabled"), v.get("pmmServerHost")
    if install and host:
        raise InputError(
            "pmmServerHost", "is for a PMM server this stack does not install: set installPmm false, or leave it empty"
        )
    if host and dns1123_subdomain_problem(host):  # a Service's DNS name, or another host's: at most 253 characters
        raise InputError(
            "pmmServerHost", f"{host!r} must be a bare host name (no scheme or port), e.g. monitoring-service.pmm", "S5"
        )
    if enabled and not install:
        if not host:
            raise InputError(
                "pmmServerHost",
                "pmmEnabled with installPmm false needs the host of the existing PMM 3 server (e.g. monitoring-service.pmm)",
                "S5",
            )
        if not token_set:
            raise InputError(
                PMM_TOKEN_KEY,
                "pmmEnabled with installPmm false needs a PMM 3 service-account token: "
                "pulumi config set --secret pmmServerToken glsa_...",
                "S5",
            )
    return PmmSettings(install=install, enabled=enabled, server_host=host, storage_size=v.get("pmmStorageSize"))


def sysbench_settings_from_config(values: Config) -> SysbenchSettings | None:
    """The benchmark run, if any. On a production stack only an explicit request runs (R5): a run id and
    the most data it may prepare; ephemeral stacks may run on every change."""
    v = ConfigValues.of(values)
    run_request, data_size = v.get("sysbenchRunId"), v.get("sysbenchDataSize")
    if run_request and (dns1123_label_problem(run_request) or len(run_request) > _RUN_ID_MAX_LENGTH):
        raise InputError(
            "sysbenchRunId",
            f"{run_request!r} must be 1-{_RUN_ID_MAX_LENGTH} lowercase letters, digits and hyphens (it names the Job)",
            "R5",
        )
    max_data = None
    if data_size:
        try:
            max_data = memory_to_bytes(data_size)
        except ValueError:
            raise InputError("sysbenchDataSize", f"{data_size!r} is not a Kubernetes quantity (e.g. 50Gi)", "R5") from None
    if not v.get("sysbenchEnabled"):
        return None
    if not v.get("ephemeral"):
        if not run_request:
            raise InputError(
                "sysbenchRunId",
                "sysbenchEnabled is true, and a production stack runs a benchmark only on an "
                "explicit request: set "
                "sysbenchRunId (a new id per run; the run never repeats by itself)",
                "R5",
            )
        if not data_size:
            raise InputError(
                "sysbenchDataSize",
                "sysbenchEnabled is true, and a production benchmark prepares only the data "
                "its user asked for: set "
                "sysbenchDataSize (e.g. 50Gi)",
                "R5",
            )
    ladder = bench.ladder(v.get("sysbenchThreads"), v.get("sysbenchDuration"), v.get("sysbenchWarmup"), v.get("sysbenchRate"))
    return SysbenchSettings(
        ladder.threads,
        ladder.duration_seconds,
        ladder.warmup_seconds,
        ladder.rate,
        v.get("sysbenchCleanup"),
        run_request or None,
        max_data,
    )


def network_settings_from_config(values: Config) -> ClientAccess | None:
    """R6: the clients the proxies accept, or None when ``networkPolicies`` is false."""
    v = ConfigValues.of(values)
    access = client_access(v.get("clientNamespaces"), v.get("clientPodLabels"))
    if not v.get("networkPolicies"):
        if access.namespaces or access.pod_labels:
            raise InputError(
                "networkPolicies",
                "is false, so clientNamespaces and clientPodLabels would be ignored: set networkPolicies true or clear them",
                "R6",
            )
        return None
    return access
