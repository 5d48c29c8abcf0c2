"""Run a few lines of Pulumi under mocks and collect every registration (function-scoped mocks).

The same machinery as ``percona_mysql_k8s.cli.offline.run_program`` (OfflineMocks + RecordingMonitor), for a Python
callable instead of a stack directory: the mocks are set per call, never at import time.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

import pulumi
import pulumi_kubernetes as k8s
from percona_mysql_k8s.cli.offline import OfflineMocks, RecordingMonitor, Registration
from percona_mysql_k8s.clusters.target import ClusterTarget
from percona_mysql_k8s.core.pools import PoolShape
from pulumi.runtime.settings import SETTINGS
from pulumi.runtime.stack import run_pulumi_func
from pulumi.runtime.sync_await import _sync_await


def collect(program: Callable[[], object], *, stack: str = "test", project: str = "percona-mysql") -> list[Registration]:
    mocks = OfflineMocks()
    monitor = RecordingMonitor(mocks)
    pulumi.runtime.set_mocks(mocks, project=project, stack=stack, preview=False, monitor=monitor)
    SETTINGS.rpc_manager.clear()
    SETTINGS.outputs.clear()
    _sync_await(run_pulumi_func(program))
    return monitor.registrations


def target(database: PoolShape, monitoring: PoolShape, kind: str = "gke", ready: Sequence[pulumi.Resource] = ()) -> ClusterTarget:
    """A ClusterTarget built by hand (call inside ``collect``)."""
    provider = k8s.Provider("k8s", kubeconfig="{}")
    return ClusterTarget(
        name="test", kind=kind, provider=provider, database_pool=database, monitoring_pool=monitoring, ready=tuple(ready)
    )


def by_type(registrations: list[Registration], type_: str) -> list[Registration]:
    return [r for r in registrations if r.type == type_]


def one(registrations: list[Registration], type_: str, name_contains: str = "") -> Registration:
    found = [r for r in by_type(registrations, type_) if name_contains in r.name]
    assert len(found) == 1, f"expected one {type_} named *{name_contains}*, got {[r.name for r in found]}"
    return found[0]


def depends_on(registrations: list[Registration], dependent: Registration, dependency: Registration) -> bool:
    """True when ``dependent`` waits for ``dependency`` (directly or through components/resources it depends on)."""
    urns = {r.urn: r for r in registrations}
    children: dict[str, list[str]] = {}
    for r in registrations:
        if r.parent:
            children.setdefault(r.parent, []).append(r.urn)
    seen, stack = set(), list(dependent.dependencies)
    while stack:
        urn = stack.pop()
        if urn in seen:
            continue
        seen.add(urn)
        if urn == dependency.urn:
            return True
        if urn in urns:
            stack.extend(urns[urn].dependencies)
        stack.extend(children.get(urn, []))
    return False


class SecretAwareMonitor(RecordingMonitor):
    """Also keeps each registration's inputs with Pulumi's secret markers (for S1 checks)."""

    instances: list[SecretAwareMonitor] = []  # every monitor made (run_stack builds its own)

    def __init__(self, mocks: pulumi.runtime.Mocks):
        super().__init__(mocks)
        self.raw_inputs: dict[str, object] = {}
        SecretAwareMonitor.instances.append(self)

    def RegisterResource(self, request):
        response = super().RegisterResource(request)
        self.raw_inputs[response.urn] = pulumi.runtime.rpc.deserialize_properties(request.object, keep_unknowns=True)
        return response


def stack_outputs() -> dict[str, object]:
    """The outputs the last program exported (the mocks' root Stack keeps them), resolved."""
    from pulumi.runtime.settings import get_root_resource

    root = get_root_resource()
    return {name: _sync_await(pulumi.Output.from_input(value).future()) for name, value in root.outputs.items()}


# percona_mysql_k8s.cli.offline's generated passwords and secure config values: "offline" + hex digits
PLACEHOLDER = re.compile(r"offline[0-9a-f]{10,}")
_SECRET_SIG = pulumi.runtime.rpc._special_secret_sig
_SIG_KEY = pulumi.runtime.rpc._special_sig_key


def plaintext_secrets(monitor: SecretAwareMonitor) -> list[str]:
    """S1: every generated password (an ``offline…`` placeholder) must be a Pulumi secret, and only a
    Kubernetes Secret may hold one. Returns the offending paths."""
    types = {r.urn: r.type for r in monitor.registrations}
    problems: list[str] = []

    def walk(value: object, path: str, secret: bool, resource_type: str) -> None:
        if isinstance(value, dict):
            if value.get(_SIG_KEY) == _SECRET_SIG:
                walk(value.get("value"), path, True, resource_type)
                return
            for key, item in value.items():
                walk(item, f"{path}.{key}", secret, resource_type)
        elif isinstance(value, (list, tuple)):
            for index, item in enumerate(value):
                walk(item, f"{path}[{index}]", secret, resource_type)
        elif isinstance(value, str) and PLACEHOLDER.search(value):
            if not secret:
                problems.append(f"{path}: a generated secret in plain text")
            elif resource_type != "kubernetes:core/v1:Secret":
                problems.append(f"{path}: a secret outside a Kubernetes Secret ({resource_type})")

    for urn, inputs in monitor.raw_inputs.items():
        walk(inputs, urn.rsplit("::", 1)[-1], False, types.get(urn, ""))
    return problems


def collect_with_secrets(program: Callable[[], object]) -> tuple[list[Registration], SecretAwareMonitor]:
    mocks = OfflineMocks()
    monitor = SecretAwareMonitor(mocks)
    pulumi.runtime.set_mocks(mocks, project="percona-mysql", stack="test", preview=False, monitor=monitor)
    SETTINGS.rpc_manager.clear()
    SETTINGS.outputs.clear()
    _sync_await(run_pulumi_func(program))
    return monitor.registrations, monitor
