"""The tools' old module paths (percona_mysql_k8s._moved): each still works for one release, warning with its new path."""

from __future__ import annotations

import importlib
import subprocess
import sys
import warnings
from pathlib import Path

import percona_mysql_k8s
import pytest
from packaging.version import Version
from percona_mysql_k8s import _moved

PACKAGE = Path(percona_mysql_k8s.__file__).resolve().parent
MOVED = sorted(_moved.MOVED.items())
COMMANDS = [(old, new) for old, new in MOVED if hasattr(importlib.import_module(new), "main")]  # python -m OLD runs them


def _module_file(name: str) -> Path:
    return PACKAGE.joinpath(*name.split(".")[1:]).with_suffix(".py")


@pytest.mark.parametrize(("old", "new"), MOVED)
def test_the_old_path_is_the_new_module_and_warns_naming_it(old, new):
    saved = sys.modules.pop(old, None)
    try:
        with pytest.warns(DeprecationWarning, match=rf"^{old} moved to {new}: use the new path \(the old one is removed in "):
            module = importlib.import_module(old)
        assert module is importlib.import_module(new)  # every name, private ones too, and every monkeypatch
        assert getattr(importlib.import_module(old.rsplit(".", 1)[0]), old.rsplit(".", 1)[1]) is module
    finally:
        if saved is not None:
            sys.modules[old] = saved


@pytest.mark.parametrize(("old", "new"), MOVED)
def test_the_warning_points_at_the_importer_not_the_shim(old, new):
    code = f"import warnings; warnings.simplefilter('error', DeprecationWarning)\nimport {old}\n"
    completed = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert completed.returncode == 1
    assert f"DeprecationWarning: {old} moved to {new}" in completed.stderr
    assert 'File "<string>", line 2' in completed.stderr  # the line that imported the old path


@pytest.mark.parametrize(("old", "new"), COMMANDS)
def test_python_dash_m_on_the_old_path_runs_the_command_and_says_where_it_went(old, new):
    completed = subprocess.run([sys.executable, "-m", old, "--help"], capture_output=True, text=True, timeout=120)
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.startswith("usage: percona-mysql-")
    assert f"DeprecationWarning: {old} moved to {new}" in completed.stderr  # shown: the warning is __main__'s own


def test_every_shim_is_listed_and_every_listed_one_is_a_shim():
    assert {old for old, _ in COMMANDS} == {
        "percona_mysql_k8s.policies.check",
        "percona_mysql_k8s.policies.bundle",
        "percona_mysql_k8s.restore",
    }  # the three the docs ran with python -m
    shims = {
        ".".join(("percona_mysql_k8s", *path.relative_to(PACKAGE).with_suffix("").parts))
        for path in PACKAGE.rglob("*.py")
        if "_moved.alias(" in path.read_text()
    }
    assert shims == set(_moved.MOVED)
    for old, new in MOVED:
        assert len(_module_file(old).read_text().splitlines()) <= 15, f"{old} is more than a shim"
        assert importlib.util.find_spec(new) is not None


def test_an_unlisted_alias_is_refused():
    spec = importlib.util.find_spec("percona_mysql_k8s.core")
    with warnings.catch_warnings(), pytest.raises(AssertionError, match="is not listed in percona_mysql_k8s._moved.MOVED"):
        warnings.simplefilter("ignore")
        _moved.alias(spec, importlib.import_module("percona_mysql_k8s.cli.check"), running=True)


def test_the_shims_go_in_the_release_they_announce():
    assert Version(percona_mysql_k8s.__version__) < Version(_moved.REMOVED_IN), (
        f"version {percona_mysql_k8s.__version__}: delete the shims of percona_mysql_k8s._moved.MOVED (and MOVED, and this test)"
    )
