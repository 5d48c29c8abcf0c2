"""Kubernetes quantities read exactly as the API server reads them (rules K1-K5, M1, M3).

A transcription of ``resource.ParseQuantity`` (kubernetes/apimachinery, pkg/api/resource/quantity.go,
``parseQuantityString`` and ``ParseQuantity``; suffix.go ``interpret``; math.go ``maxInt64Factors``,
``maxAllowed``; read at commit eed236ceee2c19c2753a3d93ac0631dc20750454), including what it does at the edges:

* only ASCII digits are digits (Go compares bytes: ``'٣'`` or ``'３'`` are not digits to it);
* ``1.`` and ``.5`` are numbers; a bare sign is zero; ``1e3``/``1E3`` are exponents, ``1E`` is exa, ``1e`` is
  not a quantity; ``Ki Mi Gi Ti Pi Ei`` are binary, ``n u m "" k M G T P E`` decimal, nothing else
  (``K``, ``KB``, ``ki`` are refused);
* the exponent is read as an int64 and then cast to int32 (it wraps);
* a non-zero amount is rounded away from zero to a whole nano (``0.1n`` is ``1n``), and a binary amount
  above 2^63-1 is capped there.

What reaches ParseQuantity depends on the object (``Schema``):

* a custom resource's field (the Percona CRDs): the CRD's OpenAPI ``pattern`` first (Go's regexp: ``$`` is
  the end of the text, so no trailing newline) and ``x-kubernetes-int-or-string`` (a JSON number must be
  an integer); surrounding blanks fail the pattern. The operator then parses the string with ParseQuantity.
* a built-in object (Pod, Deployment, Node...): ``Quantity.UnmarshalJSON`` takes any JSON number, and
  trims Go's ``unicode.IsSpace`` around the text *between the quotes, unescaped*: a blank Go's JSON encoder
  escapes (below U+0020, such as tab and newline, and U+2028/U+2029; encoding/json ``encodeState.string``)
  reaches it as ``\t`` or ``\u2028`` and is not trimmed, so the quantity is refused. The API server
  re-encodes every object it decodes (server-side apply, conversion), so this holds whoever sent it;
  measured on a real API server (tests/apiserver/test_apiserver_quantities.py).

Both must accept a value for the API server (and then the operator or the scheduler) to take it: a
quantity either refuses is a :class:`QuantityError`, never read.
"""

from __future__ import annotations

import math
import re
import unicodedata
from decimal import Decimal
from enum import Enum

MAX_INT64 = 2**63 - 1
_MAX_INT64_FACTORS = 18  # math.go
_NANO = -9  # the smallest scale a quantity keeps (Nano)
_DIGITS = "0123456789"
_SUFFIX_CHARS = "eEinumkKMGTP"
_DECIMAL_SUFFIXES = {"": 0, "n": -9, "u": -6, "m": -3, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
_BINARY_SUFFIXES = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
# The CRDs' pattern for every resource.Quantity field (pxc-operator-v1.19.0-crd.yaml, ps-operator-v1.2.0-crd.yaml).
CRD_PATTERN = (
    r"^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|"
    r"([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$"
)
_CRD_PATTERN = re.compile(CRD_PATTERN.removeprefix("^").removesuffix("$"), re.ASCII)


class Schema(Enum):
    CRD = "a custom resource field"  # pattern + int-or-string, then ParseQuantity
    BUILTIN = "a built-in object's field"  # UnmarshalJSON: TrimSpace, then ParseQuantity


class QuantityError(ValueError):
    """A value the API server (or the operator that parses it) refuses as a quantity."""


def _int32(value: int) -> int:
    return (value + 2**31) % 2**32 - 2**31


def _scan(text: str) -> tuple[bool, str, str, str, str]:
    """``parseQuantityString``: (positive, value, numerator, denominator, suffix)."""
    positive, pos, end = True, 0, len(text)
    if pos < end and text[0] in "+-":
        positive = text[0] == "+"
        pos += 1
    while True:  # strip leading zeros
        if pos >= end:
            return positive, "0", "0", "", ""
        if text[pos] != "0":
            break
        pos += 1
    start = pos
    while pos < end and text[pos] in _DIGITS:
        pos += 1
    if pos >= end:
        return positive, text, text[start:], "", ""
    numerator = text[start:pos] or "0"
    denominator = ""
    if text[pos] == ".":
        pos += 1
        start = pos
        while pos < end and text[pos] in _DIGITS:
            pos += 1
        denominator = text[start:pos]
        if pos >= end:
            return positive, text, numerator, denominator, ""
    value, suffix_start = text[:pos], pos
    while pos < end and text[pos] in _SUFFIX_CHARS:
        pos += 1
    if pos < end and text[pos] in "+-":
        pos += 1
    while pos < end and text[pos] in _DIGITS:
        pos += 1
    if pos < end:  # a character that is neither suffix nor exponent digit
        raise QuantityError("quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'")
    return positive, value, numerator, denominator, text[suffix_start:]


def _interpret(suffix: str) -> tuple[int, int, str]:
    """suffix.go ``interpret``: (base, exponent, format)."""
    if suffix in _DECIMAL_SUFFIXES:
        return 10, _DECIMAL_SUFFIXES[suffix], "DecimalSI"
    if suffix in _BINARY_SUFFIXES:
        return 2, _BINARY_SUFFIXES[suffix], "BinarySI"
    if len(suffix) > 1 and suffix[0] in "eE" and re.fullmatch(r"[+-]?[0-9]+", suffix[1:], re.ASCII):
        exponent = int(suffix[1:])
        if -(2**63) <= exponent <= MAX_INT64:  # strconv.ParseInt(.., 10, 64), then int32(parsed)
            return 10, _int32(exponent), "DecimalExponent"
    raise QuantityError("unable to parse quantity's suffix")


def _dec(value: str) -> tuple[int, int]:
    """inf.Dec ``SetString``: (unscaled, scale); at least one digit, one sign first, one point."""
    match = re.fullmatch(r"([+-]?)([0-9]*)(?:\.([0-9]*))?", value, re.ASCII)
    if not match or not (match.group(2) or match.group(3)):
        raise QuantityError("unable to parse numeric part of quantity")
    sign, whole, fraction = match.group(1), match.group(2), match.group(3) or ""
    unscaled = int(whole + fraction or "0")
    return (-unscaled if sign == "-" else unscaled), len(fraction) if match.group(3) is not None else 0


def _from_scaled(unscaled: int, scale: int) -> Decimal:
    """unscaled x 10^-scale as an exact Decimal: built from its digits, no context rounds it."""
    if not unscaled:
        return Decimal(0)
    return Decimal((1 if unscaled < 0 else 0, tuple(int(d) for d in str(abs(unscaled))), -scale))


def go_parse_quantity(text: str) -> Decimal:
    """``resource.ParseQuantity(text)`` as an exact Decimal; QuantityError with its error otherwise."""
    if not text:
        raise QuantityError("quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'")
    if text == "0":
        return Decimal(0)
    positive, value, numerator, denominator, suffix = _scan(text)
    base, exponent, form = _interpret(suffix)
    if form == "BinarySI":
        fast = not denominator and exponent >= 0
        precision = 15 - len(numerator) - int(exponent * 3 / 10) - 1 if fast else -1
        scale, mantissa = 0, 1 << exponent if fast else 1
    else:
        precision = _MAX_INT64_FACTORS - (len(numerator) + len(denominator))
        scale, mantissa = exponent, 1
    if precision >= 0:
        scale -= len(denominator)
        if scale >= _NANO:
            result = int(numerator + denominator) * mantissa
            if result <= MAX_INT64:  # int64Multiply; otherwise the exact path below
                return _from_scaled(result if positive else -result, -scale)
    unscaled, dec_scale = _dec(value)
    if base == 10:
        dec_scale = _int32(dec_scale + _int32(-exponent))
    else:
        unscaled <<= exponent
    negative, unscaled = unscaled < 0, abs(unscaled)
    if unscaled and dec_scale > -_NANO:  # round away from zero to a whole nano
        shift = dec_scale + _NANO
        if shift > len(str(unscaled)):
            unscaled, dec_scale = 1, -_NANO
        else:
            unscaled, dec_scale = -(-unscaled // 10**shift), -_NANO
    amount = _from_scaled(unscaled, dec_scale)
    if form == "BinarySI" and amount > MAX_INT64:
        amount = Decimal(MAX_INT64)  # the cap (maxAllowed)
    return amount.copy_negate() if negative else amount


def _trimmed_blank(char: str) -> bool:
    """A character UnmarshalJSON's TrimSpace removes: Go's ``unicode.IsSpace`` (space, U+0085, U+00A0 and the Z
    categories), except what reaches it escaped by the JSON encoder (the ASCII controls, and U+2028/U+2029, the
    Zl and Zp categories)."""
    if char < " " or char in "\u2028\u2029":
        return False
    return char in " \x85\xa0" or unicodedata.category(char) == "Zs"


def _trim_space(text: str) -> str:
    start, end = 0, len(text)
    while start < end and _trimmed_blank(text[start]):
        start += 1
    while end > start and _trimmed_blank(text[end - 1]):
        end -= 1
    return text[start:end]


def _number_text(value: float) -> str:
    if not math.isfinite(value):
        raise QuantityError(f"{value!r} is not a number a JSON document can carry")
    return repr(value)  # the shortest exact decimal, as Go's encoding/json writes a float64


def parse_quantity(value: object, schema: Schema = Schema.CRD) -> Decimal:
    """A quantity as the API server takes it for ``schema``, as an exact Decimal; QuantityError otherwise."""
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise QuantityError(f"{value!r} is not a quantity (a string such as 600m or 8Gi, or a whole number)")
    if isinstance(value, float) and value.is_integer() and math.isfinite(value):
        value = int(value)  # numbers cross the engine's protobuf Structs as floats; JSON writes 2.0 as 2
    if isinstance(value, int):
        return Decimal(value)  # both schemas take a JSON integer as is
    if isinstance(value, float):
        if schema is Schema.CRD:
            raise QuantityError(
                f"{value!r} is a fractional number: the CRD's int-or-string schema refuses it "
                '(write it as a string, e.g. "1500m")'
            )
        return go_parse_quantity(_number_text(value))
    if schema is Schema.CRD:
        if not _CRD_PATTERN.fullmatch(value):
            raise QuantityError(
                f"{value!r} does not match the CRD's quantity pattern: ASCII digits with an optional "
                "sign, point and exponent, then at most one suffix (n u m k M G T P E Ki Mi Gi Ti Pi Ei), "
                "no blanks"
            )
        return go_parse_quantity(value)
    return go_parse_quantity(_trim_space(value))
