"""The pack's two speed-ups (percona_mysql_k8s.policies._sdk, percona_mysql_k8s.policies._server) change what it answers in no way."""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager

import grpc
import pytest
from google.protobuf import empty_pb2
from harness import case_files, load_case, needs_reference, resolve_resource
from percona_mysql_k8s.policies._engine import Pack, Resource
from pulumi.runtime.proto import analyzer_pb2

SWITCHES = ("PERCONA_POLICY_SHARED_DESERIALIZATION", "PERCONA_POLICY_EVENT_LOOP_SERVER")


def _entries(upstream: bool) -> list[tuple[str, dict]]:
    """Every resource of the policy cases, built on hand-written bases only or on upstream examples."""
    cases = [(path.stem, load_case(path)) for path in case_files()]
    return [(stem, entry) for stem, case in cases for entry in case.get("resources", [case]) if needs_reference(entry) == upstream]


@pytest.fixture(scope="module", params=["hand-written", "upstream-examples"])
def resources(request) -> list[Resource]:
    """The cases' resources, in two sets: the upstream examples are reference material, resolved here (a test
    skips, naming scripts/fetch-reference.sh, when they are not; never at import, which would stop collection)."""
    entries = _entries(upstream=request.param == "upstream-examples")
    assert entries, request.param
    resolved = [(stem, resolve_resource(entry)) for stem, entry in entries]
    return [Resource(urn=f"urn:pulumi:test::p::{entry['type']}::{stem}", type=entry["type"], name=entry.get("name", "subject"),
                     properties=entry["props"], protect=entry.get("protect", False)) for stem, entry in resolved]


@contextmanager
def _pack(shared: bool, event_loop: bool):
    previous = {name: os.environ.get(name) for name in SWITCHES}
    os.environ.update(dict(zip(SWITCHES, ("1" if shared else "0", "1" if event_loop else "0"), strict=True)))
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
    with _pack(shared=False, event_loop=False) as pack:
        return _responses(pack, resources)


@pytest.mark.parametrize(("shared", "event_loop"), [(True, False), (False, True), (True, True)],
                         ids=["shared-deserialization", "event-loop-server", "both"])
def test_speed_ups_change_nothing_but_speed(shared, event_loop, resources, stock):
    with _pack(shared, event_loop) as pack:
        assert _responses(pack, resources) == stock


def _status(call):
    try:
        call()
    except grpc.RpcError as error:
        return error.code()
    return grpc.StatusCode.OK


@pytest.mark.parametrize("event_loop", [False, True], ids=["stock-server", "event-loop-server"])
def test_unimplemented_methods_answer_unimplemented(event_loop):
    # The engine's Handshake falls back to the older protocol on UNIMPLEMENTED; anything else fails it.
    with _pack(shared=True, event_loop=event_loop) as pack:
        assert _status(lambda: pack.stub.Handshake(analyzer_pb2.AnalyzerHandshakeRequest())) == grpc.StatusCode.UNIMPLEMENTED
        assert _status(lambda: pack.stub.Cancel(empty_pb2.Empty())) == grpc.StatusCode.UNIMPLEMENTED
        assert _status(pack.info) == grpc.StatusCode.OK


def test_event_loop_server_answers_concurrent_calls_each_with_its_own_resource(resources):
    # Calls in flight at once are served one after another; each answer must be its own request's.
    with _pack(shared=True, event_loop=True) as pack:
        alone = [sorted(d.message for d in pack.analyze(r)) for r in resources]
        with ThreadPoolExecutor(8) as pool:
            together = list(pool.map(lambda r: sorted(d.message for d in pack.analyze(r)), resources))
        assert together == alone
        assert any(alone)  # the cases include violations, so a mix-up would show


def test_event_loop_server_starts_serves_and_stops_in_process():
    from percona_mysql_k8s.policies._catalog import ALL_POLICIES
    from percona_mysql_k8s.policies._server import EventLoopServer
    from pulumi.runtime.proto import analyzer_pb2_grpc
    from pulumi_policy import policy as sdk

    servicer = sdk._PolicyAnalyzerServicer("in-process", "0", ALL_POLICIES, sdk.EnforcementLevel.ADVISORY)
    server = EventLoopServer([("grpc.max_receive_message_length", 1024 * 1024)])
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
