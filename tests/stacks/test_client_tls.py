"""Issue 11: the sysbench clients verify the server certificate against the operator's CA, on both engines."""

from __future__ import annotations

import pytest
from database.harness import SecretAwareMonitor
from percona_mysql_k8s.cli import offline
from percona_mysql_k8s.core.units import GIB
from percona_mysql_k8s.plan.clusters import kind as kind_plan
from percona_mysql_k8s.plan.database import scripts, versions

CR_TYPES = ("kubernetes:pxc.percona.com/v1:PerconaXtraDBCluster", "kubernetes:ps.percona.com/v1:PerconaServerMySQL")


@pytest.fixture
def run(monkeypatch):
    monkeypatch.setattr(kind_plan, "host_resources", lambda: (8000, 32 * GIB))
    monkeypatch.setattr(offline, "RecordingMonitor", SecretAwareMonitor)
    return offline.run_stack


@pytest.mark.parametrize("stack", ["gke", "eks"])  # PXC and group replication
def test_sysbench_mounts_the_operators_ca_and_verifies_with_it(stack, run):
    # production stacks benchmark only on an explicit request (R5)
    registrations = run(stack, overrides={"sysbenchEnabled": True, "sysbenchRunId": "r1", "sysbenchDataSize": "20Gi"})
    cr = next(r for r in registrations if r.type in CR_TYPES)
    jobs = [r for r in registrations if r.type == "kubernetes:batch/v1:Job" and "sysbench" in r.name]
    # the benchmark Job and its user-setup Job: every MySQL client of both verifies the server
    assert sorted(job.inputs["metadata"]["name"].rsplit("-", 1)[-1] for job in jobs) == ["r1", "user"]
    for job in jobs:
        pod = job.inputs["spec"]["template"]["spec"]
        # Both operators keep the CA in <cluster>-ssl, key ca.crt (sslSecretName's default).
        volumes = {v["name"]: v for v in pod["volumes"]}
        assert volumes["mysql-ca"]["secret"] == {
            "secretName": f"{cr.inputs['metadata']['name']}-ssl",
            "items": [{"key": "ca.crt", "path": "ca.crt"}],
        }
        clients = [c for c in pod.get("initContainers", []) + pod["containers"] if c["image"] == versions.SYSBENCH_IMAGE]
        assert clients
        for container in clients:
            mounts = {m["name"]: m for m in container["volumeMounts"]}
            assert mounts["mysql-ca"]["mountPath"] == scripts.CA_DIR and mounts["mysql-ca"]["readOnly"] is True
            env = {e["name"]: e.get("value") for e in container["env"]}
            assert env["SSL_MODE"] == "VERIFY_CA" and env["SSL_CA"] == f"{scripts.CA_DIR}/ca.crt"
