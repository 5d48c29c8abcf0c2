"""Quantities: Kubernetes CPU and memory notation, and MySQL size suffixes.

The core works in integers only: CPU in millicores, memory in bytes. These helpers convert at the
edges (user input, custom resources, my.cnf) and refuse anything ambiguous with a ``ValueError``;
callers wrap that into an :class:`~percona_mysql_k8s.core.errors.InputError` naming their key.
Kubernetes quantities are read by :mod:`percona_mysql_k8s.core.quantity` exactly as the API server reads
them: by default as a custom resource's field (the CRD's pattern, then ParseQuantity), which is also the
grammar of every quantity a user gives this project (stack config, the sizing flags).
"""

from __future__ import annotations

import math
import re
from decimal import ROUND_CEILING, Decimal

from .quantity import MAX_INT64, QuantityError, Schema, parse_quantity

__all__ = [
    "GIB",
    "KIB",
    "MIB",
    "QuantityError",
    "Schema",
    "cpu_to_millicores",
    "format_cpu",
    "format_memory",
    "decimal_number",
    "human_bytes",
    "memory_to_bytes",
    "parse_mysql_size",
    "parse_quantity",
    "whole_number",
]

KIB = 1024
MIB = 1024**2
GIB = 1024**3
_MAX_CORES = Decimal(MAX_INT64).scaleb(-3)  # millicores are an int64


def cpu_to_millicores(value: object, schema: Schema = Schema.CRD) -> int:
    """CPU quantity to integer millicores, rounded up as ``Quantity.MilliValue`` rounds (ceil)."""
    cores = parse_quantity(value, schema)
    if cores < 0:
        raise QuantityError(f"{value!r}: CPU cannot be negative")
    if cores > _MAX_CORES:  # checked before scaling: 1e999999999 would overflow the Decimal context
        raise QuantityError(f"{value!r} is beyond the largest CPU Kubernetes counts ({MAX_INT64}m, an int64 of millicores)")
    return int((cores * 1000).to_integral_value(rounding=ROUND_CEILING))


def memory_to_bytes(value: object, schema: Schema = Schema.CRD) -> int:
    """Memory quantity to integer bytes, rounded up as ``Quantity.Value`` rounds (ceil)."""
    amount = parse_quantity(value, schema)
    if amount < 0:
        raise QuantityError(f"{value!r}: memory cannot be negative")
    if amount > MAX_INT64:
        raise QuantityError(f"{value!r} is beyond the largest quantity Kubernetes counts in bytes ({MAX_INT64}, an int64)")
    return int(amount.to_integral_value(rounding=ROUND_CEILING))


_WHOLE_NUMBER = re.compile(r"[+-]?[0-9]+", re.ASCII)
_DECIMAL_NUMBER = re.compile(r"[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?", re.ASCII)
_BLANKS = " \t\r\n"
_MOST_DIGITS = 1000  # int() refuses more than 4300 digits; nothing this project counts needs 1000


def whole_number(text: str) -> int:
    """A whole number as typed: ASCII digits with an optional sign (``int()`` would also take ``'١٢'``,
    ``'1_000'`` and Unicode blanks). ValueError otherwise."""
    stripped = text.strip(_BLANKS)
    if not _WHOLE_NUMBER.fullmatch(stripped) or len(stripped) > _MOST_DIGITS:
        raise ValueError(f"{text!r} is not a whole number (ASCII digits)")
    return int(stripped)


def decimal_number(text: str) -> float:
    """A decimal number as typed: ASCII digits, one point, an optional exponent (``float()`` would also
    take ``'٠٫٥'``, ``'nan'``, ``'infinity'`` and ``'1_0'``). ValueError otherwise; OverflowError when it is
    written correctly but beyond a float (``1e999``)."""
    stripped = text.strip(_BLANKS)
    if not _DECIMAL_NUMBER.fullmatch(stripped) or len(stripped) > _MOST_DIGITS:
        raise ValueError(f"{text!r} is not a decimal number (ASCII digits, e.g. 0.5)")
    value = float(stripped)
    if not math.isfinite(value):
        raise OverflowError(f"{text!r} is beyond the largest number")
    return value


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
