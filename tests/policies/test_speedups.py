"""The shared-deserialization shim returns exactly what the stock servicer returns."""

from __future__ import annotations

import os

from harness import case_files, load_case, resolve_resource

from policies._engine import Pack, Resource


def _resources():
    for path in case_files():
        case = load_case(path)
        for entry in case.get("resources", [case]):
            entry = resolve_resource(entry)
            yield Resource(urn=f"urn:pulumi:test::p::{entry['type']}::{path.stem}", type=entry["type"],
                           name=entry.get("name", "subject"), properties=entry["props"], protect=entry.get("protect", False))


def _responses(shared: bool):
    previous = os.environ.get("PERCONA_POLICY_SHARED_DESERIALIZATION")
    os.environ["PERCONA_POLICY_SHARED_DESERIALIZATION"] = "1" if shared else "0"
    try:
        with Pack(stack="prod") as pack:
            resources = list(_resources())
            analyzed = [sorted((d.policy, d.level, d.message) for d in pack.analyze(r)) for r in resources]
            stacked = sorted((d.policy, d.level, d.message, d.urn) for d in pack.analyze_stack(resources))
            return analyzed, stacked
    finally:
        if previous is None:
            os.environ.pop("PERCONA_POLICY_SHARED_DESERIALIZATION", None)
        else:
            os.environ["PERCONA_POLICY_SHARED_DESERIALIZATION"] = previous


def test_shared_deserialization_changes_nothing_but_speed():
    assert _responses(shared=True) == _responses(shared=False)
