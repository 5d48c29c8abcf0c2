"""A plain YAML scalar as go-yaml v2 resolves it, with Go's strconv: go.yaml.in/yaml/v2 v2.4.3 ``resolve.go``.

That is the go-yaml sigs.k8s.io/yaml v1.6.0 reads YAML with (the versions Kubernetes 1.36.3 pins, kubectl's and
the API server's). It is YAML 1.1 with go-yaml's own choices, which PyYAML's resolver does not share:

* the first byte picks a hint (``resolveTable``): a sign, a digit, one of ``yYnNtTfFoO~`` or ``.``; any other
  first byte (``=``, ``<``, a letter not in that list, a non-ASCII character) makes a string at once;
* then a lookup table: ``y``/``Y``/``yes``/``on``... are true, ``n``/``N``/``no``/``off``... false, ``~``,
  ``null`` and the empty string null, ``.inf``/``.nan`` in three spellings each;
* a digit or a sign: a timestamp (kept as the text when decoded into ``interface{}``), then with every ``_``
  removed ``strconv.ParseInt(s, 0, 64)`` (Go's literals: ``0x``, ``0o``, ``0b``, a leading ``0`` for octal, a
  sign), ``ParseUint`` (a ``uint64`` beyond int64), then a float if the text matches ``yamlStyleFloat``
  (``1e5`` and ``08`` are floats; there is no sexagesimal ``1:30``: a string); ``ParseFloat`` out of range is
  an error, so ``1e400`` stays a string;
* a leading ``.``: ``ParseFloat`` of the text as written (``.5``, ``.5e3``).

An explicit tag (``!!int "3"``, ``!!str 3``, ``!!float 1``) resolves the same text and fails when the result is
not of that tag (``resolve``'s deferred check), except that an integer is accepted as a ``!!float``.
"""

from __future__ import annotations

import math
import re
from datetime import date

STR = "tag:yaml.org,2002:str"
BOOL = "tag:yaml.org,2002:bool"
INT = "tag:yaml.org,2002:int"
FLOAT = "tag:yaml.org,2002:float"
NULL = "tag:yaml.org,2002:null"
TIMESTAMP = "tag:yaml.org,2002:timestamp"
BINARY = "tag:yaml.org,2002:binary"
MERGE = "tag:yaml.org,2002:merge"
_RESOLVABLE = ("", STR, BOOL, INT, FLOAT, NULL, TIMESTAMP)
_INT64 = 1 << 63
_UINT64 = 1 << 64


class Uint64(int):
    """A ``uint64`` go-yaml returns for an integer above int64 (its own Go type, unlike ``int``)."""


class ResolveError(ValueError):
    """go-yaml's ``cannot decode !!str `x` as a !!int``."""


def _hint(text: str) -> str:
    if not text:
        return "N"
    first = text[0]
    if first in "+-":
        return "S"
    if "0" <= first <= "9":
        return "D"
    if first in "yYnNtTfFoO~":
        return "M"
    return "." if first == "." else ""


_MAP: dict[str, tuple[str, object]] = {}
for _value, _tag, _words in (
    (True, BOOL, ("y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON")),
    (False, BOOL, ("n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF")),
    (None, NULL, ("", "~", "null", "Null", "NULL")),
    (math.nan, FLOAT, (".nan", ".NaN", ".NAN")),
    (math.inf, FLOAT, (".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF")),
    (-math.inf, FLOAT, ("-.inf", "-.Inf", "-.INF")),
    ("<<", MERGE, ("<<",)),
):
    for _word in _words:
        _MAP[_word] = (_tag, _value)

_YAML_STYLE_FLOAT = re.compile(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?")  # resolve.go yamlStyleFloat
_DOT_FLOAT = re.compile(r"\.[0-9]+([eE][-+]?[0-9]+)?")  # what strconv.ParseFloat takes from a text that starts with '.'
_DIGITS = {2: "01", 8: "01234567", 10: "0123456789", 16: "0123456789abcdefABCDEF"}


def parse_uint(text: str) -> int | None:
    """Go's ``strconv.ParseUint(text, 0, 64)`` (no sign, base from the prefix; None for any error)."""
    base, digits = 10, text
    if text[:1] == "0":
        prefix = text[1:2].lower()
        if len(text) >= 3 and prefix in ("b", "o", "x"):
            base, digits = {"b": 2, "o": 8, "x": 16}[prefix], text[2:]
        else:
            base, digits = 8, text[1:]
            if not digits:
                return 0
    if not digits or any(char not in _DIGITS[base] for char in digits):
        return None
    value = int(digits, base)
    return value if value < _UINT64 else None


def parse_int(text: str) -> int | None:
    """Go's ``strconv.ParseInt(text, 0, 64)`` (None for any error)."""
    negative = text[:1] == "-"
    body = text[1:] if text[:1] in "+-" else text
    if not body:
        return None
    magnitude = parse_uint(body)
    if magnitude is None:
        return None
    value = -magnitude if negative else magnitude
    return value if -_INT64 <= value < _INT64 else None


def parse_float(text: str) -> float | None:
    """Go's ``strconv.ParseFloat(text, 64)`` for decimal text (correctly rounded, as Python's); None when out of
    range (Go's ErrRange) or not a number."""
    try:
        value = float(text)
    except ValueError:
        return None
    return None if math.isinf(value) else value


_TIMESTAMP = re.compile(
    r"(\d{4})-(\d{1,2})-(\d{1,2})"
    r"(?:(?:[Tt](\d{1,2}):(\d{1,2}):(\d{1,2})([.,]\d+)?(Z|[+-]\d{2}:\d{2}))|(?: (\d{1,2}):(\d{1,2}):(\d{1,2})([.,]\d+)?))?"
)


def is_timestamp(text: str) -> bool:
    """resolve.go ``parseTimestamp``: one of ``allowedTimestampFormats`` as Go's ``time.Parse`` reads it
    (``2006-1-2T15:4:5.999999999Z07:00``, with ``t``, ``2006-1-2 15:4:5.999999999``, ``2006-1-2``)."""
    match = _TIMESTAMP.fullmatch(text)
    if not match:
        return False
    year, month, day = (int(part) for part in match.group(1, 2, 3))
    try:
        date(year, month, day)
    except ValueError:
        return False
    clock = match.group(4, 5, 6) if match.group(4) else match.group(9, 10, 11)
    if clock[0] is None:
        return True
    hour, minute, second = (int(part) for part in clock)
    zone = match.group(8)
    if zone and zone != "Z" and (int(zone[1:3]) > 24 or int(zone[4:6]) > 60):  # time.Parse's parseTimeZone ranges
        return False
    return hour < 24 and minute < 60 and second < 60


def _numeric(text: str, tag: str) -> tuple[str, object] | None:
    """The 'D' and 'S' branch of ``resolve``."""
    if tag in ("", TIMESTAMP) and is_timestamp(text):
        return TIMESTAMP, text
    plain = text.replace("_", "")
    value = parse_int(plain)
    if value is not None:
        return INT, value
    unsigned = parse_uint(plain)
    if unsigned is not None:
        return INT, Uint64(unsigned)
    if _YAML_STYLE_FLOAT.fullmatch(plain):
        number = parse_float(plain)
        if number is not None:
            return FLOAT, number
    # the 0b and -0b branches below retry what ParseInt and ParseUint with base 0 already refused: never a number
    return None


def _resolved(tag: str, text: str) -> tuple[str, object]:
    hint = _hint(text)
    if hint and tag not in (STR, BINARY):
        if text in _MAP:
            return _MAP[text]
        if hint == "." and _DOT_FLOAT.fullmatch(text):
            number = parse_float(text)
            if number is not None:
                return FLOAT, number
        elif hint in "DS":
            found = _numeric(text, tag)
            if found is not None:
                return found
    return STR, text


def short_tag(tag: str) -> str:
    prefix = "tag:yaml.org,2002:"
    return "!!" + tag[len(prefix) :] if tag.startswith(prefix) else tag


def resolve(tag: str, text: str) -> tuple[str, object]:
    """``resolve(tag, in)``: the resolved tag and the Go value (bool, None, int, :class:`Uint64`, float or the
    text). A tag go-yaml does not resolve (``!!binary``, ``!custom``, ``!``) keeps the text."""
    if tag not in _RESOLVABLE:
        return tag, text
    resolved, value = _resolved(tag, text)
    if tag in ("", resolved, STR, BINARY):
        return resolved, value
    if tag == FLOAT and resolved == INT and not isinstance(value, Uint64):
        return FLOAT, float(value)
    raise ResolveError(f"cannot decode {short_tag(resolved)} `{text}` as a {short_tag(tag)}")
