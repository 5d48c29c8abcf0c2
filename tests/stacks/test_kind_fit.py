"""The kind stack fitted to the machine it runs on (plan.config.kind_fit, core.kind_host; K1, K5, T1).

Across host sizes, every host the fit accepts yields a stack whose pods fit: each kind worker's pods
within its allocatable (read back from the registered resources by the policy pack's own reader), all
workers plus the control plane and the host's share within the host, and the offline policy check
passing. A host it refuses gets one InputError naming kindHostCpu or kindHostMemory with the minimum,
and that minimum is itself accepted.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from percona_mysql_k8s.cli import check, offline
from percona_mysql_k8s.core.errors import InputError
from percona_mysql_k8s.core.kind_host import CONTROL_PLANE, HOST_RESERVE, WORKER_OVERHEAD, KindHost, worker_budget
from percona_mysql_k8s.core.monitoring import OPERATOR
from percona_mysql_k8s.core.units import GIB, cpu_to_millicores, memory_to_bytes
from percona_mysql_k8s.plan.clusters import kind as kind_plan
from percona_mysql_k8s.plan.config import kind_fit
from percona_mysql_k8s.policies._framework import ResourceInput
from percona_mysql_k8s.policies._readers.stack import read_stack
from percona_mysql_k8s.policies._readers.values import plain
from percona_mysql_k8s.stack.settings import stack_settings_from_config

REPOSITORY = Path(__file__).resolve().parents[2]
CPUS = (2, 4, 8, 16)
MEMORY_GIB = (8, 16, 32, 64)


def kind_values(**overrides) -> dict[str, object]:
    """The shipped kind stack's config (Pulumi.yaml defaults under stacks/Pulumi.kind.yaml), bare keys."""
    values = {
        key.split(":", 1)[1]: value for key, value in offline.stack_config("kind").items() if key.startswith("percona-mysql:")
    }
    return {**values, **overrides}


def fitted(cpus, memory, **overrides):
    return stack_settings_from_config(kind_values(kindHostCpu=str(cpus), kindHostMemory=str(memory), **overrides))


def assert_fits_the_host(result, host_cpu: int, host_memory: int) -> None:
    """K5 on every kind worker, K1 on the host: what the fit promises, checked from the settings."""
    node = result.cluster.database_pool.node
    assert result.cluster.monitoring_pool.node == node  # the workers share the host equally
    member = result.sizing.member_total
    assert member.cpu_millicores <= node.usable_cpu_millicores
    assert member.memory_bytes <= node.usable_memory_bytes
    monitoring = result.monitoring.total
    assert monitoring.cpu_millicores <= node.usable_cpu_millicores
    assert monitoring.memory_bytes <= node.usable_memory_bytes
    workers = result.cluster.database_pool.node_count + result.cluster.monitoring_pool.node_count
    assert workers * node.capacity_cpu_millicores + CONTROL_PLANE.cpu_millicores + HOST_RESERVE.cpu_millicores <= host_cpu
    assert workers * node.capacity_memory_bytes + CONTROL_PLANE.memory_bytes + HOST_RESERVE.memory_bytes <= host_memory
    if result.cluster.cluster_size < 3:
        assert result.cluster.ephemeral  # T1: fewer than 3 members only on an ephemeral stack


def assert_refused_with_the_minimum(error: InputError, host_cpu: int, host_memory: int) -> tuple[int, int]:
    assert error.key in ("kindHostCpu", "kindHostMemory") and error.rule == "K1"
    message = str(error)
    assert "needs at least" in message and "\n" not in message
    need = message.split("needs at least ", 1)[1]
    need_cpu = cpu_to_millicores(need.split(" CPU", 1)[0])
    need_memory = int(float(need.split(" and ", 1)[1].split(" GiB", 1)[0]) * GIB)
    assert host_cpu < need_cpu or host_memory < need_memory
    assert error.key == ("kindHostCpu" if host_cpu < need_cpu else "kindHostMemory")
    return need_cpu, need_memory


@pytest.mark.parametrize("memory_gib", MEMORY_GIB)
@pytest.mark.parametrize("cpus", CPUS)
def test_every_host_is_either_fitted_or_told_its_minimum(cpus, memory_gib):
    try:
        result = fitted(cpus, f"{memory_gib}Gi")
    except InputError as error:
        need_cpu, need_memory = assert_refused_with_the_minimum(error, cpus * 1000, memory_gib * GIB)
        assert_fits_the_host(fitted(f"{need_cpu}m", need_memory), need_cpu, need_memory)
        return
    assert_fits_the_host(result, cpus * 1000, memory_gib * GIB)


def test_a_4_cpu_16_gib_laptop_runs_one_member_without_pmm():
    # 2 workers (1 member + monitoring): capacity (4000 - 500 host - 950 control plane) // 2 = 1275m,
    # usable 1275 - 100 node agents = 1175m. The monitoring worker keeps 1175 - 200 operator - 3 x 100
    # helpers (the PMM token Job, sysbench's user-setup Job and its publisher) = 675m, and the PMM server
    # would get half of it, 337m < its 500m minimum (K5): PMM goes, sysbench takes the 670m left (675
    # rounded down to 10m).
    result = fitted(4, "16Gi")
    assert result.cluster.cluster_size == 1
    assert result.cluster.database_pool.node.usable_cpu_millicores == 1175
    assert (result.pmm.install, result.pmm.enabled, result.database.pmm_enabled) == (False, False, False)
    assert result.monitoring.pmm_server is None and result.monitoring.sysbench.cpu_millicores == 670
    assert "pmm-client" not in result.sizing.containers
    assert len(result.notes) == 1 and "PMM off" in result.notes[0] and "PMM server" in result.notes[0]


def test_an_8_cpu_32_gib_workstation_keeps_pmm():
    # usable (8000 - 1450) // 2 - 100 = 3175m; the monitoring worker keeps 2775m, the PMM server half: 1387m >= 500m
    result = fitted(8, "32Gi")
    assert (result.cluster.cluster_size, result.pmm.install, result.database.pmm_enabled) == (1, True, True)
    assert result.notes == ()


def test_a_3_cpu_host_is_refused_with_the_cpu_it_needs():
    # The smallest layout (1 member, PMM off) needs a monitoring worker of 200m operator + 3 x 100m helpers
    # + 500m sysbench = 1000m usable, so capacity 1100m; two workers, the control plane and the host's share:
    # 2 x 1100 + 950 + 500 = 3650m; a host has whole CPUs: 4.
    with pytest.raises(InputError) as error:
        fitted(3, "16Gi")
    assert error.value.key == "kindHostCpu"
    assert "needs at least 4 CPU" in str(error.value)
    assert "sysbenchEnabled false" in str(error.value)


def test_three_members_asked_for_on_a_large_host_are_three():
    result = fitted(16, "64Gi", clusterSize=3)
    assert (result.cluster.cluster_size, result.database.pmm_enabled) == (3, True)
    assert result.cluster.database_pool.node_count == 3
    assert_fits_the_host(result, 16000, 64 * GIB)


def test_three_members_on_a_laptop_fall_back_to_one_only_when_ephemeral():
    # 4 workers on 4 CPUs: (4000 - 1450) // 4 - 100 = 537m usable; the monitoring worker's 1000m minimum
    # does not fit, with or without PMM, so 3 members cannot run there at all.
    result = fitted(4, "16Gi", clusterSize=3)
    assert result.cluster.cluster_size == 1
    assert "3 members" in result.notes[0]
    with pytest.raises(InputError) as error:
        # a production stack benchmarks only on an explicit request (R5): one is given, so the fit decides
        fitted(4, "16Gi", clusterSize=3, ephemeral=False, sysbenchRunId="r1", sysbenchDataSize="1Gi")
    assert "ephemeral: true" in str(error.value) and error.value.key == "kindHostCpu"


def test_a_config_error_is_not_mistaken_for_a_small_host():
    with pytest.raises(InputError) as error:
        fitted(4, "16Gi", engine="mariadb")
    assert error.value.key == "engine"


def test_a_fixed_share_is_not_fitted():
    # kindHostShare as a number keeps the old model: every node that share of the host, no layout search
    assert not kind_fit.applies(kind_values(kindHostShare="0.25"))
    with pytest.raises(InputError) as error:
        fitted(4, "16Gi", kindHostShare="0.25")
    # a quarter of 4 CPUs is 900m per node once the node's own reserve is taken: the engine answers the
    # member, and the monitoring node (the same quarter) cannot hold the PMM server; no layout is searched.
    # The setting to change is the share (a kind node is a share of the machine, not a machine type).
    assert kind_fit._is_capacity(error.value) and error.value.key == "kindHostShare"
    assert "raise kindHostShare" in error.value.message
    assert "monitoring node" in str(error.value) and "kindHostCpu/kindHostMemory" in str(error.value)


# Up to 48 GiB, so the doubled host stays within what the kind stack's 100Gi volume holds (beyond ~128 GiB
# B4 asks for a larger storageSize, on its own key).
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cpu=st.integers(1, 32).map(lambda cpus: cpus * 1000), memory_mib=st.integers(2048, 48 * 1024))  # whole CPUs
def test_property_any_host_is_fitted_or_refused_with_an_accepted_minimum(cpu, memory_mib):
    memory = memory_mib * 2**20
    try:
        result = fitted(f"{cpu}m", memory)
    except InputError as error:
        need_cpu, need_memory = assert_refused_with_the_minimum(error, cpu, memory)
        assert_fits_the_host(fitted(f"{need_cpu}m", need_memory), need_cpu, need_memory)
        return
    assert_fits_the_host(result, cpu, memory)
    # a larger host holds at least as rich a layout
    larger = fitted(f"{cpu * 2}m", memory * 2)
    assert larger.cluster.cluster_size >= result.cluster.cluster_size
    assert larger.database.pmm_enabled >= result.database.pmm_enabled


# ---- the whole program under mocks -------------------------------------------------------------------


def _pod_groups(registrations):
    """The pods as the stack policies read them (the outputs the engine sends to AnalyzeStack)."""
    resources = [
        ResourceInput(type=r.type, name=r.name, urn=r.urn, props=plain(r.properties))
        for r in check.to_resources(registrations, outputs=True)
    ]
    return read_stack(resources).groups


@pytest.mark.parametrize(("cpus", "memory"), [(4, "16Gi"), (8, "16Gi"), (16, "64Gi")])
def test_the_registered_pods_fit_the_kind_workers(cpus, memory):
    """Read back with the policy pack's reader: one database pod of each kind per database worker, and
    everything else on the monitoring worker, within one worker's allocatable; all of it within the host."""
    host = KindHost(cpus * 1000, memory_to_bytes(memory))
    registrations = offline.run_stack("kind", preview=True, overrides={"kindHostCpu": str(cpus), "kindHostMemory": memory})
    groups = _pod_groups(registrations)
    members = fitted(cpus, memory).cluster.cluster_size
    node = worker_budget(host, members + 1)
    database = [g for g in groups if g.role == "database" and g.replicas > 0]
    others = [g for g in groups if g.role != "database"]
    assert database and others
    assert all(g.replicas == members for g in database)
    assert sum(g.cpu for g in database) <= node.usable_cpu_millicores
    assert sum(g.memory for g in database) <= node.usable_memory_bytes
    # the operator Deployment lives inside its Helm release, which the reader does not open: add its chart limit
    others_cpu = sum(g.cpu * g.replicas for g in others) + OPERATOR.cpu_millicores
    assert others_cpu <= node.usable_cpu_millicores
    assert sum(g.memory * g.replicas for g in others) + OPERATOR.memory_bytes <= node.usable_memory_bytes
    total_cpu = sum(g.cpu * g.replicas for g in groups) + OPERATOR.cpu_millicores + (members + 1) * WORKER_OVERHEAD.cpu_millicores
    assert total_cpu + CONTROL_PLANE.cpu_millicores + HOST_RESERVE.cpu_millicores <= host.cpu_millicores


def test_the_offline_policy_check_passes_on_a_4_cpu_16_gib_laptop(capsys):
    code = check.main(["--stack", "kind", "--set", "kindHostCpu=4", "--set", "kindHostMemory=16Gi"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "0 mandatory" in out


def test_a_too_small_host_stops_the_program_before_any_resource():
    import pulumi

    with pytest.raises(pulumi.RunError, match="K1: kindHostCpu: .*needs at least"):
        offline.run_stack("kind", overrides={"kindHostCpu": "2", "kindHostMemory": "8Gi"})


# ---- measuring the host ------------------------------------------------------------------------------


def test_the_host_is_measured_as_docker_sees_it(monkeypatch):
    # `docker info --format '{{json .}}'` on Docker Desktop: the VM's 6 CPUs and 7.6 GiB, not the Mac's
    info = {
        "ID": "b7c1",
        "Containers": 3,
        "Driver": "overlay2",
        "OperatingSystem": "Docker Desktop",
        "OSType": "linux",
        "Architecture": "aarch64",
        "NCPU": 6,
        "MemTotal": 8217473024,
        "ServerVersion": "28.3.2",
    }
    calls = []

    def run(args, **kwargs):
        calls.append(args)
        return subprocess.CompletedProcess(args, 0, stdout=json.dumps(info) + "\n", stderr="")

    monkeypatch.setattr(kind_plan.shutil, "which", lambda name: f"/usr/bin/{name}")
    monkeypatch.setattr(kind_plan.subprocess, "run", run)
    assert kind_plan.host_resources() == (6000, 8217473024)
    assert calls == [["docker", "info", "--format", "{{json .}}"]]


@pytest.mark.parametrize(
    "answer",
    [
        subprocess.CompletedProcess([], 1, stdout="", stderr="Cannot connect to the Docker daemon"),
        subprocess.CompletedProcess([], 0, stdout="not json", stderr=""),
        subprocess.CompletedProcess([], 0, stdout='{"NCPU": 0, "MemTotal": 0}', stderr=""),
    ],
)
def test_without_an_answering_docker_the_host_is_this_machine(monkeypatch, answer):
    monkeypatch.setattr(kind_plan.shutil, "which", lambda name: f"/usr/bin/{name}")
    monkeypatch.setattr(kind_plan.subprocess, "run", lambda args, **kwargs: answer)
    monkeypatch.setattr(kind_plan, "_memory_bytes", lambda: 16 * GIB)
    cpus, memory = kind_plan.host_resources()
    assert memory == 16 * GIB and cpus >= 1000


def test_a_measured_host_is_measured_once(monkeypatch):
    # the layout search builds the stack several times; docker info must not run for each of them
    calls = []

    def host():
        calls.append(1)
        return 4000, 16 * GIB

    result = stack_settings_from_config(kind_values(), host=host)
    assert result.cluster.cluster_size == 1 and calls == [1]


@pytest.mark.parametrize("size", ["three", "2.5", 2.5, "", True, "0"])
def test_a_cluster_size_that_is_no_whole_number_is_refused_not_replaced_by_3(size):
    # the fit tries layouts of clusterSize members: a value it cannot read is the user's error (T1), never 3
    with pytest.raises(InputError) as refused:
        fitted(8, 32 * GIB, clusterSize=size)
    assert refused.value.key == "clusterSize" and refused.value.rule == "T1", refused.value


def _shipped_minimum(pmm: bool) -> tuple[int, int]:
    values = kind_values()
    layout = next(layout for layout in kind_fit.layouts(values) if layout.pmm == pmm and layout.members == 1)
    found = kind_fit.minimum_host(values, layout, lambda fitted: fitted_settings(fitted), (4000, 16 * GIB))
    assert found is not None
    return found


def fitted_settings(values):
    from percona_mysql_k8s.plan.config.decide import _settings

    return _settings(values, False, lambda: (8000, 32 * GIB))


def test_the_documented_minimum_hosts_are_the_fits_own():
    """The CPUs from which the shipped kind stack runs PMM, and below which it runs nothing, as README, the stack
    file and the guides state them: the fit's own minimum (whole CPUs: kindHostCpu refuses a fraction)."""
    pmm_cpu, _ = _shipped_minimum(pmm=True)
    least_cpu, least_memory = _shipped_minimum(pmm=False)
    with_pmm = f"{pmm_cpu // 1000} CPUs"
    texts = {
        "README.md": f"{with_pmm} or more with PMM",
        "stacks/Pulumi.kind.yaml": f"from {with_pmm};",
        "docs/clusters.md": f"from {with_pmm}, with PMM",
        "docs/database.md": f"below {with_pmm} PMM is turned off",
    }
    for path, phrase in texts.items():
        text = (REPOSITORY / path).read_text().replace("\n", " ")
        assert phrase in text, (path, phrase)
    assert f"({least_cpu // 1000} CPUs and {least_memory // GIB} GiB" in (REPOSITORY / "docs/clusters.md").read_text().replace(
        "\n", " "
    )
