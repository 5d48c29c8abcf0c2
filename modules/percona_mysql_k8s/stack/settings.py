"""The whole stack configuration, read and validated before any resource is registered.

Pure (no Pulumi): the stack program hands over the config as a plain ``{key: value}`` mapping (raw
strings as the Pulumi CLI passes them, or decoded values); :func:`stack_settings_from_config` decodes it,
validates every key with an :class:`~percona_mysql_k8s.core.errors.InputError` that names the key and the rule,
and computes everything that can be known before deployment:

* the cluster settings and both pools (``percona_mysql_k8s.plan.clusters``);
* the database cluster (:class:`~percona_mysql_k8s.plan.database.spec.DatabaseSpec`), its placement on the
  database pool and the sizing engine's answer for one member per node (K1, K5, M1-M6, T1, T2);
* the monitoring pool's split between the operator, PMM and sysbench (K5);
* the sysbench run: data size against the buffer pool and the ladder against max_connections (B2-B4);
* PMM wiring: an in-cluster server, or an existing one with its host and token (S5).

A stack that passes here has every size decided; the program only turns it into resources.
"""

from __future__ import annotations

import difflib
import json
import math
import re
from collections.abc import Callable, Container, Mapping
from dataclasses import dataclass, replace

from percona_mysql_k8s.core import benchmark as bench
from percona_mysql_k8s.core import monitoring
from percona_mysql_k8s.core.benchmark import Benchmark
from percona_mysql_k8s.core.bounds import MAX_DISK_IOPS, MAX_VOLUME_BYTES, MIN_DISK_IOPS
from percona_mysql_k8s.core.cloud_keys import static_cloud_keys
from percona_mysql_k8s.core.errors import InputError
from percona_mysql_k8s.core.monitoring import MonitoringPlan
from percona_mysql_k8s.core.sizing import SizingResult
from percona_mysql_k8s.core.units import format_cpu, human_bytes, memory_to_bytes, parse_quantity, whole_number
from percona_mysql_k8s.plan.clusters import ClusterSettings, cluster_settings_from_config
from percona_mysql_k8s.plan.clusters import kind as kind_plan
from percona_mysql_k8s.plan.database import sources, versions
from percona_mysql_k8s.plan.database.network_policies import ClientAccess, client_access
from percona_mysql_k8s.plan.database.sources import ChartSource
from percona_mysql_k8s.plan.database.spec import DatabaseSpec, Placement, size_for_pool

from . import kind_fit
from .backup_settings import BACKUP_KEYS, BackupSettings, backup_settings

# The database layer's keys with their type and the default declared in Pulumi.yaml (a test keeps the
# two in step).
CONFIG_KEYS: dict[str, tuple[type, object]] = {
    "engine": (str, "pxc"),
    "clusterSize": (int, 3),
    "ephemeral": (bool, False),
    "proxy": (str, "haproxy"),
    "load": (str, "light-oltp"),
    "connections": (int, 0),
    "mysqlVersion": (str, "8.4"),
    "namespace": (str, "mysql"),
    "storageClass": (str, ""),
    "storageSize": (str, "100Gi"),
    "diskIops": (int, 3000),
    "logCollector": (bool, True),
    **BACKUP_KEYS,  # scheduled backups and PITR (stack.backup_settings, R1-R4)
    "installOperator": (bool, True),
    # false: the database namespace exists already (e.g. holding the backup credentials Secret, or made by the
    # platform team); the Kubernetes provider refuses to create an object that exists
    "createNamespace": (bool, True),
    "installPmm": (bool, True),
    "pmmEnabled": (bool, True),
    "pmmServerHost": (str, ""),
    "sysbenchEnabled": (bool, False),
    "sysbenchRunId": (str, ""),
    "sysbenchDataSize": (str, ""),
    "sysbenchThreads": (list, [1, 4, 16, 64, 256, 1024]),
    "sysbenchDuration": (int, 600),
    "sysbenchWarmup": (int, 300),
    "sysbenchRate": (int, 0),
    "sysbenchCleanup": (bool, False),
    # Air-gapped installs (database.sources): "" = the public pinned chart / CRDs.
    "operatorChart": (str, ""),
    "pmmChart": (str, ""),
    "operatorCrds": (str, ""),
    "imageRegistry": (str, ""),
    # R6: NetworkPolicies around the database pods and proxies; who besides the database namespace may
    # reach the proxies (namespaces; pod labels as key=value items).
    "networkPolicies": (bool, True),
    "clientNamespaces": (list, []),
    "clientPodLabels": (list, []),
}
OPTIONAL_KEYS: dict[str, tuple[type, object]] = {
    # Name of the database custom resource; empty = clusterName (at most 22 characters, PXC's limit).
    "dbClusterName": (str, ""),
    # Storage of the PMM server's data volume.
    "pmmStorageSize": (str, "20Gi"),
}
# A secret key: its value never enters these settings, only whether it is set.
PMM_TOKEN_KEY = "pmmServerToken"
_RUN_ID = re.compile(r"^[a-z0-9]([-a-z0-9]{0,14}[a-z0-9])?$")
_HOST = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")


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


def sources_from_config(values: Mapping[str, object], engine: str) -> Sources:
    """The chart and CRD sources, each checked (a path exists and holds the pinned chart, a URL has a
    scheme Helm reads); errors name operatorChart, pmmChart or operatorCrds."""
    v = _Values(values)
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


@dataclass(frozen=True)
class StackSettings:
    cluster: ClusterSettings
    database: DatabaseSpec
    install_operator: bool
    pmm: PmmSettings
    sysbench: SysbenchSettings | None
    placement: Placement
    sizing: SizingResult
    monitoring: MonitoringPlan
    benchmark: Benchmark | None
    notes: tuple[str, ...] = ()  # what the kind fit gave up on this host (stack.kind_fit)
    sources: Sources | None = None  # where the charts and CRDs come from (database.sources)
    network: ClientAccess | None = None  # None: no NetworkPolicies (networkPolicies false, R6)
    backup: BackupSettings | None = None  # None: backups off (``backup: false``, R1)
    create_namespace: bool = True  # the stack creates the database namespace (with the operator)


def _decode(key: str, value: object, kind: type) -> object:
    """Raw config strings (what ``pulumi.Config.get`` returns) to the key's type; decoded values pass."""
    if not isinstance(value, str) or kind is str:
        if kind is str and isinstance(value, (int, float)) and not isinstance(value, bool):
            return str(value)  # e.g. mysqlVersion: 8.4 written without quotes
        return value
    text = value.strip()
    if kind is bool:
        if text.lower() in ("true", "false"):
            return text.lower() == "true"
        raise InputError(key, f"{value!r} is not true or false")
    if kind is int:
        try:
            return whole_number(text)
        except ValueError:
            raise InputError(key, f"{value!r} is not a whole number (ASCII digits)") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return [item.strip() for item in text.split(",") if item.strip()]


class _Values:
    def __init__(self, values: Mapping[str, object]):
        self._values = values

    def get(self, key: str) -> object:
        kind, default = {**CONFIG_KEYS, **OPTIONAL_KEYS}[key]
        raw = self._values.get(key)
        value = default if raw is None else _decode(key, raw, kind)
        if kind is str and not isinstance(value, str):
            raise InputError(key, f"{value!r} is not a string")
        if kind is bool and not isinstance(value, bool):
            raise InputError(key, f"{value!r} is not true or false")
        if kind is int:
            if isinstance(value, float) and value.is_integer():
                value = int(value)
            if isinstance(value, bool) or not isinstance(value, int):
                raise InputError(key, f"{value!r} is not a whole number")
        if kind is list:
            if not isinstance(value, list):
                raise InputError(key, f"{value!r} is not a list")
            value = [int(v) if isinstance(v, float) and v.is_integer() else v for v in value]
        return value.strip() if isinstance(value, str) else value


# ---- domains the component code does not bound itself: beyond them a value is a typo, not a plan -------

# The volume and IOPS bounds are core.bounds' (MAX_DISK_IOPS, MAX_VOLUME_BYTES), read by sizing too.
# A namespace is a DNS-1123 label; the kube- prefix is reserved for Kubernetes' own namespaces
# (https://kubernetes.io/docs/concepts/overview/working-with-objects/namespaces/).
_DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$")
# A StorageClass name is a DNS-1123 subdomain.
_DNS_SUBDOMAIN = re.compile(r"^(?=.{1,253}$)[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")


def _check_range(v: _Values, key: str, low: int, high: int, why: str, rule: str | None = None) -> None:
    value = v.get(key)
    if not low <= value <= high:
        raise InputError(key, f"{value} is outside {low}..{high} ({why})", rule)


def _check_quantity(v: _Values, key: str) -> int:
    """A volume size: a quantity the API server takes (ASCII digits, one suffix), whole bytes, at most 64Ti."""
    text = v.get(key)
    try:
        amount = parse_quantity(text)
    except ValueError as error:
        raise InputError(key, f"{text!r} is not a Kubernetes quantity the API server accepts, e.g. 100Gi ({error})") from None
    if amount != amount.to_integral_value():
        raise InputError(key, f"{text!r} is {amount} bytes: a volume is whole bytes (m is milli, not mega: write 100M or 100Mi)")
    if not 0 < amount <= MAX_VOLUME_BYTES:
        raise InputError(key, f"{text!r} must be more than zero and at most 64Ti (the largest persistent disk)")
    return int(amount)


def check_pmm_volume(values: Mapping[str, object], cluster_size: int) -> None:
    """The PMM server's volume against what PMM needs for the cluster it monitors (core.monitoring)."""
    v = _Values(values)
    amount = _check_quantity(v, "pmmStorageSize")
    if not v.get("installPmm"):
        return  # no server here: the volume is not created
    monitored = cluster_size if v.get("pmmEnabled") else 0
    needed = monitoring.pmm_volume_bytes(monitored)
    if amount < needed:
        raise InputError("pmmStorageSize", f"{v.get('pmmStorageSize')!r} is below what PMM Server needs for {max(1, monitored)} "
                                           f"monitored database node(s) (clusterSize): ~1 GB per node per week over its {monitoring.PMM_RETENTION_DAYS}-day "
                                           f"retention is {math.ceil(needed / 2**30)}Gi; set pmmStorageSize to at least that")


def check_database_keys(values: Mapping[str, object]) -> None:
    """The database layer's keys against their domains, before anything reads them."""
    v = _Values(values)
    # connections: the sizing engine's own check (core.sizing.validate: 0 derives them, at most mysqld's 100000)
    _check_range(v, "diskIops", MIN_DISK_IOPS, MAX_DISK_IOPS, "the volume's provisioned IOPS; no volume offers more than 350000")
    # the ladder's own checks (B2, B3), even when sysbench is off: a bad value is never kept for later
    bench.ladder(v.get("sysbenchThreads"), v.get("sysbenchDuration"), v.get("sysbenchWarmup"), v.get("sysbenchRate"))
    namespace = v.get("namespace")
    if not _DNS_LABEL.fullmatch(namespace):
        raise InputError("namespace", f"{namespace!r} is not a namespace name (lowercase letters, digits, hyphens; at most 63)")
    if namespace.startswith("kube-"):
        raise InputError("namespace", f"{namespace!r} is reserved for Kubernetes itself: choose the database's own namespace")
    storage_class = v.get("storageClass")
    if storage_class and not _DNS_SUBDOMAIN.fullmatch(storage_class):
        raise InputError("storageClass", f"{storage_class!r} is not a StorageClass name (lowercase DNS subdomain)")
    _check_quantity(v, "storageSize")
    _check_quantity(v, "pmmStorageSize")


def database_spec_from_config(values: Mapping[str, object], cluster: ClusterSettings) -> DatabaseSpec:
    v = _Values(values)
    name = v.get("dbClusterName") or cluster.cluster_name
    if not v.get("dbClusterName") and len(name) > 22:
        raise InputError("dbClusterName", f"clusterName {name!r} is longer than the 22 characters the PXC operator allows "
                                          "for a database cluster: set dbClusterName")
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
    )


def backup_settings_from_config(values: Mapping[str, object], cluster: ClusterSettings, *, engine: str) -> BackupSettings | None:
    """Scheduled backups and PITR (stack.backup_settings): None when ``backup`` is false."""
    v = _Values(values)
    place = cluster.gke.project if cluster.gke is not None else cluster.eks.region if cluster.eks is not None else ""
    return backup_settings({key: v.get(key) for key in BACKUP_KEYS}, target=cluster.target,
                           cluster_name=cluster.cluster_name, place=place, engine=engine,
                           ephemeral=cluster.ephemeral, volume_bytes=memory_to_bytes(v.get("storageSize")))


def pmm_settings_from_config(values: Mapping[str, object], *, token_set: bool) -> PmmSettings:
    v = _Values(values)
    install, enabled, host = v.get("installPmm"), v.get("pmmEnabled"), v.get("pmmServerHost")
    if install and host:
        raise InputError("pmmServerHost", "is for a PMM server this stack does not install: set installPmm false, or leave it empty")
    if host and not _HOST.fullmatch(host):
        raise InputError("pmmServerHost", f"{host!r} must be a bare host name (no scheme or port), e.g. monitoring-service.pmm", "S5")
    if enabled and not install:
        if not host:
            raise InputError("pmmServerHost", "pmmEnabled with installPmm false needs the host of the existing PMM 3 server "
                                              "(e.g. monitoring-service.pmm)", "S5")
        if not token_set:
            raise InputError(PMM_TOKEN_KEY, "pmmEnabled with installPmm false needs a PMM 3 service-account token: "
                                            "pulumi config set --secret pmmServerToken glsa_...", "S5")
    return PmmSettings(install=install, enabled=enabled, server_host=host, storage_size=v.get("pmmStorageSize"))


def sysbench_settings_from_config(values: Mapping[str, object]) -> SysbenchSettings | None:
    """The benchmark run, if any. On a production stack only an explicit request runs (R5): a run id and
    the most data it may prepare; ephemeral stacks may run on every change."""
    v = _Values(values)
    run_request, data_size = v.get("sysbenchRunId"), v.get("sysbenchDataSize")
    if run_request and not _RUN_ID.fullmatch(run_request):
        raise InputError("sysbenchRunId", f"{run_request!r} must be 1-16 lowercase letters, digits and hyphens (it names the Job)", "R5")
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
            raise InputError("sysbenchRunId", "sysbenchEnabled is true, and a production stack runs a benchmark only on an "
                                              "explicit request: set "
                                              "sysbenchRunId (a new id per run; the run never repeats by itself)", "R5")
        if not data_size:
            raise InputError("sysbenchDataSize", "sysbenchEnabled is true, and a production benchmark prepares only the data "
                                                 "its user asked for: set "
                                                 "sysbenchDataSize (e.g. 50Gi)", "R5")
    ladder = bench.ladder(v.get("sysbenchThreads"), v.get("sysbenchDuration"), v.get("sysbenchWarmup"), v.get("sysbenchRate"))
    return SysbenchSettings(ladder.threads, ladder.duration_seconds, ladder.warmup_seconds, ladder.rate,
                            v.get("sysbenchCleanup"), run_request or None, max_data)


def network_settings_from_config(values: Mapping[str, object]) -> ClientAccess | None:
    """R6: the clients the proxies accept, or None when ``networkPolicies`` is false."""
    v = _Values(values)
    access = client_access(v.get("clientNamespaces"), v.get("clientPodLabels"))
    if not v.get("networkPolicies"):
        if access.namespaces or access.pod_labels:
            raise InputError("networkPolicies", "is false, so clientNamespaces and clientPodLabels would be ignored: "
                                                "set networkPolicies true or clear them", "R6")
        return None
    return access


def stack_settings_from_config(
    values: Mapping[str, object],
    *,
    pmm_token_set: bool = False,
    host: Callable[[], tuple[int, int]] | None = None,
) -> StackSettings:
    """Everything the stack needs, validated; raises InputError naming the config key.

    ``host`` reports this machine's (CPU millicores, memory bytes) for kind's allocatable model; by
    default ``percona_mysql_k8s.plan.clusters.kind.host_resources``, looked up at call time. On the kind
    target with ``kindHostShare: auto`` the layout is the richest the host holds (stack.kind_fit).
    """
    host = host or kind_plan.host_resources
    if kind_fit.applies(values):
        machine = kind_plan.kind_host_from_config(values, host)
        measured = (machine.cpu_millicores, machine.memory_bytes)
        settings, notes = kind_fit.fit(values, lambda fitted: _settings(fitted, pmm_token_set, lambda: measured),
                                       measured, machine.source, ladder=_ladder)
        return replace(settings, notes=notes)
    return _settings(values, pmm_token_set, host)


def _ladder(values: Mapping[str, object]) -> tuple[int, ...] | None:
    sysbench = sysbench_settings_from_config(values)
    return None if sysbench is None else sysbench.threads


def _settings(values: Mapping[str, object], pmm_token_set: bool, host: Callable[[], tuple[int, int]]) -> StackSettings:
    cluster = cluster_settings_from_config(values, host)
    check_database_keys(values)
    database = database_spec_from_config(values, cluster)
    backup = backup_settings_from_config(values, cluster, engine=database.engine)
    database = replace(database, backup=backup is not None)  # off on an ephemeral stack with nowhere to back up to
    v = _Values(values)
    install_operator = v.get("installOperator")
    pmm = pmm_settings_from_config(values, token_set=pmm_token_set)
    sysbench = sysbench_settings_from_config(values)
    placement, sizing = _sized(database, cluster)
    check_pmm_volume(values, cluster.cluster_size)  # after sizing: the cluster size is checked (T1)
    plan = _monitoring_plan(cluster, operator=install_operator, pmm_server=pmm.install, sysbench=sysbench is not None,
                            backup=backup.plan if backup is not None else None)
    benchmark = None
    if sysbench is not None:
        benchmark = bench.plan(
            buffer_pool_bytes=int(sizing.mysqld["innodb_buffer_pool_size"]),
            load=database.load,
            max_connections=sizing.connections,
            volume_bytes=database.storage_bytes,
            threads=sysbench.threads,
            duration_seconds=sysbench.duration_seconds,
            warmup_seconds=sysbench.warmup_seconds,
            rate=sysbench.rate,
            requested_data_bytes=sysbench.max_data_bytes,
        )
    chart_sources = sources_from_config(values, database.engine)
    network = network_settings_from_config(values)
    return StackSettings(cluster, database, install_operator, pmm, sysbench, placement, sizing, plan, benchmark,
                         sources=chart_sources, network=network, backup=backup, create_namespace=v.get("createNamespace"))


_SIZING_KEYS = {"connections": "connections", "cluster_size": "clusterSize", "proxy": "proxy", "log_collector": "logCollector"}
# The member budget comes from a different key on each target: the one to change when it is too small.
_BUDGET_KEYS = {"kind": "kindHostShare", "existing": "existingNodeMemory", "gke": "databaseNodeType", "eks": "databaseNodeType"}


def _budget_key(cluster: ClusterSettings, error_key: str) -> str:
    if cluster.target == "existing" and cluster.database_pool.machine_type is None:
        return "existingNodeCpu" if error_key == "cpu" else "existingNodeMemory"
    return "databaseNodeType" if cluster.target == "existing" else _BUDGET_KEYS[cluster.target]


def _on_the_kind_host(error: InputError, cluster: ClusterSettings) -> InputError:
    """A capacity refusal on kind, said in terms of the host the kind nodes share (the keys that size them)."""
    host = cluster.kind
    modeled = (f"modeled as {host.host_share:g} of" if host.host_share is not None
               else "an equal part of what is left of")
    return InputError(error.key, f"{error.message} (each kind node is {modeled} the kind host's "
                      f"{format_cpu(host.host_cpu_millicores)} CPU and {human_bytes(host.host_memory_bytes)}, kindHostCpu/"
                      f"kindHostMemory or else this machine's: {'raise the share or ' if host.host_share is not None else ''}"
                      "use a larger machine)", error.rule)


def _monitoring_plan(cluster: ClusterSettings, **wanted) -> MonitoringPlan:
    """The monitoring pool's split; on kind its node is a share of the host, so a refusal names kindHostShare."""
    try:
        return monitoring.plan(cluster.monitoring_pool.node, **wanted)
    except InputError as error:
        if cluster.target != "kind" or error.key != "monitoringNodeType":
            raise
        message = error.message.replace(": choose a larger monitoring node", "")
        raise _on_the_kind_host(InputError("kindHostShare", message, error.rule), cluster) from None


def _sized(database: DatabaseSpec, cluster: ClusterSettings) -> tuple[Placement, SizingResult]:
    """The engine's answer for a member on this pool; its errors re-keyed to the stack config keys."""
    try:
        return size_for_pool(database, cluster.database_pool)
    except InputError as error:
        key = _budget_key(cluster, error.key) if error.key in ("cpu", "memory") else _SIZING_KEYS.get(error.key)
        if key is None:
            raise
        if cluster.target == "kind" and key == "kindHostShare":
            error = _on_the_kind_host(error, cluster)
        prefix = (f"{error.rule}: " if error.rule else "") + f"{error.key}: "
        message = str(error)
        raise InputError(key, message[len(prefix):] if message.startswith(prefix) else message, error.rule) from None


def check_config_keys(config: Mapping[str, object], *, project: str, secret_keys: Container[str]) -> None:
    """Every key of the project's namespace is one the program reads (a misspelling is never ignored), and
    a PMM token, when one is set, is stored encrypted (S1). ``config`` maps full ``project:key`` names to
    values as the engine passes them (Pulumi.yaml defaults included). A production stack's config holds no
    static cloud key (R4, core.cloud_keys, the policy pack's test); an ephemeral one (``ephemeral: true``) may."""
    if str(config.get(f"{project}:ephemeral", "")).lower() != "true":
        for found in static_cloud_keys(config):
            raise InputError(found.key, f"{found.what}: no static cloud key belongs in stack config (remove it; on gke/eks "
                                        "the stack creates a key scoped to the backup bucket, elsewhere name a Secret you "
                                        "created in backupCredentialsSecret)", "R4")
    known = set(all_keys()) | {PMM_TOKEN_KEY}
    for full in sorted(config):
        namespace, _, key = full.partition(":")
        if namespace != project or key in known:
            continue
        close = difflib.get_close_matches(key, sorted(known), n=1, cutoff=0.6)
        hint = f"; did you mean {close[0]}?" if close else ""
        raise InputError(key, f"is not a setting of this project{hint} (every setting is declared in Pulumi.yaml)")
    token = f"{project}:{PMM_TOKEN_KEY}"
    if config.get(token) and token not in secret_keys:
        raise InputError(PMM_TOKEN_KEY, "is stored in plain text in the stack config: set it with "
                                        "`pulumi config set --secret pmmServerToken <token>`", "S1")


def all_keys() -> tuple[str, ...]:
    """Every key the stack program reads (cluster layer + database layer), secrets excluded."""
    from percona_mysql_k8s.plan.clusters import CONFIG_KEYS as CLUSTER_KEYS

    return tuple(dict.fromkeys([*CLUSTER_KEYS, *CONFIG_KEYS, *OPTIONAL_KEYS]))


TARGETS = ("gke", "eks", "kind", "existing")
_TARGET_PREFIXES = {"gcp": ("gke",), "gke": ("gke",), "aws": ("eks",), "eks": ("eks",), "kind": ("kind",)}


def target_keys(target: str) -> tuple[str, ...]:
    """The keys a stack of ``target`` reads, in all_keys() order (``target`` itself left out): the inputs of the
    package's component for that target (percona_mysql_k8s.stack.components). A key of another target is one the
    settings refuse or ignore there (plan.clusters.TARGET_KEYS, backup_settings' CLOUD_ONLY/ENDPOINT_ONLY, and
    the gke*/eks*/kind* keys only their target reads)."""
    from percona_mysql_k8s.plan.clusters import TARGET_KEYS

    from .backup_settings import CLOUD_ONLY, CLOUD_TARGETS, ENDPOINT_ONLY

    if target not in TARGETS:
        raise ValueError(f"unknown target {target!r}")

    def owners(key: str) -> tuple[str, ...]:
        if key in TARGET_KEYS:
            return TARGET_KEYS[key]
        if key in CLOUD_ONLY:
            return CLOUD_TARGETS
        if key in ENDPOINT_ONLY:
            return ("kind", "existing")
        prefix = next((p for p in _TARGET_PREFIXES if key.startswith(p) and key[len(p):len(p) + 1].isupper()), None)
        return _TARGET_PREFIXES[prefix] if prefix else TARGETS

    return tuple(key for key in all_keys() if key != "target" and target in owners(key))
