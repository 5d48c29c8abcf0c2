"""Less work per call for the SDK's servicer, with the same answers (pulumi-policy 1.21).

The engine calls the pack twice for every resource, ``Remediate`` then ``Analyze``, one resource at a time and
inside its step generator, so every microsecond a call takes is added to the preview (docs/policies.md,
"Under the engine"). Two things the SDK's servicer does on every call cost more than they need to:

* ``_configure_runtime_settings`` parses ``PULUMI_CONFIG`` (the whole stack config, JSON) and builds a new
  ``pulumi.runtime.Settings`` on every call. What it computes depends only on five environment variables
  (``PULUMI_CONFIG``, ``PULUMI_PROJECT``, ``PULUMI_STACK``, ``PULUMI_DRY_RUN``, ``PULUMI_ORGANIZATION``), which the
  engine sets once when it starts the pack: here it runs again only when one of them changed. (The policies read
  the stack and its config from the environment, never from the pulumi runtime's settings.)
* ``json_format.MessageToDict`` converts the request's ``Struct`` through protobuf's generic JSON printer, in
  Python, field descriptor by field descriptor: :func:`struct_to_dict` is the same conversion written for
  ``Struct`` alone (the same dict, keys in the same order, numbers as floats; an infinite or NaN number kept, as
  :func:`keep_non_finite_numbers` keeps it); any other message goes to ``MessageToDict``.

Both go in only where the SDK is the one they were written against (:func:`missing_for_fast_calls`); any other
release runs the SDK's own code. ``PERCONA_POLICY_FAST_CALLS=0`` turns them off.
"""

from __future__ import annotations

import functools
import inspect
import os
from typing import Any

from pulumi_policy import policy as _policy

from percona_mysql_k8s.policies._sdk import ModuleOverlay, code_names, installer

_SERVICER = "_PolicyAnalyzerServicer"
STRUCT = "google.protobuf.Struct"
# Every environment variable _configure_runtime_settings reads (pulumi-policy 1.21, and get_config_env of pulumi).
RUNTIME_ENVIRONMENT = ("PULUMI_CONFIG", "PULUMI_PROJECT", "PULUMI_STACK", "PULUMI_DRY_RUN", "PULUMI_ORGANIZATION")


def _value(value) -> Any:
    """One ``google.protobuf.Value`` as json_format's ``_ValueMessageToJsonObject`` converts it."""
    kind = value.WhichOneof("kind")
    if kind == "string_value":
        return value.string_value
    if kind == "struct_value":
        return struct_to_dict(value.struct_value)
    if kind == "number_value":
        return value.number_value  # an infinity or NaN too: C1 refuses it (see keep_non_finite_numbers)
    if kind == "bool_value":
        return value.bool_value
    if kind == "list_value":
        return [_value(item) for item in value.list_value.values]
    return None  # null_value, or no kind set


def struct_to_dict(struct) -> dict[str, Any]:
    """``json_format.MessageToDict(struct)`` for a ``google.protobuf.Struct`` (``_StructMessageToJsonObject``)."""
    fields = struct.fields
    return {key: _value(fields[key]) for key in fields}


def message_to_dict(message, *args, _stock=None, **kwargs):
    """``MessageToDict`` as the SDK calls it: a bare ``Struct`` by :func:`struct_to_dict`, anything else by protobuf."""
    if not args and not kwargs and message.DESCRIPTOR.full_name == STRUCT:
        return struct_to_dict(message)
    return _stock(message, *args, **kwargs)


def _keeping_non_finite(stock):
    """``MessageToDict`` that answers for a ``Struct`` holding an infinite or NaN number instead of raising."""

    @functools.wraps(stock)
    def message_to_dict(message, *args, **kwargs):
        try:
            return stock(message, *args, **kwargs)
        except ValueError:
            if args or kwargs or message.DESCRIPTOR.full_name != STRUCT:
                raise
            return struct_to_dict(message)

    return message_to_dict


def keep_non_finite_numbers(sdk: Any = _policy) -> bool:
    """Let a property that is an infinity or NaN reach the policies (False where the SDK has no ``MessageToDict``).

    The engine sends such a number as the ``Struct``'s double (a program's ``float("inf")``); the SDK's servicer
    converts every request with protobuf's ``MessageToDict``, which raises "Fail to serialize Infinity for
    Value.number_value", so the whole call failed with gRPC UNKNOWN and no verdict. With this, C1 refuses the
    resource (no JSON carries the number to the API server: core.crd.limits). Not a speed-up: it goes in always."""
    json_format = getattr(sdk, "json_format", None)
    stock = getattr(json_format, "MessageToDict", None)
    if not callable(stock):
        return False
    if getattr(stock, "_percona_keeps_non_finite", False):
        return True
    wrapped = _keeping_non_finite(stock)
    wrapped._percona_keeps_non_finite = True
    sdk.json_format = ModuleOverlay(json_format, MessageToDict=wrapped)
    return True


def _runtime_environment() -> tuple[str | None, ...]:
    return tuple(os.environ.get(name) for name in RUNTIME_ENVIRONMENT)


def _configured_once(configure):
    """``configure(servicer)`` again only when the environment it reads changed since its last run."""

    @functools.wraps(configure)
    def wrapper(self):
        environment = _runtime_environment()
        if getattr(self, "_percona_configured_for", None) != environment:
            configure(self)
            self._percona_configured_for = environment

    wrapper._stock = configure
    return wrapper


def _environment_names(function) -> set[str]:
    """The ``PULUMI_*`` names among ``function``'s constants: the environment variables it reads."""
    constants = getattr(getattr(function, "__code__", None), "co_consts", ())
    return {constant for constant in constants if isinstance(constant, str) and constant.startswith("PULUMI_")}


def missing_for_fast_calls(sdk: Any = _policy) -> list[str]:
    """What the fast calls rely on and ``sdk`` (pulumi_policy.policy) lacks; [] = verified."""
    missing = []
    if not callable(getattr(getattr(sdk, "json_format", None), "MessageToDict", None)):
        missing.append("pulumi_policy.policy.json_format.MessageToDict (absent)")
    servicer = getattr(sdk, _SERVICER, None)
    configure = getattr(servicer, "_configure_runtime_settings", None)
    if not callable(configure):
        return [*missing, f"{_SERVICER}._configure_runtime_settings (absent)"]
    configure = getattr(configure, "_stock", configure)
    names = code_names(configure)
    missing += [
        f"_configure_runtime_settings does not call {name}" for name in ("get_config_env", "configure") if name not in names
    ]
    read = _environment_names(configure) | {"PULUMI_CONFIG"}  # get_config_env reads PULUMI_CONFIG
    missing += [
        f"_configure_runtime_settings reads {name}, which the cache does not watch"
        for name in sorted(read - set(RUNTIME_ENVIRONMENT))
    ]
    for method in ("Analyze", "AnalyzeStack", "Remediate"):
        function = getattr(servicer, method, None)
        if not callable(function) or "_configure_runtime_settings" not in code_names(inspect.unwrap(function)):
            missing.append(f"{_SERVICER}.{method} does not call _configure_runtime_settings")
    return missing


@installer("PERCONA_POLICY_FAST_CALLS", missing_for_fast_calls)
def speed_up_calls(sdk: Any) -> None:
    """Install both where :func:`missing_for_fast_calls` verified the SDK."""
    stock = sdk.json_format.MessageToDict
    sdk.json_format = ModuleOverlay(sdk.json_format, MessageToDict=functools.partial(message_to_dict, _stock=stock))
    servicer = getattr(sdk, _SERVICER)
    servicer._configure_runtime_settings = _configured_once(servicer._configure_runtime_settings)
