"""The peer model against ALGORITHM.md: the worked examples of §9 number by number, and the §2.2 grid."""

from __future__ import annotations

import pytest

from .peer_calculator import (
    CLOSE_TO_LIMIT,
    CONNECTIONS_RECALCULATED,
    CPU_OVERLOAD,
    GIB,
    GROUP_REPLICATION,
    MIB,
    OK,
    OVERUTILIZING,
    PXC,
    calculate,
    f32,
    go_div,
    open_dimension,
    reference_dimension,
    render_provider_options,
    return_bytes,
    run_pass,
)


@pytest.fixture(scope="module")
def example_a():
    """§9 A: PXC, open 4000m / "8G", load 2, 100 connections."""
    return calculate(PXC, 4000, 8 * GIB, 2, 100)


@pytest.fixture(scope="module")
def example_b():
    """§9 B: group replication, same resources, 500 connections."""
    return calculate(GROUP_REPLICATION, 4000, 8 * GIB, 2, 500)


def test_example_a_resources(example_a):
    assert reference_dimension(4000, 8 * GIB).id == 2  # Small
    assert (example_a.mysql_cpu, example_a.proxy_cpu, example_a.pmm_cpu) == (3200, 560, 240)
    assert (example_a.mysql_memory, example_a.proxy_memory, example_a.pmm_memory) == (7516192768, 858993458, 214748364)
    assert f"{example_a.load_factor:.4f}" == "0.0375"
    assert f"{example_a.steps['effective_connections']:.2f}" == "3.75"


def test_example_a_memory_steps(example_a):
    steps = example_a.steps
    assert example_a.connection_memory == 3 * 1441792 + 3 * 1677721 == 9358539
    assert steps["left_after_connections"] == 7506834229
    assert steps["ideal_buffer_pool"] == 6012954214
    assert steps["redo_index"] == 0.71875
    assert example_a.redo_log_capacity == 4321810768
    assert steps["first_buffer_pool"] == 6005467383
    assert steps["left_after_first_buffer_pool"] == 1501366846
    assert f"{steps['gcache_uncapped']:.3g}" == "4.97e+09"
    assert example_a.gcache_size == 1501366846 // 3 == 500455615
    assert example_a.gcache_footprint == 300273369
    assert steps["left_after_gcache"] == 1201093477
    assert steps["recovered"] == 617823657
    assert f"{steps['recovered'] / steps['left_after_gcache']:.1%}" == "51.4%"
    assert example_a.buffer_pool == 6623291040


def test_example_a_answer(example_a):
    assert f"{example_a.buffer_pool_fraction:.2f}" == "0.77"
    assert example_a.message_type == OK and example_a.answered
    assert example_a.buffer_pool_instances == 6
    assert example_a.probe_timeouts == {"mysql": 23, "haproxy": 2, "pmm": 2}
    assert example_a.purge_threads == 4
    assert example_a.parallel_read_threads == 3
    assert example_a.replica_parallel_workers == 8
    assert example_a.wsrep_slave_threads == 1


def test_example_a_galera_timers_have_no_floor(example_a):
    """§3.10: at λ ≈ 0.0375 the timers collapse (the values the section lists)."""
    options = example_a.provider_options
    assert options["evs.inactive_check_period"] == "PT0S"
    assert options["evs.suspect_timeout"] == "PT2S"
    assert options["gcs.fc_limit"] == "4"
    assert options["gcs.max_packet_size"] == "4915"
    assert options["gmcast.peer_timeout"] == "PT0S"
    assert options["gcache.size"] == "500455615"
    assert "gcs.fc_factor" not in options
    rendered = render_provider_options(options)
    assert rendered.startswith("evs.delay_margin=PT1S;") and rendered.endswith("pc.recovery=true;")


def test_example_b(example_b):
    steps = example_b.steps
    assert example_b.load_factor == 0.1875
    assert steps["effective_connections"] == 93.75
    assert example_b.connection_memory == 290114709
    assert steps["left_after_connections"] == 7226078059
    assert steps["first_buffer_pool"] == 5058254641
    assert example_b.gcs_cache_size == 2**30 * 500 // 400 == 1342177280
    assert steps["left_after_gcs_cache"] == 825646138
    assert steps["recovered"] == 314769742
    assert f"{steps['recovered'] / steps['left_after_gcs_cache']:.1%}" == "38.1%"
    assert example_b.buffer_pool == 5373024383
    assert f"{example_b.buffer_pool_fraction:.4f}" == "0.6255"
    assert example_b.message_type == OK
    assert steps["ideal_buffer_pool"] == 5261334937
    assert f"{steps['redo_index']:.5f}" == "0.79375"
    assert example_b.redo_log_capacity == 4176184625
    assert example_b.gr_member_expel_timeout == 5
    assert example_b.gr_autorejoin_tries == 3
    assert example_b.gr_flow_control_period == 5
    assert example_b.gr_max_message_size == 7645728


# §2.2: the reference dimension of the grid (rows: CPU, columns: memory).
REFERENCE_GRID = {
    1000: (1, 1, 1, 1, 1, 1, 1),
    2000: (1, 1, 1, 1, 1, 1, 1),
    4000: (1, 1, 1, 2, 2, 2, 2),
    8000: (1, 1, 1, 2, 3, 4, 4),
    16000: (1, 1, 1, 2, 3, 4, 5),
}
GRID_MEMORY = (2 * GIB, 2.5 * GIB, 4 * GIB, 8 * GIB, 16 * GIB, 32 * GIB, 64 * GIB)


@pytest.mark.parametrize("cpu", sorted(REFERENCE_GRID))
def test_reference_dimension_grid(cpu):
    assert tuple(reference_dimension(cpu, memory).id for memory in GRID_MEMORY) == REFERENCE_GRID[cpu]


def test_open_dimension_boundaries_pick_the_lower_dimension():
    """§2.2: exactly 16000m / 64 GiB uses the 2XLarge ratios; very large requests use 24XLarge."""
    assert reference_dimension(16000, 64 * GIB).id == 5
    assert reference_dimension(200_000, 1024 * GIB).id == 10
    assert open_dimension(16000, 64 * GIB).mysql_cpu == int(16000 * (7400 / 8500))


def test_float32_rounding():
    assert f32(0.1) != 0.1 and f32(f32(0.1)) == f32(0.1)
    assert f32(100) / f32(3200 / 1.2) != 0.0375  # the peer's λ is a float32 quotient
    assert go_div(-7, 2) == -3 and go_div(7, 2) == 3


def test_return_bytes_ladder():
    """§3.12: 20% up to 300 MiB, 85% from 2 GiB."""
    assert return_bytes(300 * MIB) == int(300 * MIB * 0.2)
    assert return_bytes(2 * GIB) == int(2 * GIB * 0.85)
    assert return_bytes(1000) == 200


def test_cpu_overload_pass_has_no_settings():
    """§3.1: λ > 1 stops the pass with no families (3001, HTTP 200)."""
    dim = open_dimension(1000, 2 * GIB)  # C_my 600m: at most 750 read connections
    overloaded = run_pass(PXC, 1, dim, 760)
    assert overloaded.message_type == OVERUTILIZING and overloaded.failure == CPU_OVERLOAD
    assert overloaded.buffer_pool is None and not overloaded.answered


def test_explicit_connections_back_off_to_6001():
    """§5: too many connections are reduced in steps of 10 and relabelled 6001."""
    answer = calculate(PXC, 1000, 2 * GIB, 1, 1000)
    assert answer.message_type == CONNECTIONS_RECALCULATED and answer.answered
    assert answer.requested_connections % 10 == 0 and answer.requested_connections < 1000
    assert run_pass(PXC, 1, open_dimension(1000, 2 * GIB), answer.requested_connections + 10).message_type == OVERUTILIZING


@pytest.mark.parametrize("db", [PXC, GROUP_REPLICATION])
@pytest.mark.parametrize("load", [1, 2, 3, 4])
def test_auto_connections_stop_one_step_before_overutilization(db, load):
    """§5: connections = 0 climbs in steps of 10; the answer is the last step that was not 3001."""
    answer = calculate(db, 4000, 8 * GIB, load, 0)
    assert answer.message_type in (OK, CLOSE_TO_LIMIT) and answer.answered
    found = answer.requested_connections
    assert answer.max_connections == found + 2 and answer.thread_cache_size == found
    assert run_pass(db, load, open_dimension(4000, 8 * GIB), found + 10).message_type == OVERUTILIZING
