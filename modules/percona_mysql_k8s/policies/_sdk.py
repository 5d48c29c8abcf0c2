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
_SERVICER = "_PolicyAnalyzerServicer"


class ModuleOverlay:
    """A module as pulumi_policy.policy sees it: ``real``, with the attributes given replaced."""

    def __init__(self, real, **replaced):
        self._real = real
        self.__dict__.update(replaced)

    def __getattr__(self, name):
        return getattr(self._real, name)


def _memo(kind: str, value, compute: Callable[[], Any]):
    """``compute()`` once per request for the object ``value`` (no request in progress: every time)."""
    cache = getattr(_local, "cache", None)
    if cache is None:
        return compute()
    key = (kind, id(value))
    hit = cache.get(key)
    if hit is None:
        hit = cache[key] = (value, compute())  # keep ``value`` alive so its id stays unique
    return hit[1]


def per_request(kind: str, value, compute: Callable[[], Any]):
    """``compute()`` once per request for the object ``value``, shared by every policy of the request; without the
    shared deserialization (the SDK's own path) there is no request scope, and it is computed every time."""
    return _memo(kind, value, compute)


def _cached(kind: str, function):
    @functools.wraps(function)
    def wrapper(value, *args, **kwargs):
        if args or kwargs:
            return function(value, *args, **kwargs)
        return _memo(kind, value, lambda: function(value))

    return wrapper


def _cached_method(kind: str, method):
    @functools.wraps(method)
    def wrapper(self, request):
        return _memo(kind, request, lambda: method(self, request))

    return wrapper


def _with_local(name: str, value_for: Callable[[Any, Any], Any]):
    """Wrap a servicer method so that ``_local.<name>`` is ``value_for(servicer, request)`` while it runs."""

    def decorate(method):
        @functools.wraps(method)
        def wrapper(self, request, context):
            setattr(_local, name, value_for(self, request))
            try:
                return method(self, request, context)
            finally:
                setattr(_local, name, None)

        return wrapper

    return decorate


_POLICIES = "_PolicyAnalyzerServicer__policies"
_VERSION = "_PolicyAnalyzerServicer__policy_pack_version"


@functools.lru_cache(maxsize=1024)
def _applicable(policies: tuple, resource_type: str) -> list:
    return [policy for policy in policies if getattr(policy, "applies_to", None) is None or policy.applies_to(resource_type)]


def _applicable_to_request(servicer, request) -> list:
    return _applicable(tuple(servicer.__dict__[_POLICIES]), request.type)


def _policies_view(servicer) -> None:
    """Make the servicer's policy list a per-thread view (the full list unless Analyze narrowed it)."""

    def get(self):
        narrowed = getattr(_local, "policies", None)
        return narrowed if narrowed is not None else self.__dict__[_POLICIES]

    def set_(self, value):
        self.__dict__[_POLICIES] = value

    setattr(servicer, _POLICIES, property(get, set_))


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
    missing = [
        f"pulumi_policy.policy.{name} (absent)"
        for name in ("deserialize_properties", "unknown_checking_proxy")
        if not callable(getattr(sdk, name, None))
    ]
    if not callable(getattr(getattr(sdk, "json_format", None), "MessageToDict", None)):
        missing.append("pulumi_policy.policy.json_format.MessageToDict (absent)")
    servicer = getattr(sdk, _SERVICER, None)
    if not isinstance(servicer, type):
        return [*missing, f"pulumi_policy.policy.{_SERVICER} (absent)"]
    for method in ("_get_resource_options", "_get_provider_resource"):
        if _parameters(getattr(servicer, method, None)) != ["self", "request"]:
            missing.append(f"{_SERVICER}.{method}(self, request) (absent or another signature)")
    # through report_version's wrapper (functools.wraps): the SDK's own __init__ is what stores the policies
    init = getattr(servicer, "__init__", None)
    missing += _missing_names(f"{_SERVICER}.__init__", inspect.unwrap(init) if callable(init) else init, [_POLICIES])
    reads = (
        "json_format",
        "MessageToDict",
        "deserialize_properties",
        "unknown_checking_proxy",
        "_get_resource_options",
        "_get_provider_resource",
        _POLICIES,
    )
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


def installer(switch: str, missing: Callable[[Any], list[str]]):
    """Make ``install(sdk)`` a speed-up: it goes in once, unless its switch is "0" or ``missing(sdk)`` names
    anything; the decorated function returns whether it is in (False: nothing changed)."""

    def decorate(install: Callable[[Any], None]) -> Callable[..., bool]:
        installed = False

        @functools.wraps(install)
        def wrapper(sdk: Any = _policy) -> bool:
            nonlocal installed
            if installed and sdk is _policy:
                return True
            if not speed_up_enabled(switch) or missing(sdk):
                return False
            install(sdk)
            installed = installed or sdk is _policy
            return True

        return wrapper

    return decorate


@installer("PERCONA_POLICY_SHARED_DESERIALIZATION", missing_for_shared_deserialization)
def share_deserialization(sdk: Any) -> None:
    """Install the shim where it verified the SDK (:func:`missing_for_shared_deserialization`)."""
    sdk.json_format = ModuleOverlay(sdk.json_format, MessageToDict=_cached("dict", sdk.json_format.MessageToDict))
    sdk.deserialize_properties = _cached("deserialized", sdk.deserialize_properties)
    sdk.unknown_checking_proxy = _cached("proxy", sdk.unknown_checking_proxy)
    servicer = getattr(sdk, _SERVICER)
    servicer._get_resource_options = _cached_method("options", servicer._get_resource_options)
    servicer._get_provider_resource = _cached_method("provider", servicer._get_provider_resource)
    _policies_view(servicer)
    per_request = _with_local("cache", lambda _servicer, _request: {})
    servicer.Analyze = _with_local("policies", _applicable_to_request)(per_request(servicer.Analyze))
    servicer.AnalyzeStack = per_request(servicer.AnalyzeStack)


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
