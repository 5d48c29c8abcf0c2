"""The pack with every speed-up answers byte for byte what the SDK as shipped answers, on the corpus and the stacks.

The engine shows what the pack answers (the ``Policies:`` section of a preview is made of these responses), so the
responses themselves are compared: ``Remediate`` and ``Analyze`` of every resource, then ``AnalyzeStack`` of them
all, serialized, from one pack with the shared deserialization, the fast calls and the lean server
(percona_mysql_k8s.policies._sdk, ._fastpath, ._server) and one running the SDK's own code and server. The
resources are the shipped stacks' (``stacks/`` run offline, every target), the operators' and charts' upstream
corpus (reference material) and the policy cases. The pack runs as the engine starts it, with the stack's
project, name, dry-run flag and config in its environment, so ``_configure_runtime_settings`` has work to do.
"""

from __future__ import annotations

import json
import math
import os
import sys
import types
from contextlib import contextmanager
from pathlib import Path

import pytest
import upstream_corpus as corpus
from google.protobuf import json_format, struct_pb2
from harness import case_files, load_case, resolve_resource
from hypothesis import given
from hypothesis import strategies as st
from percona_mysql_k8s.cli.check import to_resources
from percona_mysql_k8s.cli.engine import Pack, Resource, analyze_request, stack_request
from percona_mysql_k8s.cli.offline import run_stack
from percona_mysql_k8s.policies import _lazy
from percona_mysql_k8s.policies._fastpath import keep_non_finite_numbers, struct_to_dict
from reference_material.resolve import reference_path

SWITCHES = (
    "PERCONA_POLICY_SHARED_DESERIALIZATION",
    "PERCONA_POLICY_LEAN_SERVER",
    "PERCONA_POLICY_FAST_CALLS",
    "PERCONA_POLICY_LAZY_CATALOG",
)
# what the shipped stacks need to run offline (the docs' and the offline check's own overrides)
OFFLINE = {
    "existing": {
        "existingNodeSource": "config",
        "existingNodeCpu": "7910m",
        "existingNodeMemory": "28Gi",
        "existingNodeZones": ["us-east-1a", "us-east-1b", "us-east-1c"],
    },
    "kind": {"kindHostCpu": "8", "kindHostMemory": "32Gi"},
    "gke": {},
    "eks": {},
}
CONFIG = {"percona-mysql:clusterSize": "3", "percona-mysql:ephemeral": "false"}


@contextmanager
def _pack(speed_ups: bool, stack: str):
    previous = {name: os.environ.get(name) for name in SWITCHES}
    os.environ.update(dict.fromkeys(SWITCHES, "1" if speed_ups else "0"))
    try:
        with Pack(stack=stack, project="percona-mysql", config=CONFIG) as pack:
            yield pack
    finally:
        for name, value in previous.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def _answers(pack: Pack, resources: list[Resource]) -> list[bytes]:
    """Every response as the engine receives it: the serialized bytes."""
    remediate = pack.channel.unary_unary("/pulumirpc.Analyzer/Remediate")
    analyze = pack.channel.unary_unary("/pulumirpc.Analyzer/Analyze")
    analyze_stack = pack.channel.unary_unary("/pulumirpc.Analyzer/AnalyzeStack")
    answers = []
    for resource in resources:
        request = analyze_request(resource).SerializeToString()
        answers += [remediate(request), analyze(request)]
    return [*answers, analyze_stack(stack_request(resources).SerializeToString())]


@pytest.fixture(scope="module", autouse=True)
def metadata_cache():
    """The pack with its speed-ups starts once first, so the comparisons run on the cached metadata (_lazy)."""
    with _pack(True, "prod") as pack:
        pack.info()
    cache = Path(sys.prefix) / _lazy.CACHE
    assert _lazy.cached_policies(_lazy.source_key(), cache) is not None
    return cache


def _compare(resources: list[Resource], stack: str) -> int:
    with _pack(False, stack) as pack:
        stock = _answers(pack, resources) + [pack.info().SerializeToString()]
    with _pack(True, stack) as pack:
        fast = _answers(pack, resources) + [pack.info().SerializeToString()]
    assert len(fast) == len(stock) == 2 * len(resources) + 2
    differing = [
        resources[i // 2].urn if i < 2 * len(resources) else ("AnalyzeStack", "GetAnalyzerInfo")[i - 2 * len(resources)]
        for i, (a, b) in enumerate(zip(fast, stock, strict=True))
        if a != b
    ]
    assert differing == [], differing[:5]
    return sum(len(answer) for answer in stock)


@pytest.mark.parametrize("stack", sorted(OFFLINE))
def test_the_shipped_stacks_get_the_same_answers(stack):
    resources = to_resources(run_stack(stack, overrides=OFFLINE[stack]))
    assert len(resources) > 15, stack
    _compare(resources, stack)  # the stacks pass the pack: empty answers, alike
    # judged as a stack named "prod" (no ephemeral name), the kind stack's unsafe sizes are findings
    assert _compare(resources, "prod") > 0 or stack != "kind"


def test_the_upstream_corpus_gets_the_same_answers():
    entries = corpus.load_corpus(reference_path(corpus.CORPUS_ITEM))
    resources = [corpus.entry_resource(index, entry) for index, entry in enumerate(entries)]
    assert len(resources) == 184
    assert _compare(resources, "") > 0  # as --manifests judges them: no stack name


def test_the_policy_cases_get_the_same_answers():
    resources = []
    for path in case_files():
        case = load_case(path)
        for number, entry in enumerate(case.get("resources", [case])):
            try:
                entry = resolve_resource(entry)
            except pytest.skip.Exception:
                continue  # an upstream base without its reference material: the corpus test says so
            urn = f"urn:pulumi:prod::percona-mysql::{entry['type']}::{path.parent.name}-{path.stem}-{number}"
            resources.append(
                Resource(urn, entry["type"], entry.get("name", "subject"), entry["props"], protect=entry.get("protect", False))
            )
    assert len(resources) > 100
    assert _compare(resources, "prod") > 0


# ---- struct_to_dict is json_format.MessageToDict for a Struct -------------------------------------------------

_scalars = st.none() | st.booleans() | st.text() | st.floats(allow_nan=False, allow_infinity=False) | st.integers(-(2**60), 2**60)
_json = st.recursive(
    _scalars, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4), max_leaves=30
)


def _ordered(value):
    """A value with every dict as its list of items: dicts compare equal in any order, these do not."""
    if isinstance(value, dict):
        return [(key, _ordered(item)) for key, item in value.items()]
    if isinstance(value, list):
        return [_ordered(item) for item in value]
    return (type(value).__name__, value)


@given(st.dictionaries(st.text(), _json, max_size=6))
def test_struct_to_dict_is_message_to_dict(document):
    struct = struct_pb2.Struct()
    struct.update(document)
    assert _ordered(struct_to_dict(struct)) == _ordered(json_format.MessageToDict(struct))


@pytest.mark.parametrize("number", [math.inf, -math.inf, math.nan])
def test_a_non_finite_number_reaches_the_policies_where_message_to_dict_refuses_it(number):
    """protobuf's MessageToDict raises for an infinity or NaN, and the SDK's servicer failed the whole call with
    it; the pack keeps the number (fast path and stock path alike) so that C1 refuses the resource instead."""
    struct = struct_pb2.Struct()
    struct.update({"spec": {"values": [1, number]}})
    with pytest.raises(ValueError):
        json_format.MessageToDict(struct)
    kept = struct_to_dict(struct)["spec"]["values"][1]
    assert kept == number or (math.isnan(kept) and math.isnan(number))
    sdk = types.SimpleNamespace(json_format=types.SimpleNamespace(MessageToDict=json_format.MessageToDict))
    assert keep_non_finite_numbers(sdk)
    assert sdk.json_format.MessageToDict(struct)["spec"]["values"][0] == 1
    with pytest.raises(ValueError):  # any other message: protobuf's answer, unchanged
        sdk.json_format.MessageToDict(struct_pb2.Value(number_value=number))


# ---- the runtime settings are configured again when what they read changes ----------------------------------


def test_the_runtime_settings_follow_the_environment(monkeypatch):
    import pulumi.runtime
    from percona_mysql_k8s.policies import _fastpath
    from percona_mysql_k8s.policies._catalog import ALL_POLICIES
    from pulumi_policy import policy as sdk

    assert _fastpath.missing_for_fast_calls(sdk) == []
    copy = type("Servicer", (sdk._PolicyAnalyzerServicer,), {})
    copy._configure_runtime_settings = _fastpath._configured_once(sdk._PolicyAnalyzerServicer._configure_runtime_settings)
    servicer = copy("p", "0.0.1", ALL_POLICIES, sdk.EnforcementLevel.ADVISORY)
    for stack, config in (("one", {"p:key": "a"}), ("two", {"p:key": "b"})):
        monkeypatch.setenv("PULUMI_PROJECT", "p")
        monkeypatch.setenv("PULUMI_DRY_RUN", "true")
        monkeypatch.setenv("PULUMI_STACK", stack)
        monkeypatch.setenv("PULUMI_CONFIG", json.dumps(config))
        servicer._configure_runtime_settings()
        assert pulumi.runtime.get_config("p:key") == config["p:key"]
        assert pulumi.get_stack() == stack


# ---- the metadata cache: another code is a miss, an unwritable place no cache --------------------------------


def test_the_cache_answers_only_for_the_code_it_was_made_from(tmp_path):
    from percona_mysql_k8s.policies._catalog import ALL_POLICIES
    from pulumi_policy import policy as sdk

    cache = tmp_path / _lazy.CACHE
    assert _lazy.write_cache(ALL_POLICIES, "key-of-this-code", cache)
    stand_ins = _lazy.cached_policies("key-of-this-code", cache)
    assert _lazy.cached_policies("key-of-other-code", cache) is None
    assert _lazy.cached_policies("key-of-this-code", tmp_path / "absent.json") is None
    assert not _lazy.write_cache(ALL_POLICIES, "key", tmp_path / "no-such-directory" / _lazy.CACHE)

    def info(policies):
        servicer = sdk._PolicyAnalyzerServicer("p", "0.0.1", policies, sdk.EnforcementLevel.ADVISORY)
        return servicer.GetAnalyzerInfo(None, None).SerializeToString()

    assert info(stand_ins) == info(ALL_POLICIES)
    assert [getattr(p, "applies_to", None) is None for p in stand_ins] == [
        getattr(p, "applies_to", None) is None for p in ALL_POLICIES
    ]
    pxc = "kubernetes:pxc.percona.com/v1:PerconaXtraDBCluster"
    assert [p.applies_to(pxc) for p in stand_ins if getattr(p, "applies_to", None)] == [
        p.applies_to(pxc) for p in ALL_POLICIES if getattr(p, "applies_to", None)
    ]


def test_the_key_changes_with_the_code(tmp_path, monkeypatch):
    before = _lazy.source_key()
    module = Path(_lazy.__file__)
    stat = module.stat()
    try:
        os.utime(module, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1))
        assert _lazy.source_key() != before
    finally:
        os.utime(module, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert _lazy.source_key() == before
