"""Every "Fix:" works when followed: for each rule, each corpus case it fails, every one of the rule's messages on the
case has its fix applied as the text says (tests/policies/fixes.py, one fixer per rule), and the rule then passes on
the case, with nothing it cannot evaluate. A fixer may decline a text whose first alternative is judgement (it says
why); every rule fixes at least one of its cases.

A rule the corpus expects (``expect.violations``) without a fixer fails here, naming it: a new rule registers one.
"""

from __future__ import annotations

import copy
import shutil
import subprocess
from collections import defaultdict

import pytest
from fixes import FIXERS, Declined, Fixing, get_path
from harness import case_files, load_case, needs_reference, resolve_resource, run_case
from oracles import oracle_missing
from percona_mysql_k8s.core.haproxy_operator import member_hosts, operator_backends
from percona_mysql_k8s.policies._catalog import MODULES

POLICIES = {module.SPEC.name: module.POLICY for module in MODULES}


def _corpus() -> dict[str, list]:
    """rule -> the case files expecting it (read from their expectations: no policy runs at collection)."""
    found: dict[str, list] = defaultdict(list)
    for path in case_files():
        for rule in {item["rule"] for item in load_case(path)["expect"].get("violations", [])}:
            found[rule].append(path)
    return found


CORPUS = _corpus()


def _resolved(case: dict) -> dict:
    """The case with every resource resolved (base + patch expanded), as one list: what a fixer changes."""
    entries = case["resources"] if "resources" in case else [case]
    resources = []
    for entry in entries:
        resolved = resolve_resource(entry)
        resources.append(
            {
                key: copy.deepcopy(resolved[key])
                for key in ("type", "name", "props", "protect", "dependsOn", "urn")
                if key in resolved
            }
        )
    return {
        "stack": case.get("stack"),
        "stack_config": copy.deepcopy(case.get("stack_config") or {}),
        "config": case.get("config"),
        "resources": resources,
        "single": "resources" not in case,
    }


def _run(policy, fixed: dict, monkeypatch):
    case = {key: fixed[key] for key in ("stack", "stack_config", "config") if fixed[key]}
    if fixed["single"]:
        return run_case(policy, {**case, **fixed["resources"][0]}, monkeypatch)
    return run_case(policy, {**case, "resources": fixed["resources"]}, monkeypatch)


def _subject(fixed: dict, urn: str | None) -> dict | None:
    if fixed["single"]:
        return fixed["resources"][0]
    for index, entry in enumerate(fixed["resources"]):
        name = entry.get("name", f"r{index}")
        if urn == entry.get("urn", f"urn:pulumi:test::test::{entry['type']}::{name}"):
            return entry
    return None  # about the stack config (R4's static keys)


def apply_fixes(rule: str, path, monkeypatch) -> tuple[dict | None, str, object]:
    """Every fix of ``rule`` on the case at ``path`` applied: (the fixed case, "", its policy), or (None, why a fixer
    declined, policy)."""
    case = load_case(path)
    policy = POLICIES[path.parent.name]
    before = run_case(policy, case, monkeypatch)
    mine = [(message, urn) for message, urn in zip(before.messages, before.urns, strict=True) if message.startswith(f"{rule}:")]
    assert mine, f"{path.parent.name}/{path.stem} expects {rule} but the policy reports {before.rules}"
    fixed = _resolved(case)
    for message, urn in mine:
        subject = _subject(fixed, urn)
        try:
            FIXERS[rule](Fixing(fixed, rule, message, subject if subject is not None else {"props": {}, "type": ""}))
        except Declined as why:
            return None, f"declined: {why}", policy
    return fixed, "", policy


def fix_case(rule: str, path, monkeypatch) -> str | None:
    """Apply every fix of ``rule`` on the case at ``path``; None when the rule then passes, else why not (Declined's
    reason, prefixed "declined: ")."""
    fixed, declined, policy = apply_fixes(rule, path, monkeypatch)
    if fixed is None:
        return declined
    after = _run(policy, fixed, monkeypatch)
    left = [message for message in after.messages if message.startswith(f"{rule}:")]
    assert not left, f"{path.parent.name}/{path.stem}: {rule}'s fix followed, and still:\n" + "\n".join(left)
    assert not any("could not evaluate" in message for message in after.messages), after.messages
    return None


def test_every_rule_of_the_corpus_has_a_fixer():
    missing = sorted(set(CORPUS) - set(FIXERS))
    assert not missing, f"rules without a fixer in tests/policies/fixes.py: {missing}"


@pytest.mark.parametrize("rule", sorted(CORPUS), ids=sorted(CORPUS))
def test_following_each_fix_makes_the_rule_pass(rule, monkeypatch):
    if rule not in FIXERS:
        pytest.fail(f"{rule} has no fixer in tests/policies/fixes.py")
    fixed, declined = [], []
    for path in CORPUS[rule]:
        if needs_reference(load_case(path)):
            try:
                resolve_resource(load_case(path)) if "resources" not in load_case(path) else None
            except BaseException:  # noqa: BLE001 - the material is absent: the case skips elsewhere, naming the fetch
                continue
        outcome = fix_case(rule, path, monkeypatch)
        (declined if outcome else fixed).append(f"{path.parent.name}/{path.stem}" + (f" ({outcome})" if outcome else ""))
    print(f"\n{rule}: fixed {len(fixed)}, declined {len(declined)}" + "".join(f"\n  {line}" for line in declined))
    assert fixed, f"{rule}: no failing case fixed by following its fix:\n" + "\n".join(declined)


HAPROXY_REASON = "needs Debian's haproxy as the oracle: apt-get install haproxy (scripts/haproxy-oracle.sh install)"


def test_t5s_fixes_give_a_file_haproxy_accepts_beside_the_operators_backends(monkeypatch, tmp_path):
    """T5's fix followed on each HAProxy case: the configuration it leaves is one ``haproxy -c`` accepts with the
    backends the operator's script writes (the pair the entrypoint checks), so the pod runs it, not the default."""
    haproxy = shutil.which("haproxy") or shutil.which("haproxy", path="/usr/sbin")
    if haproxy is None:
        oracle_missing(HAPROXY_REASON)
    checked = []
    for path in CORPUS["T5"]:
        fixed, _, _ = apply_fixes("T5", path, monkeypatch)
        if fixed is None:
            continue
        props = fixed["resources"][0]["props"]
        operator = "pxc" if "pxc" in props.get("spec", {}) else "ps"
        where = "spec.haproxy.configuration" if operator == "pxc" else "spec.proxy.haproxy.configuration"
        text = get_path(props, where)
        if not isinstance(text, str) or not get_path(props, where.rsplit(".", 1)[0] + ".enabled", True):
            continue
        size = get_path(props, "spec.pxc.size" if operator == "pxc" else "spec.mysql.size", 3)
        (tmp_path / "global.cfg").write_text(text)
        (tmp_path / "backends.cfg").write_text(operator_backends(operator, member_hosts(operator, "cluster", size)))
        done = subprocess.run(
            [haproxy, "-c", "-f", str(tmp_path / "global.cfg"), "-f", str(tmp_path / "backends.cfg")],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 0, f"{path.stem}: haproxy -c refuses the fixed configuration:\n{done.stdout}{done.stderr}"
        checked.append(path.stem)
    assert len(checked) >= 8, checked
