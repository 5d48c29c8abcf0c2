"""The pack refuses a config naming a policy or a key it does not have, instead of ignoring it.

The Pulumi CLI validates a ``--policy-pack-config`` file against each policy's schema, but the schema it builds has
no ``additionalProperties`` (pkg/resource/analyzer/config.go ``convertSchema``, v3.260.0), and it sends the pack an
entry for any name the file gives a level to (``applyConfig``). So a misspelled key (``max_fc_limt``), or a
misspelled policy with a level, would reach the pack and change nothing: the gate the user meant to set is not set,
without a word. ``Configure`` refuses such a config here, with INVALID_ARGUMENT and one line naming the policy or
key and the closest real one; the CLI then stops with ``configuring policy pack "percona-mysql" ...: <that line>``,
and the offline check (percona_mysql_k8s.cli.engine) reports the same line. ``all`` (the CLI's level for every
policy) is a name the CLI itself sends, with a level and no keys.

It wraps the SDK servicer's ``Configure(self, request, context)`` (pulumi_policy/policy.py), which it verifies
first; on an SDK without it the pack runs unchanged.
"""

from __future__ import annotations

import difflib
import functools
import inspect
from collections.abc import Iterable, Mapping
from typing import Any

import grpc
from pulumi_policy import policy as _policy

ALL = "all"  # applyConfig's name for every policy, sent on with its level
_SERVICER = "_PolicyAnalyzerServicer"


def _closest(name: str, names: Iterable[str]) -> str:
    close = difflib.get_close_matches(name, list(names), n=1)
    return f' (did you mean "{close[0]}"?)' if close else ""


def unknown_config(policies: Iterable[Any], config: Mapping[str, Iterable[str]], pack: str = "the pack") -> str | None:
    """Why ``config`` (policy name -> its keys) names what ``policies`` do not have, or None."""
    keys = {
        policy.name: tuple((policy.config_schema.properties or {}) if policy.config_schema is not None else ())
        for policy in policies
    }
    for name, given in sorted(config.items()):
        given = sorted(given)
        if name == ALL:
            if given:
                return f'policy config "{ALL}" sets only enforcementLevel, for every policy; it has no key "{given[0]}"'
            continue
        if name not in keys:
            return f'policy config names "{name}", which is no policy of {pack}{_closest(name, keys)}'
        for key in given:
            if key not in keys[name]:
                known = ", ".join(keys[name]) or "none"
                return (
                    f'policy config of "{name}" sets "{key}", which is not one of its keys{_closest(key, keys[name])}; '
                    f"its keys: {known}, enforcementLevel"
                )
    return None


def missing_for_refusal(sdk: Any = _policy) -> list[str]:
    """What :func:`refuse_unknown_config` relies on and ``sdk`` lacks; [] = verified."""
    servicer = getattr(sdk, _SERVICER, None)
    configure = getattr(servicer, "Configure", None)
    if not callable(configure):
        return [f"pulumi_policy.policy.{_SERVICER}.Configure (absent)"]
    if len(inspect.signature(configure).parameters) != 3:
        return [f"{_SERVICER}.Configure(self, request, context) (another signature)"]
    return []


def refuse_unknown_config(policies: Iterable[Any], pack: str, sdk: Any = _policy) -> bool:
    """Make the servicer's Configure refuse names and keys ``policies`` do not have; False where it cannot."""
    if missing_for_refusal(sdk):
        return False
    policies = list(policies)
    servicer = getattr(sdk, _SERVICER)
    stock = getattr(servicer.Configure, "_stock", servicer.Configure)

    @functools.wraps(stock)
    def Configure(self, request, context):  # noqa: N802 - the gRPC method's name
        given = {name: list(request.policyConfig[name].properties.fields) for name in request.policyConfig}
        problem = unknown_config(policies, given, pack)
        if problem is not None:
            context.abort(grpc.StatusCode.INVALID_ARGUMENT, problem)
        return stock(self, request, context)

    Configure._stock = stock
    servicer.Configure = Configure
    return True
