"""Every data case in tests/policies/<policy>/<case>.json, run directly against its policy."""

from __future__ import annotations

import pytest
from harness import case_files, load_case, run_case
from percona_mysql_k8s.policies._catalog import MODULES

POLICIES = {module.SPEC.name: module.POLICY for module in MODULES}
CASES = case_files()


@pytest.mark.parametrize("path", CASES, ids=[f"{path.parent.name}/{path.stem}" for path in CASES])
def test_case(path, monkeypatch):
    case = load_case(path)
    assert path.parent.name in POLICIES, f"{path.parent.name} is not a policy of the pack"
    outcome = run_case(POLICIES[path.parent.name], case, monkeypatch)
    expect = case["expect"]
    wanted = expect.get("violations", [])
    assert outcome.rules == sorted(item["rule"] for item in wanted), outcome.messages
    for item in wanted:
        matching = [m for m in outcome.messages if m.startswith(item["rule"] + ":")]
        for text in item.get("contains", []):
            assert any(text in message for message in matching), (text, matching)
    assert bool(outcome.unknown) == expect.get("unknown", False), outcome.unknown
    assert bool(outcome.not_applicable) == expect.get("not_applicable", False), outcome.not_applicable
    for message in outcome.messages:
        assert "could not evaluate" not in message, message
        assert "Fix:" in message, message
