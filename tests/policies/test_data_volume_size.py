"""R7 data-volume-size on this project's own Sysbench Job (its real scripts and env) and sysbench's number reading."""

from __future__ import annotations

import math

import pytest
from harness import resolve_resource, run_stack
from percona_mysql_k8s.core.benchmark import data_bytes, data_volume_needed, plan
from percona_mysql_k8s.plan.database import scripts
from percona_mysql_k8s.policies._catalog import POLICIES_BY_NAME
from percona_mysql_k8s.policies._readers.sysbench import strtod

POLICY = POLICIES_BY_NAME["data-volume-size"]


def _own_job(benchmark) -> dict:
    """The prepare phase as database/sysbench.py renders it: an init container running scripts.PREPARE with
    MYSQL_HOST the writer endpoint (plan.database.spec.Endpoint.host: <cluster>-haproxy.<namespace>.svc)."""
    env = {"MYSQL_HOST": "shop-haproxy.db.svc", "MYSQL_PORT": "3306", **scripts.sysbench_env(benchmark)}
    container = {
        "name": "prepare",
        "image": "perconalab/sysbench:1.1",
        "command": ["bash", "-c", scripts.PREPARE],
        "env": [{"name": k, "value": v} for k, v in env.items()],
    }
    return {
        "type": "kubernetes:batch/v1:Job",
        "name": "shop-sysbench",
        "props": {
            "metadata": {"name": "shop-sysbench", "namespace": "db", "labels": {"app.kubernetes.io/component": "load-generator"}},
            "spec": {
                "template": {
                    "spec": {
                        "initContainers": [container],
                        "containers": [{**container, "name": "ladder", "command": ["bash", "-c", scripts.LADDER]}],
                    }
                }
            },
        },
    }


@pytest.mark.parametrize("below", [0, 1])
def test_our_own_prepare_job_is_read_and_linked(below, monkeypatch):
    monkeypatch.setenv("PULUMI_STACK", "prod")
    monkeypatch.setenv("PULUMI_CONFIG", "{}")
    benchmark = plan(
        buffer_pool_bytes=8 * 2**30,
        load="heavy-oltp",
        max_connections=1000,
        volume_bytes=2**40,
        threads=[8, 16],
        duration_seconds=60,
        warmup_seconds=60,
    )
    data = data_bytes(benchmark.dataset.tables, benchmark.dataset.table_size)
    claim = data_volume_needed(data) - below  # exactly the bound passes, one byte below fails
    database = resolve_resource(
        {
            "base": "pxc",
            "patch": {
                "spec": {"pxc": {"volumeSpec": {"persistentVolumeClaim": {"resources": {"requests": {"storage": str(claim)}}}}}}
            },
        }
    )
    outcome = run_stack(POLICY, [database, _own_job(benchmark)])
    if below:
        assert outcome.rules == ["R7"], outcome.messages
        assert f"writes {data} bytes" in outcome.messages[0] and f"needs {2 * data} bytes" in outcome.messages[0]
        assert f"{benchmark.dataset.tables} tables x {benchmark.dataset.table_size} rows" in outcome.messages[0]
    else:
        assert outcome.messages == []


@pytest.mark.parametrize(
    ("text", "value"),
    [("16", 16.0), ("1e6", 1e6), (" +2.5x", 2.5), ("0x10", 16.0), ("-3", -3.0), ("abc", 0.0), ("", 0.0), (".5", 0.5)],
)
def test_counts_are_read_as_strtod_reads_them(text, value):
    assert strtod(text) == value or (math.isnan(value) and math.isnan(strtod(text)))
