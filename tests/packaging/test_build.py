"""Publish-ready (issue 22 §6): ``python -m build`` makes a wheel and an sdist that ``twine check`` accepts, and
they hold what the distribution promises (marker ``clean_venv``: the build's isolated environment comes from PyPI).
"""

from __future__ import annotations

import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import percona_mysql_k8s
import pytest

pytestmark = pytest.mark.clean_venv


@pytest.fixture(scope="module")
def dist(distribution_source, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    built = subprocess.run(
        [sys.executable, "-m", "build", "--outdir", str(out), str(distribution_source)],
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    return out


def test_build_makes_a_wheel_and_an_sdist_that_twine_accepts(dist):
    version = percona_mysql_k8s.__version__
    names = sorted(path.name for path in dist.iterdir())
    assert names == [f"percona_mysql_k8s-{version}-py3-none-any.whl", f"percona_mysql_k8s-{version}.tar.gz"]
    checked = subprocess.run(
        [sys.executable, "-m", "twine", "check", "--strict", *map(str, sorted(dist.iterdir()))],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert checked.stdout.count("PASSED") == 2


def test_the_wheel_holds_the_package_its_type_hints_and_the_packs_shell(dist):
    (wheel,) = dist.glob("*.whl")
    files = set(zipfile.ZipFile(wheel).namelist())
    assert {
        "percona_mysql_k8s/py.typed",
        "percona_mysql_k8s/policies/pack/PulumiPolicy.yaml",
        "percona_mysql_k8s/policies/pack/__main__.py",
        "percona_mysql_k8s/policies/pack/requirements.txt",
        "percona_mysql_k8s/stack/components/__init__.py",
    } <= files
    assert not [name for name in files if name.startswith("tests/") or name.endswith(".pyc")]
    metadata = zipfile.ZipFile(wheel).read(f"percona_mysql_k8s-{percona_mysql_k8s.__version__}.dist-info/METADATA").decode()
    assert "Description-Content-Type: text/markdown" in metadata
    for extra in ("gke", "eks", "kind", "existing", "all"):
        assert f"Provides-Extra: {extra}" in metadata
    assert "License-Expression: Apache-2.0" in metadata


def test_the_sdist_holds_the_sources_license_and_readme(dist):
    (sdist,) = dist.glob("*.tar.gz")
    root = f"percona_mysql_k8s-{percona_mysql_k8s.__version__}"
    names = set(tarfile.open(sdist).getnames())
    assert {
        f"{root}/pyproject.toml",
        f"{root}/README.md",
        f"{root}/LICENSE",
        f"{root}/PKG-INFO",
        f"{root}/modules/percona_mysql_k8s/__init__.py",
        f"{root}/modules/percona_mysql_k8s/py.typed",
    } <= names
