"""S4's identity check as a pure function: what the last deployment exported against the new config."""

from __future__ import annotations

import pytest
from percona_mysql_k8s.core.errors import InputError
from percona_mysql_k8s.stack.identity import check_identity, identity_changes

CURRENT = {"engine": "pxc", "name": "db1", "namespace": "mysql", "storageSize": "200Gi"}


@pytest.mark.parametrize("previous", [None, {}, "not a mapping", {"members": 3}])
def test_nothing_to_compare_passes(previous):
    assert identity_changes(previous, CURRENT) == []
    check_identity(previous, CURRENT, ephemeral=False)


def test_each_identity_key_is_named_by_its_config_key():
    previous = {"engine": "group-replication", "name": "db0", "namespace": "db"}
    assert identity_changes(previous, CURRENT) == [("engine", "group-replication", "pxc"), ("dbClusterName", "db0", "db1"),
                                                   ("namespace", "db", "mysql")]
    with pytest.raises(InputError, match="^S4: engine: changing it from 'group-replication' to 'pxc'"):
        check_identity(previous, CURRENT, ephemeral=False)
    check_identity(previous, CURRENT, ephemeral=True)  # a disposable database may become anything


@pytest.mark.parametrize("before,allowed", [
    ("200Gi", True),
    ("214748364800", True),  # 200Gi in plain bytes, as `kubectl get pvc -o yaml` may show it
    ("200G", True),          # 200e9 bytes < 200Gi = 214748364800 bytes
    ("0.25Ti", False),       # 256Gi > 200Gi
    ("201Gi", False),
])
def test_storage_size_is_compared_as_a_quantity(before, allowed):
    previous = {**CURRENT, "storageSize": before}
    if allowed:
        check_identity(previous, CURRENT, ephemeral=False)
    else:
        with pytest.raises(InputError, match="^S4: storageSize: '200Gi' is smaller than"):
            check_identity(previous, CURRENT, ephemeral=False)
