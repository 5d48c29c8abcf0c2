"""The operator release's values as the pinned pxc-operator chart renders them (``helm template`` of the real archive):
the operator's container gets ``DISABLE_TELEMETRY=true``, so it never calls Percona's version service (the stack
pins every version; on an air-gapped cluster that call fails with an ERROR at every start, which the engine tier,
running the real operator with the chart's environment, found). Marked ``helm``: Helm 3.19 and the chart archive."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml
from oracles import oracle_missing
from percona_mysql_k8s.database.operator import OperatorArgs, helm_values
from percona_mysql_k8s.plan.database import versions
from reference_material.resolve import reference_path

from .fixtures import gke_pools
from .harness import collect, target

pytestmark = pytest.mark.helm


def _helm() -> str:
    found = shutil.which("helm") or str(Path.home() / ".cache/go-tools/bin/helm")
    if not os.access(found, os.X_OK):
        oracle_missing("helm is not installed: GOBIN=~/.cache/go-tools/bin go install helm.sh/helm/v3/cmd/helm@v3.19.2")
    return found


def _values() -> dict:
    found = {}

    def program():
        database, monitoring_pool = gke_pools()
        found.update(helm_values(versions.PXC, OperatorArgs("pxc", "mysql", target(database, monitoring_pool))))

    collect(program)
    return found


def test_the_operator_chart_renders_the_operator_without_telemetry():
    values = _values()
    archive = reference_path(f"charts/pxc-operator-{versions.PXC.chart_version}.tgz")
    rendered = subprocess.run(
        [_helm(), "template", "pxc-operator", str(archive), "-f", "-"],
        input=json.dumps(values),
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    ).stdout
    deployment = next(d for d in yaml.safe_load_all(rendered) if d and d.get("kind") == "Deployment")
    container = deployment["spec"]["template"]["spec"]["containers"][0]
    env = {item["name"]: item.get("value") for item in container["env"]}
    assert env["DISABLE_TELEMETRY"] == "true", env
    # and without the stack's value the chart turns it on: the value is what decides
    default = subprocess.run(
        [_helm(), "template", "pxc-operator", str(archive)], capture_output=True, text=True, timeout=120, check=True
    ).stdout
    assert 'name: DISABLE_TELEMETRY\n              value: "false"' in default
