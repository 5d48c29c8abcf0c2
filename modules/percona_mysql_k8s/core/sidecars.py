"""Budgets of everything beside mysqld in one database member (rule M3).

A member is the mysqld pod (mysqld, pmm-client, the log collector's ``logs`` and ``logrotate``, the
PS backup sidecar ``xtrabackup``) plus one proxy pod (the proxy, its monitor sidecar, pmm-client).
Each container gets request = limit. The anchors are the operators' own defaults (INTERFACES §2.3,
§3.3) and the seed's reference split on a 32 GB node (M3: HAProxy 1 GB / 600m and PMM agent
500 MB / 500m beside PXC 25 GB / 6 CPU); sizes between the anchors are interpolated on the member's
memory, and proxies grow with the connections they carry.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .units import GIB, MIB

HAPROXY, PROXYSQL, ROUTER = "haproxy", "proxysql", "router"
PROXIES = (HAPROXY, PROXYSQL, ROUTER)


@dataclass(frozen=True)
class ContainerSize:
    """One container's request = limit."""

    cpu_millicores: int
    memory_bytes: int


def _mib_ceil(num_bytes: float) -> int:
    return math.ceil(num_bytes / MIB) * MIB


# PMM client: memory from the operator default request of 150M (INTERFACES §2.3); CPU from the peer
# calculator's 100m at its smallest member (ALGORITHM §2.1, XSmall: PMM 100m beside 1 CPU); seed
# reference 500 MB / 500m on a 32 GB, 8-CPU node (M3: PXC 6 CPU + HAProxy 600m + PMM 500m). The agent's
# cost follows the exporters it runs, not the node, so it is interpolated between the two anchors
# (memory on the member's memory, CPU on its CPU) and held at the reference above them. Memory stays
# in whole bytes: a step would let a larger budget leave mysqld less.
PMM_SMALL = ContainerSize(100, 150_000_000)
PMM_REFERENCE = ContainerSize(500, 500_000_000)
REFERENCE_MEMBER_MEMORY = 32 * GIB
REFERENCE_MEMBER_CPU = 8000

# Log collector: the operator applies spec.logcollector.resources to both ``logs`` (fluent-bit) and
# ``logrotate``; its default is 100M / 200m (INTERFACES §2.3).
LOG_COLLECTOR_CONTAINERS = ("logs", "logrotate")
LOG_COLLECTOR_EACH = ContainerSize(200, 100_000_000)

# PS backup sidecar ``xtrabackup``: xtrabackup's --use-memory default is 100 MiB; twice that covers
# the process around it.
BACKUP_SIDECAR = ContainerSize(200, 200 * MIB)

# Proxy monitor sidecars (pxc-monit, mysql-monit, proxysql-monit): the PS operator's example
# sidecarResources is 50m / 64Mi (ps-operator cr.yaml).
MONIT_SIDECAR = ContainerSize(50, 64 * MIB)

# Proxy CPU as a share of mysqld CPU. HAProxy: 600m beside 6 CPU in the seed reference split (M3).
# ProxySQL and Router: seed 004 measured 2.5 and 2 cores where HAProxy used 1.5 for the same load.
HAPROXY_CPU_SHARE = 600 / 6000
PROXY_CPU_SHARE = {
    HAPROXY: HAPROXY_CPU_SHARE,
    PROXYSQL: HAPROXY_CPU_SHARE * 2.5 / 1.5,
    ROUTER: HAPROXY_CPU_SHARE * 2.0 / 1.5,
}
PROXY_MIN_CPU = 100

# Proxy memory: a base for the process plus what each client connection holds. HAProxy keeps a
# request and a response buffer of tune.bufsize (16 KiB) per stream plus ~8 KiB of connection
# structures; ProxySQL (L7, a backend pool and query digests) and Router bases follow the operators'
# examples (ProxySQL needs more, Router 256M in the PS cr.yaml).
PROXY_BASE_MEMORY = {HAPROXY: 64 * MIB, PROXYSQL: 256 * MIB, ROUTER: 256 * MIB}
PROXY_BYTES_PER_CONNECTION = {HAPROXY: 40 * 1024, PROXYSQL: 80 * 1024, ROUTER: 40 * 1024}
PROXY_MIN_MEMORY = 128 * MIB

# Below a 2-core member every sidecar's CPU shrinks in proportion to the member's CPU: at 2 cores PMM
# is 100m + 400m x 2/8 = 200m, so a 1-core member gives it the peer calculator's 100m (ALGORITHM §2.1,
# XSmall). Without this a 1-core member with PMM leaves mysqld nothing (two PMM clients, a monitor and
# a proxy take more than 750m). Memory does not shrink: it is what the processes hold.
SMALL_MEMBER_CPU = 2000
CPU_STEP = 10


def scaled_cpu(cpu_millicores: float, member_cpu_millicores: int | None) -> int:
    """A sidecar's CPU for a member of ``member_cpu_millicores`` (unscaled when None), in 10m steps, >= 10m."""
    share = 1.0 if member_cpu_millicores is None else min(1.0, member_cpu_millicores / SMALL_MEMBER_CPU)
    return max(CPU_STEP, math.ceil(cpu_millicores * share / CPU_STEP) * CPU_STEP)


def pmm_client(member_memory_bytes: int, member_cpu_millicores: int) -> ContainerSize:
    cpu_share = min(1.0, member_cpu_millicores / REFERENCE_MEMBER_CPU)
    cpu = PMM_SMALL.cpu_millicores + (PMM_REFERENCE.cpu_millicores - PMM_SMALL.cpu_millicores) * cpu_share
    extra = (PMM_REFERENCE.memory_bytes - PMM_SMALL.memory_bytes) * min(member_memory_bytes, REFERENCE_MEMBER_MEMORY)
    return ContainerSize(scaled_cpu(cpu, member_cpu_millicores), PMM_SMALL.memory_bytes + extra // REFERENCE_MEMBER_MEMORY)


def log_collector_container(member_cpu_millicores: int | None = None) -> ContainerSize:
    """Each of ``logs`` and ``logrotate``: the operator default, its CPU scaled on small members."""
    return ContainerSize(scaled_cpu(LOG_COLLECTOR_EACH.cpu_millicores, member_cpu_millicores), LOG_COLLECTOR_EACH.memory_bytes)


def monitor_container(member_cpu_millicores: int | None = None) -> ContainerSize:
    """A proxy monitor sidecar (pxc-monit, mysql-monit, proxysql-monit), its CPU scaled on small members."""
    return ContainerSize(scaled_cpu(MONIT_SIDECAR.cpu_millicores, member_cpu_millicores), MONIT_SIDECAR.memory_bytes)


def proxy_container(
    proxy: str, connections: int, mysqld_cpu_millicores: int, member_cpu_millicores: int | None = None
) -> ContainerSize:
    """The proxy of one pod carrying ``connections`` client connections (its own limit, not mysqld's)."""
    minimum = scaled_cpu(PROXY_MIN_CPU, member_cpu_millicores)
    cpu = max(minimum, math.ceil(mysqld_cpu_millicores * PROXY_CPU_SHARE[proxy] / CPU_STEP) * CPU_STEP)
    memory = PROXY_BASE_MEMORY[proxy] + connections * PROXY_BYTES_PER_CONNECTION[proxy]
    return ContainerSize(cpu, max(PROXY_MIN_MEMORY, _mib_ceil(memory)))


def proxy_monitor_containers(proxy: str, engine: str, *, proxysql_scheduler: bool) -> tuple[str, ...]:
    """Sidecars the operator adds to each proxy pod (INTERFACES §2.2, §3.3). A ProxySQL pod runs ``proxysql-monit``
    only without the ProxySQL scheduler (PXC operator pkg/pxc/app/statefulset/proxysql.go ``SidecarContainers``: "we
    are disabling ProxySQL cluster mode in case scheduler is enabled"; seen in its render, tests/operators)."""
    if proxy == ROUTER:
        return ()
    if proxy == PROXYSQL:
        return ("pxc-monit",) if proxysql_scheduler else ("pxc-monit", "proxysql-monit")
    return ("pxc-monit",) if engine == "pxc" else ("mysql-monit",)


def proxy_has_pmm(proxy: str) -> bool:
    """pmm-client runs in HAProxy and ProxySQL pods; the operators add none to Router pods."""
    return proxy != ROUTER
