"""The kind target's plan: the host the kind nodes share (declared, or measured as Docker sees it), one
worker per database member sized from a share of it (``kindHostShare``, or ``auto``: core.kind_host's model),
and the node image."""

from __future__ import annotations

import json
import math
import os
import re
import shutil
import subprocess
from collections.abc import Callable, Mapping
from dataclasses import replace

from percona_mysql_k8s.core.allocatable import kind_node_budget
from percona_mysql_k8s.core.bounds import MAX_MACHINE_CPU_MILLICORES
from percona_mysql_k8s.core.errors import InputError
from percona_mysql_k8s.core.kind_host import CONTROL_PLANE, HOST_RESERVE, KindHost, worker_budget
from percona_mysql_k8s.core.units import cpu_to_millicores, decimal_number, format_cpu, format_memory, memory_to_bytes
from percona_mysql_k8s.core.zones import ZoneLayout

from .common import no_machine_has_more, own_pools
from .keys import Values, rekey
from .shape import ClusterSettings, KindSettings

AUTO = "auto"
# An image reference as the Docker/OCI distribution grammar reads it: [registry[:port]/]path[:tag][@digest]
# (https://github.com/distribution/reference/blob/main/reference.go).
_IMAGE_REFERENCE = re.compile(
    r"^(?:[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?)*(?::[0-9]+)?/)?"
    r"[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*(?:/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)*"
    r"(?::[A-Za-z0-9_][A-Za-z0-9_.-]{0,127})?(?:@sha256:[a-f0-9]{64})?$"
)


def check_bounds(v: Values) -> None:
    image = v.text("kindNodeImage")
    if image and not _IMAGE_REFERENCE.fullmatch(image):
        raise InputError("kindNodeImage", f"{image!r} is not an image reference (e.g. kindest/node:v1.33.1)")


def host_resources() -> tuple[int, int]:
    """(CPU millicores, memory bytes) the kind nodes share: what the Docker engine reports when it answers
    (on Docker Desktop that is its VM, not the host), otherwise this machine's.

    CPUs are the ones this process may run on (``sched_getaffinity``, which honours a cpuset), memory is
    ``MemTotal``: a total, not what is free now, so the sizes do not change from one preview to the next.
    """
    docker = _docker_resources()
    if docker is not None:
        return docker
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    if not cpus:
        raise InputError(
            "kindHostCpu", "cannot tell how many CPUs this machine has: set kindHostCpu and kindHostMemory", rule="K1"
        )
    return cpus * 1000, _memory_bytes()


def _docker_resources() -> tuple[int, int] | None:
    """``docker info``'s NCPU and MemTotal (bytes), or None when Docker is absent or does not answer.

    Docker's view is the one kind's containers get: on Linux the host, on Docker Desktop its VM.
    (``docker info --format '{{json .}}'`` prints the engine's ``/info``; NCPU and MemTotal are fields of
    the Engine API's SystemInfo.)
    """
    if shutil.which("docker") is None:
        return None
    try:
        info = subprocess.run(
            ["docker", "info", "--format", "{{json .}}"], capture_output=True, text=True, timeout=15, check=False
        )
        data = json.loads(info.stdout) if info.returncode == 0 else {}
    except (OSError, subprocess.SubprocessError, ValueError):
        return None
    cpus, memory = data.get("NCPU"), data.get("MemTotal")
    if isinstance(cpus, int) and isinstance(memory, int) and cpus > 0 and memory > 0:
        return cpus * 1000, memory
    return None


def _memory_bytes() -> int:
    try:
        with open("/proc/meminfo", encoding="ascii") as meminfo:
            for line in meminfo:
                if line.startswith("MemTotal:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError) as error:
        raise InputError(
            "kindHostMemory", "cannot tell how much memory this machine has: set kindHostCpu and kindHostMemory", rule="K1"
        ) from error


def kind_host(v: Values, host: Callable[[], tuple[int, int]]) -> KindHost:
    """The machine the kind nodes share: kindHostCpu / kindHostMemory when given (a CI runner evaluating
    the stack for a workstation), otherwise the machine running the program as Docker sees it."""
    cpu_text, memory_text = v.text("kindHostCpu"), v.text("kindHostMemory")
    if bool(cpu_text) != bool(memory_text):
        missing = "kindHostMemory" if cpu_text else "kindHostCpu"
        raise InputError(missing, "give both kindHostCpu and kindHostMemory, or neither (this machine's are used)", rule="K1")
    if not cpu_text:
        return KindHost(*host(), source="this machine")
    try:
        cpu = cpu_to_millicores(cpu_text)
    except ValueError as error:
        raise InputError("kindHostCpu", str(error), rule="K1") from None
    try:
        memory = memory_to_bytes(memory_text)
    except ValueError as error:
        raise InputError("kindHostMemory", str(error), rule="K1") from None
    if cpu <= 0 or memory <= 0:
        raise InputError("kindHostCpu" if cpu <= 0 else "kindHostMemory", "must be more than zero", rule="K1")
    if cpu % 1000 or cpu > MAX_MACHINE_CPU_MILLICORES:
        # Docker counts whole CPUs (docker info NCPU; Docker Desktop allots whole CPUs), and no host has more than
        # Linux's 8192 (core.bounds).
        raise InputError(
            "kindHostCpu",
            f"{cpu_text!r} is no host's CPU count: a host has a whole number of CPUs "
            f"from 1 to {MAX_MACHINE_CPU_MILLICORES // 1000} (e.g. 8, as docker info reports)",
            rule="K1",
        )
    no_machine_has_more(memory, "kindHostMemory", memory_text)
    declared = KindHost(cpu, memory, source="the declared host (kindHostCpu/kindHostMemory)")
    if v.text("kindHostShare").lower() == AUTO:
        return declared  # the fit (plan.config.kind_fit) refuses a host too small with the smallest host that works
    for key, free, text, what in (
        ("kindHostCpu", declared.free_cpu_millicores, cpu_text, "CPU"),
        ("kindHostMemory", declared.free_memory_bytes, memory_text, "memory"),
    ):
        if free <= 0:
            raise InputError(
                key,
                f"{text!r} is not enough {what} to run kind at all: the host's own share and the "
                f"control plane take {format_cpu(HOST_RESERVE.cpu_millicores + CONTROL_PLANE.cpu_millicores)} "
                f"CPU and {format_memory(HOST_RESERVE.memory_bytes + CONTROL_PLANE.memory_bytes)} (core.kind_host)",
                rule="K1",
            )
    return declared


def kind_host_from_config(values: Mapping[str, object], host: Callable[[], tuple[int, int]] = host_resources) -> KindHost:
    """The machine a kind cluster of this config runs on: declared (kindHostCpu/kindHostMemory) or measured."""
    return kind_host(Values(values), host)


def kind_share(v: Values) -> float | None:
    """kindHostShare as a number in (0, 1], or None for ``auto``."""
    text = v.text("kindHostShare")
    if text.lower() == AUTO:
        return None
    try:
        share = decimal_number(text)
    except (ValueError, OverflowError):
        raise InputError("kindHostShare", f"{text!r} is not auto or a number in (0, 1]", rule="K1") from None
    if not math.isfinite(share) or not 0 < share <= 1:
        raise InputError("kindHostShare", f"{text!r} must be auto or a share of the host with 0 < share ≤ 1", rule="K1")
    return share


def cluster_settings(
    v: Values, common: dict, monitoring_count: int, daemonset: tuple[int, int], host: Callable[[], tuple[int, int]]
) -> ClusterSettings:
    share = kind_share(v)
    image = v.text("kindNodeImage")
    if not image:
        raise InputError("kindNodeImage", "the kind target needs a node image (e.g. kindest/node:v1.33.1)")
    machine = kind_host(v, host)
    keys = {"daemonset_cpu": "daemonsetCpu", "daemonset_memory": "daemonsetMemory"}
    nodes = common["cluster_size"] + monitoring_count
    notes: tuple[str, ...] = ()
    if share is None:
        # auto: the workers split what the host has left after itself and the control plane (core.kind_host)
        try:
            budget = worker_budget(machine, nodes, *daemonset)
        except InputError as error:
            raise rekey(error, keys.get(error.key, error.key)) from None
    else:
        try:
            budget = kind_node_budget(machine.cpu_millicores, machine.memory_bytes, share, *daemonset)
        except InputError as error:
            raise rekey(error, keys.get(error.key, "kindHostShare")) from None
        if share * nodes > 1:
            notes = (
                f"{nodes} kind workers × kindHostShare {share} = {share * nodes:.0%} of this machine: the nodes overcommit "
                "the host, so sizing against one node's share overstates what all of them get together (K1)",
            )
    # One kind worker per database member: kind has no node pools to size separately.
    database, monitoring = own_pools(
        common["cluster_name"], (None, None), (common["cluster_size"], monitoring_count), (budget, budget)
    )
    # every kind node is a container on this machine: one failure domain, and no zone label (K7: the test target,
    # plan.database.zones.ONE_MACHINE, a note)
    database = replace(database, zones=ZoneLayout((database.node_count,), labelled=False), zones_key="target")
    kind = KindSettings(image, share, machine.cpu_millicores, machine.memory_bytes)
    return ClusterSettings(**common, database_pool=database, monitoring_pool=monitoring, kind=kind, notes=notes)
