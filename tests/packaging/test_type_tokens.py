"""One type-token namespace, ``percona-mysql:index:<Component>`` (issue 22), without replacing deployed stacks.

A type is part of every URN under it, so each renamed component registers an alias of its previous type
(``percona:clusters:…``, ``percona-mysql:database:…``): the engine then matches the state of a stack deployed
before the rename instead of creating new resources and deleting the old ones. Here: what every component of the
four shipped stacks sends the engine (under mocks). Under the real engine: tests/engine/test_engine_component_package.py.
"""

from __future__ import annotations

import pytest
from percona_mysql_k8s import _tokens
from percona_mysql_k8s.cli import offline
from percona_mysql_k8s.core.units import GIB
from percona_mysql_k8s.plan.clusters import kind as kind_plan

OWN = ("percona:", "percona-mysql:")


class AliasRecordingMonitor(offline.RecordingMonitor):
    """Keeps each registration's type and the alias specs the SDK sends with it."""

    sent: list[tuple[str, str, list[str]]] = []

    def RegisterResource(self, request):
        AliasRecordingMonitor.sent.append((request.type, request.name, [alias.spec.type for alias in request.aliases]))
        return super().RegisterResource(request)


@pytest.fixture(scope="module")
def registered():
    patch = pytest.MonkeyPatch()
    patch.setattr(offline, "RecordingMonitor", AliasRecordingMonitor)
    patch.setattr(kind_plan, "host_resources", lambda: (8000, 32 * GIB))
    AliasRecordingMonitor.sent = []
    try:
        for stack, overrides in (
            ("gke", {}),
            ("eks", {}),
            ("kind", {}),
            (
                "existing",
                {
                    "existingNodeSource": "config",
                    "existingNodeCpu": "7910m",
                    "existingNodeMemory": "28Gi",
                    "existingNodeZones": ["us-east-1a", "us-east-1b", "us-east-1c"],
                },
            ),
        ):
            offline.run_stack(stack, overrides=overrides)
    finally:
        patch.undo()
    return list(AliasRecordingMonitor.sent)


def test_every_component_of_the_shipped_stacks_is_in_the_one_namespace(registered):
    own = {typ for typ, _name, _aliases in registered if typ.startswith(OWN)}
    assert own == {_tokens.token(name) for name in _tokens.PREVIOUS_TOKENS}  # every component, each in the stacks
    assert all(typ.startswith("percona-mysql:index:") for typ in own)


def test_every_renamed_component_carries_its_previous_type_as_an_alias(registered):
    for typ, name, aliases in registered:
        if typ.startswith(OWN):
            component = typ.rsplit(":", 1)[1]
            assert aliases == [_tokens.PREVIOUS_TOKENS[component]], f"{typ} {name}: aliases {aliases}"
        else:  # a provider's own aliases (pulumi_gcp's renamed types) stay its own
            assert not set(aliases) & set(_tokens.PREVIOUS_TOKENS.values()), f"{typ} {name} has aliases {aliases}"


def test_previous_tokens_are_the_ones_released():
    # 0.2.0 registered these (modules/percona_mysql_k8s/clusters/*.py: "percona:clusters:<Name>",
    # database/common.py: PACKAGE = "percona-mysql:database")
    assert _tokens.PREVIOUS_TOKENS["GkeCluster"] == "percona:clusters:GkeCluster"
    assert _tokens.PREVIOUS_TOKENS["DatabaseCluster"] == "percona-mysql:database:DatabaseCluster"
    assert len(_tokens.PREVIOUS_TOKENS) == 12
