"""The pack's speed-ups (percona_mysql_k8s.policies._sdk, ._fastpath, ._server) change what it answers in no way."""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager

import grpc
import pytest
from google.protobuf import empty_pb2
from harness import case_files, load_case, needs_reference, resolve_resource
from percona_mysql_k8s.cli.engine import Pack, Resource
from pulumi.runtime.proto import analyzer_pb2

SWITCHES = ("PERCONA_POLICY_SHARED_DESERIALIZATION", "PERCONA_POLICY_LEAN_SERVER", "PERCONA_POLICY_FAST_CALLS")


def _entries(upstream: bool) -> list[tuple[str, dict]]:
    """Every resource of the policy cases, built on hand-written bases only or on upstream examples."""
    cases = [(path.stem, load_case(path)) for path in case_files()]
    return [
        (stem, entry) for stem, case in cases for entry in case.get("resources", [case]) if needs_reference(entry) == upstream
    ]


@pytest.fixture(scope="module", params=["hand-written", "upstream-examples"])
def resources(request) -> list[Resource]:
    """The cases' resources, in two sets: the upstream examples are reference material, resolved here (a test
    skips, naming scripts/fetch-reference.sh, when they are not; never at import, which would stop collection)."""
    entries = _entries(upstream=request.param == "upstream-examples")
    assert entries, request.param
    resolved = [(stem, resolve_resource(entry)) for stem, entry in entries]
    return [
        Resource(
            urn=f"urn:pulumi:test::p::{entry['type']}::{stem}",
            type=entry["type"],
            name=entry.get("name", "subject"),
            properties=entry["props"],
            protect=entry.get("protect", False),
        )
        for stem, entry in resolved
    ]


@contextmanager
def _pack(shared: bool, lean: bool, fast: bool = False):
    previous = {name: os.environ.get(name) for name in SWITCHES}
    os.environ.update(dict(zip(SWITCHES, ("1" if on else "0" for on in (shared, lean, fast)), strict=True)))
    try:
        with Pack(stack="prod") as pack:
            yield pack
    finally:
        for name, value in previous.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def _responses(pack: Pack, resources: list[Resource]):
    analyzed = [sorted((d.policy, d.level, d.message) for d in pack.analyze(r)) for r in resources]
    stacked = sorted((d.policy, d.level, d.message, d.urn) for d in pack.analyze_stack(resources))
    return analyzed, stacked


@pytest.fixture(scope="module")
def stock(resources):
    with _pack(shared=False, lean=False) as pack:
        return _responses(pack, resources)


@pytest.mark.parametrize(
    ("shared", "lean", "fast"),
    [(True, False, False), (False, True, False), (False, False, True), (True, True, True)],
    ids=["shared-deserialization", "lean-server", "fast-calls", "all"],
)
def test_speed_ups_change_nothing_but_speed(shared, lean, fast, resources, stock):
    with _pack(shared, lean, fast) as pack:
        assert _responses(pack, resources) == stock


def _status(call):
    try:
        call()
    except grpc.RpcError as error:
        return error.code()
    return grpc.StatusCode.OK


@pytest.mark.parametrize("lean", [False, True], ids=["stock-server", "lean-server"])
def test_unimplemented_methods_answer_unimplemented(lean):
    # The engine's Handshake falls back to the older protocol on UNIMPLEMENTED; anything else fails it.
    with _pack(shared=True, lean=lean, fast=True) as pack:
        assert _status(lambda: pack.stub.Handshake(analyzer_pb2.AnalyzerHandshakeRequest())) == grpc.StatusCode.UNIMPLEMENTED
        assert _status(lambda: pack.stub.Cancel(empty_pb2.Empty())) == grpc.StatusCode.UNIMPLEMENTED
        assert _status(pack.info) == grpc.StatusCode.OK


def test_lean_server_answers_concurrent_calls_each_with_its_own_resource(resources):
    # Calls in flight at once are served one after another; each answer must be its own request's.
    with _pack(shared=True, lean=True, fast=True) as pack:
        alone = [sorted(d.message for d in pack.analyze(r)) for r in resources]
        with ThreadPoolExecutor(8) as pool:
            together = list(pool.map(lambda r: sorted(d.message for d in pack.analyze(r)), resources))
        assert together == alone
        assert any(alone)  # the cases include violations, so a mix-up would show


def test_lean_server_starts_serves_and_stops_in_process():
    from percona_mysql_k8s.policies._catalog import ALL_POLICIES
    from percona_mysql_k8s.policies._server import LeanServer
    from pulumi.runtime.proto import analyzer_pb2_grpc
    from pulumi_policy import policy as sdk

    servicer = sdk._PolicyAnalyzerServicer("in-process", "0", ALL_POLICIES, sdk.EnforcementLevel.ADVISORY)
    server = LeanServer([("grpc.max_receive_message_length", 1024 * 1024)])
    analyzer_pb2_grpc.add_AnalyzerServicer_to_server(servicer, server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    try:
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            info = analyzer_pb2_grpc.AnalyzerStub(channel).GetAnalyzerInfo(empty_pb2.Empty(), timeout=10)
        assert info.name == "in-process" and len(info.policies) == len(ALL_POLICIES)
    finally:
        server.stop(0)
    assert not server._thread.is_alive()


# ---- the speed-ups go in only where they verified the SDK's internals (any pulumi-policy in the range) ----


def _sdk_copy(**servicer_changes):
    """A stand-in for pulumi_policy.policy: the real module's names, a subclass of its servicer with
    ``servicer_changes`` applied, a PolicyPack subclass. Patching it leaves the real SDK untouched."""
    import types

    from pulumi_policy import policy as sdk

    copy = types.ModuleType("pulumi_policy_policy_copy")
    copy.__dict__.update({name: value for name, value in vars(sdk).items() if not name.startswith("__")})
    copy._PolicyAnalyzerServicer = type("_PolicyAnalyzerServicer", (sdk._PolicyAnalyzerServicer,), dict(servicer_changes))
    copy.PolicyPack = type("PolicyPack", (sdk.PolicyPack,), {})
    return copy


def test_this_sdks_internals_are_the_verified_ones_and_a_copy_takes_every_patch():
    from percona_mysql_k8s.policies import _sdk, _server
    from pulumi_policy import policy as sdk

    copy = _sdk_copy()
    expected = not _sdk.missing_for_shared_deserialization(sdk)
    stock_analyze, stock_grpc = sdk._PolicyAnalyzerServicer.__dict__.get("Analyze"), sdk.grpc
    assert _sdk.share_deserialization(copy) is expected
    assert (copy._PolicyAnalyzerServicer.__dict__.get("Analyze") is not None) is expected  # installed on the copy only
    assert _server.serve_lean(copy) is (not _server.missing_for_lean_server(sdk))
    assert sdk._PolicyAnalyzerServicer.__dict__.get("Analyze") is stock_analyze
    if not _sdk.missing_for_shared_deserialization(sdk):
        assert copy.deserialize_properties is not sdk.deserialize_properties
    assert sdk.grpc is stock_grpc


def _analyze_through_a_helper(self, request, context):
    """An Analyze that reaches the SDK's internals through another function: its code names none of them."""
    return _stock_analyze(self, request, context)


def _stock_analyze(self, request, context):
    from pulumi_policy import policy as sdk

    return sdk._PolicyAnalyzerServicer.Analyze(self, request, context)


def test_an_sdk_whose_analyze_reads_other_names_runs_the_stock_path():
    from percona_mysql_k8s.policies import _sdk

    copy = _sdk_copy(Analyze=_analyze_through_a_helper)
    missing = _sdk.missing_for_shared_deserialization(copy)
    assert "_PolicyAnalyzerServicer.Analyze does not read deserialize_properties" in missing
    assert "_PolicyAnalyzerServicer.Analyze does not read _PolicyAnalyzerServicer__policies" in missing
    before = dict(vars(copy))
    assert _sdk.share_deserialization(copy) is False
    assert dict(vars(copy)) == before and copy._PolicyAnalyzerServicer.Analyze is _analyze_through_a_helper


def test_an_sdk_without_a_replaced_method_or_name_runs_the_stock_path():
    from percona_mysql_k8s.policies import _sdk

    def options(self, request, extra):  # another signature than the shim wraps
        return None

    copy = _sdk_copy(_get_resource_options=options)
    del copy.unknown_checking_proxy
    missing = _sdk.missing_for_shared_deserialization(copy)
    assert "pulumi_policy.policy.unknown_checking_proxy (absent)" in missing
    assert "_PolicyAnalyzerServicer._get_resource_options(self, request) (absent or another signature)" in missing
    assert _sdk.share_deserialization(copy) is False


def test_an_sdk_whose_pack_calls_a_server_method_the_lean_server_lacks_keeps_its_server():
    from percona_mysql_k8s.policies import _server

    copy = _sdk_copy()

    def init(self, name, policies, **kwargs):
        server = grpc.server(None)
        server.add_registered_method_handlers("pulumirpc.Analyzer", {})
        server.wait_for_termination()

    copy.PolicyPack = type("PolicyPack", (), {"__init__": init})
    missing = _server.missing_for_lean_server(copy)
    assert missing == [
        "PolicyPack.__init__ calls grpc.Server.add_registered_method_handlers, which the lean server lacks",
        "PolicyPack.__init__ calls grpc.Server.wait_for_termination, which the lean server lacks",
    ]
    stock = copy.grpc
    assert _server.serve_lean(copy) is False and copy.grpc is stock


def test_the_version_is_reported_only_through_a_servicer_of_the_verified_shape():
    from percona_mysql_k8s.policies import _sdk
    from pulumi_policy import policy as sdk

    def other_init(self, name, policies, version, enforcement_level, *rest):
        sdk._PolicyAnalyzerServicer.__init__(self, name, version, policies, enforcement_level, *rest)

    copy = _sdk_copy(__init__=other_init)
    assert (
        _sdk.missing_for_version_report(copy)[0]
        == "_PolicyAnalyzerServicer.__init__(self, name, version, ...) (another signature)"
    )
    assert _sdk.report_version("9.9.9", copy) is False and copy._PolicyAnalyzerServicer.__init__ is other_init

    copy = _sdk_copy()
    assert _sdk.report_version("9.9.9", copy) is (not _sdk.missing_for_version_report(sdk))
    if not _sdk.missing_for_version_report(sdk):
        from percona_mysql_k8s.policies._catalog import ALL_POLICIES

        servicer = copy._PolicyAnalyzerServicer("p", "0.0.1", ALL_POLICIES, sdk.EnforcementLevel.ADVISORY)
        assert servicer.GetAnalyzerInfo(None, None).version == "9.9.9"
        assert (
            sdk._PolicyAnalyzerServicer("p", "0.0.1", ALL_POLICIES, sdk.EnforcementLevel.ADVISORY)
            .GetAnalyzerInfo(None, None)
            .version
            == "0.0.1"
        )  # the real SDK's servicer: untouched


# An SDK release whose servicer differs from the one verified (its Analyze reaches the internals through a
# helper, its __init__ takes its arguments as *args): the pack must start on it and judge as the stock SDK does.
_OTHER_SDK_MAIN = """
import runpy
from pulumi_policy import policy as sdk

stock = sdk._PolicyAnalyzerServicer


def _helper(self, request, context):
    return stock.Analyze(self, request, context)


class _PolicyAnalyzerServicer(stock):
    def __init__(self, *args, **kwargs):
        stock.__init__(self, *args, **kwargs)

    def Analyze(self, request, context):
        return _helper(self, request, context)


sdk._PolicyAnalyzerServicer = _PolicyAnalyzerServicer
runpy.run_path(PACK_MAIN, run_name="__main__")
"""


def test_the_pack_on_an_sdk_it_cannot_verify_answers_as_the_stock_sdk(tmp_path, request, resources, stock):
    import percona_mysql_k8s
    from percona_mysql_k8s.cli.project import policy_pack_dir
    from percona_mysql_k8s.policies._catalog import PACK_NAME

    pack_dir = policy_pack_dir()
    shell = tmp_path / "pack"
    shell.mkdir()
    (shell / "PulumiPolicy.yaml").write_text((pack_dir / "PulumiPolicy.yaml").read_text())
    (shell / "__main__.py").write_text(f"PACK_MAIN = {str(pack_dir / '__main__.py')!r}\n" + _OTHER_SDK_MAIN)
    with Pack(shell, stack="prod") as pack:
        assert pack.info().name == PACK_NAME
        assert pack.info().version == "0.0.1"  # the servicer's shape is not the verified one: the SDK's own answer
        analyzed, stacked = _responses(pack, resources)
    # the SDK's "can't run policy ... from policy pack 'NAME@vVERSION'" notes carry the version it was given
    ours, sdks = f"{PACK_NAME}@v{percona_mysql_k8s.__version__}", f"{PACK_NAME}@v0.0.1"
    if request.node.callspec.params["resources"] == "hand-written":  # the set whose stack has a "can't run" note
        assert any(sdks in message for _policy, _level, message, _urn in stacked)
    same_version = (
        [sorted((p, lvl, m.replace(sdks, ours)) for p, lvl, m in one) for one in analyzed],
        sorted((p, lvl, m.replace(sdks, ours), u) for p, lvl, m, u in stacked),
    )
    assert same_version == stock


def test_the_pack_reports_the_librarys_version(resources):
    import percona_mysql_k8s

    with Pack(stack="prod") as pack:
        info = pack.info()
        diagnostics = [d for r in resources for d in pack.analyze(r)]
    assert info.version == percona_mysql_k8s.__version__
    assert diagnostics and {d.version for d in diagnostics} == {percona_mysql_k8s.__version__}


def test_a_grpcio_without_what_the_lean_server_uses_keeps_the_sdks_server(monkeypatch):
    from percona_mysql_k8s.policies import _server

    monkeypatch.delattr(_server.cygrpc, "ReceiveCloseOnServerOperation")
    assert _server.missing_for_lean_server() == ["grpc._cython.cygrpc.ReceiveCloseOnServerOperation (absent)"]
    copy = _sdk_copy()
    stock = copy.grpc
    assert _server.serve_lean(copy) is False and copy.grpc is stock


def _statuses(server) -> list:
    """What a client sees of a servicer that answers, one that raises, one that sets UNIMPLEMENTED and raises, and
    a method nobody serves, on ``server`` (grpc's own or the lean one)."""

    def unimplemented(request, context):
        context.set_code(grpc.StatusCode.UNIMPLEMENTED)
        context.set_details("Method not implemented!")
        raise NotImplementedError("Method not implemented!")

    def boom(request, context):
        raise ValueError("boom")

    handlers = {
        "Echo": grpc.unary_unary_rpc_method_handler(lambda request, context: request[::-1]),
        "Boom": grpc.unary_unary_rpc_method_handler(boom),
        "Unimplemented": grpc.unary_unary_rpc_method_handler(unimplemented),
    }
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler("test.Service", handlers),))
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    seen = []
    try:
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            for method in ("Echo", "Boom", "Unimplemented", "Absent"):
                try:
                    seen.append((grpc.StatusCode.OK, channel.unary_unary(f"/test.Service/{method}")(b"abc", timeout=10)))
                except grpc.RpcError as error:
                    seen.append((error.code(), error.details()))
    finally:
        server.stop(0)
    return seen


def test_the_lean_server_answers_as_grpcs_server():
    from concurrent.futures import ThreadPoolExecutor

    from percona_mysql_k8s.policies._server import LeanServer

    expected = [
        (grpc.StatusCode.OK, b"cba"),
        (grpc.StatusCode.UNKNOWN, "Exception calling application: boom"),
        (grpc.StatusCode.UNIMPLEMENTED, "Method not implemented!"),
        (grpc.StatusCode.UNIMPLEMENTED, "Method not found!"),
    ]
    assert _statuses(grpc.server(ThreadPoolExecutor(2))) == expected
    assert _statuses(LeanServer()) == expected


def test_the_pack_as_shipped_installs_every_speed_up_on_the_pinned_sdk():
    """In the order the pack's __main__ installs them, each speed-up verifies the pinned SDK and goes in.
    (report_version wraps the servicer's __init__; the shared deserialization once read the wrapper for the
    SDK's names, found none and silently ran the stock path: 8 s for one 206 KiB CRD under the engine.)"""
    import importlib.metadata
    import re
    from pathlib import Path

    from percona_mysql_k8s.policies import _fastpath, _sdk

    main = Path(_sdk.__file__).with_name("pack") / "__main__.py"
    pinned = re.search(r"^pulumi-policy==(\S+)", (main.with_name("requirements.txt")).read_text(), re.M)
    if pinned is None or importlib.metadata.version("pulumi-policy") != pinned.group(1):
        pytest.skip("another pulumi-policy than the pack's pin (the lower-bound run): its internals may differ")
    calls = [main.read_text().index(call) for call in ("\nreport_version(", "\nspeed_up_calls()", "\nshare_deserialization()")]
    assert calls == sorted(calls), "the test installs them in __main__'s order"
    copy = _sdk_copy()
    assert _sdk.report_version("9.9.9", copy)
    assert _fastpath.speed_up_calls(copy)
    assert _sdk.missing_for_shared_deserialization(copy) == []
    assert _sdk.share_deserialization(copy)
