"""One number at both ends (M6, T5): every shipped stack and example renders proxy limits derived from its mysqld
max_connections, read back the way each proxy reads its configuration, and the pack's T5 agrees.

The 16-vCPU stacks (GKE n2-standard-16, EKS m6i.4xlarge) keep at least 70% of the mysqld limit for the buffer pool
with the derived count (issue 21's "done when")."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from database import crd
from database.harness import SecretAwareMonitor
from percona_mysql_k8s.cli import check, offline
from percona_mysql_k8s.core.haproxy_bound import operator_pod_bound
from percona_mysql_k8s.core.mycnf import mysqld_options
from percona_mysql_k8s.core.proxy_limits import router_configured_limits
from percona_mysql_k8s.core.units import GIB, memory_to_bytes
from percona_mysql_k8s.plan.clusters import kind as kind_plan

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
CR_TYPES = ("kubernetes:pxc.percona.com/v1:PerconaXtraDBCluster", "kubernetes:ps.percona.com/v1:PerconaServerMySQL")
MIN_CONNECTIONS = 20  # the default min_connections (M6): mysqld's own users, outside the proxies' share
PROGRAMS = [("stack", name, {}) for name in ("kind", "gke", "eks", "existing")] + [
    ("example", "gke-group-replication-router", {"gke-group-replication-router:gcpProject": "my-project-1"}),
    ("example", "eks-pxc-proxysql", {}),
    ("example", "kind-pxc-benchmark", {}),
]


@pytest.fixture
def registrations_of(monkeypatch):
    monkeypatch.setattr(kind_plan, "host_resources", lambda: (8000, 32 * GIB))  # a fixed kind host
    monkeypatch.setattr(offline, "RecordingMonitor", SecretAwareMonitor)

    def run(kind: str, name: str, config: dict[str, str]):
        if kind == "stack":
            return offline.run_stack(name)
        return offline.run_program(EXAMPLES / name, stack="dev", project=name, config=config)

    return run


def _the_cr(registrations) -> dict:
    (cr,) = [r for r in registrations if r.type in CR_TYPES]
    return crd._ints(cr.inputs)


def _proxysql_clients(configuration: str) -> int:
    """mysql_variables.max_connections of the operator's proxysql.cnf as rendered (one setting per line)."""
    block = configuration.split("mysql_variables=", 1)[1]
    (value,) = re.findall(r"^\s*max_connections\s*=\s*(\d+)\s*$", block, re.M)
    return int(value)


def _ends(cr: dict) -> tuple[str, int, int, int]:
    """(proxy, pods, one pod's backend connections to one mysqld as the proxy reads its config, max_connections)."""
    spec = cr["spec"]
    if cr["kind"] == "PerconaXtraDBCluster":
        mysqld, proxies = spec["pxc"], {name: spec[name] for name in ("haproxy", "proxysql")}
    else:
        mysqld, proxies = spec["mysql"], spec["proxy"]
    ((proxy, block),) = [(name, block) for name, block in proxies.items() if block.get("enabled")]
    max_connections = int(mysqld_options(mysqld["configuration"])["max_connections"])
    if proxy == "haproxy":
        operator = "pxc" if cr["kind"] == "PerconaXtraDBCluster" else "ps"
        backend = operator_pod_bound(operator, block["configuration"], size=mysqld["size"]).connections
    elif proxy == "proxysql":
        assert block["scheduler"]["enabled"] is True  # the per-server limit is the scheduler's
        backend = 2 * block["scheduler"]["maxConnections"]  # the writer sits in the writer and the reader hostgroup
        assert _proxysql_clients(block["configuration"]) == (max_connections - MIN_CONNECTIONS) // block["size"]
    else:
        backend = router_configured_limits(block["configuration"]).backend_limit
    return proxy, block["size"], backend, max_connections


@pytest.mark.parametrize(("kind", "name", "config"), PROGRAMS, ids=[name for _, name, _ in PROGRAMS])
def test_the_proxies_open_what_mysqld_accepts(kind, name, config, registrations_of):
    registrations = registrations_of(kind, name, config)
    proxy, pods, backend, max_connections = _ends(_the_cr(registrations))
    share = (max_connections - MIN_CONNECTIONS) // pods
    # the proxies can never open more than mysqld leaves beside its own users...
    assert pods * backend + MIN_CONNECTIONS <= max_connections
    # ...and are written from that number, not merely below it (ProxySQL: two hostgroup rows of share // 2 each)
    assert backend == (share // 2 * 2 if proxy == "proxysql" else share)
    # the pack reads the same settings and finds nothing (T5)
    report = check.check_registrations(registrations, stack="dev", project=name)
    assert [f.diagnostic.message for f in report.findings if f.diagnostic.rule == "T5"] == []


@pytest.mark.parametrize("stack", ["gke", "eks"])
def test_the_16_vcpu_stacks_keep_70_percent_of_mysqld_for_the_buffer_pool(stack, registrations_of):
    cr = _the_cr(registrations_of("stack", stack, {}))
    mysqld = cr["spec"]["pxc" if cr["kind"] == "PerconaXtraDBCluster" else "mysql"]
    options = mysqld_options(mysqld["configuration"])
    limit = memory_to_bytes(mysqld["resources"]["limits"]["memory"])
    assert int(options["innodb_buffer_pool_size"]) >= 0.70 * limit
    # derived, not hand-set: what three HAProxy pods open at the operators' maxconn 2048, plus mysqld's own users
    assert int(options["max_connections"]) == 3 * 2048 + MIN_CONNECTIONS
    assert options["thread_handling"] == "pool-of-threads"
