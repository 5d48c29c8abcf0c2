"""The pack over the engine's own protocol: started as `python -u -m pulumi.policy <engine> .` and driven
with GetAnalyzerInfo, Configure, Analyze and AnalyzeStack, exactly as `pulumi preview --policy-pack` does."""

from __future__ import annotations

import pytest
from harness import case_files, load_case, resolve_resource
from percona_mysql_k8s.cli.engine import Resource
from percona_mysql_k8s.core.rules import LIVE_ONLY_THRESHOLDS, RULES, THRESHOLDS
from percona_mysql_k8s.policies._catalog import SPECS
from pulumi.runtime.proto import analyzer_pb2
from pulumi_policy.proxy import UNKNOWN_STRING_VALUE

RESOURCE_CASES = [path for path in case_files() if "resources" not in load_case(path)]


def _urn(entry: dict) -> str:
    return f"urn:pulumi:test::percona-mysql::{entry['type']}::{entry.get('name', 'subject')}"


def _resource(entry: dict, others: dict[str, dict] | None = None) -> Resource:
    dependencies = tuple(_urn(others[name]) for name in entry.get("dependsOn", []))  # names of other entries
    return Resource(
        urn=_urn(entry),
        type=entry["type"],
        name=entry.get("name", "subject"),
        properties=entry["props"],
        protect=entry.get("protect", False),
        dependencies=dependencies,
    )


def test_info_lists_every_policy_with_rule_ids_and_config_schema(packs):
    info = packs().info()
    assert info.name == "percona-mysql" and info.supportsConfig
    by_name = {policy.name: policy for policy in info.policies}
    assert set(by_name) == {spec.name for spec in SPECS}
    exposed = set()
    for spec in SPECS:
        policy = by_name[spec.name]
        assert list(policy.tags) == list(spec.rules)
        assert policy.description.startswith(", ".join(spec.rules) + ":")
        expected = analyzer_pb2.MANDATORY if RULES[spec.rules[0]].mandatory and spec.level is None else analyzer_pb2.ADVISORY
        assert policy.enforcementLevel == expected, spec.name
        properties = dict(policy.configSchema.properties)
        for name in spec.thresholds:
            assert properties[name]["default"] == THRESHOLDS[name].default
            assert properties[name]["type"] == THRESHOLDS[name].kind
            exposed.add(name)
        for setting in spec.settings:
            assert setting.name in properties
    # Every threshold of the catalogue can be configured on some policy, but those only a live cluster can breach
    # (percona-mysql-grade reads them).
    assert exposed == set(THRESHOLDS) - LIVE_ONLY_THRESHOLDS, set(THRESHOLDS) - LIVE_ONLY_THRESHOLDS - exposed
    assert not exposed & LIVE_ONLY_THRESHOLDS


@pytest.mark.parametrize("path", RESOURCE_CASES, ids=[f"{p.parent.name}/{p.stem}" for p in RESOURCE_CASES])
def test_every_resource_case_over_grpc(path, packs):
    case = load_case(path)
    entry = resolve_resource(case)
    pack = packs(case.get("stack", "test"), case.get("stack_config"))
    pack.configure({path.parent.name: case["config"]} if case.get("config") else {})
    try:
        diagnostics = pack.analyze(_resource(entry))
    finally:
        pack.configure({})
    mine = [d for d in diagnostics if d.policy == path.parent.name]
    wanted = sorted(item["rule"] for item in case["expect"].get("violations", []))
    preview = [d for d in mine if "during preview" in d.message]
    assert sorted(d.rule for d in mine if d not in preview) == wanted, [d.message for d in mine]
    assert bool(preview) == case["expect"].get("unknown", False)
    for diagnostic in mine:
        assert "could not evaluate" not in diagnostic.message


def test_configure_changes_thresholds_and_enforcement(packs):
    pack = packs()
    entry = resolve_resource(
        load_case(next(p for p in RESOURCE_CASES if p.parent.name == "galera-flow-control" and p.stem == "g1-raised"))
    )
    resource = _resource(entry)
    assert [d.level for d in pack.analyze(resource) if d.policy == "galera-flow-control"] == ["mandatory"]
    pack.configure({"galera-flow-control": {"max_fc_limit": 600}})
    assert [d for d in pack.analyze(resource) if d.policy == "galera-flow-control"] == []
    pack.configure({"galera-flow-control": {"enforcementLevel": "advisory"}})
    assert [d.level for d in pack.analyze(resource) if d.policy == "galera-flow-control"] == ["advisory"]
    pack.configure({"galera-flow-control": {"enforcementLevel": "disabled"}})
    assert [d for d in pack.analyze(resource) if d.policy == "galera-flow-control"] == []
    pack.configure({})


def test_unknown_at_preview_is_an_advisory_note_not_a_failure(packs):
    entry = resolve_resource({"base": "ps-gr", "patch": {"spec": {"mysql": {"configuration": UNKNOWN_STRING_VALUE}}}})
    diagnostics = packs().analyze(_resource(entry))
    preview = [d for d in diagnostics if "during preview" in d.message]
    assert preview and all(d.level == "advisory" for d in preview)
    assert not [d for d in diagnostics if d.level == "mandatory"], [d.message for d in diagnostics]


STACK_CASES = [path for path in case_files() if "resources" in load_case(path)]


@pytest.mark.parametrize("path", STACK_CASES, ids=[f"{p.parent.name}/{p.stem}" for p in STACK_CASES])
def test_every_stack_case_over_grpc(path, packs):
    case = load_case(path)
    entries = [resolve_resource(entry) for entry in case["resources"]]
    by_name = {entry.get("name", "subject"): entry for entry in entries}
    resources = [_resource(entry, by_name) for entry in entries]
    pack = packs(case.get("stack", "test"), case.get("stack_config"))
    pack.configure({path.parent.name: case["config"]} if case.get("config") else {})
    try:
        diagnostics = pack.analyze_stack(resources)
    finally:
        pack.configure({})
    mine = [d for d in diagnostics if d.policy == path.parent.name]
    preview = [d for d in mine if "during preview" in d.message]
    assert sorted(d.rule for d in mine if d not in preview) == sorted(
        item["rule"] for item in case["expect"].get("violations", [])
    ), [d.message for d in mine]
    assert bool(preview) == case["expect"].get("unknown", False)
    mine = [d for d in mine if d not in preview]
    # stack violations name the resource they are about; one about the stack config (R4's static keys) names none
    assert all(d.urn or "the stack config entry" in d.message for d in mine)


@pytest.mark.parametrize("number", [float("inf"), float("-inf"), float("nan")])
def test_a_non_finite_number_gets_c1s_refusal_not_a_failed_call(packs, number):
    """A program's float("inf") reaches the pack as the Struct's double (the engine marshals it as it is): the SDK's
    MessageToDict failed the whole Analyze call with gRPC UNKNOWN; now C1 refuses the custom resource, as
    pulumi-kubernetes could never send it (json: unsupported value), and the other policies still answer."""
    entry = resolve_resource({"base": "ps-gr", "patch": {"spec": {"mysql": {"size": number}}}})
    diagnostics = packs().analyze(_resource(entry))
    c1 = [d for d in diagnostics if d.policy == "crd-admission"]
    assert c1 and c1[0].level == "mandatory" and "spec.mysql.size: json: unsupported value" in c1[0].message
    stack = packs().analyze_stack([_resource(entry)])  # AnalyzeStack converts the same Struct
    assert all(d.policy for d in stack)
