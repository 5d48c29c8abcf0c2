"""Quantities: Kubernetes notation and MySQL size suffixes."""

from decimal import Decimal

import pytest
from percona_mysql_k8s.core.units import (
    cpu_to_millicores,
    format_cpu,
    format_memory,
    memory_to_bytes,
    parse_mysql_size,
    parse_quantity,
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("600m", Decimal("0.6")),
        ("2", Decimal(2)),
        ("1.5", Decimal("1.5")),
        ("8Gi", Decimal(8 * 2**30)),
        ("8G", Decimal(8 * 10**9)),
        ("512Mi", Decimal(512 * 2**20)),
        ("100M", Decimal(10**8)),
        ("1e3", Decimal(1000)),
        ("1k", Decimal(1000)),
        ("64Ki", Decimal(65536)),
        (3, Decimal(3)),
    ],
)
def test_parse_quantity_follows_kubernetes_suffixes(text, expected):
    assert parse_quantity(text) == expected


@pytest.mark.parametrize("bad", ["", "Gi", "8GB", "4096Mx", "1.2.3", "-", "1e3Gi", None, True, [1], float("nan")])
def test_parse_quantity_refuses_what_kubernetes_refuses(bad):
    with pytest.raises(ValueError):
        parse_quantity(bad)


def test_cpu_and_memory_round_up_and_refuse_negatives():
    assert cpu_to_millicores("4") == 4000
    assert cpu_to_millicores("1500m") == 1500
    assert cpu_to_millicores("0.0005") == 1  # half a millicore rounds up, as Kubernetes does
    assert memory_to_bytes("1Gi") == 2**30
    with pytest.raises(ValueError):
        cpu_to_millicores("-1")
    with pytest.raises(ValueError):
        memory_to_bytes("-1Gi")


def test_formatting_is_exact_and_round_trips():
    assert format_cpu(4000) == "4"
    assert format_cpu(1250) == "1250m"
    assert format_memory(8 * 2**30) == "8Gi"
    assert format_memory(1536 * 2**20) == "1536Mi"
    assert format_memory(100_000_000) == "100000000"
    for amount in (1, 1023, 2**20 + 1, 7 * 2**30, 100_000_000):
        assert memory_to_bytes(format_memory(amount)) == amount


@pytest.mark.parametrize(("text", "expected"), [("134217728", 2**27), ("128M", 2**27), ("1g", 2**30), ("16K", 16384), (5, 5)])
def test_mysql_sizes_use_powers_of_1024(text, expected):
    assert parse_mysql_size(text) == expected


@pytest.mark.parametrize("bad", ["1.5G", "12MB", "-1", "", "ten"])
def test_mysql_size_refuses_non_integers(bad):
    with pytest.raises(ValueError):
        parse_mysql_size(bad)
