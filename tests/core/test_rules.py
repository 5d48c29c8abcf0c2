"""The rule catalogue is the single definition: it must match RULES.md exactly."""

import math
import re

import pytest
from percona_mysql_k8s.core.rules import (
    RULES,
    THRESHOLD_RULE,
    THRESHOLDS,
    Level,
    ThresholdError,
    default_thresholds,
    resolve_thresholds,
)
from reference_material.resolve import reference_path


def _rules_md():
    rows = re.findall(r"^\| ([A-Z]\d+) \| .*\| ([MA]) \| [^|]*\|$", reference_path("RULES.md").read_text(), re.M)
    return {rule_id: level for rule_id, level in rows}


# Rules the catalogue adds to the specification: T5 (issue 21), the proxies' backend connections against max_connections;
# R7 (issue 28 §5), data on persistent volumes; C1 (issue 28 §2), custom resources the API server accepts; K7 (issue 34),
# a zone's loss leaves a majority.
ADDED_TO_THE_SPECIFICATION = {"T5", "R7", "C1", "C2", "K7"}
# Issue 39 item 3 asked for one QoS promise and one rule, decided with a reason in docs/rules.md: K3 requires the CPU
# limit Guaranteed QoS needs, so it is mandatory where RULES.md's K3 (a CPU limit optional) is advisory.
LEVEL_DECIDED_AGAINST_THE_SPECIFICATION = {"K3": Level.MANDATORY}


def test_every_rule_of_rules_md_is_in_the_catalogue_with_its_level():
    documented = _rules_md()
    assert len(documented) >= 30
    assert set(documented) == set(RULES) - ADDED_TO_THE_SPECIFICATION
    assert not ADDED_TO_THE_SPECIFICATION & set(documented), "an added rule is now in RULES.md: drop it from the list"
    for rule_id, level in documented.items():
        expected = Level.MANDATORY if level == "M" else Level.ADVISORY
        expected = LEVEL_DECIDED_AGAINST_THE_SPECIFICATION.get(rule_id, expected)
        assert RULES[rule_id].level is expected, rule_id
    assert {rule_id: documented[rule_id] for rule_id in LEVEL_DECIDED_AGAINST_THE_SPECIFICATION} == {"K3": "A"}


def test_thresholds_named_in_rules_md_have_its_defaults():
    # RULES.md: F2 max_applier_threshold 1000 (500 strict), G1 max_fc_limit 100, F6 2.5 workers per core,
    # M4 ~50 MB structures, M1 ~300 MB server overhead; M5 derived from seed 000's certification_info
    # readings (92 MB steady -> floor 128 MiB; 1.4 GB under the 25,000 default -> cap 1.5 GiB) and GR's
    # 60 s stable-set broadcast.
    defaults = default_thresholds()
    assert defaults["max_applier_threshold"] == 1000
    assert defaults["strict_applier_threshold"] == 500
    assert defaults["max_fc_limit"] == 100
    assert defaults["replica_workers_per_core"] == 2.5
    assert defaults["xcom_structures_bytes"] == 50 * 2**20
    assert defaults["fixed_server_overhead_bytes"] == 300 * 2**20
    assert (defaults["certification_min_bytes"], defaults["certification_max_bytes"]) == (128 * 2**20, 1536 * 2**20)
    assert defaults["certification_gc_period_seconds"] == 60
    assert THRESHOLD_RULE["certification_bytes_per_transaction"] == "M5"
    assert THRESHOLD_RULE["buffer_pool_descriptor_bytes"] == THRESHOLD_RULE["allocator_fragmentation_fraction"] == "M1"
    assert {THRESHOLD_RULE[name] for name in ("max_applier_threshold", "max_fc_limit", "max_failover_brownout_seconds")} == {
        "F2",
        "G1",
        "F5",
    }


def test_resolve_thresholds_rejects_unknown_names_and_bad_values():
    assert resolve_thresholds({"max_fc_limit": 50})["max_fc_limit"] == 50
    with pytest.raises(KeyError):
        resolve_thresholds({"max_fc_limt": 50})
    with pytest.raises(ValueError):
        resolve_thresholds({"max_fc_limit": "fifty"})
    with pytest.raises(ValueError):
        resolve_thresholds({"max_fc_limit": 0})
    assert set(THRESHOLDS) == set(default_thresholds())


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("min_buffer_pool_fraction_pxc", 1.5),
        ("min_buffer_pool_fraction_gr", 1.0),  # exclusive maximum: a floor of the whole budget leaves nothing
        ("page_cache_reserve_fraction", 0.99),
        ("allocator_fragmentation_fraction", 0.51),
        ("max_failover_brownout_seconds", 0),  # exclusive minimum
        ("max_failover_brownout_seconds", float("inf")),
        ("applier_tps_per_worker", float("nan")),
        ("max_fc_limit", 2**31),
        ("min_connections", 2.5),
        ("min_connections", 0),
    ],
)
def test_resolve_thresholds_checks_each_thresholds_domain(name, value):
    with pytest.raises(ThresholdError) as raised:
        resolve_thresholds({name: value})
    assert raised.value.name == name and repr(name) in str(raised.value)


def test_domain_bounds_are_inclusive_unless_marked():
    assert resolve_thresholds({"page_cache_reserve_fraction": 0.5})["page_cache_reserve_fraction"] == 0.5
    assert resolve_thresholds({"max_fc_limit": 2**31 - 1})["max_fc_limit"] == 2**31 - 1
    assert resolve_thresholds({"min_connections": 30.0})["min_connections"] == 30  # a whole float is a whole number
    for threshold in THRESHOLDS.values():
        threshold.check(threshold.default)  # every default is inside its own domain


def test_every_threshold_has_an_upper_bound_the_pack_schema_publishes():
    from percona_mysql_k8s.policies.config import threshold_schema

    for threshold in THRESHOLDS.values():
        assert threshold.maximum is not None and math.isfinite(threshold.maximum), threshold.name
        schema = threshold_schema(threshold.name)
        assert schema.get("exclusiveMaximum" if threshold.exclusive_maximum else "maximum") == threshold.maximum


def test_an_integer_too_large_for_a_float_is_refused_not_a_crash():
    with pytest.raises(ThresholdError, match="must be <="):
        resolve_thresholds({"max_fc_limit": 10**400})


def test_a_certification_minimum_above_its_maximum_is_refused():
    with pytest.raises(ThresholdError, match="contradict") as raised:
        resolve_thresholds({"certification_min_bytes": 2 * 2**30, "certification_max_bytes": 2**30})
    assert raised.value.name == "certification_max_bytes"
    with pytest.raises(ThresholdError, match="contradict"):  # against the other's default, too
        resolve_thresholds({"certification_min_bytes": 4 * 2**30})
    assert resolve_thresholds({"certification_min_bytes": 2 * 2**30, "certification_max_bytes": 3 * 2**30})
