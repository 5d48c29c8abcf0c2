"""Air-gapped installs: chart and CRD sources (database.sources) checked before any resource, and the
Helm releases and CRD ConfigFile registered from them under Pulumi's mocks."""

from __future__ import annotations

import io
import tarfile
from pathlib import Path

import pulumi
import pytest
import yaml
from percona_mysql_k8s.cli import offline
from percona_mysql_k8s.core.errors import InputError
from percona_mysql_k8s.plan.database import versions
from percona_mysql_k8s.plan.database.sources import chart_source, crd_source, image_registry
from percona_mysql_k8s.policies._readers.helm import chart_name
from percona_mysql_k8s.stack.settings import stack_settings_from_config

RELEASE = "kubernetes:helm.sh/v3:Release"
CONFIG_FILE = "kubernetes:yaml/v2:ConfigFile"
PXC = versions.PXC
# Chart.yaml as `helm create` / the Percona charts write it (apiVersion v2, appVersion, keywords...)
CHART_YAML = """apiVersion: v2
appVersion: {version}
description: A Helm chart for deploying the Percona Operator for MySQL (based on Percona XtraDB Cluster)
name: {name}
home: https://docs.percona.com/percona-operator-for-mysql/pxc/
version: {version}
maintainers:
  - name: tplavcic
    email: tomislav.plavcic@percona.com
"""


def chart_dir(root: Path, name: str = PXC.chart, version: str = PXC.chart_version, folder: str | None = None) -> Path:
    directory = root / (folder or name)
    (directory / "templates").mkdir(parents=True)
    (directory / "Chart.yaml").write_text(CHART_YAML.format(name=name, version=version))
    return directory


def chart_archive(root: Path, name: str = PXC.chart, version: str = PXC.chart_version, file: str | None = None) -> Path:
    """A .tgz laid out as `helm package` writes it: <name>/Chart.yaml, <name>/templates/..."""
    path = root / (file or f"{name}-{version}.tgz")
    with tarfile.open(path, "w:gz") as archive:
        for member, text in (
            (f"{name}/Chart.yaml", CHART_YAML.format(name=name, version=version)),
            (f"{name}/values.yaml", "replicaCount: 1\n"),
        ):
            data = text.encode()
            info = tarfile.TarInfo(member)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return path


def crd_file(root: Path, kind: str = PXC.kind, group: str = "pxc.percona.com") -> Path:
    documents = [
        {
            "apiVersion": "apiextensions.k8s.io/v1",
            "kind": "CustomResourceDefinition",
            "metadata": {"name": f"{kind.lower()}s.{group}"},
            "spec": {
                "group": group,
                "names": {"kind": kind, "plural": f"{kind.lower()}s"},
                "scope": "Namespaced",
                "versions": [{"name": "v1", "served": True, "storage": True}],
            },
        },
        {
            "apiVersion": "apiextensions.k8s.io/v1",
            "kind": "CustomResourceDefinition",
            "metadata": {"name": f"{kind.lower()}backups.{group}"},
            "spec": {"group": group, "names": {"kind": f"{kind}Backup"}, "scope": "Namespaced", "versions": []},
        },
    ]
    path = root / "crd.yaml"
    path.write_text(yaml.safe_dump_all(documents))
    return path


# ---- each source kind ------------------------------------------------------------------------------


def test_empty_is_the_public_pinned_chart():
    source = chart_source("operatorChart", "", PXC.chart, PXC.chart_version)
    assert (source.chart, source.version, source.repository) == (PXC.chart, PXC.chart_version, versions.HELM_REPOSITORY)


def test_an_https_repository_mirror_keeps_the_pinned_chart_and_version():
    source = chart_source("operatorChart", "https://nexus.corp.local/repository/percona-helm/", PXC.chart, PXC.chart_version)
    assert (source.chart, source.version, source.repository, source.origin) == (
        PXC.chart,
        PXC.chart_version,
        "https://nexus.corp.local/repository/percona-helm/",
        "mirror",
    )


def test_an_archive_url_is_the_chart_itself():
    url = "https://artifacts.corp.local/charts/pxc-operator-1.20.0.tgz"
    source = chart_source("operatorChart", url, PXC.chart, PXC.chart_version)
    assert (source.chart, source.version, source.repository) == (url, None, None)


def test_an_oci_reference_goes_in_chart_with_the_pinned_version():
    source = chart_source("pmmChart", "oci://harbor.corp.local:8443/percona/pmm", "pmm", "1.8.1")
    assert (source.chart, source.version, source.repository, source.origin) == (
        "oci://harbor.corp.local:8443/percona/pmm",
        "1.8.1",
        None,
        "oci",
    )


def test_a_local_directory_and_archive_of_the_pinned_chart(tmp_path):
    directory = chart_dir(tmp_path / "d")
    archive = chart_archive(tmp_path)
    for path in (directory, archive):
        source = chart_source("operatorChart", str(path), PXC.chart, PXC.chart_version)
        assert (source.chart, source.version, source.repository, source.origin) == (str(path), None, None, "local")
        assert chart_name({"chart": source.chart}) == PXC.chart  # the policy pack still sees which chart it is


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("ftp://mirror.local/charts", "not ftp://"),
        ("s3://bucket/charts/pxc-operator-1.20.0.tgz", "not s3://"),
        ("oci://harbor.corp.local/percona", "must end with the chart's name, /pxc-operator"),
        ("oci://harbor corp/percona/pxc-operator", "not an OCI chart reference"),
        ("charts/pxc-operator", "relative path"),
        ("/nonexistent/charts/pxc-operator-1.20.0.tgz", "does not exist"),
    ],
)
def test_bad_chart_sources_name_the_key(text, says):
    with pytest.raises(InputError) as error:
        chart_source("operatorChart", text, PXC.chart, PXC.chart_version)
    assert error.value.key == "operatorChart" and says in str(error.value)


def test_a_local_chart_must_be_the_pinned_chart_and_version(tmp_path):
    older = chart_archive(tmp_path, version="1.19.0", file="pxc-operator-1.20.0.tgz")
    with pytest.raises(InputError, match=r"operatorChart: .*'pxc-operator' '1.19.0'; this stack pins pxc-operator 1.20.0"):
        chart_source("operatorChart", str(older), PXC.chart, PXC.chart_version)
    other = chart_dir(tmp_path / "o", name="pxc-db", folder="pxc-operator")
    with pytest.raises(InputError, match="'pxc-db'"):
        chart_source("operatorChart", str(other), PXC.chart, PXC.chart_version)
    renamed = chart_dir(tmp_path / "r", folder="operator-chart")
    with pytest.raises(InputError, match="name it pxc-operator"):
        chart_source("operatorChart", str(renamed), PXC.chart, PXC.chart_version)


def test_a_file_that_is_no_chart_is_refused(tmp_path):
    not_a_chart = tmp_path / "pxc-operator-1.20.0.tgz"
    not_a_chart.write_text("<html>404</html>")
    with pytest.raises(InputError, match="operatorChart: .*neither a chart directory nor a chart archive"):
        chart_source("operatorChart", str(not_a_chart), PXC.chart, PXC.chart_version)
    empty_dir = tmp_path / "e" / "pxc-operator"
    empty_dir.mkdir(parents=True)
    with pytest.raises(InputError, match="no Chart.yaml"):
        chart_source("operatorChart", str(empty_dir), PXC.chart, PXC.chart_version)


def test_crds_from_the_public_url_a_mirror_or_a_local_file(tmp_path):
    assert crd_source("operatorCrds", "", PXC) == PXC.crd_url
    mirror = "https://gitea.corp.local/mirror/percona-helm-charts/raw/tag/pxc-operator-1.20.0/charts/pxc-operator/crds/crd.yaml"
    assert crd_source("operatorCrds", mirror, PXC) == mirror
    path = crd_file(tmp_path)
    assert crd_source("operatorCrds", str(path), PXC) == str(path)


def test_bad_crd_sources_name_the_key(tmp_path):
    wrong = crd_file(tmp_path, kind="PerconaServerMySQL", group="ps.percona.com")
    cases = [
        (str(wrong), "does not define PerconaXtraDBCluster"),
        ("git://host/crd.yaml", "not git://"),
        ("crd.yaml", "relative path"),
        (str(tmp_path / "missing.yaml"), "does not exist"),
        (str(tmp_path), "directory"),
    ]
    for text, says in cases:
        with pytest.raises(InputError) as error:
            crd_source("operatorCrds", text, PXC)
        assert error.value.key == "operatorCrds" and says in str(error.value), text
    broken = tmp_path / "broken.yaml"
    broken.write_text("kind: [unclosed\n")
    with pytest.raises(InputError, match="operatorCrds: .*not a YAML file"):
        crd_source("operatorCrds", str(broken), PXC)


def test_image_registry_is_a_host_with_an_optional_path():
    assert image_registry("imageRegistry", "registry.corp.local:5000/dockerhub/") == "registry.corp.local:5000/dockerhub"
    assert image_registry("imageRegistry", "") == ""
    for bad in ("https://registry.corp.local", "registry corp"):
        with pytest.raises(InputError, match="imageRegistry"):
            image_registry("imageRegistry", bad)


# ---- through the stack ----------------------------------------------------------------------------


@pytest.fixture
def gke_values():
    return {key.split(":", 1)[1]: value for key, value in offline.stack_config("gke").items() if key.startswith("percona-mysql:")}


def test_stack_settings_carry_the_sources(tmp_path, gke_values):
    archive = chart_archive(tmp_path)
    crds = crd_file(tmp_path)
    result = stack_settings_from_config(
        {
            **gke_values,
            "operatorChart": str(archive),
            "operatorCrds": str(crds),
            "pmmChart": "oci://harbor.corp.local/percona/pmm",
        }
    )
    assert result.sources.operator_chart.chart == str(archive)
    assert result.sources.operator_crds == str(crds)
    assert result.sources.pmm_chart.chart == "oci://harbor.corp.local/percona/pmm"


def test_default_sources_are_the_public_ones(gke_values):
    result = stack_settings_from_config(gke_values)
    assert result.sources.operator_chart.repository == versions.HELM_REPOSITORY
    assert result.sources.operator_crds == PXC.crd_url


@pytest.mark.parametrize("kind", ["mirror", "oci", "archive-url", "local-dir", "local-tgz"])
def test_the_releases_are_registered_from_the_source(kind, tmp_path):
    operator_chart = {
        "mirror": "https://nexus.corp.local/repository/percona-helm/",
        "oci": "oci://harbor.corp.local/percona/pxc-operator",
        "archive-url": "https://artifacts.corp.local/charts/pxc-operator-1.20.0.tgz",
        "local-dir": str(chart_dir(tmp_path)) if kind == "local-dir" else "",
        "local-tgz": str(chart_archive(tmp_path)) if kind == "local-tgz" else "",
    }[kind]
    pmm_chart = str(chart_archive(tmp_path, name="pmm", version=versions.PMM.chart_version))
    crds = str(crd_file(tmp_path))
    registrations = offline.run_stack(
        "gke", overrides={"operatorChart": operator_chart, "pmmChart": pmm_chart, "operatorCrds": crds}
    )
    operator = next(r for r in registrations if r.type == RELEASE and "operator-release" in r.name).inputs
    pmm = next(r for r in registrations if r.type == RELEASE and "pmm-release" in r.name).inputs
    config_file = next(r for r in registrations if r.type == CONFIG_FILE).inputs
    assert config_file["file"] == crds
    assert pmm["chart"] == pmm_chart and "version" not in pmm and "repositoryOpts" not in pmm
    if kind == "mirror":
        assert (operator["chart"], operator["version"]) == (PXC.chart, PXC.chart_version)
        assert operator["repositoryOpts"]["repo"] == operator_chart
    elif kind == "oci":
        assert (operator["chart"], operator["version"]) == (operator_chart, PXC.chart_version)
        assert "repositoryOpts" not in operator
    else:  # the archive or directory says its version; the check above made sure it is the pinned one
        assert operator["chart"] == operator_chart and "version" not in operator and "repositoryOpts" not in operator


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"operatorChart": "ftp://mirror.local/charts"}, "operatorChart"),
        ({"pmmChart": "/nonexistent/pmm-1.8.1.tgz"}, "pmmChart: /nonexistent/pmm-1.8.1.tgz does not exist"),
        ({"operatorCrds": "relative/crd.yaml"}, "operatorCrds: .*relative path"),
    ],
)
def test_a_bad_source_stops_the_stack_before_any_resource(overrides, message):
    with pytest.raises(pulumi.RunError, match=message):
        offline.run_stack("gke", overrides=overrides)


def _images(value) -> list[str]:
    """Every image a manifest or chart values name (string image or image.repository:tag)."""
    if isinstance(value, list):
        return [image for item in value for image in _images(item)]
    if not isinstance(value, dict):
        return []
    found = []
    for key, item in value.items():
        if key == "image" and isinstance(item, str):
            found.append(item)
        elif key == "image" and isinstance(item, dict) and "repository" in item:
            found.append(f"{item['repository']}:{item.get('tag', '')}")
        else:
            found.extend(_images(item))
    return found


def test_images_already_naming_a_registry_are_left_alone():
    from percona_mysql_k8s.plan.database.sources import mirror_images, mirrored

    assert mirrored("percona/haproxy:2.8.18-1", "registry.corp.local:5000") == "registry.corp.local:5000/percona/haproxy:2.8.18-1"
    assert mirrored("quay.io/jetstack/cert-manager:v1", "registry.corp.local") == "quay.io/jetstack/cert-manager:v1"
    assert mirrored("localhost/sysbench:1", "registry.corp.local") == "localhost/sysbench:1"
    values = {
        "image": {"repository": "percona/pmm-server", "tag": "3.8.1"},
        "containers": [{"image": "alpine/k8s:1.33.4"}],
        "imagePullPolicy": "IfNotPresent",
    }
    assert mirror_images(values, "mirror.local") == {
        "image": {"repository": "mirror.local/percona/pmm-server", "tag": "3.8.1"},
        "containers": [{"image": "mirror.local/alpine/k8s:1.33.4"}],
        "imagePullPolicy": "IfNotPresent",
    }
    assert mirror_images(values, "") is values


@pytest.mark.parametrize("stack", ["gke", "eks"])
def test_an_image_registry_mirror_prefixes_every_image_the_stack_names(stack):
    mirror = "registry.corp.local:5000/dockerhub"
    plain = offline.run_stack(stack)
    mirrored_run = offline.run_stack(stack, overrides={"imageRegistry": mirror})
    before = sorted(image for r in plain for image in _images(r.inputs))
    after = sorted(image for r in mirrored_run for image in _images(r.inputs))
    # every image of the CR (mysql, proxy, pmm-client...), the operator and pmm chart values and the jobs
    assert len(before) >= 6 and len(after) == len(before)
    assert after == sorted(f"{mirror}/{image}" for image in before)


def test_a_bad_image_registry_stops_the_stack():
    with pytest.raises(pulumi.RunError, match="imageRegistry: 'https://registry.corp.local' is not a registry host"):
        offline.run_stack("gke", overrides={"imageRegistry": "https://registry.corp.local"})
