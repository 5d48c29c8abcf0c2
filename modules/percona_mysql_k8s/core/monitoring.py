"""What the monitoring pool runs, sized against one of its nodes (rules K1, K4, K5).

The sizing engine sizes the database pool. The monitoring pool holds everything else the stack
starts: the operator Deployment, the PMM server, the sysbench load generator (B1) and short helper
Jobs (the PMM token, the benchmark user's setup, the results publisher). Everything is planned to fit one monitoring node, so a
pool of one node works and a larger pool only adds room.

* The operator: its chart's limit of 200m / 500Mi, as request = limit.
* The PMM server: half of what is left (it shares the node with sysbench), between PMM's minimum and
  the size of a PMM server monitoring a few dozen nodes. Memory request = limit; CPU is a request
  only, so PMM can use idle CPU but never takes the load generator's share (K3 asks a CPU limit of the database and
  proxy pods, not of the monitoring pool).
* sysbench: the rest, request = limit (Guaranteed QoS, so its throughput is reproducible); memory is
  capped, sysbench needs little. Its pod also carries a helper-sized publisher container.
* Backups (R1, R2): the backup Job and the PITR collector (PXC) or binlog server (PS), each with its own
  request = limit from the backup plan (core.backup, M3), reserved before PMM's share as the helper
  Jobs are: a scheduled backup can start at any time, beside everything else.

The plan holds even if every pod were there at once (the PMM token Job and the benchmark never
overlap in practice), so the fit can be checked statically (K5).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .allocatable import NodeBudget
from .backup import BackupPlan
from .errors import InputError
from .sidecars import ContainerSize
from .units import GIB, MIB

OPERATOR = ContainerSize(200, 500 * MIB)
HELPER = ContainerSize(100, 128 * MIB)
PMM_SERVER_MIN = ContainerSize(500, 1 * GIB)
PMM_SERVER_MAX = ContainerSize(4000, 8 * GIB)
SYSBENCH_MIN = ContainerSize(500, 256 * MIB)
SYSBENCH_MEMORY_MAX = 2 * GIB
# The admission server (plan.admission): one server process and one pack process per replica, request = limit
# (measured: the server 63 MiB and its pack 113 MiB resident after judging the policy test corpus twice, the
# kubernetes client 17 MiB more for the Node watch and the audit; the rest is headroom). Its two replicas may share
# one monitoring node.
ADMISSION_SERVER = ContainerSize(500, 384 * MIB)
ADMISSION_REPLICAS = 2


@dataclass(frozen=True)
class MonitoringPlan:
    node: NodeBudget
    operator: ContainerSize | None
    pmm_server: ContainerSize | None
    helper: ContainerSize
    sysbench: ContainerSize | None
    backup_job: ContainerSize | None = None  # the backup Job's container (None without backups)
    pitr_collector: ContainerSize | None = None  # PXC binlog collector / PS binlog server (None without PITR)
    admission: ContainerSize | None = None  # one replica of the admission server (ADMISSION_REPLICAS run)

    @property
    def total(self) -> ContainerSize:
        helpers = (self.helper,) * (3 if self.sysbench is not None else 1)
        admission = (self.admission,) * ADMISSION_REPLICAS
        parts = [
            part
            for part in (
                self.operator,
                self.pmm_server,
                *helpers,
                self.sysbench,
                self.backup_job,
                self.pitr_collector,
                *admission,
            )
            if part is not None
        ]
        return ContainerSize(sum(p.cpu_millicores for p in parts), sum(p.memory_bytes for p in parts))


# PMM Server keeps ~1 GB per monitored database node per week of data retention, and retains 30 days unless
# told otherwise (PMM docs, "Set up PMM Server", system requirements; the stack keeps the default).
PMM_BYTES_PER_NODE_WEEK = 10**9
PMM_RETENTION_DAYS = 30


def pmm_volume_bytes(monitored_nodes: int) -> int:
    """What PMM Server's data volume needs: ~1 GB per monitored database node per week of its retention, for at
    least one node (a server monitoring nothing yet still keeps its own metrics)."""
    return math.ceil(max(1, monitored_nodes) * PMM_BYTES_PER_NODE_WEEK * PMM_RETENTION_DAYS / 7)


def _round(size: ContainerSize) -> ContainerSize:
    return ContainerSize(size.cpu_millicores // 10 * 10, size.memory_bytes // MIB * MIB)


def _remedy(node: NodeBudget) -> tuple[str, str]:
    """The setting that makes a monitoring node larger, and what to do with it: on kind the node is a share of
    the machine running it (kindHostShare), elsewhere a machine type."""
    if node.provider == "kind":
        return "kindHostShare", (
            "give the kind nodes a larger share of the machine (raise kindHostShare) or run on a "
            "machine with more CPUs and memory (kindHostCpu/kindHostMemory declare the one the stack "
            "is meant for)"
        )
    return "monitoringNodeType", "choose a larger monitoring node"


def _after_daemonsets(node: NodeBudget) -> str:
    """What the DaemonSets take from each node, said when any (their requests come from daemonsetCpu/Memory)."""
    if not (node.daemonset_cpu_millicores or node.daemonset_memory_bytes):
        return ""
    return (
        f" after its DaemonSets' {node.daemonset_cpu_millicores}m / {node.daemonset_memory_bytes // MIB} MiB "
        "(daemonsetCpu/daemonsetMemory)"
    )


def plan(
    node: NodeBudget,
    *,
    operator: bool,
    pmm_server: bool,
    sysbench: bool,
    backup: BackupPlan | None = None,
    admission: bool = False,
) -> MonitoringPlan:
    """Split one monitoring node; raise InputError (K5) naming the setting to change when the pool is too small."""
    cpu, memory = node.usable_cpu_millicores, node.usable_memory_bytes
    key, remedy = _remedy(node)
    # the PMM token Job, the benchmark's user setup Job and publisher container, the operator, the admission server
    fixed = [HELPER] + ([HELPER, HELPER] if sysbench else []) + ([OPERATOR] if operator else [])
    fixed += [ADMISSION_SERVER] * ADMISSION_REPLICAS if admission else []
    backup_job = backup.backup_job if backup is not None else None
    pitr_collector = backup.pitr_collector if backup is not None else None
    backups = [part for part in (backup_job, pitr_collector) if part is not None]
    fixed_cpu = sum(part.cpu_millicores for part in fixed + backups)
    fixed_memory = sum(part.memory_bytes for part in fixed + backups)
    if fixed_cpu > cpu or fixed_memory > memory:
        raise InputError(
            key,
            f"a monitoring node offers {cpu}m CPU and {memory // MIB} MiB usable{_after_daemonsets(node)}, too little for the operator, helper "
            f"jobs{', the admission server (2 replicas)' if admission else ''} and backup containers (backup Job, PITR collector: M3, R1, R2) together ({fixed_cpu}m / "
            f"{fixed_memory // MIB} MiB): {remedy}",
            "K5",
        )
    cpu -= fixed_cpu
    memory -= fixed_memory

    def too_small(what: str, need: ContainerSize) -> InputError:
        return InputError(
            key,
            f"a monitoring node offers {node.usable_cpu_millicores}m CPU and {node.usable_memory_bytes // MIB} MiB usable"
            f"{_after_daemonsets(node)}; "
            f"after the operator, helper jobs and backup containers {max(cpu, 0)}m / {max(memory, 0) // MIB} MiB are left, too little for "
            f"{what} (needs {need.cpu_millicores}m / {need.memory_bytes // MIB} MiB): {remedy}",
            "K5",
        )

    pmm = None
    if pmm_server:
        share = 2 if sysbench else 1
        pmm = _round(
            ContainerSize(
                min(PMM_SERVER_MAX.cpu_millicores, cpu // share),
                min(PMM_SERVER_MAX.memory_bytes, memory // share),
            )
        )
        if pmm.cpu_millicores < PMM_SERVER_MIN.cpu_millicores or pmm.memory_bytes < PMM_SERVER_MIN.memory_bytes:
            raise too_small("the PMM server", PMM_SERVER_MIN)
        cpu -= pmm.cpu_millicores
        memory -= pmm.memory_bytes

    bench = None
    if sysbench:
        bench = _round(ContainerSize(cpu, min(SYSBENCH_MEMORY_MAX, memory)))
        if bench.cpu_millicores < SYSBENCH_MIN.cpu_millicores or bench.memory_bytes < SYSBENCH_MIN.memory_bytes:
            raise too_small("the sysbench load generator", SYSBENCH_MIN)
    return MonitoringPlan(
        node=node,
        operator=OPERATOR if operator else None,
        pmm_server=pmm,
        helper=HELPER,
        sysbench=bench,
        backup_job=backup_job,
        pitr_collector=pitr_collector,
        admission=ADMISSION_SERVER if admission else None,
    )
