"""Text the Percona operators read with Go's standard library, read here as Go reads it.

* ``strconv.Atoi`` (base 10): an optional sign, then ASCII digits only, within int64 (Go's ``int`` on 64-bit
  platforms); no blanks, no ``0x``, no underscores (strconv/atoi.go ``Atoi``, ``ParseInt`` with base 10).
* ``time.ParseDuration``: ``[-+]?([0-9]*(\\.[0-9]*)?unit)+`` or ``0`` alone, within int64 nanoseconds
  (time/format.go ``ParseDuration``, ``leadingInt``, ``leadingFraction``, ``unitMap``). metav1.Duration's
  ``UnmarshalJSON`` reads a custom resource's durations with it (apimachinery pkg/apis/meta/v1/duration.go:32-45).

Errors carry Go's own words, so a message quotes what the operator logs.
"""

from __future__ import annotations

import re

_INT64_MAX = 2**63 - 1
_INT64_MIN = -(2**63)
ATOI = re.compile(r"[+-]?[0-9]+")  # strconv.Atoi (base 10): an optional sign, then ASCII digits only

# time/format.go unitMap, in nanoseconds
_DURATION_UNITS = {
    "ns": 1,
    "us": 10**3,
    "\u00b5s": 10**3,  # U+00B5 micro sign
    "\u03bcs": 10**3,  # U+03BC Greek small letter mu
    "ms": 10**6,
    "s": 10**9,
    "m": 60 * 10**9,
    "h": 3600 * 10**9,
}
_DURATION_PART = re.compile(r"([0-9]*)(?:\.([0-9]*))?([^0-9.]*)")
NANOSECONDS_PER_HOUR = _DURATION_UNITS["h"]


class GoSyntaxError(ValueError):
    """Text Go's parser refuses; the message is Go's error text."""


def go_atoi(text: str) -> int:
    """``strconv.Atoi(text)``; GoSyntaxError with Go's message when it fails."""
    if not ATOI.fullmatch(text):
        raise GoSyntaxError(f'strconv.Atoi: parsing "{text}": invalid syntax')
    number = int(text)
    if not _INT64_MIN <= number <= _INT64_MAX:
        raise GoSyntaxError(f'strconv.Atoi: parsing "{text}": value out of range')
    return number


def go_duration_ns(text: str) -> int:
    """``time.ParseDuration(text)`` in nanoseconds; GoSyntaxError (``time: invalid duration "x"``, ``time: unknown
    unit "x" in duration "y"``, ``time: missing unit in duration "y"``) when Go refuses it."""
    quoted = f'"{text}"'
    negative = text[:1] == "-"
    rest = text[1:] if text[:1] in ("+", "-") else text
    if rest == "0":
        return 0
    if not rest:
        raise GoSyntaxError(f"time: invalid duration {quoted}")
    total = 0
    while rest:
        part = _DURATION_PART.match(rest)
        whole, fraction, unit = part.group(1), part.group(2), part.group(3)
        if not whole and not fraction:  # "." alone, or no digit where one must be
            raise GoSyntaxError(f"time: invalid duration {quoted}")
        if not unit:
            raise GoSyntaxError(f"time: missing unit in duration {quoted}")
        if unit not in _DURATION_UNITS:
            raise GoSyntaxError(f'time: unknown unit "{unit}" in duration {quoted}')
        scale = _DURATION_UNITS[unit]
        value = int(whole or "0")
        if value > 2**63 // scale:  # leadingInt / the v > 1<<63/unit check
            raise GoSyntaxError(f"time: invalid duration {quoted}")
        total += value * scale + int((fraction or "0")[:18].ljust(18, "0")) * scale // 10**18
        if total > 2**63 - (0 if negative else 1):
            raise GoSyntaxError(f"time: invalid duration {quoted}")
        rest = rest[part.end() :]
    return -total if negative else total


def go_duration_valid(text: str) -> bool:
    """Whether Go's ``time.ParseDuration`` accepts ``text``."""
    try:
        go_duration_ns(text)
    except GoSyntaxError:
        return False
    return True
