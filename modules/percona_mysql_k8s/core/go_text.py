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

from .go_print import is_print

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
NANOSECONDS_PER_HOUR = _DURATION_UNITS["h"]


class GoSyntaxError(ValueError):
    """Text Go's parser refuses; the message is Go's error text."""


_ESCAPES = {"\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\v": "\\v"}


def strconv_quote(text: str) -> str:
    """strconv.Quote: printable runes as they are, ``"`` and ``\\`` escaped, the others in Go's escapes."""
    out = ['"']
    for char in text:
        code = ord(char)
        if char in ('"', "\\"):
            out.append("\\" + char)
        elif is_print(char):  # Go's Unicode tables, not the interpreter's
            out.append(char)
        elif char in _ESCAPES:
            out.append(_ESCAPES[char])
        elif code < 0x20 or code == 0x7F:
            out.append(f"\\x{code:02x}")
        elif code < 0x10000:
            out.append(f"\\u{code:04x}")
        else:
            out.append(f"\\U{code:08x}")
    return "".join(out) + '"'


def go_atoi(text: str) -> int:
    """``strconv.Atoi(text)``; GoSyntaxError with Go's message when it fails."""
    if not ATOI.fullmatch(text):
        raise GoSyntaxError(f"strconv.Atoi: parsing {strconv_quote(text)}: invalid syntax")
    number = int(text)
    if not _INT64_MIN <= number <= _INT64_MAX:
        raise GoSyntaxError(f"strconv.Atoi: parsing {strconv_quote(text)}: value out of range")
    return number


def go_quote(text: str) -> str:
    """time/format.go ``quote``: ASCII as is (``"`` and ``\\`` escaped), every byte of anything else as ``\\xNN``."""
    out = ['"']
    for char in text:
        if char < " " or ord(char) >= 0x80:  # runeSelf
            out += [f"\\x{byte:02x}" for byte in char.encode("utf-8", "surrogatepass")]
        elif char in ('"', "\\"):
            out.append("\\" + char)
        else:
            out.append(char)
    return "".join(out) + '"'


def _leading_int(data: bytes) -> tuple[int, bytes]:
    """time/format.go ``leadingInt``: the digits' value; ValueError past 1<<63."""
    value, index = 0, 0
    while index < len(data) and 48 <= data[index] <= 57:
        if value > 2**63 // 10:
            raise ValueError
        value = value * 10 + data[index] - 48
        if value > 2**63:
            raise ValueError
        index += 1
    return value, data[index:]


def _leading_fraction(data: bytes) -> tuple[int, float, bytes]:
    """time/format.go ``leadingFraction``: digits after the point, and their scale; digits past overflow ignored."""
    value, scale, index, overflow = 0, 1.0, 0, False
    while index < len(data) and 48 <= data[index] <= 57:
        if not overflow:
            if value > (2**63 - 1) // 10:
                overflow = True
            else:
                bigger = value * 10 + data[index] - 48
                if bigger > 2**63:
                    overflow = True
                else:
                    value, scale = bigger, scale * 10
        index += 1
    return value, scale, data[index:]


def go_duration_ns(text: str) -> int:
    """``time.ParseDuration(text)`` in nanoseconds, step for step (time/format.go ``ParseDuration``): GoSyntaxError
    with Go's message (``time: invalid duration "x"``, ``time: unknown unit "d" in duration "90d"``, ``time: missing
    unit in duration "1"``) when Go refuses it."""

    def refused(what: str) -> GoSyntaxError:
        return GoSyntaxError(f"time: {what} {go_quote(text)}")

    data = text.encode("utf-8", "surrogatepass")
    negative = False
    if data[:1] in (b"-", b"+"):
        negative, data = data[:1] == b"-", data[1:]
    if data == b"0":
        return 0
    if not data:
        raise refused("invalid duration")
    total = 0
    while data:
        if not (data[0] == 46 or 48 <= data[0] <= 57):  # [0-9.]
            raise refused("invalid duration")
        length = len(data)
        try:
            whole, data = _leading_int(data)
        except ValueError:
            raise refused("invalid duration") from None
        before = length != len(data)
        fraction, scale, after = 0, 1.0, False
        if data[:1] == b".":
            data = data[1:]
            length = len(data)
            fraction, scale, data = _leading_fraction(data)
            after = length != len(data)
        if not before and not after:
            raise refused("invalid duration")
        end = 0
        while end < len(data) and not (data[end] == 46 or 48 <= data[end] <= 57):
            end += 1
        if end == 0:
            raise refused("missing unit in duration")
        unit, data = data[:end].decode("utf-8", "surrogatepass"), data[end:]
        if unit not in _DURATION_UNITS:
            raise refused(f"unknown unit {go_quote(unit)} in duration")
        scale_ns = _DURATION_UNITS[unit]
        if whole > 2**63 // scale_ns:
            raise refused("invalid duration")
        whole *= scale_ns
        if fraction > 0:
            whole += int(float(fraction) * (float(scale_ns) / scale))  # float64, as Go does
            if whole > 2**63:
                raise refused("invalid duration")
        total += whole
        if total > 2**63:
            raise refused("invalid duration")
    if negative:
        return -total
    if total > 2**63 - 1:
        raise refused("invalid duration")
    return total


def go_duration_valid(text: str) -> bool:
    """Whether Go's ``time.ParseDuration`` accepts ``text``."""
    try:
        go_duration_ns(text)
    except GoSyntaxError:
        return False
    return True
