"""The Galera tier: the sizing command's my.cnf on three real mariadbd with Galera 4 (docs/galera.md).

``scripts/galera.sh run-tier`` installs the packages when missing and sets ``GALERA_TIER=1``; without it every
test here is skipped with the command to run. With it, a missing server, provider or sysbench is an error, so
CI cannot pass by skipping. ``GALERA_TIER_WORKDIR`` is where the datadirs go (the script makes it and removes
it); ``GALERA_TIER_OUT`` where the measured figures are written (default ~/.cache/percona-mysql-k8s/galera-tier).
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from galera_cluster import GaleraCluster, galera_library, running_cluster
from percona_mysql_k8s.core.mycnf import PROVIDER_OPTIONS
from percona_mysql_k8s.grade.dialect import MARIADB, translate
from percona_mysql_k8s.grade.sizing_file import read_sizing
from workload import SIZING_ARGS

TOOLS = ("mariadbd", "mariadb-install-db", "sysbench", "rsync")


def pytest_collection_modifyitems(items):
    if os.environ.get("GALERA_TIER") == "1":
        return
    skip = pytest.mark.skip(reason="the Galera tier runs real mariadbd servers: run `scripts/galera.sh run-tier`")
    for item in items:
        if item.get_closest_marker("galera"):
            item.add_marker(skip)


@pytest.fixture(scope="session")
def out_dir() -> Path:
    path = Path(os.environ.get("GALERA_TIER_OUT") or Path.home() / ".cache" / "percona-mysql-k8s" / "galera-tier")
    path.mkdir(parents=True, exist_ok=True)
    return path


@pytest.fixture(scope="session")
def sizing_file(out_dir) -> Path:
    """The sizing command's own JSON, as a user would write it (the grader reads the same file)."""
    result = subprocess.run(
        [sys.executable, "-m", "percona_mysql_k8s.sizing", *SIZING_ARGS], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    path = out_dir / "sizing.json"
    path.write_text(result.stdout)
    return path


@pytest.fixture(scope="session")
def sizing(sizing_file):
    return read_sizing(sizing_file.read_text(), str(sizing_file))


@pytest.fixture(scope="session")
def sizing_json(sizing_file) -> dict:
    return json.loads(sizing_file.read_text())


@pytest.fixture(scope="session")
def translation(sizing):
    return translate(sizing.mysqld, MARIADB)


@pytest.fixture(scope="session")
def cluster(translation, out_dir):
    missing = [tool for tool in TOOLS if shutil.which(tool) is None] + ([] if galera_library() else ["libgalera_smm.so"])
    if missing:
        pytest.fail(f"missing {', '.join(missing)}: run `scripts/galera.sh install`", pytrace=False)
    base = os.environ.get("GALERA_TIER_WORKDIR") or tempfile.mkdtemp(prefix="percona-galera-tier-")
    options = dict(translation.options)
    provider = options.pop(PROVIDER_OPTIONS)
    print("\nMariaDB option names (sizing -> server):", ", ".join(f"{k} -> {v}" for k, v in translation.renamed.items()))
    print("skipped for MariaDB:\n  " + "\n  ".join(str(skip) for skip in translation.skipped))
    galera = GaleraCluster(Path(base) / "cluster", options, provider, user="tier", password=secrets.token_urlsafe(18))
    with running_cluster(galera):
        yield galera
    for member in galera.members:  # kept for the CI log: the datadirs go with the work directory
        if member.error_log.exists():
            shutil.copy(member.error_log, out_dir / f"{member.name}-error.log")
    galera.remove()
