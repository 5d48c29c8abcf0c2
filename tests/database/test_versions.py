"""Pinned versions agree with the reference files they were taken from."""

from __future__ import annotations

import yaml
from percona_mysql_k8s.plan.database import versions

from . import crd


def _release_versions(name: str) -> dict[str, str]:
    lines = crd.reference_file(name).read_text().splitlines()
    return dict(line.split("=", 1) for line in lines if "=" in line and not line.startswith("#"))


def test_pxc_images_come_from_the_pxc_db_chart():
    values = yaml.safe_load(crd.reference_file("helm-pxc-db-1.20.0-values.yaml").read_text())
    chart = yaml.safe_load(crd.reference_file("helm-pxc-operator-1.20.0-Chart.yaml").read_text())
    pxc = versions.PXC
    assert (chart["name"], chart["version"], str(chart["appVersion"])) == (pxc.chart, pxc.chart_version, pxc.cr_version)
    assert values["crVersion"] == pxc.cr_version
    image = values["pxc"]["image"]
    assert pxc.image("8.4", "mysql") == f"{image['repository']}:{image['tag']}"
    assert pxc.image("8.4", "haproxy") == values["haproxy"]["image"]
    assert pxc.image("8.4", "proxysql") == values["proxysql"]["image"]
    assert pxc.image("8.4", "logcollector") == values["logcollector"]["image"]
    assert pxc.image("8.4", "pmm-client") == f"{values['pmm']['image']['repository']}:{values['pmm']['image']['tag']}"
    assert pxc.image("8.4", "backup") == f"{values['backup']['image']['repository']}:{values['backup']['image']['tag']}"
    assert pxc.operator_tag == pxc.cr_version


def test_pxc_80_images_come_from_the_operators_release_list():
    listed = _release_versions("pxc-operator-v1.19.0-release_versions.txt")
    assert versions.PXC.image("8.0", "mysql") == listed["IMAGE_PXC80"]
    assert versions.PXC.image("8.0", "backup") == listed["IMAGE_BACKUP80"]


def test_ps_images_come_from_the_release_list():
    listed = _release_versions("ps-operator-v1.2.0-release_versions.txt")
    ps = versions.PS
    assert ps.operator_image == listed["IMAGE_OPERATOR"]
    for version, suffix in (("8.4", "84"), ("8.0", "80")):
        assert ps.image(version, "mysql") == listed[f"IMAGE_MYSQL{suffix}"]
        assert ps.image(version, "router") == listed[f"IMAGE_ROUTER{suffix}"]
        assert ps.image(version, "backup") == listed[f"IMAGE_BACKUP{suffix}"]
        assert ps.image(version, "haproxy") == listed["IMAGE_HAPROXY"]
        assert ps.image(version, "orchestrator") == listed["IMAGE_ORCHESTRATOR"]
        assert ps.image(version, "pmm-client") == listed["IMAGE_PMM_CLIENT"]
    assert listed["IMAGE_PMM_SERVER"] == versions.PMM.server_image
    assert versions.BINLOG_SERVER_IMAGE == listed["IMAGE_BINLOG_SERVER"]  # PITR's binlog server (R2)


def test_pmm_chart_and_client_majors_match():
    chart = yaml.safe_load(crd.reference_file("helm-pmm-1.8.1-Chart.yaml").read_text())
    assert (chart["name"], chart["version"], str(chart["appVersion"])) == (
        versions.PMM.chart,
        versions.PMM.chart_version,
        versions.PMM.server_tag,
    )
    for release in versions.OPERATORS.values():
        for version in release.images:
            assert versions.image_major(release.image(version, "pmm-client")) == versions.PMM.major  # S5


def test_crd_references_hold_the_kinds_the_crs_use():
    for release in versions.OPERATORS.values():
        assert crd.schema(release.reference_crd, release.kind)
        assert release.api_version.endswith("/v1")
        assert release.crd_url.startswith("https://raw.githubusercontent.com/percona/") and release.crd_url.endswith("crd.yaml")
        assert release.cr_version in release.crd_url
