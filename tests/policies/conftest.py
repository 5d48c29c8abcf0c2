"""Fixtures: the pack started the way the engine starts it, one process per stack name (and stack config)."""

from __future__ import annotations

import json

import pytest
from percona_mysql_k8s.cli.engine import Pack


@pytest.fixture(scope="session")
def packs():
    started: dict[tuple[str, str], Pack] = {}

    def get(stack: str = "test", stack_config: dict | None = None) -> Pack:
        key = (stack, json.dumps(stack_config or {}, sort_keys=True))
        if key not in started:
            started[key] = Pack(stack=stack, project="percona-mysql", config=stack_config)
        return started[key]

    yield get
    for pack in started.values():
        pack.close()
