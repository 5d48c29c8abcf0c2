"""The admission server's tests: the protocol, the modes, the verdict against the offline checker's, the plan and
its two renderers, the server as a process. One running pack serves a module's tests (cli.engine.Pack)."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def judge():
    from percona_mysql_k8s.admission.judge import Judge

    running = Judge()
    yield running
    running.close()
