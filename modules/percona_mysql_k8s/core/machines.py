"""Machine catalog: the GCE and EC2 node types the sizing engine knows, with vCPUs, memory and ENI limits.

Only sizes from 2 to 64 vCPU are listed: smaller nodes cannot hold a database pod next to the system
pods, larger ones are outside what the project sizes for. GCE and EC2 quote machine memory in "GB" that
are really GiB, so memory is stored as GiB × 2**30 bytes.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass

from .errors import InputError
from .units import GIB

PROVIDERS = ("gke", "eks")


@dataclass(frozen=True)
class MachineType:
    """One node type. ``max_enis``/``ipv4_per_eni`` are EC2's ENI limits (None on GCE or when unknown)."""

    name: str
    provider: str
    family: str
    vcpus: int
    memory_bytes: int
    max_enis: int | None = None
    ipv4_per_eni: int | None = None

    @property
    def cpu_millicores(self) -> int:
        return self.vcpus * 1000


# GCE: (family, GiB per vCPU, vCPU sizes). The size is the name's suffix: n2-standard-16.
_GCE_FAMILIES: tuple[tuple[str, int, tuple[int, ...]], ...] = (
    ("e2-standard", 4, (2, 4, 8, 16, 32)),
    ("n2-standard", 4, (2, 4, 8, 16, 32, 48, 64)),
    ("n2-highmem", 8, (2, 4, 8, 16, 32, 48, 64)),
    ("n2d-standard", 4, (2, 4, 8, 16, 32, 48, 64)),
    ("c3-standard", 4, (4, 8, 22, 44)),  # c3 starts at 4 vCPU; c3-standard-88 is above 64
)

# EC2 size suffix -> (vCPUs, max ENIs, IPv4 addresses per ENI); the same for every family listed below.
_EC2_SIZES: dict[str, tuple[int, int, int]] = {
    "large": (2, 3, 10),
    "xlarge": (4, 4, 15),
    "2xlarge": (8, 4, 15),
    "4xlarge": (16, 8, 30),
    "8xlarge": (32, 8, 30),
    "9xlarge": (36, 8, 30),
    "12xlarge": (48, 8, 30),
    "16xlarge": (64, 15, 50),
}

_GENERAL_EC2_SIZES = ("large", "xlarge", "2xlarge", "4xlarge", "8xlarge", "12xlarge", "16xlarge")

# EC2: (family, GiB per vCPU, size suffixes). c5 has 9xlarge instead of 8xlarge and no 16xlarge
# (c5.18xlarge is 72 vCPU).
_EC2_FAMILIES: tuple[tuple[str, int, tuple[str, ...]], ...] = (
    ("m5", 4, _GENERAL_EC2_SIZES),
    ("m6i", 4, _GENERAL_EC2_SIZES),
    ("m7i", 4, _GENERAL_EC2_SIZES),
    ("r5", 8, _GENERAL_EC2_SIZES),
    ("r6i", 8, _GENERAL_EC2_SIZES),
    ("c5", 2, ("large", "xlarge", "2xlarge", "4xlarge", "9xlarge", "12xlarge")),
    ("c6i", 2, _GENERAL_EC2_SIZES),
)


def _build_catalog() -> tuple[MachineType, ...]:
    machines = [
        MachineType(f"{family}-{vcpus}", "gke", family, vcpus, vcpus * gib_per_vcpu * GIB)
        for family, gib_per_vcpu, sizes in _GCE_FAMILIES
        for vcpus in sizes
    ]
    for family, gib_per_vcpu, sizes in _EC2_FAMILIES:
        for size in sizes:
            vcpus, max_enis, ipv4_per_eni = _EC2_SIZES[size]
            memory = vcpus * gib_per_vcpu * GIB
            machines.append(MachineType(f"{family}.{size}", "eks", family, vcpus, memory, max_enis, ipv4_per_eni))
    return tuple(machines)


_CATALOG = _build_catalog()
_BY_NAME = {machine.name: machine for machine in _CATALOG}


def catalog() -> tuple[MachineType, ...]:
    """Every known machine type: GCE families first, then EC2, each family by increasing size."""
    return _CATALOG


def families(provider: str | None = None) -> tuple[str, ...]:
    """Known family names in catalog order, optionally only one provider's."""
    names = dict.fromkeys(m.family for m in _CATALOG if provider is None or m.provider == provider)
    return tuple(names)


def lookup(name: str) -> MachineType:
    """The machine type called ``name`` (case-insensitive); an unknown name is a K1 input error."""
    if not isinstance(name, str):
        raise InputError("node_type", f"{name!r} is not a machine type name", rule="K1")
    machine = _BY_NAME.get(name.strip().lower())
    if machine is not None:
        return machine
    close = difflib.get_close_matches(name.strip().lower(), list(_BY_NAME), n=5)
    if close:
        hint = "did you mean " + ", ".join(close) + "?"
    else:
        hint = f"known families: GKE {', '.join(families('gke'))}; EKS {', '.join(families('eks'))}"
    raise InputError(
        "node_type",
        f"unknown machine type {name!r} (the catalog holds 2 to 64 vCPU sizes); {hint}",
        rule="K1",
    )


def provider_of(name: str) -> str:
    """``"gke"`` or ``"eks"`` for a known machine type name."""
    return lookup(name).provider
