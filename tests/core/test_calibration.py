"""The calibration on the Galera tier (core/calibration.py): derived by hand, and the model still above what ran."""

import math

from percona_mysql_k8s.core import calibration
from percona_mysql_k8s.core.connection_cost import connection_costs
from percona_mysql_k8s.core.memory import model
from percona_mysql_k8s.core.mycnf import normalize_key
from percona_mysql_k8s.core.rules import default_thresholds
from percona_mysql_k8s.core.sizing import SizingInput, size
from percona_mysql_k8s.core.units import KIB, MIB

T = default_thresholds()


def test_the_thread_term_is_the_measurement_with_its_safety_factor_less_the_settings_share():
    # 475 KiB measured per running connection (486,266 bytes under the thread pool, the largest run) x 1.25 =
    # 593.75 KiB; its session (64 KiB structures + 2 x 16 KiB network buffers + 2 x 32 KiB binary log caches =
    # 160 KiB) and its statement's buffers (32 + 8 + 8 + 4 = 52 KiB) are charged from the settings: the thread keeps
    # 381.75 KiB
    assert calibration.SAFETY_FACTOR == 1.25
    assert calibration.PER_ACTIVE_CONNECTION_RSS.value_bytes == 475 * KIB >= 486_266
    assert calibration.THREAD_RESIDENT_BYTES == 593 * KIB + 768 - 160 * KIB - 52 * KIB == 390_912
    assert T["thread_resident_bytes"] == calibration.THREAD_RESIDENT_BYTES


def test_a_running_connection_of_the_run_is_charged_the_measurement_with_its_safety_factor():
    # the runs' connections each ran a statement on their own thread: session + thread + statement buffers is
    # exactly 1.25 x the measured figure, whatever thread_stack reserves (only touched pages are resident)
    options = {key: str(value) for key, value in calibration.TIER_CONNECTION_SETTINGS.items()}
    for stack in ("299008", "1M", "8M"):
        costs = connection_costs({**options, "max_connections": "64", "thread_stack": stack}, T)
        per_connection = (costs.idle_bytes + costs.active_bytes + costs.thread_total_bytes) / 64
        assert per_connection == calibration.with_safety(calibration.PER_ACTIVE_CONNECTION_RSS)


def test_the_measured_figures_stay_below_what_the_model_charges_for_them():
    # the model's MySQL 8 server overhead (300 MiB) holds what MariaDB had resident at idle (168 MiB) and the
    # log buffer MariaDB allocates twice (32 MiB against the 16 MiB term): 300 >= 168 + 16
    assert T["fixed_server_overhead_bytes"] >= (
        calibration.SERVER_OVERHEAD_IDLE.value_bytes + calibration.LOG_BUFFER_WRITER.value_bytes - 16 * MIB
    )


def test_the_tier_member_is_still_modelled_above_what_its_writer_held():
    # the 2 CPU / 2,560 MiB PXC member the tier runs: whatever this sizing now gives it, the model stays above
    # the largest writer peak measured (1,325 MiB); the tier itself asserts the same on the real servers
    result = size(SizingInput(engine="pxc", cpu_millicores=2000, memory_bytes=2560 * MIB))
    peak = model(
        {normalize_key(k): v for k, v in result.mysqld.items()},
        engine="pxc",
        limit_bytes=result.mysqld_memory_bytes,
        thresholds=T,
    ).peak_bytes
    assert peak >= calibration.WRITER_PEAK_RSS.value_bytes > calibration.APPLIER_PEAK_RSS.value_bytes
    assert peak <= result.mysqld_memory_bytes


def test_only_build_independent_terms_are_calibrated():
    # the per-thread figure; the buffer pool's frames and the gcache were found as modelled; the descriptors, the
    # log buffer, the server overhead and performance_schema keep their MySQL 8 sources
    assert set(calibration.CALIBRATED) == {"thread_resident_bytes"}
    assert set(calibration.CONFIRMED_TERMS) == {"buffer_pool", "gcache"}
    assert not set(calibration.CONFIRMED_TERMS) & set(calibration.BUILD_DEPENDENT_TERMS)
    assert T["fixed_server_overhead_bytes"] == 300 * MIB


def test_a_connection_of_the_tier_member_is_charged_within_the_margin_of_the_largest_growth_measured():
    # issue 29: the model never below what a real server held, and at most 1.10 x it. The tier's member (2 CPU /
    # 2,560 MiB PXC) is charged its connection terms over max_connections: 41 sessions of 160 KiB, 8 running
    # statements of 52 KiB, 64 threads (41 + 1 + 2 groups + 20 admin-port users) of 381.75 KiB = 784,370 bytes a
    # connection, against the largest growth measured, 764,782 bytes (1.03 x)
    result = size(SizingInput(engine="pxc", cpu_millicores=2000, memory_bytes=2560 * MIB))
    terms = result.memory.terms
    connections = int(result.mysqld["max_connections"])
    charged = sum(terms[name] for name in ("connections_idle", "connections_active", "connection_threads")) / connections
    assert connections == 41
    assert charged == (41 * 160 * KIB + 8 * 52 * KIB + 64 * 390_912) / 41
    largest = calibration.PER_CONNECTION_GROWTH_LARGEST.value_bytes
    assert largest <= charged <= calibration.SHARED_TERM_MARGIN * largest
    # the factor issue 29 tried, 1.10, charged less than that run held: the reason it stays at 1.25
    lower = size(
        SizingInput(
            engine="pxc",
            cpu_millicores=2000,
            memory_bytes=2560 * MIB,
            thresholds={"thread_resident_bytes": math.ceil(475 * KIB * 1.10) - 212 * KIB},
        )
    )
    low_terms = lower.memory.terms
    low_connections = int(lower.mysqld["max_connections"])
    low_charged = sum(low_terms[n] for n in ("connections_idle", "connections_active", "connection_threads")) / low_connections
    assert low_charged < largest
