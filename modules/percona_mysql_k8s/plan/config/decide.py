"""The whole stack configuration, read and validated before any resource is registered: the entry of the decoder.

Pure (no Pulumi): the stack program hands over the config as a plain ``{key: value}`` mapping (raw
strings as the Pulumi CLI passes them, or decoded values); :func:`stack_settings_from_config` decodes it,
each key once (:class:`~percona_mysql_k8s.plan.config.keys.ConfigValues`), validates every key with an
:class:`~percona_mysql_k8s.core.errors.InputError` that names the key and the rule, and computes everything that
can be known before deployment:

* the cluster settings and both pools (``percona_mysql_k8s.plan.clusters``);
* the database cluster (:class:`~percona_mysql_k8s.plan.database.spec.DatabaseSpec`), its placement on the
  database pool and the sizing engine's answer for one member per node (K1, K5, M1-M6, T1, T2);
* the backups, their schedule parsed once (:mod:`.backup`, R1-R4);
* the monitoring pool's split between the operator, PMM and sysbench (K5);
* the sysbench run: data size against the buffer pool and the ladder against max_connections (B2-B4);
* PMM wiring: an in-cluster server, or an existing one with its host and token (S5).

A stack that passes here has every size decided; the program only turns it into resources.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace

from percona_mysql_k8s.core import benchmark as bench
from percona_mysql_k8s.core import monitoring
from percona_mysql_k8s.core.benchmark import Benchmark
from percona_mysql_k8s.core.errors import InputError
from percona_mysql_k8s.core.monitoring import MonitoringPlan
from percona_mysql_k8s.core.sizing import SizingResult
from percona_mysql_k8s.core.units import format_cpu, human_bytes
from percona_mysql_k8s.plan.admission import AdmissionSettings
from percona_mysql_k8s.plan.clusters import ClusterSettings, cluster_settings_from_config
from percona_mysql_k8s.plan.clusters import kind as kind_plan
from percona_mysql_k8s.plan.database.network_policies import ClientAccess
from percona_mysql_k8s.plan.database.spec import DatabaseSpec, Placement, size_for_pool

from . import kind_fit
from .admission import admission_settings_from_config
from .backup import BackupSettings
from .keys import ConfigValues
from .sections import (
    PmmSettings,
    Sources,
    SysbenchSettings,
    backup_settings_from_config,
    check_database_keys,
    check_pmm_volume,
    database_spec_from_config,
    network_settings_from_config,
    pmm_settings_from_config,
    sources_from_config,
    sysbench_settings_from_config,
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
    notes: tuple[str, ...] = ()  # what the kind fit gave up on this host (plan.config.kind_fit)
    sources: Sources | None = None  # where the charts and CRDs come from (database.sources)
    network: ClientAccess | None = None  # None: no NetworkPolicies (networkPolicies false, R6)
    backup: BackupSettings | None = None  # None: backups off (``backup: false``, R1)
    create_namespace: bool = True  # the stack creates the database namespace (with the operator)
    admission: AdmissionSettings | None = None  # None: no admission server (``admission`` empty)


def stack_settings_from_config(
    values: Mapping[str, object],
    *,
    pmm_token_set: bool = False,
    host: Callable[[], tuple[int, int]] | None = None,
) -> StackSettings:
    """Everything the stack needs, validated; raises InputError naming the config key.

    ``host`` reports this machine's (CPU millicores, memory bytes) for kind's allocatable model; by
    default ``percona_mysql_k8s.plan.clusters.kind.host_resources``, looked up at call time. On the kind
    target with ``kindHostShare: auto`` the layout is the richest the host holds (plan.config.kind_fit).
    """
    host = host or kind_plan.host_resources
    if kind_fit.applies(values):
        machine = kind_plan.kind_host_from_config(values, host)
        measured = (machine.cpu_millicores, machine.memory_bytes)
        settings, notes = kind_fit.fit(
            values, lambda fitted: _settings(fitted, pmm_token_set, lambda: measured), measured, machine.source, ladder=_ladder
        )
        return replace(settings, notes=notes)
    return _settings(values, pmm_token_set, host)


def _ladder(values: Mapping[str, object]) -> tuple[int, ...] | None:
    sysbench = sysbench_settings_from_config(values)
    return None if sysbench is None else sysbench.threads


def _settings(values: Mapping[str, object], pmm_token_set: bool, host: Callable[[], tuple[int, int]]) -> StackSettings:
    cluster = cluster_settings_from_config(values, host)
    v = ConfigValues(values)  # the one reader every part decodes from: each key decoded and parsed once
    check_database_keys(v)
    database = database_spec_from_config(v, cluster)
    backup = backup_settings_from_config(v, cluster, engine=database.engine)
    database = replace(database, backup=backup is not None)  # off on an ephemeral stack with nowhere to back up to
    install_operator = v.get("installOperator")
    pmm = pmm_settings_from_config(v, token_set=pmm_token_set)
    sysbench = sysbench_settings_from_config(v)
    placement, sizing = _sized(database, cluster)
    check_pmm_volume(v, cluster.cluster_size)  # after sizing: the cluster size is checked (T1)
    admission = admission_settings_from_config(v, cluster, namespace=database.namespace)
    plan = _monitoring_plan(
        cluster,
        operator=install_operator,
        pmm_server=pmm.install,
        sysbench=sysbench is not None,
        backup=backup.plan if backup is not None else None,
        admission=admission is not None,
    )
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
    chart_sources = sources_from_config(v, database.engine)
    network = network_settings_from_config(v)
    return StackSettings(
        cluster,
        database,
        install_operator,
        pmm,
        sysbench,
        placement,
        sizing,
        plan,
        benchmark,
        sources=chart_sources,
        network=network,
        backup=backup,
        create_namespace=v.get("createNamespace"),
        admission=admission,
    )


_SIZING_KEYS = {"connections": "connections", "cluster_size": "clusterSize", "proxy": "proxy", "log_collector": "logCollector"}
# The member budget comes from a different key on each target: the one to change when it is too small.
_BUDGET_KEYS = {"kind": "kindHostShare", "existing": "existingNodeMemory", "gke": "databaseNodeType", "eks": "databaseNodeType"}


def _budget_key(cluster: ClusterSettings, error_key: str) -> str:
    if cluster.target == "existing" and cluster.database_pool.machine_type is None:
        return "existingNodeCpu" if error_key == "cpu" else "existingNodeMemory"
    return "databaseNodeType" if cluster.target == "existing" else _BUDGET_KEYS[cluster.target]


def _on_the_kind_host(error: InputError, cluster: ClusterSettings, *, daemonsets: bool = False) -> InputError:
    """A capacity refusal on kind, said in terms of the host the kind nodes share (the keys that size them);
    with ``daemonsets``, also the DaemonSet requests the node's budget is left after (a message that does not
    name them already)."""
    host = cluster.kind
    modeled = f"modeled as {host.host_share:g} of" if host.host_share is not None else "an equal part of what is left of"
    node = cluster.database_pool.node
    less = (
        f", less its DaemonSets' {format_cpu(node.daemonset_cpu_millicores)} CPU and "
        f"{human_bytes(node.daemonset_memory_bytes)} (daemonsetCpu/daemonsetMemory)"
        if daemonsets
        else ""
    )
    return InputError(
        error.key,
        f"{error.message} (each kind node is {modeled} the kind host's "
        f"{format_cpu(host.host_cpu_millicores)} CPU and {human_bytes(host.host_memory_bytes)}, kindHostCpu/"
        f"kindHostMemory or else this machine's{less}: {'raise the share or ' if host.host_share is not None else ''}"
        "use a larger machine)",
        error.rule,
    )


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
            error = _on_the_kind_host(error, cluster, daemonsets=True)
        prefix = (f"{error.rule}: " if error.rule else "") + f"{error.key}: "
        message = str(error)
        raise InputError(key, message[len(prefix) :] if message.startswith(prefix) else message, error.rule) from None
