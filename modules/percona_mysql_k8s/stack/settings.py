"""The whole stack configuration, read and validated before any resource is registered.

Pure (no Pulumi): the stack program hands over the config as a plain ``{key: value}`` mapping (raw
strings as the Pulumi CLI passes them, or decoded values); :func:`stack_settings_from_config` decodes it,
validates every key with an :class:`~percona_mysql_k8s.core.errors.InputError` that names the key and the rule,
and computes everything that can be known before deployment:

* the cluster settings and both pools (``percona_mysql_k8s.clusters.settings``);
* the database cluster (:class:`~percona_mysql_k8s.database.manifests.DatabaseSpec`), its placement on the
  database pool and the sizing engine's answer for one member per node (K1, K5, M1-M6, T1, T2);
* the monitoring pool's split between the operator, PMM and sysbench (K5);
* the sysbench run: data size against the buffer pool and the ladder against max_connections (B2-B4);
* PMM wiring: an in-cluster server, or an existing one with its host and token (S5).

A stack that passes here has every size decided; the program only turns it into resources.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from percona_mysql_k8s.clusters import settings as cluster_layer
from percona_mysql_k8s.clusters.settings import ClusterSettings, cluster_settings_from_config
from percona_mysql_k8s.core import benchmark as bench
from percona_mysql_k8s.core import monitoring
from percona_mysql_k8s.core.benchmark import Benchmark
from percona_mysql_k8s.core.errors import InputError
from percona_mysql_k8s.core.monitoring import MonitoringPlan
from percona_mysql_k8s.core.sizing import SizingResult
from percona_mysql_k8s.core.units import format_cpu, human_bytes
from percona_mysql_k8s.database.manifests import DatabaseSpec, Placement, size_for_pool
from percona_mysql_k8s.database.network_policies import ClientAccess, client_access

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
    "backup": (bool, False),
    "installOperator": (bool, True),
    "installPmm": (bool, True),
    "pmmEnabled": (bool, True),
    "pmmServerHost": (str, ""),
    "sysbenchEnabled": (bool, True),
    "sysbenchThreads": (list, [1, 4, 16, 64, 256, 1024]),
    "sysbenchDuration": (int, 600),
    "sysbenchWarmup": (int, 300),
    "sysbenchRate": (int, 0),
    "sysbenchCleanup": (bool, False),
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
    network: ClientAccess | None = None  # None: no NetworkPolicies (networkPolicies false, R6)


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
        if re.fullmatch(r"-?\d+", text):
            return int(text)
        raise InputError(key, f"{value!r} is not a whole number")
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


def pmm_settings_from_config(values: Mapping[str, object], *, token_set: bool) -> PmmSettings:
    v = _Values(values)
    install, enabled, host = v.get("installPmm"), v.get("pmmEnabled"), v.get("pmmServerHost")
    if install and host:
        raise InputError("pmmServerHost", "is for a PMM server this stack does not install: set installPmm false, or leave it empty")
    if host and not _HOST.match(host):
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
    v = _Values(values)
    if not v.get("sysbenchEnabled"):
        return None
    ladder = bench.ladder(v.get("sysbenchThreads"), v.get("sysbenchDuration"), v.get("sysbenchWarmup"), v.get("sysbenchRate"))
    return SysbenchSettings(ladder.threads, ladder.duration_seconds, ladder.warmup_seconds, ladder.rate, v.get("sysbenchCleanup"))


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
    default ``percona_mysql_k8s.clusters.settings.host_resources``, looked up at call time.
    """
    cluster = cluster_settings_from_config(values, host or cluster_layer.host_resources)
    database = database_spec_from_config(values, cluster)
    v = _Values(values)
    install_operator = v.get("installOperator")
    pmm = pmm_settings_from_config(values, token_set=pmm_token_set)
    sysbench = sysbench_settings_from_config(values)
    placement, sizing = _sized(database, cluster)
    plan = monitoring.plan(cluster.monitoring_pool.node, operator=install_operator, pmm_server=pmm.install,
                           sysbench=sysbench is not None)
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
        )
    network = network_settings_from_config(values)
    return StackSettings(cluster, database, install_operator, pmm, sysbench, placement, sizing, plan, benchmark,
                         network=network)


_SIZING_KEYS = {"connections": "connections", "cluster_size": "clusterSize", "proxy": "proxy", "log_collector": "logCollector"}
# The member budget comes from a different key on each target: the one to change when it is too small.
_BUDGET_KEYS = {"kind": "kindHostShare", "existing": "existingNodeMemory", "gke": "databaseNodeType", "eks": "databaseNodeType"}


def _budget_key(cluster: ClusterSettings, error_key: str) -> str:
    if cluster.target == "existing" and cluster.database_pool.machine_type is None:
        return "existingNodeCpu" if error_key == "cpu" else "existingNodeMemory"
    return "databaseNodeType" if cluster.target == "existing" else _BUDGET_KEYS[cluster.target]


def _sized(database: DatabaseSpec, cluster: ClusterSettings) -> tuple[Placement, SizingResult]:
    """The engine's answer for a member on this pool; its errors re-keyed to the stack config keys."""
    try:
        return size_for_pool(database, cluster.database_pool)
    except InputError as error:
        key = _budget_key(cluster, error.key) if error.key in ("cpu", "memory") else _SIZING_KEYS.get(error.key)
        if key is None:
            raise
        if cluster.target == "kind" and key == "kindHostShare":
            host = cluster.kind
            error = InputError(error.key, f"{error.message} (each kind node is modeled as {host.host_share:g} of this "
                               f"machine's {format_cpu(host.host_cpu_millicores)} CPU and {human_bytes(host.host_memory_bytes)}: "
                               "raise the share or use a larger machine)", error.rule)
        prefix = (f"{error.rule}: " if error.rule else "") + f"{error.key}: "
        message = str(error)
        raise InputError(key, message[len(prefix):] if message.startswith(prefix) else message, error.rule) from None


def all_keys() -> tuple[str, ...]:
    """Every key the stack program reads (cluster layer + database layer), secrets excluded."""
    from percona_mysql_k8s.clusters.settings import CONFIG_KEYS as CLUSTER_KEYS

    return tuple(dict.fromkeys([*CLUSTER_KEYS, *CONFIG_KEYS, *OPTIONAL_KEYS]))
