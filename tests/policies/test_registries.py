"""The rule catalogue, the policy modules, the pack's catalogue and the case folders agree, in both directions.

A rule of core.rules.RULES has a policy or a reason why none can decide it (_catalog.NOT_DECIDED_FROM_RESOURCES);
a policy names only catalogued rules and reports only its own; every policy module is registered in the pack;
every case folder under tests/policies/ is a policy's, and every policy has one that expects each of its rules
and passes a compliant resource.
"""

from __future__ import annotations

import ast
import inspect
import json
import pkgutil
import re
from pathlib import Path

import percona_mysql_k8s.policies as package
import pytest
from percona_mysql_k8s._moved import MOVED
from percona_mysql_k8s.core.rules import RULES
from percona_mysql_k8s.policies._catalog import MODULES, NOT_DECIDED_FROM_RESOURCES, POLICY_MODULES, SPECS

HERE = Path(__file__).resolve().parent
DOC = (HERE.parents[1] / "docs" / "policies.md").read_text()
RULE_ID = re.compile(r"^[A-Z][0-9]+$")
# Public modules of the package that are not policies, and why.
NOT_POLICIES = {"config": "the policies' config schemas and resolution (the framework, named in docs/policies.md)"}


def test_every_rule_has_a_policy_or_a_stated_reason():
    decided = {rule for spec in SPECS for rule in spec.rules}
    assert not decided & set(NOT_DECIDED_FROM_RESOURCES), "a rule with a policy is no longer undecided: drop its reason"
    assert set(RULES) - decided == set(NOT_DECIDED_FROM_RESOURCES), (
        "rules without a policy (add one, or a reason to _catalog.NOT_DECIDED_FROM_RESOURCES)"
    )
    paragraph = DOC[DOC.index("Rules not decided from resources") :].split("\n\n", 1)[0]
    for rule, reason in NOT_DECIDED_FROM_RESOURCES.items():
        assert rule in RULES and reason.strip(), rule
        assert re.search(rf"\b{rule}\b", paragraph), f"docs/policies.md does not say why {rule} has no policy"


@pytest.mark.parametrize("module", MODULES, ids=[module.SPEC.name for module in MODULES])
def test_a_policy_names_catalogued_rules_and_reports_only_its_own(module):
    assert module.SPEC.rules and set(module.SPEC.rules) <= set(RULES), module.SPEC.rules
    assert module.POLICY.name == module.SPEC.name
    tree = ast.parse(inspect.getsource(module))
    written = {
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and RULE_ID.match(node.value)
    }
    assert written <= set(RULES), f"{module.__name__} names {sorted(written - set(RULES))}, not in the catalogue"
    # what it reports or checks (ctx.violation("F2", ...), ctx.checking("F2")) is a rule it declares
    reported = {
        call.args[0].value
        for call in ast.walk(tree)
        if isinstance(call, ast.Call)
        and isinstance(call.func, ast.Attribute)
        and call.func.attr in {"violation", "checking"}
        and call.args
        and isinstance(call.args[0], ast.Constant)
    }
    assert reported, f"{module.__name__} reports no rule by name"
    assert reported <= set(module.SPEC.rules), f"{module.__name__} reports {sorted(reported - set(module.SPEC.rules))}"


def test_every_policy_module_is_registered_once():
    public = {info.name for info in pkgutil.iter_modules(package.__path__) if not info.name.startswith("_") and not info.ispkg}
    moved = {old.rsplit(".", 1)[1] for old in MOVED if old.rsplit(".", 1)[0] == package.__name__}
    assert public - moved - set(NOT_POLICIES) == set(POLICY_MODULES), "a policy module the pack does not load, or a stale entry"
    assert len(POLICY_MODULES) == len(set(POLICY_MODULES))
    assert len({spec.name for spec in SPECS}) == len(SPECS), "two policies share a name"


def _case_folders() -> set[str]:
    return {path.name for path in HERE.iterdir() if path.is_dir() and not path.name.startswith(("_", "."))}


def test_every_case_folder_is_a_policys_and_every_policy_has_one():
    names = {spec.name for spec in SPECS}
    assert _case_folders() - names == set(), "case folders of no policy (support files go in _-prefixed folders)"
    assert names - _case_folders() == set(), "policies without cases"


@pytest.mark.parametrize("spec", SPECS, ids=[spec.name for spec in SPECS])
def test_a_policys_cases_expect_each_of_its_rules_and_pass_a_compliant_resource(spec):
    expected, passing = set(), 0
    for path in sorted((HERE / spec.name).glob("*.json")):
        violations = json.loads(path.read_text())["expect"].get("violations", [])
        expected |= {violation["rule"] for violation in violations}
        passing += not violations
    assert expected == set(spec.rules), f"{spec.name}: no case expects {sorted(set(spec.rules) - expected)}"
    assert passing, f"{spec.name}: no case that passes"
