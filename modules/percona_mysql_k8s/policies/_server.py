"""Serve the pack on a grpc.aio server, running the SDK's servicer methods inline (pulumi-policy 1.21).

``PolicyPack`` serves on ``grpc.server(ThreadPoolExecutor(4))``: every call crosses from gRPC's poller
thread to a pool thread and back, and on a small machine that hand-off costs more than our thirty
policies (about 0.6 ms of server CPU per call here, against 0.35 ms for the policies themselves).
The pack is CPU-bound Python, so the pool buys no parallelism (the GIL serializes it anyway). This
module gives ``PolicyPack`` a server with the same interface whose handlers run on one event loop,
inline: the SDK's servicer, its validation of the pack and its start-up output are unchanged, and a
call costs about half as much (benchmarks/policy_bench.py prints both).

Calls are served one at a time, in arrival order, as the pool's GIL-bound threads effectively were.
Set PERCONA_POLICY_EVENT_LOOP_SERVER=0 to run the stock server.

It replaces the ``grpc`` module as pulumi_policy/policy.py sees it, so it goes in only where it verified that
``PolicyPack`` makes its server through that name and that the servicer registration (pulumi's generated
``add_AnalyzerServicer_to_server``) and ``PolicyPack`` call no method of ``grpc.Server`` this server lacks
(:func:`missing_for_event_loop_server`); any other release runs the SDK's stock server.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterable
from typing import Any

import grpc
from pulumi_policy import policy as _policy

from percona_mysql_k8s.policies._sdk import ModuleOverlay, code_names, installer


def _inline(behavior):
    """A synchronous unary-unary behaviour as a coroutine the event loop runs without a thread hop."""

    async def call(request, context):
        return behavior(request, context)

    return call


def _with_inline_behaviors(handler):
    if handler is None or handler.unary_unary is None or asyncio.iscoroutinefunction(handler.unary_unary):
        return handler
    return handler._replace(unary_unary=_inline(handler.unary_unary))


class _InlineGenericHandler(grpc.GenericRpcHandler):
    def __init__(self, generic: grpc.GenericRpcHandler):
        self._generic = generic

    def service(self, handler_call_details):
        return _with_inline_behaviors(self._generic.service(handler_call_details))


class EventLoopServer:
    """``grpc.Server``'s interface, the part PolicyPack and pulumi's generated stubs use, over a
    grpc.aio server running on its own thread."""

    def __init__(self, options: Iterable[tuple[str, object]] = ()):
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="policy-pack-grpc", daemon=True)
        self._thread.start()
        # created on the loop's thread: a grpc.aio server binds to the running loop
        self._server = self._run(self._call(lambda: grpc.aio.server(options=list(options))))

    def _run(self, coroutine):
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop).result()

    async def _call(self, function, *args):
        return function(*args)

    def add_generic_rpc_handlers(self, handlers) -> None:
        wrapped = tuple(_InlineGenericHandler(handler) for handler in handlers)
        self._run(self._call(self._server.add_generic_rpc_handlers, wrapped))

    def add_insecure_port(self, address: str) -> int:
        return self._run(self._call(self._server.add_insecure_port, address))

    def start(self) -> None:
        self._run(self._server.start())

    def stop(self, grace: float | None) -> None:
        self._run(self._server.stop(grace))
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=10)


def _event_loop_server(_executor=None, options=()) -> EventLoopServer:
    """``grpc.server`` as PolicyPack calls it; the SDK's thread pool has nothing left to run."""
    return EventLoopServer(options or ())


# The methods of grpc.Server that EventLoopServer implements.
SERVER_METHODS = frozenset({"add_generic_rpc_handlers", "add_insecure_port", "start", "stop"})


def missing_for_event_loop_server(sdk: Any = _policy) -> list[str]:
    """What the event-loop server relies on and ``sdk`` (pulumi_policy.policy) lacks; [] = verified."""
    pack_init = getattr(getattr(sdk, "PolicyPack", None), "__init__", None)
    register = getattr(getattr(sdk, "analyzer_pb2_grpc", None), "add_AnalyzerServicer_to_server", None)
    if not callable(pack_init) or not callable(register):
        return ["PolicyPack.__init__ or analyzer_pb2_grpc.add_AnalyzerServicer_to_server (absent)"]
    if not callable(getattr(getattr(sdk, "grpc", None), "server", None)):
        return ["pulumi_policy.policy.grpc.server (absent)"]
    missing = [f"PolicyPack.__init__ does not read {name}" for name in ("grpc", "server") if name not in code_names(pack_init)]
    server_api = {name for name in dir(grpc.Server) if not name.startswith("_")}
    for owner, function in (("PolicyPack.__init__", pack_init), ("add_AnalyzerServicer_to_server", register)):
        missing += [
            f"{owner} calls grpc.Server.{name}, which the event-loop server lacks"
            for name in sorted((code_names(function) & server_api) - SERVER_METHODS)
        ]
    return missing


@installer("PERCONA_POLICY_EVENT_LOOP_SERVER", missing_for_event_loop_server)
def serve_on_event_loop(sdk: Any) -> None:
    """Install the server where it verified the SDK (:func:`missing_for_event_loop_server`)."""
    sdk.grpc = ModuleOverlay(sdk.grpc, server=_event_loop_server)
