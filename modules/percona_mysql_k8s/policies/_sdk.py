"""One deserialization per request, shared by every policy; and the pack's own version on the wire.

The SDK's servicer deserializes a request's properties once *per policy*: it converts the protobuf
Struct to a dict, unmarshals secrets and assets, and wraps the result in unknown-checking proxies, for
each of the pack's policies in turn. With thirty policies that dominates the pack's cost. This shim
keeps the SDK's own code path and only memoizes those three calls for the duration of one Analyze or
AnalyzeStack call, keyed by the identity of their input (and the resource options and provider
the servicer derives from the same request), so every policy receives the same proxied
properties (policies never mutate them) and the readers' per-request memo (percona_mysql_k8s.policies._framework.memo)
builds each view once. Diagnostics are identical with and without it (tests/policies/test_speedups.py).

It also lets Analyze iterate only the policies whose ``applies_to`` accepts the request's type: the
others would return at once with nothing to report, so the response is the same, minus thirty rounds
of the SDK's per-policy set-up for every resource. The choice is per thread (gRPC serves calls on a
pool), through a view of the servicer's policy list.

These are SDK internals (pulumi_policy/policy.py), so the shim goes in only where it has verified them in
the SDK it runs on (:func:`missing_for_shared_deserialization`): the names it replaces exist, and the
servicer's methods look them up where the shim puts them (their code objects name them). Any other
release runs the SDK's stock path, unchanged: the pack is then slower, never different. The version of
``pulumi-policy`` is not consulted: the project's range (pyproject.toml) admits releases that were never
read here, and the lower-bound run (scripts/lower-bounds.sh) runs the tests on the oldest of them.

``PolicyPack`` hands its servicer the version "0.0.1" whatever the pack is (the CLI shows PulumiPolicy.yaml's
version instead when it reads one); :func:`report_version` makes the servicer carry the library's own
version, which every diagnostic and ``GetAnalyzerInfo`` then name, under the same verification.

Set PERCONA_POLICY_SHARED_DESERIALIZATION=0 to run the stock servicer.
"""

from __future__ import annotations

import functools
import inspect
import os
import threading
import types
from collections.abc import Callable, Iterable
from typing import Any

from pulumi_policy import policy as _policy

_local = threading.local()
_installed = False
_SERVICER = "_PolicyAnalyzerServicer"


def _cached(kind: str, function):
    @functools.wraps(function)
    def wrapper(value, *args, **kwargs):
        cache = getattr(_local, "cache", None)
        if cache is None or args or kwargs:
            return function(value, *args, **kwargs)
        key = (kind, id(value))
        hit = cache.get(key)
        if hit is None:
            hit = cache[key] = (value, function(value))  # keep ``value`` alive so its id stays unique
        return hit[1]
    return wrapper


class _JsonFormat:
    """google.protobuf.json_format as pulumi_policy.policy sees it, with MessageToDict memoized."""

    def __init__(self, real):
        self._real = real
        self.MessageToDict = _cached("dict", real.MessageToDict)

    def __getattr__(self, name):
        return getattr(self._real, name)


def _cached_method(kind: str, method):
    @functools.wraps(method)
    def wrapper(self, request):
        cache = getattr(_local, "cache", None)
        if cache is None:
            return method(self, request)
        key = (kind, id(request))
        hit = cache.get(key)
        if hit is None:
            hit = cache[key] = (request, method(self, request))
        return hit[1]
    return wrapper


def _scoped(method):
    @functools.wraps(method)
    def wrapper(self, request, context):
        _local.cache = {}
        try:
            return method(self, request, context)
        finally:
            _local.cache = None
    return wrapper


_POLICIES = "_PolicyAnalyzerServicer__policies"
_VERSION = "_PolicyAnalyzerServicer__policy_pack_version"


@functools.lru_cache(maxsize=1024)
def _applicable(policies: tuple, resource_type: str) -> list:
    return [policy for policy in policies
            if getattr(policy, "applies_to", None) is None or policy.applies_to(resource_type)]


def _policies_view(servicer) -> None:
    """Make the servicer's policy list a per-thread view (the full list unless Analyze narrowed it)."""

    def get(self):
        narrowed = getattr(_local, "policies", None)
        return narrowed if narrowed is not None else self.__dict__[_POLICIES]

    def set_(self, value):
        self.__dict__[_POLICIES] = value

    setattr(servicer, _POLICIES, property(get, set_))


def _narrowed(method):
    @functools.wraps(method)
    def wrapper(self, request, context):
        _local.policies = _applicable(tuple(self.__dict__[_POLICIES]), request.type)
        try:
            return method(self, request, context)
        finally:
            _local.policies = None
    return wrapper


def code_names(function: Callable[..., Any]) -> set[str]:
    """Every global and attribute name ``function``'s code looks up, its nested functions' included."""
    found: set[str] = set()
    pending = [getattr(function, "__code__", None)]
    while pending:
        code = pending.pop()
        if isinstance(code, types.CodeType):
            found.update(code.co_names)
            pending.extend(const for const in code.co_consts if isinstance(const, types.CodeType))
    return found


def _parameters(function: Any) -> list[str]:
    try:
        return list(inspect.signature(function).parameters)
    except (TypeError, ValueError):
        return []


def _missing_names(owner: str, function: Any, names: Iterable[str]) -> list[str]:
    if not callable(function):
        return [f"{owner} (absent)"]
    looked_up = code_names(function)
    return [f"{owner} does not read {name}" for name in names if name not in looked_up]


def missing_for_shared_deserialization(sdk: Any = _policy) -> list[str]:
    """What the shared-deserialization shim relies on and ``sdk`` (pulumi_policy.policy) lacks; [] = verified."""
    missing = [f"pulumi_policy.policy.{name} (absent)" for name in ("deserialize_properties", "unknown_checking_proxy")
               if not callable(getattr(sdk, name, None))]
    if not callable(getattr(getattr(sdk, "json_format", None), "MessageToDict", None)):
        missing.append("pulumi_policy.policy.json_format.MessageToDict (absent)")
    servicer = getattr(sdk, _SERVICER, None)
    if not isinstance(servicer, type):
        return [*missing, f"pulumi_policy.policy.{_SERVICER} (absent)"]
    for method in ("_get_resource_options", "_get_provider_resource"):
        if _parameters(getattr(servicer, method, None)) != ["self", "request"]:
            missing.append(f"{_SERVICER}.{method}(self, request) (absent or another signature)")
    missing += _missing_names(f"{_SERVICER}.__init__", getattr(servicer, "__init__", None), [_POLICIES])
    reads = ("json_format", "MessageToDict", "deserialize_properties", "unknown_checking_proxy", "_get_resource_options",
             "_get_provider_resource", _POLICIES)
    for method in ("Analyze", "AnalyzeStack"):
        function = getattr(servicer, method, None)
        parameters = _parameters(function)
        if len(parameters) != 3 or parameters[:2] != ["self", "request"]:
            missing.append(f"{_SERVICER}.{method}(self, request, context) (absent or another signature)")
        missing += _missing_names(f"{_SERVICER}.{method}", function, reads)
    return missing


def missing_for_version_report(sdk: Any = _policy) -> list[str]:
    """What :func:`report_version` relies on and ``sdk`` lacks: the servicer takes (name, version, ...) and
    answers ``GetAnalyzerInfo`` with what it was given; [] = verified."""
    servicer = getattr(sdk, _SERVICER, None)
    if not isinstance(servicer, type):
        return [f"pulumi_policy.policy.{_SERVICER} (absent)"]
    missing = []
    if _parameters(getattr(servicer, "__init__", None))[:3] != ["self", "name", "version"]:
        missing.append(f"{_SERVICER}.__init__(self, name, version, ...) (another signature)")
    missing += _missing_names(f"{_SERVICER}.__init__", getattr(servicer, "__init__", None), [_VERSION])
    missing += _missing_names(f"{_SERVICER}.GetAnalyzerInfo", getattr(servicer, "GetAnalyzerInfo", None), [_VERSION])
    return missing


def speed_up_enabled(switch: str) -> bool:
    """A speed-up goes in unless its switch is "0" (its own verification follows)."""
    return os.environ.get(switch, "1") != "0"


def share_deserialization(sdk: Any = _policy) -> bool:
    """Install the shim; False (and nothing changed) when switched off or the SDK's internals are not the ones
    it verified (:func:`missing_for_shared_deserialization`)."""
    global _installed
    if _installed and sdk is _policy:
        return True
    if not speed_up_enabled("PERCONA_POLICY_SHARED_DESERIALIZATION") or missing_for_shared_deserialization(sdk):
        return False
    sdk.json_format = _JsonFormat(sdk.json_format)
    sdk.deserialize_properties = _cached("deserialized", sdk.deserialize_properties)
    sdk.unknown_checking_proxy = _cached("proxy", sdk.unknown_checking_proxy)
    servicer = getattr(sdk, _SERVICER)
    servicer._get_resource_options = _cached_method("options", servicer._get_resource_options)
    servicer._get_provider_resource = _cached_method("provider", servicer._get_provider_resource)
    _policies_view(servicer)
    servicer.Analyze = _narrowed(_scoped(servicer.Analyze))
    servicer.AnalyzeStack = _scoped(servicer.AnalyzeStack)
    if sdk is _policy:
        _installed = True
    return True


def report_version(version: str, sdk: Any = _policy) -> bool:
    """Make every servicer the SDK creates carry ``version`` (the pack's, not the SDK's "0.0.1"); False (and
    nothing changed) when the servicer is not the one verified (:func:`missing_for_version_report`)."""
    if not isinstance(version, str) or not version or missing_for_version_report(sdk):
        return False
    servicer = getattr(sdk, _SERVICER)
    original = servicer.__init__
    if getattr(original, "_reports_version", None) == version:
        return True
    stock = getattr(original, "_stock", original)

    @functools.wraps(stock)
    def __init__(self, name, _version, *args, **kwargs):
        stock(self, name, version, *args, **kwargs)

    __init__._reports_version = version
    __init__._stock = stock
    servicer.__init__ = __init__
    return True
