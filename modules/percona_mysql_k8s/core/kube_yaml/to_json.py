"""go-yaml's values as JSON, then as apimachinery reads the JSON back: sigs.k8s.io/yaml v1.6.0
``convertToJSONableObject`` and ``json.Marshal``, apimachinery v0.36.3 ``util/json`` (sigs.k8s.io/json
``UnmarshalCaseSensitivePreserveInts``). Each value's position is kept beside it (``marks``: JSON path ->
(line, column), both 1-based), so a later reader can point at the line a finding is about.
"""

from __future__ import annotations

import math
import struct
from decimal import Decimal
from typing import Any

from .decode import DecodeError, GoMap, Node
from .go_scalars import Uint64

_INT64 = 1 << 63
_PLAIN_FLOAT = 1e21  # encoding/json writes a float64 below 1e21 in 'f' format: a whole one is an integer literal

Path = tuple[str | int, ...]


def number(value: int | float) -> int | float:
    """A Go number after ``json.Marshal`` and apimachinery's decoding: int64 when its JSON literal is an integer
    that fits, float64 otherwise. Infinities and NaN are refused as ``json.Marshal`` refuses them."""
    if isinstance(value, Uint64):
        return float(value)  # beyond int64: the literal decodes as float64
    if isinstance(value, int):
        return value
    if math.isinf(value) or math.isnan(value):
        raise DecodeError(f"json: unsupported value: {'NaN' if math.isnan(value) else ('+Inf' if value > 0 else '-Inf')}")
    if value.is_integer() and abs(value) < _PLAIN_FLOAT:
        literal = go_integer_literal(value)
        if -_INT64 <= literal < _INT64:
            return literal
    return value


def go_integer_literal(value: float) -> int:
    """The integer ``json.Marshal`` writes for a whole float64 below 1e21: ``strconv.AppendFloat(f, 'f', -1, 64)``,
    the shortest digits that read back as ``f`` padded with zeros (2^63 is written 9223372036854776000)."""
    return int(Decimal(repr(value)))


def float32_key(value: float) -> str:
    """sigs.k8s.io/yaml's float key: ``strconv.FormatFloat(f, 'g', -1, 32)``, with go-yaml's ``.inf``/``.nan``."""
    if math.isnan(value):
        return ".nan"
    if math.isinf(value):
        return ".inf" if value > 0 else "-.inf"
    try:
        single = struct.unpack("f", struct.pack("f", value))[0]
    except OverflowError:
        return ".inf" if value > 0 else "-.inf"  # float32(f) of a larger float64 is an infinity
    if math.isinf(single):
        return ".inf" if single > 0 else "-.inf"
    if single == 0:
        return "-0" if math.copysign(1, single) < 0 else "0"
    for precision in range(1, 10):  # the shortest decimal that reads back as the same float32 (Go's shortest)
        text = f"{abs(single):.{precision - 1}e}"
        if struct.unpack("f", struct.pack("f", float(text)))[0] == abs(single):
            break
    mantissa, exponent = text.split("e")
    digits = mantissa.replace(".", "").rstrip("0") or "0"
    point = int(exponent) + 1  # decimal point position after digits[0:point]
    sign = "-" if single < 0 else ""
    if not -4 <= point - 1 < 6:  # ftoa.go %g, shortest: %e when the exponent is < -4 or >= 6
        head = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
        return f"{sign}{head}e{'-' if point < 1 else '+'}{abs(point - 1):02d}"
    whole = digits[:point].ljust(point, "0") if point > 0 else "0"
    fraction = ("0" * max(-point, 0) + digits[max(point, 0) :]) if len(digits) > point else ""
    return f"{sign}{whole}{'.' + fraction if fraction else ''}"


def _key(key: Any, node: Node) -> str:
    if isinstance(key, str):
        return key
    if isinstance(key, bool):
        return "true" if key else "false"
    if isinstance(key, Uint64) or key is None:
        kind = "uint64" if key is not None else "<nil>"
        raise DecodeError(f"unsupported map key of type: {kind}, key: {key!r}", node.mark)
    if isinstance(key, int):
        return str(key)
    return float32_key(key)


def to_json(
    value: Any,
    node: Node,
    line_offset: int,
    marks: dict[Path, tuple[int, int]],
    path: Path = (),
    key_marks: dict[Path, tuple[int, int]] | None = None,
) -> Any:
    """``value`` (from decode.Decoder) as kubectl holds it, recording each node's position in ``marks`` (and each
    mapping key's in ``key_marks``: where a finding about a field points, its value may start on the next line)."""
    marks[path] = (node.mark[0] + line_offset + 1, node.mark[1] + 1)
    if isinstance(value, GoMap):
        out: dict[str, Any] = {}
        origins: dict[str, tuple] = {}
        for identity, (key, item, item_node, key_node) in value.items():
            name = _key(key, item_node)
            if name in out and origins[name] != identity:
                raise DecodeError(
                    f'two keys read as "{name}" (written as different types, e.g. 1 and "1"): kubectl keeps one of them '
                    "at random",
                    item_node.mark,
                )
            origins[name] = identity
            if key_marks is not None:
                key_marks[(*path, name)] = (key_node.mark[0] + line_offset + 1, key_node.mark[1] + 1)
            out[name] = to_json(item, item_node, line_offset, marks, (*path, name), key_marks)
        return out
    if isinstance(value, list):
        return [
            to_json(item, item_node, line_offset, marks, (*path, index), key_marks)
            for index, (item, item_node) in enumerate(value)
        ]

    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    try:
        return number(value)
    except DecodeError as error:
        raise DecodeError(str(error), node.mark) from None
