"""F2-F6 and G1-G3 formulas, with hand-derived values."""

import math

import pytest
from percona_mysql_k8s.core import flow_control as fc
from percona_mysql_k8s.core.rules import default_thresholds

T = default_thresholds()


def test_replica_workers_are_two_and_a_half_per_core():
    assert fc.replica_workers(14000, T) == 35  # RULES F6: 14000m -> 35
    assert fc.replica_workers(3500, T) == 8  # 8.75 rounded down: never above the F6 maximum
    assert fc.replica_workers(300, T) == 0  # 0.75 rounds down: a single-threaded applier
    assert fc.apply_rate_tps(0, T) == 50.0  # which still applies at one thread's rate (400 x 4 / 32)
    assert fc.max_replica_workers(14000, T) == 35.0


def test_galera_applier_threads_four_per_core():
    assert fc.galera_applier_threads(16000, T) == 64  # seed 002: 64 was best on 16 vCPU
    assert fc.galera_applier_threads(250, T) == 2  # never below the server default of 2


def test_applier_rate_is_seed_002_in_transactions():
    # seed 002: --rate=400 sysbench events/s ran without flow control on 32 appliers; oltp_read_write with
    # --skip_trx=on autocommits 4 writes per event: 1600 transactions/s, 50 per applier.
    assert T["applier_tps_per_worker"] == 400 * 4 / 32 == 50.0
    assert fc.apply_rate_tps(8, T) == 8 * 50.0
    # linear only up to the 32 measured: 35 workers are credited as 32
    assert fc.apply_rate_tps(35, T) == fc.apply_rate_tps(32, T) == 1600.0


def test_brownout_is_queue_over_apply_rate():
    rate = fc.apply_rate_tps(8, T)
    assert rate == 400.0
    assert fc.brownout_seconds(500, rate) == 500 / 400
    assert fc.brownout_seconds(25000, 0) == math.inf


def test_gr_queue_overshoots_the_threshold_by_one_period():
    # seed 000: the primary may commit 10,000 tps while the secondary applies 2,000 (ratio 5) until the
    # next 1 s poll: the queue gains (5 - 1) x rate x 1 s beyond the threshold.
    assert fc.gr_overshoot(400.0, T) == 4 * 400.0
    assert fc.gr_queue_bound(500, 400.0, T) == 500 + 1600.0
    # brownout = (500 + 1600) / 400 = 5.25 s
    assert fc.brownout_seconds(fc.gr_queue_bound(500, 400.0, T), 400.0) == 5.25


def test_gr_threshold_is_strict_and_shrinks_to_the_brownout_budget():
    assert fc.gr_applier_threshold(1600.0, T) == 500  # 30 x 1600 - 4 x 1600 = 41600 > 500: the strict value
    # one worker: 30 x 50 - 4 x 50 = 1300 > 500, still strict; a 5 s budget: 5 x 50 - 200 = 50
    assert fc.gr_applier_threshold(50.0, T) == 500
    assert fc.gr_applier_threshold(50.0, {**T, "max_failover_brownout_seconds": 5}) == 50
    # a budget shorter than the overshoot leaves the smallest threshold, 1
    assert fc.gr_applier_threshold(50.0, {**T, "max_failover_brownout_seconds": 3}) == 1


def test_certification_reserve_from_rate_and_gc_period():
    # rate 400 tps x 60 s GC period + queue 2100 = 26100 transactions x 4096 bytes = 106,905,600 bytes,
    # below the 128 MiB floor (seed 000's 92 MB steady)
    assert fc.certification_reserve_bytes(400.0, 2100.0, T) == 128 * 2**20
    # 1600 tps: 1600 x 60 + (500 + 6400) = 102,900 x 4096 = 421,478,400 bytes: between floor and cap
    assert fc.certification_reserve_bytes(1600.0, 6900.0, T) == 102_900 * 4096
    # the default 25,000 queue on an unbounded rate is capped at 1.5 GiB (seed 000: 1.4 GB measured)
    assert fc.certification_reserve_bytes(1e6, 25000.0, T) == 1536 * 2**20


def test_galera_limit_and_effective_queue():
    assert round(fc.galera_effective_queue(100, 3)) == 173  # RULES G1: ~175 on 3 nodes
    assert fc.galera_fc_limit(800.0, 3, T) == 100  # 30 x 800 / sqrt(3) = 13856 -> capped at max_fc_limit
    assert fc.galera_fc_limit(5.0, 3, T) == 86  # 30 x 5 / sqrt(3) = 86.6 (Galera: event-driven, no overshoot)


def test_galera_interval_is_what_galera_logs():
    # gcs.cpp _set_fc_limits: upper = long(100 x sqrt(3) + .5) = long(173.705) = 173; lower = long(173 x 1 + .5)
    assert fc.galera_fc_interval(100, 1.0, 3) == (173, 173)
    # 16 (Galera's own default) x sqrt(3) + .5 = 28.21 -> 28; fc_factor 0.5: long(28 x 0.5 + .5) = long(14.5) = 14
    assert fc.galera_fc_interval(16, 0.5, 3) == (14, 28)
    # 100 x sqrt(5) = 223.6 -> 224 (rounded, where int(...) alone would give 223); lower 224 x 0.8 = 179.2 -> 179
    assert fc.galera_fc_interval(100, 0.8, 5) == (179, 224)
    # the members joining one by one log [100, 100], [141, 141], [173, 173]
    assert [fc.galera_fc_interval(100, 1.0, n) for n in (1, 2, 3)] == [(100, 100), (141, 141), (173, 173)]
    # gcs.fc_single_primary: no square-root scaling
    assert fc.galera_fc_interval(100, 1.0, 3, single_primary=True) == (100, 100)
    # 1 x sqrt(3) = 1.73 -> 2: the lowest limit still scales
    assert fc.galera_fc_interval(1, 1.0, 3) == (2, 2)


@pytest.mark.parametrize("fc_limit, fc_factor, members", [(0, 1.0, 3), (100, 1.5, 3), (100, -0.1, 3), (100, 1.0, 0)])
def test_galera_interval_refuses_what_galera_refuses(fc_limit, fc_factor, members):
    with pytest.raises(ValueError):
        fc.galera_fc_interval(fc_limit, fc_factor, members)
