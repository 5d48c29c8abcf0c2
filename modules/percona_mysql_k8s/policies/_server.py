"""Serve the pack's unary calls straight off gRPC's completion queue, on one thread (pulumi-policy 1.21, grpcio 1.85).

``PolicyPack`` serves on ``grpc.server(ThreadPoolExecutor(4))``. For one call, grpc's Python server hands the call
from its polling thread to a pool thread, which starts the receive and waits on a condition for the polling thread
to deliver the message, runs the servicer, and waits again for the send: four thread hand-offs and some hundred
lines of Python per call, about 170 µs of the pack's CPU on this 2-core machine before the servicer runs
(a grpc.aio server with inline handlers, this module's previous design, took 230 µs). The engine calls the pack
twice per resource, one resource at a time, so that is paid 2N times on the preview's critical path
(docs/policies.md, "Under the engine").

:class:`LeanServer` keeps ``grpc.Server``'s interface (the part ``PolicyPack`` and pulumi's generated
``add_AnalyzerServicer_to_server`` use) and drives the same gRPC core (grpc's own ``cygrpc`` layer, as grpc's server
does) from one thread: a call is three completion-queue events (the call, its message, its end) and the servicer
runs inline, about 75 µs. It answers as grpc's server answers: the servicer's response, or for a servicer that
raises, the code and details it set on the context, else UNKNOWN "Exception calling application: ..."; an unknown
method UNIMPLEMENTED "Method not found!"; a request that cannot be parsed INTERNAL. Calls are served one at a time
in arrival order (the GIL serialized grpc's pool threads anyway: the pack is CPU-bound Python).

``cygrpc`` is grpcio's internal layer, so the server goes in only where every name it uses is there and takes the
arguments it passes (made once at start), and ``PolicyPack`` makes its server through ``grpc.server`` and calls no method of
``grpc.Server`` this server lacks (:func:`missing_for_lean_server`); anywhere else the SDK's own server runs.
``PERCONA_POLICY_LEAN_SERVER=0`` turns it off.
"""

from __future__ import annotations

import logging
import threading
from collections import namedtuple
from collections.abc import Iterable
from typing import Any

import grpc
from pulumi_policy import policy as _policy

from percona_mysql_k8s.policies._sdk import ModuleOverlay, code_names, installer

try:  # grpcio's internal layer (what grpc/_server.py drives); absent or other: the SDK's server runs
    from grpc._cython import cygrpc
except ImportError:  # pragma: no cover - every grpcio release so far has it
    cygrpc = None

_LOGGER = logging.getLogger("grpc._server")  # the logger grpc's server reports a servicer's exception to
_NO_FLAGS = 0
_REQUEST_CALL, _SHUTDOWN = object(), object()
_CALL = namedtuple("_HandlerCallDetails", ("method", "invocation_metadata"))
# The cygrpc names the server uses, each with the number of arguments it passes.
CYGRPC_NAMES = (
    "CompletionQueue",
    "Server",
    "ReceiveMessageOperation",
    "SendInitialMetadataOperation",
    "SendMessageOperation",
    "SendStatusFromServerOperation",
    "ReceiveCloseOnServerOperation",
    "StatusCode",
)


class _HandlerCallDetails(_CALL, grpc.HandlerCallDetails):
    pass


class _Context(grpc.ServicerContext):
    """What a unary servicer can ask of its call; what it sets decides the status, as in grpc's ``_Context``."""

    def __init__(self, rpc_event):
        self._event = rpc_event
        self._code: grpc.StatusCode | None = None
        self._details: str | None = None
        self._trailing: tuple = ()
        self.aborted = False

    def is_active(self) -> bool:
        return True

    def time_remaining(self) -> float | None:
        return None

    def cancel(self) -> None:
        self._event.call.cancel(cygrpc.StatusCode.cancelled, b"Cancelled")

    def add_callback(self, callback) -> bool:
        return False

    def invocation_metadata(self):
        return self._event.invocation_metadata

    def peer(self) -> str:
        return self._event.call.peer().decode()

    def peer_identities(self):
        return None

    def peer_identity_key(self):
        return None

    def auth_context(self) -> dict:
        return {}

    def set_compression(self, compression) -> None:
        pass

    def send_initial_metadata(self, initial_metadata) -> None:
        raise ValueError("the pack's server sends no initial metadata of a servicer's")

    def set_trailing_metadata(self, trailing_metadata) -> None:
        self._trailing = tuple(trailing_metadata)

    def trailing_metadata(self):
        return self._trailing

    def abort(self, code: grpc.StatusCode, details: str) -> None:
        if code == grpc.StatusCode.OK:  # as grpc's server: an abort is never OK
            code, details = grpc.StatusCode.UNKNOWN, ""
        self._code, self._details, self.aborted = code, details, True
        raise Exception()  # noqa: TRY002 - what grpc's _Context.abort raises

    def abort_with_status(self, status) -> None:
        self.set_trailing_metadata(status.trailing_metadata)
        self.abort(status.code, status.details)

    def set_code(self, code: grpc.StatusCode) -> None:
        self._code = code

    def set_details(self, details: str) -> None:
        self._details = details

    def code(self):
        return self._code

    def details(self):
        return self._details

    def disable_next_message_compression(self) -> None:
        pass

    def status(self, default: Any, details: str) -> tuple[Any, bytes]:
        """The call's status as cygrpc takes it: the code and details the servicer set, else these."""
        code = default if self._code is None else self._code.value[0]
        text = details if self._details is None else self._details
        return code, text.encode() if isinstance(text, str) else text


class LeanServer:
    """``grpc.Server``'s interface (what PolicyPack and the generated registration call), unary calls only."""

    def __init__(self, options: Iterable[tuple[str, object]] = ()):
        self._handlers: list[grpc.GenericRpcHandler] = []
        self._queue = cygrpc.CompletionQueue()
        self._server = cygrpc.Server(tuple(options), False)
        self._server.register_completion_queue(self._queue)
        self._thread = threading.Thread(target=self._serve, name="policy-pack-grpc", daemon=True)

    def add_generic_rpc_handlers(self, handlers) -> None:
        self._handlers.extend(handlers)

    def add_insecure_port(self, address: str) -> int:
        return self._server.add_http2_port(address.encode())

    def start(self) -> None:
        self._server.start()
        self._server.request_call(self._queue, self._queue, _REQUEST_CALL)
        self._thread.start()

    def stop(self, grace: float | None) -> None:
        self._server.shutdown(self._queue, _SHUTDOWN)
        self._server.cancel_all_calls()
        self._thread.join(timeout=10)

    def _serve(self) -> None:
        while True:
            event = self._queue.poll()
            if event.tag is _SHUTDOWN:
                return
            if event.tag is _REQUEST_CALL:
                if event.success:
                    self._server.request_call(self._queue, self._queue, _REQUEST_CALL)  # the next call may queue
                    self._begin(event)
            elif callable(event.tag):
                event.tag(event)

    def _handler(self, rpc_event):
        details = _HandlerCallDetails(rpc_event.call_details.method.decode(), rpc_event.invocation_metadata)
        for generic in self._handlers:
            handler = generic.service(details)
            if handler is not None:
                return handler
        return None

    def _begin(self, rpc_event) -> None:
        try:
            handler = self._handler(rpc_event)
        except Exception:  # noqa: BLE001 - grpc's server answers it, so do we
            _LOGGER.exception("Exception servicing handler")
            return self._finish(rpc_event, None, (cygrpc.StatusCode.unknown, b"Error in service handler!"))
        if handler is None:
            return self._finish(rpc_event, None, (cygrpc.StatusCode.unimplemented, b"Method not found!"))
        if handler.request_streaming or handler.response_streaming:  # the Analyzer service has no streams
            return self._finish(rpc_event, None, (cygrpc.StatusCode.unimplemented, b"Method not found!"))
        operations = (cygrpc.ReceiveMessageOperation(_NO_FLAGS),)
        rpc_event.call.start_server_batch(operations, lambda event: self._received(rpc_event, handler, event))

    def _received(self, rpc_event, handler, event) -> None:
        if not event.success:
            return  # the client went away
        message = event.batch_operations[0].message()
        if message is None:
            details = f'"{rpc_event.call_details.method}" requires exactly one request message.'
            return self._finish(rpc_event, None, (cygrpc.StatusCode.unimplemented, details.encode()))
        try:
            request = handler.request_deserializer(message) if handler.request_deserializer else message
        except Exception:  # noqa: BLE001
            _LOGGER.exception("Exception deserializing request!")
            return self._finish(rpc_event, None, (cygrpc.StatusCode.internal, b"Exception deserializing request!"))
        context = _Context(rpc_event)
        try:
            response = handler.unary_unary(request, context)
        except Exception as exception:  # noqa: BLE001 - grpc's server turns it into the call's status
            if context.aborted:
                return self._finish(rpc_event, context, context.status(cygrpc.StatusCode.unknown, "RPC Aborted"))
            details = f"Exception calling application: {exception}"
            _LOGGER.exception(details)
            return self._finish(rpc_event, context, context.status(cygrpc.StatusCode.unknown, details))
        try:
            payload = handler.response_serializer(response) if handler.response_serializer else response
        except Exception:  # noqa: BLE001
            _LOGGER.exception("Failed to serialize response!")
            return self._finish(rpc_event, context, (cygrpc.StatusCode.internal, b"Failed to serialize response!"))
        self._finish(rpc_event, context, context.status(cygrpc.StatusCode.ok, ""), payload)

    def _finish(self, rpc_event, context, status, payload: bytes | None = None) -> None:
        code, details = status
        trailing = context.trailing_metadata() if context is not None else ()
        operations = [cygrpc.SendInitialMetadataOperation(None, _NO_FLAGS)]
        if payload is not None:
            operations.append(cygrpc.SendMessageOperation(payload, _NO_FLAGS))
        operations.append(cygrpc.SendStatusFromServerOperation(trailing or None, code, details, _NO_FLAGS))
        operations.append(cygrpc.ReceiveCloseOnServerOperation(_NO_FLAGS))
        rpc_event.call.start_server_batch(tuple(operations), _ignore)


def _ignore(_event) -> None:
    """A call's last batch completed: nothing is left to do for it."""


def _lean_server(_executor=None, options=()) -> LeanServer:
    """``grpc.server`` as PolicyPack calls it; the SDK's thread pool has nothing left to run."""
    return LeanServer(options or ())


# The methods of grpc.Server that LeanServer implements.
SERVER_METHODS = frozenset({"add_generic_rpc_handlers", "add_insecure_port", "start", "stop"})


def _probe_cygrpc() -> list[str]:
    """Every cygrpc object the server makes, made once with the arguments it passes: [] when all take them."""
    try:
        cygrpc.Server((), False).register_completion_queue(cygrpc.CompletionQueue())
        cygrpc.ReceiveMessageOperation(_NO_FLAGS)
        cygrpc.SendInitialMetadataOperation(None, _NO_FLAGS)
        cygrpc.SendMessageOperation(b"", _NO_FLAGS)
        cygrpc.SendStatusFromServerOperation(None, cygrpc.StatusCode.ok, b"", _NO_FLAGS)
        cygrpc.ReceiveCloseOnServerOperation(_NO_FLAGS)
    except (TypeError, AttributeError, ValueError) as error:
        return [f"grpc._cython.cygrpc does not take the server's arguments ({error})"]
    return []


def missing_for_lean_server(sdk: Any = _policy) -> list[str]:
    """What the lean server relies on and ``sdk`` (pulumi_policy.policy) or grpcio lack; [] = verified."""
    if cygrpc is None:
        return ["grpc._cython.cygrpc (absent)"]
    missing = [f"grpc._cython.cygrpc.{name} (absent)" for name in CYGRPC_NAMES if not hasattr(cygrpc, name)]
    missing = missing or _probe_cygrpc()
    pack_init = getattr(getattr(sdk, "PolicyPack", None), "__init__", None)
    register = getattr(getattr(sdk, "analyzer_pb2_grpc", None), "add_AnalyzerServicer_to_server", None)
    if not callable(pack_init) or not callable(register):
        return [*missing, "PolicyPack.__init__ or analyzer_pb2_grpc.add_AnalyzerServicer_to_server (absent)"]
    if not callable(getattr(getattr(sdk, "grpc", None), "server", None)):
        return [*missing, "pulumi_policy.policy.grpc.server (absent)"]
    missing += [f"PolicyPack.__init__ does not read {name}" for name in ("grpc", "server") if name not in code_names(pack_init)]
    server_api = {name for name in dir(grpc.Server) if not name.startswith("_")}
    for owner, function in (("PolicyPack.__init__", pack_init), ("add_AnalyzerServicer_to_server", register)):
        missing += [
            f"{owner} calls grpc.Server.{name}, which the lean server lacks"
            for name in sorted((code_names(function) & server_api) - SERVER_METHODS)
        ]
    return missing


@installer("PERCONA_POLICY_LEAN_SERVER", missing_for_lean_server)
def serve_lean(sdk: Any) -> None:
    """Install the server where it verified the SDK and grpcio (:func:`missing_for_lean_server`)."""
    sdk.grpc = ModuleOverlay(sdk.grpc, server=_lean_server)
