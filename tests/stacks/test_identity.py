"""S4's identity check as a pure function: what the last deployment exported against the new config."""

from __future__ import annotations

import pytest
from percona_mysql_k8s.core.errors import InputError
from percona_mysql_k8s.stack import identity
from percona_mysql_k8s.stack.identity import check_identity, identity_changes

CURRENT = {"engine": "pxc", "name": "db1", "namespace": "mysql", "storageSize": "200Gi"}


@pytest.mark.parametrize("previous", [None, {}, "not a mapping", {"members": 3}])
def test_nothing_to_compare_passes(previous):
    assert identity_changes(previous, CURRENT) == []
    check_identity(previous, CURRENT, ephemeral=False)


def test_each_identity_key_is_named_by_its_config_key():
    previous = {"engine": "group-replication", "name": "db0", "namespace": "db"}
    assert identity_changes(previous, CURRENT) == [
        ("engine", "group-replication", "pxc"),
        ("dbClusterName", "db0", "db1"),
        ("namespace", "db", "mysql"),
    ]
    with pytest.raises(InputError, match="^S4: engine: changing it from 'group-replication' to 'pxc'"):
        check_identity(previous, CURRENT, ephemeral=False)
    check_identity(previous, CURRENT, ephemeral=True)  # a disposable database may become anything


@pytest.mark.parametrize(
    "before,allowed",
    [
        ("200Gi", True),
        ("214748364800", True),  # 200Gi in plain bytes, as `kubectl get pvc -o yaml` may show it
        ("200G", True),  # 200e9 bytes < 200Gi = 214748364800 bytes
        ("0.25Ti", False),  # 256Gi > 200Gi
        ("201Gi", False),
    ],
)
def test_storage_size_is_compared_as_a_quantity(before, allowed):
    previous = {**CURRENT, "storageSize": before}
    if allowed:
        check_identity(previous, CURRENT, ephemeral=False)
    else:
        with pytest.raises(InputError, match="^S4: storageSize: '200Gi' is smaller than"):
            check_identity(previous, CURRENT, ephemeral=False)


class _FlakyBackend:
    """``pulumi.runtime.invoke`` of readStackOutputs failing ``failures`` times first, as a self-managed backend
    does when the read meets the engine's write of the same checkpoint ("failed to load checkpoint: EOF")."""

    def __init__(self, failures: int):
        self.failures, self.calls = failures, 0

    def __call__(self, token, args):
        self.calls += 1
        assert token == identity.READ_STACK_OUTPUTS
        if self.calls <= self.failures:
            raise Exception("invocation of pulumi:pulumi:readStackOutputs returned an error: failed to load checkpoint: EOF")
        return type("InvokeResult", (), {"value": {"outputs": {"database": {"engine": "pxc"}}}})()


def test_a_read_of_the_last_outputs_that_fails_for_a_moment_is_tried_again(monkeypatch):
    backend = _FlakyBackend(failures=identity.READ_ATTEMPTS - 1)
    monkeypatch.setattr(identity.pulumi.runtime, "invoke", backend)
    monkeypatch.setattr(identity.pulumi, "get_organization", lambda: "organization")
    monkeypatch.setattr(identity.pulumi, "get_project", lambda: "percona-mysql")
    monkeypatch.setattr(identity.pulumi, "get_stack", lambda: "existing")
    assert identity.own_previous_outputs(pause=0) == {"database": {"engine": "pxc"}}
    assert backend.calls == identity.READ_ATTEMPTS


def test_a_read_that_keeps_failing_stops_with_s4(monkeypatch):
    backend = _FlakyBackend(failures=identity.READ_ATTEMPTS)
    monkeypatch.setattr(identity.pulumi.runtime, "invoke", backend)
    monkeypatch.setattr(identity.pulumi, "get_organization", lambda: "organization")
    monkeypatch.setattr(identity.pulumi, "get_project", lambda: "percona-mysql")
    monkeypatch.setattr(identity.pulumi, "get_stack", lambda: "existing")
    with pytest.raises(InputError) as error:
        identity.own_previous_outputs(pause=0)
    assert backend.calls == identity.READ_ATTEMPTS
    assert "S4" in str(error.value) and "ephemeral" in str(error.value) and "failed to load checkpoint: EOF" in str(error.value)
