"""The issue's "done when": our engine against the peer on the 1-16 core / 2-64 GiB grid (``grid.py``).

1. at least 95% of the points are answered; the rest are clean ``InputError``s naming the nearest input;
2. every answer is valid (request = limit, containers within the budget) and fits the memory model (M1);
3. wherever the peer's own answer is safe (``safety.py``), our buffer pool (after mysqld's rounding) is
   at least the peer's.
``benchmarks/peer_grid_bench.py`` prints the same verdict.
"""

from __future__ import annotations

import pytest
from percona_mysql_k8s.core.errors import InputError

from .grid import CONNECTIONS, CORES, ENGINES, LOADS, MEMORY_GIB, MIN_ANSWERED, cases, verdict


@pytest.fixture(scope="module")
def grid():
    return cases()


@pytest.fixture(scope="module")
def result(grid):
    return verdict(grid)


def test_grid_is_complete(grid):
    assert len(grid) == len(ENGINES) * len(LOADS) * len(CORES) * len(MEMORY_GIB) * len(CONNECTIONS) == 960


def test_at_least_95_percent_of_the_grid_is_answered(result):
    assert result.answered_share >= MIN_ANSWERED, f"{result.answered} of {result.total} answered"


def test_every_refusal_names_the_nearest_input(grid):
    for case in grid:
        if isinstance(case.ours, InputError):
            assert "at most" in case.ours.message or "at least" in case.ours.message, f"{case}: {case.ours}"


def test_ours_is_a_valid_sizing_or_a_clean_input_error(result):
    assert not result.invalid, "\n".join(result.invalid)


def test_no_answer_is_over_the_memory_model(result):
    assert not result.over_model, "\n".join(result.over_model)


def test_the_peer_is_safe_somewhere(result):
    """Guards the next test against passing vacuously: the safety definition must admit some answers."""
    assert result.peer_safe > 0


def test_our_buffer_pool_is_at_least_the_peers_wherever_the_peer_is_safe(result):
    assert not result.shortfalls, f"{len(result.shortfalls)} cases:\n" + "\n".join(result.shortfalls)


def test_our_buffer_pool_is_at_least_the_peers_made_to_fit_our_model(result):
    """Where the peer's own answer overflows our model, its split still says something: its pool shrunk until its
    settings fit its mysqld limit. Ours is at least that wherever both are asked the same explicit connections."""
    assert result.fitted_ratios, "no point to compare: the fitted comparison would pass vacuously"
    assert not result.fitted_shortfalls, "\n".join(result.fitted_shortfalls)
