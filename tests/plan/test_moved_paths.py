"""Old module paths (before the plan layer, issue 23) keep working for one release: a name read from one is
the object of its new home, and the read warns with a DeprecationWarning naming that home."""

from __future__ import annotations

import importlib
import warnings

import pytest
from percona_mysql_k8s import _moved

# (old module, a public name it had, the module that defines it now)
MOVED = [
    ("percona_mysql_k8s.clusters.settings", "cluster_settings_from_config", "percona_mysql_k8s.plan.clusters.decide"),
    ("percona_mysql_k8s.clusters.settings", "check_bounds", "percona_mysql_k8s.plan.clusters.decide"),
    ("percona_mysql_k8s.clusters.settings", "ClusterSettings", "percona_mysql_k8s.plan.clusters.shape"),
    ("percona_mysql_k8s.clusters.settings", "CONFIG_KEYS", "percona_mysql_k8s.plan.clusters.keys"),
    ("percona_mysql_k8s.clusters.settings", "TARGET_KEYS", "percona_mysql_k8s.plan.clusters.keys"),
    ("percona_mysql_k8s.clusters.settings", "host_resources", "percona_mysql_k8s.plan.clusters.kind"),
    ("percona_mysql_k8s.clusters.settings", "kind_host_from_config", "percona_mysql_k8s.plan.clusters.kind"),
    ("percona_mysql_k8s.clusters.settings", "spread_over_zones", "percona_mysql_k8s.plan.clusters.gke"),
    ("percona_mysql_k8s.clusters.settings", "EKS_VERSIONS", "percona_mysql_k8s.plan.clusters.eks"),
    ("percona_mysql_k8s.clusters.settings", "EXISTING_NODE_SOURCES", "percona_mysql_k8s.plan.clusters.existing"),
    ("percona_mysql_k8s.clusters.inventory", "read_cluster", "percona_mysql_k8s.plan.clusters.inventory"),
    ("percona_mysql_k8s.database.manifests", "custom_resource", "percona_mysql_k8s.plan.database.manifests"),
    ("percona_mysql_k8s.database.versions", "PXC", "percona_mysql_k8s.plan.database.versions"),
    ("percona_mysql_k8s.stack.backup_settings", "backup_settings", "percona_mysql_k8s.plan.config.backup"),
    ("percona_mysql_k8s.stack.backup_settings", "BackupSettings", "percona_mysql_k8s.plan.config.backup"),
    ("percona_mysql_k8s.stack.backup_settings", "BACKUP_KEYS", "percona_mysql_k8s.plan.config.keys"),
    ("percona_mysql_k8s.stack.kind_fit", "fit", "percona_mysql_k8s.plan.config.kind_fit"),
    ("percona_mysql_k8s.stack.settings", "database_spec_from_config", "percona_mysql_k8s.plan.config.sections"),
    ("percona_mysql_k8s.stack.settings", "BackupSettings", "percona_mysql_k8s.plan.config.backup"),
]


@pytest.mark.parametrize(("old", "name", "home"), MOVED, ids=[f"{old}.{name}" for old, name, _ in MOVED])
def test_an_old_path_returns_the_new_object_and_warns(old, name, home):
    module = importlib.import_module(old)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        found = getattr(module, name)
    assert found is getattr(importlib.import_module(home), name)
    assert [str(w.message) for w in caught if w.category is DeprecationWarning] == [
        f"{old}.{name} moved to {home}.{name}; the old path is removed in {_moved.REMOVED_IN}"
    ]


def test_the_stack_settings_reexport_the_decoders_entry_without_a_warning():
    """The stack program, the component package and the docs read these from stack.settings: the plan's objects."""
    from percona_mysql_k8s import plan
    from percona_mysql_k8s.stack import settings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for name in settings.__all__:
            assert getattr(settings, name) is getattr(plan.config, name), name


def test_a_name_that_never_existed_is_an_attribute_error():
    module = importlib.import_module("percona_mysql_k8s.clusters.settings")
    with pytest.raises(AttributeError, match="no attribute 'no_such_name'"):
        module.no_such_name  # noqa: B018


def test_the_cluster_components_import_the_plan_not_the_old_path():
    """The components and the stack read the new home: no DeprecationWarning from the project's own code."""
    import subprocess
    import sys

    script = (
        "import warnings; warnings.simplefilter('error', DeprecationWarning);"
        "import percona_mysql_k8s.clusters, percona_mysql_k8s.stack.settings, percona_mysql_k8s.plan.clusters"
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=False, timeout=120)
    assert result.returncode == 0, result.stderr
