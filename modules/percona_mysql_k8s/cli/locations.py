"""Where a finding's field is written: its file, line and column, from the positions the one manifest reader keeps.

A rule names the field it judged (core.finding_field: ``spec.pxc.resources.limits.memory``, or
``spec.pxc.configuration`` with the line of the my.cnf text). Here that path is walked through the object as
read (core.kube_yaml, which keeps every value's and every key's line and column, through multi-document streams,
flow style, anchors, aliases and merges), and points at:

* the key of the field (``memory:``), or the item of a list; for a field that is not written (a limit that is
  missing), its nearest written parent;
* inside a literal block scalar (``configuration: |``), the line of the text the rule named: the text's line N is
  the file's line N below the ``|`` header (YAML 1.2 §8.1: the content starts on the line after the header). A
  folded (``>``) or quoted scalar joins or escapes lines, so its text's lines are not the file's: the field's
  key is shown;
* for chart values given as several files (``--values a.yaml --values b.yaml``, merged as ``helm -f`` merges), the
  file that sets the field, the last one first (the one whose value Helm keeps);
* for an object read from JSON, the document (JSON keeps no positions here).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from percona_mysql_k8s.cli.findings import Location
from percona_mysql_k8s.core.finding_field import FindingField

Path = tuple[str | int, ...]
_BLOCK_HEADER = re.compile(r"(?:[&!]\S*\s+)*([|>])")  # anchors and tags may stand before a block scalar's indicator
_INDEX = re.compile(r"\[(\d+)\]")


@dataclass(frozen=True)
class Positions:
    """One object (or one values file) as read: its value, the positions of its values and keys, and its file."""

    file: str
    value: Any
    marks: Mapping[Path, tuple[int, int]]
    key_marks: Mapping[Path, tuple[int, int]]
    lines: Sequence[str] = ()  # the file's lines, to read a block scalar's header and its lines' indentation
    template: str | None = None


def resolve(value: Any, path: str) -> tuple[Path, bool]:
    """The deepest written node of ``path`` (dotted keys, ``[n]`` indices, ``[key]`` keys as field paths write
    them) in ``value``, and whether all of it is written. A key holding dots (``app.kubernetes.io/name``) is
    matched whole: the longest key of the mapping that the rest of the path starts with."""
    at: Path = ()
    rest = path
    while rest:
        if isinstance(value, list):
            match = _INDEX.match(rest)
            if match is None or int(match.group(1)) >= len(value):
                break
            index = int(match.group(1))
            at, value, rest = (*at, index), value[index], _after(rest[match.end() :])
            continue
        if not isinstance(value, dict):
            break
        if rest.startswith("["):
            end = rest.find("]")
            key = rest[1:end] if end > 0 else None
            if key not in value:
                break
            at, value, rest = (*at, key), value[key], _after(rest[end + 1 :])
            continue
        keys = [key for key in value if rest == key or rest.startswith((key + ".", key + "["))]
        if not keys:
            break
        key = max(keys, key=len)
        at, value, rest = (*at, key), value[key], _after(rest[len(key) :])
    return at, not rest


def _after(rest: str) -> str:
    return rest[1:] if rest.startswith(".") else rest


def locate(positions: Positions, field: FindingField) -> Location:
    """The file, line and column of ``field`` in one object or values file."""
    at, whole = resolve(positions.value, field.path) if field.path else ((), True)
    line, column = positions.key_marks.get(at) or positions.marks.get(at) or positions.marks.get((), (1, 1))
    if whole and field.line and at in positions.marks:
        inside = _text_line(positions, positions.marks[at], field.line)
        if inside is not None:
            line, column = inside
    return Location(positions.file, line, column, positions.template)


def _text_line(positions: Positions, mark: tuple[int, int], text_line: int) -> tuple[int, int] | None:
    """(line, column) of the text's line ``text_line`` when the value is a literal block scalar, else None."""
    line, column = mark
    if not 0 < line <= len(positions.lines):
        return None
    header = _BLOCK_HEADER.match(positions.lines[line - 1][column - 1 :])
    if header is None or header.group(1) != "|":
        return None
    target = line + text_line
    if target > len(positions.lines):
        return None
    indent = _indentation(positions.lines[line])  # the block's first line sets its indentation (YAML 1.2 §8.1.1.1)
    content = positions.lines[target - 1]
    if not content.strip() or _indentation(content) < indent:
        return None  # not a line of the block: the text's lines are not the file's
    return target, _indentation(content) + 1


def _indentation(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def locate_values(layers: Sequence[Positions], field: FindingField) -> Location | None:
    """A chart value's file and line among values files merged in order: the file that writes most of the field's
    path, the later one on a tie (its value is the one Helm keeps). ``values.`` starts the path in messages."""
    if not layers:
        return None
    path = field.path.removeprefix("values").removeprefix(".")
    best, depth = layers[-1], -1
    for layer in reversed(layers):
        at, _ = resolve(layer.value, path) if path else ((), True)
        if len(at) > depth:
            best, depth = layer, len(at)
    return locate(best, FindingField(path, field.line))
