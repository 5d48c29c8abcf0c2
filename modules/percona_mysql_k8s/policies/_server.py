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
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterable

import grpc
from pulumi_policy import policy as _policy

from percona_mysql_k8s.policies._sdk import speed_up_enabled

_installed = False


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


class _GrpcForPolicyPack:
    """The grpc module as pulumi_policy.policy sees it, with ``server`` serving on the event loop."""

    def __init__(self, real):
        self._real = real

    @staticmethod
    def server(_executor=None, options=()):  # the SDK's thread pool has nothing left to run
        return EventLoopServer(options or ())

    def __getattr__(self, name):
        return getattr(self._real, name)


def serve_on_event_loop() -> bool:
    """Install the server; False (and nothing changed) for an SDK version it was not written for."""
    global _installed
    if _installed:
        return True
    if not speed_up_enabled("PERCONA_POLICY_EVENT_LOOP_SERVER"):
        return False
    _policy.grpc = _GrpcForPolicyPack(_policy.grpc)
    _installed = True
    return True
