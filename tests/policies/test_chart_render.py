"""Chart values as the pinned chart renders them, checked against ``helm template`` of the real archives.

For each set of values (other people's: keys the chart ignores, components it does not render for the
topology, numbers Helm prints in Go's notation, strings YAML 1.1 reads as booleans) the custom resource
chart_render computes must be, key for key, what Helm renders; and the policies must give a chart release
the verdicts they give the custom resource Helm renders from it. Marked ``helm``: it needs Helm 3.19 and
the chart archives (scripts/fetch-reference.sh).
"""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import tarfile
from pathlib import Path
from typing import Any

import pytest
import yaml
from harness import run_resource
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from oracles import oracle_missing
from percona_mysql_k8s.policies._catalog import MODULES
from percona_mysql_k8s.policies._readers.chart_render import render_ps_db, render_pxc_db
from percona_mysql_k8s.policies._readers.helm_template import yaml_scalar
from percona_mysql_k8s.policies._readers.values import Unrenderable, deep_merge
from reference_material.resolve import reference_path

pytestmark = pytest.mark.helm

ARCHIVES = {"pxc-db": "pxc-db-1.20.0.tgz", "ps-db": "ps-db-1.1.0.tgz"}
KINDS = {"pxc-db": "PerconaXtraDBCluster", "ps-db": "PerconaServerMySQL"}
RENDER = {"pxc-db": (render_pxc_db, "1.20.0"), "ps-db": (render_ps_db, "1.1.0")}
INSTALL = "GOBIN=~/.cache/go-tools/bin go install helm.sh/helm/v3/cmd/helm@v3.19.2"


def _helm() -> str:
    found = shutil.which("helm") or str(Path.home() / ".cache/go-tools/bin/helm")
    if not os.access(found, os.X_OK):
        oracle_missing(f"helm is not installed: {INSTALL}")
    return found


def _archive(chart: str) -> Path:
    return reference_path(f"charts/{ARCHIVES[chart]}")  # verified, or a skip naming scripts/fetch-reference.sh


def _chart_defaults(chart: str) -> dict:
    with tarfile.open(_archive(chart)) as archive:
        return yaml.safe_load(archive.extractfile(f"{chart}/values.yaml").read())


def _v2(node: yaml.Node) -> Any:
    """A YAML node as Helm's decoder (yaml.v2) reads it: plain scalars resolved by its rules, quoted ones text."""
    if isinstance(node, yaml.MappingNode):
        return {_v2(key): _v2(value) for key, value in node.value}
    if isinstance(node, yaml.SequenceNode):
        return [_v2(item) for item in node.value]
    return yaml_scalar(node.value) if node.style is None else node.value


def helm_render(chart: str, values: dict) -> dict | str:
    """The custom resource ``helm template`` renders, or Helm's error."""
    completed = subprocess.run(
        [_helm(), "template", "t", str(_archive(chart)), "-f", "-"],
        input=json.dumps(values),
        capture_output=True,
        text=True,
        timeout=120,
    )
    if completed.returncode != 0:
        return completed.stderr.strip()
    for document in yaml.compose_all(io.StringIO(completed.stdout)):
        if document is not None:
            obj = _v2(document)
            if obj.get("kind") == KINDS[chart]:
                return obj
    raise AssertionError(f"no {KINDS[chart]} in the rendered chart")


def ours(chart: str, values: dict) -> dict:
    function, version = RENDER[chart]
    return function(deep_merge(_chart_defaults(chart), json.loads(json.dumps(values))), version, "t")


def _unrenderable(value: Any) -> bool:
    if isinstance(value, Unrenderable):
        return True
    if isinstance(value, dict):
        return any(_unrenderable(item) for item in value.values())
    if isinstance(value, list):
        return any(_unrenderable(item) for item in value)
    return False


def assert_same(mine: Any, theirs: Any, where: str) -> None:
    """Every key chart_render writes is Helm's, with Helm's value (nothing invented, nothing different)."""
    if isinstance(mine, dict):
        assert isinstance(theirs, dict), (where, mine, theirs)
        for key, value in mine.items():
            assert key in theirs, f"{where}.{key} is not rendered by the chart"
            assert_same(value, theirs[key], f"{where}.{key}")
        return
    if mine is None:  # toYaml of nothing: null, or an empty block the YAML reader reads as null
        assert theirs in (None, {}, []), (where, theirs)
        return
    if isinstance(mine, str) and isinstance(theirs, str):
        assert mine.rstrip("\n") == theirs.rstrip("\n"), (where, mine, theirs)
        return
    assert mine == theirs, (where, mine, theirs)


CASES = {
    "pxc-db": [
        {},
        {
            "pxc": {
                "disableTLS": True,
                "noSuchKey": 1,
                "size": 5,
                "gracePeriod": 1000000,
                "readinessDelaySec": 15.5,
                "configuration": "[mysqld]\nmax_connections=100\n",
            }
        },  # ignored keys; 1e+06 printed by Go
        {"proxysql": {"enabled": True}, "haproxy": {"enabled": True}},  # the chart turns HAProxy off
        {"backup": {"enabled": False}, "logcollector": {"enabled": False}, "pmm": {"enabled": True, "serverHost": "on"}},
        {
            "backup": {
                "pitr": {"enabled": True, "storageName": "s3-us", "timeBetweenUploads": 60},
                "storages": {
                    "s3-us": {"type": "s3", "s3": {"bucket": "b", "credentialsAccessKey": "A", "credentialsSecretKey": "S"}}
                },
            }
        },
        {"pxc": {"configuration": '[mysqld]\ninnodb_buffer_pool_size={{ "{{containerMemoryLimit * 3 / 4}}" }}\n'}},
        {
            "pxc": {
                "persistence": {"enabled": True, "storageClass": "-", "size": "50Gi"},
                "nodeSelector": {"pool": "db"},
                "tolerations": [{"key": "pool", "operator": "Exists"}],
            },
            "tls": {"enabled": False},
            "unsafeFlags": {"tls": True},
        },
    ],
    "ps-db": [
        {},
        {"crVersion": "9.9.9", "mysql": {"clusterType": "async", "size": 3}},  # crVersion is the chart's
        {"mysql": {"clusterType": "async"}, "orchestrator": {"enabled": True, "size": 3}},
        {"proxy": {"router": {"enabled": True}, "haproxy": {"enabled": False}}},  # router only with GR
        {"mysql": {"clusterType": "async"}, "proxy": {"router": {"enabled": True}}},
        {"mysql": {"volumeSpec": {"persistentVolumeClaim": {"resources": {"requests": {"storage": "10Gi"}}}}}},  # CR spelling
        {"mysql": {"volumeSpec": {"pvc": {"resources": {"requests": {"storage": "10Gi"}}}}, "gracePeriod": 600}},
        {"backup": {"enabled": True, "pitr": {"enabled": True}, "storages": {"s3": {"type": "s3"}}}, "pmm": {"enabled": True}},
    ],
}


@pytest.mark.parametrize(
    ("chart", "values"),
    [(chart, values) for chart, cases in CASES.items() for values in cases],
    ids=lambda item: json.dumps(item)[:60] if isinstance(item, dict) else item,
)
def test_the_rendered_custom_resource_is_helms(chart, values):
    theirs = helm_render(chart, values)
    mine = ours(chart, values)
    assert not isinstance(theirs, str), theirs
    assert_same(mine["spec"], theirs["spec"], "spec")
    assert mine["finalizers"] == theirs["metadata"].get("finalizers")


def test_a_template_action_helm_cannot_render_is_unrenderable_and_helm_fails():
    values = {"pxc": {"configuration": "[mysqld]\ninnodb_buffer_pool_size={{containerMemoryLimit * 3 / 4}}\n"}}
    assert isinstance(helm_render("pxc-db", values), str)  # function "containerMemoryLimit" not defined
    assert _unrenderable(ours("pxc-db", values)["spec"]["pxc"]["configuration"])


def test_an_image_string_in_ps_db_values_fails_the_chart_and_the_reader():
    values = {"mysql": {"image": "percona/percona-server:8.4.8-8.1"}}
    assert "can't evaluate field repository" in helm_render("ps-db", values)
    assert _unrenderable(ours("ps-db", values)["spec"]["mysql"]["image"])


SCALARS = st.one_of(
    st.integers(-10, 2_000_000),
    st.floats(-1e7, 1e7, allow_nan=False, allow_infinity=False),
    st.sampled_from(["on", "off", "yes", "no", "~", "1e3", "010", "0x1F", "3.0", "text", "", "null"]),
    st.booleans(),
)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.dictionaries(
        st.sampled_from(
            [
                "size",
                "readinessDelaySec",
                "livenessDelaySec",
                "gracePeriod",
                "autoRecovery",
                "priorityClassName",
                "sstRetryCount",
                "schedulerName",
            ]
        ),
        SCALARS,
        max_size=4,
    )
)
def test_printed_values_read_back_as_helm_reads_them(pxc):
    theirs = helm_render("pxc-db", {"pxc": pxc})
    mine = ours("pxc-db", {"pxc": pxc})
    if isinstance(theirs, str):
        assert _unrenderable(mine["spec"]["pxc"]), theirs
        return
    assert_same(mine["spec"]["pxc"], theirs["spec"]["pxc"], "spec.pxc")


RESOURCE_POLICIES = [module.POLICY for module in MODULES if module.SPEC.applies_to is not None]
CR_TYPES = {
    "pxc-db": "kubernetes:pxc.percona.com/v1:PerconaXtraDBCluster",
    "ps-db": "kubernetes:ps.percona.com/v1:PerconaServerMySQL",
}
CHART_ONLY = {"S1"}  # passwords in values are judged on the values themselves, which hold more than the CR
# C1 judges a custom resource against its CRD as the API server does; chart values are another format (helm renders
# them, and helm's install is what the API server answers). Here the question is whether the policies read a release
# as they read the CR helm renders from it, so the CR leg is read as if admitted, and C1 is left out.
CR_ONLY = {"C1"}


@pytest.mark.parametrize(
    ("chart", "values"),
    [(chart, values) for chart, cases in CASES.items() for values in cases[:4]],
    ids=lambda item: json.dumps(item)[:60] if isinstance(item, dict) else item,
)
def test_a_release_gets_the_verdicts_of_the_custom_resource_helm_renders(chart, values, monkeypatch):
    rendered = helm_render(chart, values)
    assert not isinstance(rendered, str), rendered
    release = {"chart": chart, "version": RENDER[chart][1], "values": values}
    monkeypatch.setattr("percona_mysql_k8s.policies._subjects.admission", lambda resource_type, props: None)
    for policy in RESOURCE_POLICIES:
        as_release = run_resource(policy, "kubernetes:helm.sh/v3:Release", release, name="db")
        as_cr = run_resource(policy, CR_TYPES[chart], {"metadata": rendered["metadata"], "spec": rendered["spec"]}, name="db")
        rules = (
            {m.split(":", 1)[0] for m in as_release.messages} - CHART_ONLY - CR_ONLY,
            {m.split(":", 1)[0] for m in as_cr.messages} - CHART_ONLY - CR_ONLY,
        )
        assert rules[0] == rules[1], (policy.name, as_release.messages, as_cr.messages)
