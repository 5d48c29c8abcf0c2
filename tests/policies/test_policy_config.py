"""The offline check applies a policy config file as `pulumi preview --policy-pack-config` does
(percona_mysql_k8s.cli.policy_config), and refuses what the CLI or the pack refuses with one line and exit 2."""

from __future__ import annotations

import json

import pytest
import yaml
from percona_mysql_k8s.cli import check
from percona_mysql_k8s.cli.engine import Resource
from percona_mysql_k8s.cli.policy_config import (
    PolicyConfigError,
    PolicyEntry,
    PolicyInfo,
    from_document,
    load_document,
    reconcile,
)
from percona_mysql_k8s.policies._catalog import SPECS
from policy_config_cases import CASES, CLUSTER, POLICY

SUBJECT = Resource(
    urn="urn:pulumi:test::percona-mysql::kubernetes:pxc.percona.com/v1:PerconaXtraDBCluster::shop",
    type="kubernetes:pxc.percona.com/v1:PerconaXtraDBCluster",
    name="shop",
    properties=CLUSTER,
)


def _judged(pack, text: str) -> list[tuple[str, str]]:
    """(policy, level) of every finding on the cluster after the file's config: what the check prints."""
    pack.configure(load_document(text))
    return [(d.policy, d.level) for d in pack.analyze(SUBJECT)]


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_each_config_as_the_cli_applies_it(case, packs):
    pack = packs()
    defaults = _judged(pack, "")
    try:
        if case.refused:
            with pytest.raises(PolicyConfigError) as refused:
                _judged(pack, case.text)
            assert case.refused in str(refused.value) and "\n" not in str(refused.value)
            return
        found = _judged(pack, case.text)
    finally:
        pack.configure({})
    assert [level for policy, level in found if policy == POLICY] == ([case.g1] if case.g1 else [])
    others = [(policy, level) for policy, level in found if policy != POLICY]
    expected = [(policy, case.others or level) for policy, level in defaults if policy != POLICY]
    assert others == expected


def test_an_unset_level_keeps_the_declared_one_for_every_policy():
    """reconcile on its own: each policy of the pack keeps the level it declares when the file sets only a key."""
    policies = [PolicyInfo("a", "mandatory", {"x": {"type": "integer", "default": 1}}), PolicyInfo("b", "advisory")]
    result = reconcile(policies, from_document({"a": {"x": 2}, "b": {}}))
    assert result == {"a": PolicyEntry("mandatory", {"x": 2}), "b": PolicyEntry("advisory", None)}


def test_schema_errors_are_all_named_on_one_line():
    policies = [PolicyInfo("a", "mandatory", {"x": {"type": "integer", "minimum": 1}, "y": {"type": "boolean"}})]
    with pytest.raises(PolicyConfigError) as refused:
        reconcile(policies, from_document({"a": {"x": 0, "y": "yes"}}))
    assert str(refused.value).count("a: ") == 2 and "\n" not in str(refused.value)


def test_every_policy_of_the_pack_is_configured_with_its_declared_level(packs):
    info = packs().info()
    declared = {policy.name: policy.enforcementLevel for policy in info.policies}
    assert set(declared) == {spec.name for spec in SPECS}


@pytest.fixture
def cluster_file(tmp_path):
    path = tmp_path / "cluster.yaml"
    path.write_text(yaml.safe_dump(CLUSTER))
    return path


@pytest.mark.parametrize(
    ("text", "status", "said"),
    [
        # the case: a tighter threshold must not turn the rejected cluster into a pass
        ('{"galera-flow-control": {"max_fc_limit": 80}}', 1, ""),
        ('{"galera-flow-control": {"enforcementLevel": "Mandatory"}}', 2, "not a valid enforcement level"),
        ('{"galera-flow-control": 5}', 2, "must be a string or object"),
        ('{"galera-flow-control": {"max_fc_limt": 80}}', 2, 'did you mean "max_fc_limit"'),
        ('{"galera-flow-contrl": {"max_fc_limit": 80}}', 2, 'did you mean "galera-flow-control"'),
    ],
)
def test_the_command_refuses_with_one_line_and_status_2(text, status, said, cluster_file, tmp_path, capsys):
    config = tmp_path / "policy-config.json"
    config.write_text(text)
    assert check.main(["--manifests", str(cluster_file), "--policy-config", str(config)]) == status
    captured = capsys.readouterr()
    if status == 2:
        assert captured.err.startswith(f"error: --policy-config {config}: ") and said in captured.err
        assert captured.err.count("\n") == 1 and "Traceback" not in captured.err
    else:
        assert "[mandatory]  galera-flow-control" in captured.out


def test_a_config_is_refused_before_the_program_runs(tmp_path, capsys):
    config = tmp_path / "policy-config.json"
    config.write_text(json.dumps({"galera-flow-control": 5}))
    assert check.main(["--stack", "no-such-stack", "--policy-config", str(config)]) == 2
    assert "must be a string or object" in capsys.readouterr().err
