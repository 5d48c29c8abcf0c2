"""A stack policy's verdict does not depend on the order the engine sends the stack in.

The engine builds AnalyzeStack's resource list by ranging over a concurrent map (pulumi
pkg/resource/deploy/step_generator.go, AnalyzeResources), so two previews of one program send it in two orders;
the engine benchmark's stacks mix at 400 resources showed R5 naming a different database from one preview to the
next. Every stack-policy case, its resources in any order, gives the same messages in the same order."""

from __future__ import annotations

import json

import pytest
from harness import case_files, load_case, resolve_resource, run_stack
from hypothesis import given, settings
from hypothesis import strategies as st
from percona_mysql_k8s.policies._catalog import MODULES
from pulumi_policy import StackValidationPolicy

POLICIES = {module.SPEC.name: module.POLICY for module in MODULES if isinstance(module.POLICY, StackValidationPolicy)}
CASES = [path for name in sorted(POLICIES) for path in case_files(name) if len(load_case(path)["resources"]) > 1]


def _run(path, order):
    case = load_case(path)
    resources = [resolve_resource(resource) for resource in case["resources"]]
    with pytest.MonkeyPatch.context() as patch:  # the stack and its config, as run_case sets them
        if case.get("stack"):
            patch.setenv("PULUMI_STACK", case["stack"])
        else:
            patch.delenv("PULUMI_STACK", raising=False)
        patch.setenv("PULUMI_CONFIG", json.dumps(case.get("stack_config") or {}))
        return run_stack(POLICIES[path.parent.name], [resources[index] for index in order], config=case.get("config"))


def test_there_are_stacks_to_reorder():
    assert len(CASES) >= 20 and "benchmark-requests" in {path.parent.name for path in CASES}


@settings(max_examples=300)
@given(
    st.sampled_from(CASES).flatmap(
        lambda path: st.tuples(st.just(path), st.permutations(range(len(load_case(path)["resources"]))))
    )
)
def test_the_verdict_is_the_same_in_any_order(drawn):
    path, order = drawn
    as_written = _run(path, range(len(order)))
    reordered = _run(path, order)
    assert (reordered.messages, reordered.unknown, reordered.unjudged) == (
        as_written.messages,
        as_written.unknown,
        as_written.unjudged,
    ), path.name
