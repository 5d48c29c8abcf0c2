"""What Helm makes of a chart's values: Go template truth, ``{{ x }}`` printing, ``toYaml`` and ``tpl``.

The pieces the chart renderers (chart_render) are built from, each as Helm 3.19 does it:

* truth (``{{ if x }}``): false, 0, nil, "" and empty maps and lists are false (text/template ``isTrue``);
* ``{{ x }}``: values reach templates as JSON numbers, so every number is a float64 and prints as Go's
  ``%v`` does (``1000000`` prints ``1e+06``); nil prints ``<no value>``, which Helm blanks; the printed text
  is then YAML that Helm's decoder (sigs.k8s.io/yaml, yaml.v2: YAML 1.1) reads back (``on`` is true, ``1e+06``
  a number, ``010`` octal);
* ``toYaml``: JSON first, so whole numbers stay numbers; the structure is kept;
* ``tpl``: the text is a template itself. Only actions that print a string literal (``{{ "text" }}``,
  ``{{ `text` }}``) are evaluated here; any other action is :class:`Unrenderable`, never guessed.

A value unknown at preview (:class:`~.values.Unknown`, named by its values path) renders as itself wherever the
template prints or copies it, and a condition on it (``{{ if x }}``) raises :class:`~.values.NotKnown`: the
renderer makes what that condition decides unknown (chart_fields.guarded), and nothing else.
"""

from __future__ import annotations

import copy
import math
import re
from decimal import Decimal
from typing import Any

from .values import MISSING, Unknown, Unrenderable, known


def truthy(value: Any) -> bool:
    """Go's template truth; NotKnown for a value unknown at preview."""
    known(value, "values")
    if value is MISSING or value is None or value is False:
        return False
    if isinstance(value, int | float) and not isinstance(value, bool):
        return value != 0
    if isinstance(value, str | dict | list):
        return len(value) > 0
    return True


def go_float(value: float) -> str:
    """Go's ``%v`` of a float64: shortest digits, ``e`` notation below 1e-4 and from 1e+06 on (strconv 'g', -1)."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    if value == 0:
        return "-0" if math.copysign(1, value) < 0 else "0"
    sign, digits, exponent = Decimal(repr(value)).normalize().as_tuple()
    text = "".join(map(str, digits))
    point = len(text) + exponent  # the decimal point's position in text
    exp = point - 1
    minus = "-" if sign else ""
    if exp < -4 or exp >= 6:
        mantissa = text[0] + ("." + text[1:] if len(text) > 1 else "")
        return f"{minus}{mantissa}e{'-' if exp < 0 else '+'}{abs(exp):02d}"
    if point <= 0:
        return f"{minus}0.{'0' * -point}{text}"
    if point >= len(text):
        return f"{minus}{text}{'0' * (point - len(text))}"
    return f"{minus}{text[:point]}.{text[point:]}"


def printed(value: Any) -> str | Unrenderable | Unknown:
    """``{{ value }}`` as Helm prints it (an unknown value: itself)."""
    if isinstance(value, Unknown):
        return value
    if value is MISSING or value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return go_float(float(value))
    if isinstance(value, str):
        return value
    return Unrenderable(f"{type(value).__name__} printed with {{{{ }}}} renders Go's map/slice notation")


_NULL = {"", "~", "null", "Null", "NULL"}
_TRUE = {"y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"}
_FALSE = {"n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"}
_YAML_FLOAT = re.compile(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?", re.ASCII)
_GO_INT = re.compile(r"[-+]?(0[xX][0-9a-fA-F]+|0[oO]?[0-7]+|0[bB][01]+|[1-9][0-9]*|0)", re.ASCII)
_STRUCTURAL = re.compile(r"^[\[\]{}&*!|>'\"%@`#,]|^[-?:]( |$)|: |\s#|:$")


def yaml_scalar(text: str) -> Any:
    """A plain scalar as yaml.v2 resolves it (resolve.go): null, YAML 1.1 booleans, Go integers, floats, text."""
    if text != text.strip() or "\n" in text or _STRUCTURAL.search(text):
        return Unrenderable(f"{text!r} printed into the YAML would change its structure or need quoting")
    if text in _NULL:
        return None
    if text in _TRUE or text in _FALSE:
        return text in _TRUE
    plain = text.replace("_", "")
    if _GO_INT.fullmatch(plain):
        body = plain.lstrip("+-")
        base = (
            16
            if body[:2] in ("0x", "0X")
            else 2
            if body[:2] in ("0b", "0B")
            else 8
            if body.startswith("0") and len(body) > 1
            else 10
        )
        digits = body[2:] if base in (16, 2) or body[:2] in ("0o", "0O") else body
        number = int(digits, base) * (-1 if plain.startswith("-") else 1)
        if -(2**63) <= number < 2**63:
            return number
    if _YAML_FLOAT.fullmatch(plain):
        number = float(plain)
        return int(number) if number.is_integer() and abs(number) < 2**63 else number
    if text in (".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF"):
        return math.inf
    if text in ("-.inf", "-.Inf", "-.INF"):
        return -math.inf
    if text in (".nan", ".NaN", ".NAN"):
        return math.nan
    return text


def interpolated(*parts: Any) -> Any:
    """``key: {{ a }}:{{ b }}`` (parts are values or literal text in a tuple ('text',)): the YAML value."""
    text = ""
    for part in parts:
        if isinstance(part, tuple):
            text += part[0]
            continue
        piece = printed(part)
        if isinstance(piece, Unrenderable | Unknown):
            return piece
        text += piece
    return yaml_scalar(text)


def to_yaml(value: Any) -> Any:
    """``toYaml``: the structure, whole numbers as integers (JSON writes 3.0 as 3); absent is null."""
    if value is MISSING:
        return None
    if isinstance(value, Unrenderable | Unknown):
        return value
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e21:
        return int(value)
    if isinstance(value, dict):
        return {key: to_yaml(item) for key, item in value.items()}
    if isinstance(value, list):
        return [to_yaml(item) for item in value]
    return copy.copy(value)


# An action that prints one string literal: {{ "text" }} (Go escapes) or {{ `text` }}, with optional trim markers.
_LITERAL_ACTION = re.compile(r'\{\{(-\s)?\s*(?:"((?:[^"\\\n]|\\.)*)"|`([^`]*)`)\s*(\s-)?\}\}', re.S)
_GO_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "\\": "\\", "'": "'", "a": "\a", "b": "\b", "f": "\f", "v": "\v"}


def _go_string(body: str) -> str | None:
    """A Go interpreted string literal's value (the common escapes; None for one this does not read)."""
    out, i = [], 0
    while i < len(body):
        if body[i] != "\\":
            out.append(body[i])
            i += 1
            continue
        escaped = body[i + 1 : i + 2]
        if escaped not in _GO_ESCAPES:
            return None
        out.append(_GO_ESCAPES[escaped])
        i += 2
    return "".join(out)


def tpl_text(text: str, where: str) -> str | Unrenderable:
    """``tpl text``: actions that print a string literal are evaluated (``{{-``/``-}}`` trim blanks);
    any other action is unrenderable."""
    out, at = [], 0
    while True:
        start = text.find("{{", at)
        if start < 0:
            out.append(text[at:])
            return "".join(out)
        match = _LITERAL_ACTION.match(text, start)
        value = None
        if match is not None:
            value = _go_string(match.group(2)) if match.group(2) is not None else match.group(3)
        if value is None:
            return Unrenderable(
                f"{where} holds the template action {text[start : start + 40]!r}..., which Helm's tpl "
                "evaluates at render time (containerMemoryLimit, for one, is no Helm function and fails "
                'the render); the pack evaluates only string literals such as {{ "{{containerMemoryLimit}}" }}'
            )
        before = text[at:start]
        out.append(before.rstrip(" \t\r\n") if match.group(1) else before)
        out.append(value)
        at = match.end()
        if match.group(4):
            while at < len(text) and text[at] in " \t\r\n":
                at += 1


def tpl_yaml(value: Any, where: str) -> Any:
    """``tpl (toYaml value)``: strings inside go through tpl (their text is the template)."""
    value = to_yaml(value)
    if isinstance(value, str) and "{{" in value:
        return tpl_text(value, where)
    if isinstance(value, dict):
        return {key: tpl_yaml(item, f"{where}.{key}") for key, item in value.items()}
    if isinstance(value, list):
        return [tpl_yaml(item, f"{where}[{index}]") for index, item in enumerate(value)]
    return value
