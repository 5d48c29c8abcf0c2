"""One deserialization per request, shared by every policy (pulumi-policy 1.21).

The SDK's servicer deserializes a request's properties once *per policy*: it converts the protobuf
Struct to a dict, unmarshals secrets and assets, and wraps the result in unknown-checking proxies, for
each of the pack's policies in turn. With thirty policies that dominates the pack's cost. This shim
keeps the SDK's own code path and only memoizes those three calls for the duration of one Analyze or
AnalyzeStack call, keyed by the identity of their input (and the resource options and provider
the servicer derives from the same request), so every policy receives the same proxied
properties (policies never mutate them) and the readers' per-request memo (percona_mysql_k8s.policies._framework.memo)
builds each view once. Diagnostics are identical with and without it (tests/policies/test_sdk.py).

It also lets Analyze iterate only the policies whose ``applies_to`` accepts the request's type: the
others would return at once with nothing to report, so the response is the same, minus thirty rounds
of the SDK's per-policy set-up for every resource. The choice is per thread (gRPC serves calls on a
pool), through a view of the servicer's policy list.

Set PERCONA_POLICY_SHARED_DESERIALIZATION=0 to run the stock servicer.
"""

from __future__ import annotations

import functools
import os
import threading

from pulumi_policy import policy as _policy
from pulumi_policy.version import VERSION

SUPPORTED_VERSIONS = ("1.21.0",)
_local = threading.local()
_installed = False


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


def speed_up_enabled(switch: str) -> bool:
    """A speed-up goes in unless its switch is "0" or the SDK is a version it was not written for."""
    return os.environ.get(switch, "1") != "0" and VERSION in SUPPORTED_VERSIONS


def share_deserialization() -> bool:
    """Install the shim; False (and nothing changed) for an SDK version it was not written for."""
    global _installed
    if _installed:
        return True
    if not speed_up_enabled("PERCONA_POLICY_SHARED_DESERIALIZATION"):
        return False
    _policy.json_format = _JsonFormat(_policy.json_format)
    _policy.deserialize_properties = _cached("deserialized", _policy.deserialize_properties)
    _policy.unknown_checking_proxy = _cached("proxy", _policy.unknown_checking_proxy)
    servicer = _policy._PolicyAnalyzerServicer
    servicer._get_resource_options = _cached_method("options", servicer._get_resource_options)
    servicer._get_provider_resource = _cached_method("provider", servicer._get_provider_resource)
    _policies_view(servicer)
    servicer.Analyze = _narrowed(_scoped(servicer.Analyze))
    servicer.AnalyzeStack = _scoped(servicer.AnalyzeStack)
    _installed = True
    return True
