"""F2-F6 and G1-G3 formulas, with hand-derived values."""

import math

from percona_mysql_k8s.core import flow_control as fc
from percona_mysql_k8s.core.rules import default_thresholds

T = default_thresholds()


def test_replica_workers_are_two_and_a_half_per_core():
    assert fc.replica_workers(14000, T) == 35  # RULES F6: 14000m -> 35
    assert fc.replica_workers(3500, T) == 8  # 8.75 rounded down: never above the F6 maximum
    assert fc.replica_workers(300, T) == 0  # 0.75 rounds down: a single-threaded applier
    assert fc.apply_rate_tps(0, T) == 12.5  # which still applies at one thread's rate
    assert fc.max_replica_workers(14000, T) == 35.0


def test_galera_applier_threads_four_per_core():
    assert fc.galera_applier_threads(16000, T) == 64  # seed 002: 64 was best on 16 vCPU
    assert fc.galera_applier_threads(250, T) == 2  # never below the server default of 2


def test_brownout_is_queue_over_apply_rate():
    rate = fc.apply_rate_tps(35, T)
    assert rate == 35 * 12.5  # 437.5 tps
    assert fc.brownout_seconds(500, rate) == 500 / 437.5
    assert fc.brownout_seconds(25000, 0) == math.inf


def test_gr_threshold_is_strict_and_shrinks_to_the_brownout_budget():
    assert fc.gr_applier_threshold(437.5, T) == 500  # 30 s x 437.5 tps = 13125 > 500: the strict value
    assert fc.gr_applier_threshold(12.5, T) == 375  # one worker: 30 s x 12.5 tps = 375 < 500


def test_galera_limit_and_effective_queue():
    assert round(fc.galera_effective_queue(100, 3)) == 173  # RULES G1: ~175 on 3 nodes
    assert fc.galera_fc_limit(800.0, 3, T) == 100  # 30 x 800 / sqrt(3) = 13856 -> capped at max_fc_limit
    assert fc.galera_fc_limit(5.0, 3, T) == 86  # 30 x 5 / sqrt(3) = 86.6
