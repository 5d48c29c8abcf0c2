"""docs/policies.md names every policy, its rules and its config keys."""

from pathlib import Path

from percona_mysql_k8s.policies._catalog import SPECS

DOC = (Path(__file__).resolve().parents[2] / "docs" / "policies.md").read_text()


def test_every_policy_and_config_key_is_documented():
    for spec in SPECS:
        assert f"`{spec.name}`" in DOC, spec.name
        for name in spec.thresholds:
            assert f"`{name}`" in DOC, name
        for setting in spec.settings:
            assert f"`{setting.name}`" in DOC, setting.name
