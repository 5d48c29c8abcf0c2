"""Fixtures: the pack started the way the engine starts it, one process per stack name."""

from __future__ import annotations

import pytest
from percona_mysql_k8s.policies._engine import Pack


@pytest.fixture(scope="session")
def packs():
    started: dict[str, Pack] = {}

    def get(stack: str = "test") -> Pack:
        if stack not in started:
            started[stack] = Pack(stack=stack, project="percona-mysql")
        return started[stack]

    yield get
    for pack in started.values():
        pack.close()
