"""The machine catalog: every family has exactly the documented 2-64 vCPU sizes, memory and ENI limits."""

from __future__ import annotations

import pytest
from percona_mysql_k8s.core.errors import InputError
from percona_mysql_k8s.core.machines import MachineType, catalog, families, lookup, provider_of

GIB = 2**30

EXPECTED_SIZES = {
    "e2-standard": (2, 4, 8, 16, 32),
    "n2-standard": (2, 4, 8, 16, 32, 48, 64),
    "n2-highmem": (2, 4, 8, 16, 32, 48, 64),
    "n2d-standard": (2, 4, 8, 16, 32, 48, 64),
    "c3-standard": (4, 8, 22, 44),
    "m5": (2, 4, 8, 16, 32, 48, 64),
    "m6i": (2, 4, 8, 16, 32, 48, 64),
    "m7i": (2, 4, 8, 16, 32, 48, 64),
    "r5": (2, 4, 8, 16, 32, 48, 64),
    "r6i": (2, 4, 8, 16, 32, 48, 64),
    "c5": (2, 4, 8, 16, 36, 48),
    "c6i": (2, 4, 8, 16, 32, 48, 64),
}

GIB_PER_VCPU = {
    "e2-standard": 4,
    "n2-standard": 4,
    "n2-highmem": 8,
    "n2d-standard": 4,
    "c3-standard": 4,
    "m5": 4,
    "m6i": 4,
    "m7i": 4,
    "r5": 8,
    "r6i": 8,
    "c5": 2,
    "c6i": 2,
}

# EC2 size suffix -> (max ENIs, IPv4 per ENI), the same for the seven families.
ENI_LIMITS = {
    "large": (3, 10),
    "xlarge": (4, 15),
    "2xlarge": (4, 15),
    "4xlarge": (8, 30),
    "8xlarge": (8, 30),
    "9xlarge": (8, 30),
    "12xlarge": (8, 30),
    "16xlarge": (15, 50),
}


def test_every_family_has_exactly_the_documented_sizes():
    assert set(families()) == set(EXPECTED_SIZES)
    for family, sizes in EXPECTED_SIZES.items():
        assert tuple(m.vcpus for m in catalog() if m.family == family) == sizes, family


def test_catalog_size_and_unique_names():
    names = [m.name for m in catalog()]
    assert len(names) == len(set(names)) == sum(len(sizes) for sizes in EXPECTED_SIZES.values())
    assert all(2 <= m.vcpus <= 64 for m in catalog())


@pytest.mark.parametrize("machine", catalog(), ids=lambda m: m.name)
def test_memory_per_vcpu_and_units(machine: MachineType):
    assert machine.memory_bytes == machine.vcpus * GIB_PER_VCPU[machine.family] * GIB
    assert machine.cpu_millicores == machine.vcpus * 1000


@pytest.mark.parametrize("machine", catalog(), ids=lambda m: m.name)
def test_providers_and_eni_limits(machine: MachineType):
    if machine.provider == "gke":
        assert machine.name == f"{machine.family}-{machine.vcpus}"
        assert (machine.max_enis, machine.ipv4_per_eni) == (None, None)
    else:
        assert machine.provider == "eks"
        family, size = machine.name.split(".")
        assert family == machine.family
        assert (machine.max_enis, machine.ipv4_per_eni) == ENI_LIMITS[size]


def test_documented_spot_values():
    # c5.large is 2 vCPU / 4 GiB and c5.9xlarge 36 vCPU / 72 GiB; c3-standard-22 is 22 vCPU / 88 GiB.
    assert (lookup("c5.large").vcpus, lookup("c5.large").memory_bytes) == (2, 4 * GIB)
    assert (lookup("c5.9xlarge").vcpus, lookup("c5.9xlarge").memory_bytes) == (36, 72 * GIB)
    assert (lookup("c3-standard-22").vcpus, lookup("c3-standard-22").memory_bytes) == (22, 88 * GIB)
    assert lookup("n2-highmem-64").memory_bytes == 512 * GIB


@pytest.mark.parametrize("absent", ["c3-standard-2", "c3-standard-88", "c5.18xlarge", "m5.24xlarge", "n2-standard-80"])
def test_sizes_outside_the_range_are_absent(absent):
    with pytest.raises(InputError):
        lookup(absent)


def test_lookup_is_case_insensitive():
    assert lookup("N2-Standard-16") is lookup("n2-standard-16")
    assert lookup("M6I.4XLARGE").name == "m6i.4xlarge"
    assert provider_of("n2-standard-16") == "gke"
    assert provider_of("m6i.4xlarge") == "eks"


def test_unknown_name_suggests_close_names():
    with pytest.raises(InputError) as caught:
        lookup("n2-standard-15")
    assert caught.value.key == "node_type"
    assert caught.value.rule == "K1"
    message = str(caught.value)
    assert "K1" in message and "node_type" in message
    assert "n2-standard-16" in message


def test_unknown_name_far_from_everything_lists_families():
    with pytest.raises(InputError) as caught:
        lookup("zzz")
    message = str(caught.value)
    assert caught.value.key == "node_type"
    for family in EXPECTED_SIZES:
        assert family in message


def test_non_string_name_is_an_input_error():
    with pytest.raises(InputError) as caught:
        lookup(16)  # type: ignore[arg-type]
    assert caught.value.key == "node_type"
