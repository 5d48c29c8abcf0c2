"""Quantities: Kubernetes CPU and memory notation, and MySQL size suffixes.

The core works in integers only: CPU in millicores, memory in bytes. These helpers convert at the
edges (user input, custom resources, my.cnf) and refuse anything ambiguous with a ``ValueError``;
callers wrap that into an :class:`~percona_mysql_k8s.core.errors.InputError` naming their key.
"""

from __future__ import annotations

import math
import re
from decimal import Decimal, InvalidOperation

KIB = 1024
MIB = 1024**2
GIB = 1024**3

# Kubernetes resource.Quantity suffixes (apimachinery/pkg/api/resource/suffix.go).
_BINARY_SUFFIXES = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60}
_DECIMAL_SUFFIXES = {
    "n": Decimal("1e-9"),
    "u": Decimal("1e-6"),
    "m": Decimal("1e-3"),
    "": Decimal(1),
    "k": Decimal(10**3),
    "M": Decimal(10**6),
    "G": Decimal(10**9),
    "T": Decimal(10**12),
    "P": Decimal(10**15),
    "E": Decimal(10**18),
}
_QUANTITY = re.compile(r"^\s*([+-]?(?:\d+(?:\.\d*)?|\.\d+))(?:[eE]([+-]?\d+))?(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE])?\s*$")


def parse_quantity(value: object) -> Decimal:
    """A Kubernetes quantity (``"1.5Gi"``, ``"600m"``, ``"1e3"``, ``2``) as an exact Decimal."""
    if isinstance(value, bool):
        raise ValueError(f"{value!r} is not a quantity")
    if isinstance(value, int):
        return Decimal(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"{value!r} is not a quantity")
        return Decimal(repr(value))
    if not isinstance(value, str):
        raise ValueError(f"{value!r} is not a quantity")
    match = _QUANTITY.match(value)
    if not match:
        raise ValueError(f"{value!r} is not a Kubernetes quantity (e.g. 600m, 2, 512Mi, 8Gi, 1G)")
    number, exponent, suffix = match.groups()
    try:
        amount = Decimal(number)
    except InvalidOperation as error:  # the regex admits only valid numbers; kept for safety
        raise ValueError(f"{value!r} is not a quantity") from error
    if exponent is not None:
        if suffix:
            raise ValueError(f"{value!r}: an exponent cannot be combined with a suffix")
        amount = amount.scaleb(int(exponent))
    if suffix in _BINARY_SUFFIXES:
        return amount * _BINARY_SUFFIXES[suffix]
    return amount * _DECIMAL_SUFFIXES[suffix or ""]


def cpu_to_millicores(value: object) -> int:
    """CPU quantity to integer millicores, rounded up (Kubernetes' own rounding for requests)."""
    millicores = parse_quantity(value) * 1000
    if millicores < 0:
        raise ValueError(f"{value!r}: CPU cannot be negative")
    return int(millicores.to_integral_value(rounding="ROUND_CEILING"))


def memory_to_bytes(value: object) -> int:
    """Memory quantity to integer bytes, rounded up."""
    amount = parse_quantity(value)
    if amount < 0:
        raise ValueError(f"{value!r}: memory cannot be negative")
    return int(amount.to_integral_value(rounding="ROUND_CEILING"))


def format_cpu(millicores: int) -> str:
    """Millicores as a Kubernetes quantity: whole cores as ``"2"``, otherwise ``"1500m"``."""
    return str(millicores // 1000) if millicores % 1000 == 0 else f"{millicores}m"


def format_memory(num_bytes: int) -> str:
    """Bytes as the largest exact binary Kubernetes quantity (``"8Gi"``, ``"1536Mi"``, ``"1000"``)."""
    for suffix, factor in (("Ti", 2**40), ("Gi", GIB), ("Mi", MIB), ("Ki", KIB)):
        if num_bytes and num_bytes % factor == 0:
            return f"{num_bytes // factor}{suffix}"
    return str(num_bytes)


# MySQL option values accept K, M, G, T, P, E suffixes, all powers of 1024, case-insensitive
# (https://dev.mysql.com/doc/refman/8.4/en/command-line-options.html).
_MYSQL_SIZE = re.compile(r"^\s*(\d+)\s*([kmgtpeKMGTPE])?\s*$")
_MYSQL_FACTORS = {"k": 2**10, "m": 2**20, "g": 2**30, "t": 2**40, "p": 2**50, "e": 2**60}


def parse_mysql_size(value: object) -> int:
    """A my.cnf size (``"134217728"``, ``"128M"``, ``"1G"``) as bytes."""
    if isinstance(value, bool):
        raise ValueError(f"{value!r} is not a size")
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.isascii() and value.isdigit():  # the common case: plain bytes
        return int(value)
    match = _MYSQL_SIZE.match(str(value))
    if not match:
        raise ValueError(f"{value!r} is not a MySQL size (digits with an optional K, M or G suffix)")
    number, suffix = match.groups()
    return int(number) * (_MYSQL_FACTORS[suffix.lower()] if suffix else 1)


def human_bytes(num_bytes: float) -> str:
    """Short human form for reports: ``"1.5 GiB"``."""
    for suffix, factor in (("TiB", 2**40), ("GiB", GIB), ("MiB", MIB), ("KiB", KIB)):
        if abs(num_bytes) >= factor:
            return f"{num_bytes / factor:.2f} {suffix}"
    return f"{int(num_bytes)} B"
