"""What the sizing engine answers: every size and setting of one member, and the rule IDs behind each.

core/report.py turns it into the JSON contract of ``percona-mysql-sizing --format json``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from .. import probes
from ..allocatable import NodeBudget
from ..memory import MemoryModel
from ..mycnf import normalize_key
from ..proxy_limits import ProxyLimits
from ..sidecars import ContainerSize
from .inputs import SizingInput


@dataclass(frozen=True)
class SizingResult:
    input: SizingInput
    thresholds: Mapping[str, float]
    budget_cpu_millicores: int
    budget_memory_bytes: int
    node: NodeBudget | None
    containers: Mapping[str, ContainerSize]
    pods: Mapping[str, tuple[str, ...]]
    mysqld: Mapping[str, str]
    memory: MemoryModel
    buffer_pool_raw_bytes: int
    connections: int
    queue_bound: float
    apply_rate_tps: float
    brownout_seconds: float
    proxy_connections: int  # each proxy pod's client limit (HAProxy maxconn, ProxySQL / Router max connections)
    proxy_limits: ProxyLimits  # each proxy pod's settings, clients and backend connections (T5)
    probes: Mapping[str, Mapping[str, probes.Probe]]
    rules: Mapping[str, tuple[str, ...]]
    notes: tuple[str, ...]

    @property
    def mysqld_cpu_millicores(self) -> int:
        return self.containers["mysqld"].cpu_millicores

    @property
    def mysqld_memory_bytes(self) -> int:
        return self.containers["mysqld"].memory_bytes

    def pod_total(self, pod: str) -> ContainerSize:
        sizes = [self.containers[name] for name in self.pods[pod]]
        return ContainerSize(sum(s.cpu_millicores for s in sizes), sum(s.memory_bytes for s in sizes))

    @property
    def member_total(self) -> ContainerSize:
        mysqld_pod, proxy_pod = self.pod_total("mysqld"), self.pod_total("proxy")
        return ContainerSize(
            mysqld_pod.cpu_millicores + proxy_pod.cpu_millicores, mysqld_pod.memory_bytes + proxy_pod.memory_bytes
        )


_RULES_BY_KEY = {
    "innodb_buffer_pool_size": ("M1", "M2"),
    "innodb_buffer_pool_chunk_size": ("M1",),
    "innodb_buffer_pool_instances": ("M1",),
    "max_connections": ("M6", "M1", "T5"),
    "thread_handling": ("M6", "M1"),
    "thread_pool_size": ("M6",),
    "thread_pool_oversubscribe": ("M6",),
    "thread_pool_max_threads": ("M6", "M1"),
    "performance_schema_max_thread_instances": ("M1",),
    "sort_buffer_size": ("M1",),
    "join_buffer_size": ("M1",),
    "read_buffer_size": ("M1",),
    "read_rnd_buffer_size": ("M1",),
    "innodb_log_buffer_size": ("M1",),
    "temptable_max_ram": ("M1",),
    "temptable_max_mmap": ("M1",),
    "tmp_table_size": ("M1",),
    "max_heap_table_size": ("M1",),
    "group_replication_message_cache_size": ("M4",),
    "group_replication_flow_control_mode": ("F1",),
    "group_replication_flow_control_applier_threshold": ("F2", "F5"),
    "group_replication_flow_control_certifier_threshold": ("F3", "F5"),
    "group_replication_flow_control_min_quota": ("F4",),
    "group_replication_flow_control_hold_percent": ("F4",),
    "group_replication_flow_control_release_percent": ("F4",),
    "group_replication_flow_control_period": ("F4",),
    "group_replication_consistency": ("F7",),
    "replica_parallel_workers": ("F6", "F5"),
    "wsrep_provider_options": ("G1", "G2", "F5", "M1"),
    "wsrep_applier_threads": ("G3", "F5"),
    "wsrep_sync_wait": ("G4",),
}


def rules_behind(options: Mapping[str, str], containers: Mapping[str, ContainerSize]) -> dict[str, tuple[str, ...]]:
    """The rule IDs behind every option, every container's resources, the probes and the brownout."""
    rules = {key: _RULES_BY_KEY.get(normalize_key(key), ()) for key in options}
    for name in containers:
        rules[f"resources.{name}"] = ("K1", "K2", "K3", "M1") if name == "mysqld" else ("K1", "K2", "M3")
    rules["probes"] = ("K6", "F5")
    rules["brownout_seconds"] = ("F5",)
    return rules
