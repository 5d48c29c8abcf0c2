"""The resolved-config cache returns what resolving afresh returns, whatever was resolved before it."""

from __future__ import annotations

import pytest
from percona_mysql_k8s.core.rules import THRESHOLDS as CATALOGUE
from percona_mysql_k8s.policies import config as config_module

THRESHOLDS = ("max_fc_limit",)

# Values that compare (and hash) equal in Python but must not share a cache entry: True == 1 == 1.0.
SEQUENCE = [
    None,
    {},
    {"max_fc_limit": 1},
    {"max_fc_limit": True},
    {"max_fc_limit": 1.0},
    {"max_fc_limit": 1.5},
    {"max_fc_limit": "1"},
    {"max_fc_limit": {"nested": [1]}},  # unhashable: keyed by its JSON
    {"max_fc_limit": 50, "enforcementLevel": "advisory"},
]


@pytest.mark.parametrize("order", [SEQUENCE, list(reversed(SEQUENCE))], ids=["forward", "reversed"])
def test_cache_never_confuses_equal_looking_configs(order):
    config_module._cache.clear()
    for config in order:
        cached = config_module.resolve(config, THRESHOLDS)
        fresh = config_module._resolve(config, THRESHOLDS)
        assert (cached.thresholds, cached.settings, cached.errors) == (fresh.thresholds, fresh.settings, fresh.errors), config


def test_a_bool_threshold_is_an_error_even_after_the_number_was_cached():
    config_module._cache.clear()
    assert config_module.resolve({"max_fc_limit": 1}, THRESHOLDS).thresholds["max_fc_limit"] == 1
    as_bool = config_module.resolve({"max_fc_limit": True}, THRESHOLDS)
    assert as_bool.errors == ["policy config threshold 'max_fc_limit' must be a number, got True"]
    assert as_bool.thresholds["max_fc_limit"] == CATALOGUE["max_fc_limit"].default  # the default is kept
