"""The pack's config from the outside (hypothesis): any value of any threshold, extreme ones included.

Every policy that reads thresholds is run on the hand-written bases with a random config. A value outside
a threshold's documented domain (or a contradicting pair, such as a certification minimum above its
maximum) is one message naming the key, and the default is used; nothing reaches ``int(float('inf'))``
or NaN, so no policy ever reports that it "could not evaluate" a resource.
"""

from __future__ import annotations

import math

import pytest
from harness import load_base, run_resource
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from percona_mysql_k8s.core.rules import ORDERED_THRESHOLDS, THRESHOLDS, resolve_thresholds
from percona_mysql_k8s.policies import config as config_module
from percona_mysql_k8s.policies._catalog import MODULES

WITH_THRESHOLDS = [module for module in MODULES if module.SPEC.thresholds]
BASES = ("pxc", "ps-gr", "pxc-backed-up")
EXTREMES = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.integers(-(2**80), 2**80),
    st.sampled_from([0, 1, -1, 0.5, 1e-300, 1e300, 2**63, 2**31, 10**400, True, "12", None, [1], {"a": 1}]),
)


def _config(names):
    return st.dictionaries(st.sampled_from(sorted(names)), EXTREMES, max_size=4)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(st.sampled_from(WITH_THRESHOLDS), st.sampled_from(BASES), st.data())
def test_no_config_value_makes_a_policy_crash(module, base_name, data):
    config = data.draw(_config(module.SPEC.thresholds), label="config")
    base = load_base(base_name)
    outcome = run_resource(module.POLICY, base["type"], base["props"], config=config)
    for message in outcome.messages:
        assert "could not evaluate" not in message, (config, message)
    resolved = config_module._resolve(config, module.SPEC.thresholds)
    for name, value in resolved.thresholds.items():
        THRESHOLDS[name].check(value)  # whatever was configured, what the policy uses is inside the domain
        assert not (isinstance(value, float) and not math.isfinite(value))
    for name in config:
        if name not in resolved.thresholds or resolved.thresholds[name] != config[name]:
            assert any(repr(name) in error for error in resolved.errors), (name, config, resolved.errors)


@pytest.mark.parametrize(("lower", "upper"), ORDERED_THRESHOLDS)
def test_a_minimum_above_its_maximum_is_refused_and_both_keep_their_defaults(lower, upper):
    high, low = THRESHOLDS[upper].default * 2, THRESHOLDS[upper].default
    resolved = config_module._resolve({lower: high, upper: low}, (lower, upper))
    assert len(resolved.errors) == 1 and "contradict" in resolved.errors[0] and repr(lower) in resolved.errors[0]
    assert resolved.thresholds[lower] == THRESHOLDS[lower].default and resolved.thresholds[upper] == THRESHOLDS[upper].default
    consistent = config_module._resolve({lower: low, upper: high}, (lower, upper))
    assert consistent.errors == [] and consistent.thresholds[upper] == high
    assert resolve_thresholds({lower: low, upper: high})[lower] == low


def test_a_numeric_setting_outside_its_range_is_refused_and_its_default_kept():
    from percona_mysql_k8s.policies import pool_capacity

    for bad in (float("inf"), float("nan"), -1, 10**30, 2.5, True):
        resolved = config_module._resolve({"daemonset_cpu_millicores": bad}, (), pool_capacity.SPEC.settings)
        assert resolved.settings["daemonset_cpu_millicores"] == 0, bad
        assert len(resolved.errors) == 1 and "daemonset_cpu_millicores" in resolved.errors[0], bad
    resolved = config_module._resolve({"daemonset_memory_bytes": 512 * 2**20}, (), pool_capacity.SPEC.settings)
    assert resolved.errors == [] and resolved.settings["daemonset_memory_bytes"] == 512 * 2**20
