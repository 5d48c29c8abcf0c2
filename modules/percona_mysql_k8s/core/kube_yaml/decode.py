"""One YAML document as go-yaml v2 decodes it into ``interface{}``, then as sigs.k8s.io/yaml turns that into JSON
and apimachinery reads the JSON back (go.yaml.in/yaml/v2 v2.4.3 ``decode.go``, sigs.k8s.io/yaml v1.6.0
``yaml.go``, apimachinery v0.36.3 ``util/json``).

The events come from PyYAML's parser with go-yaml's scanner rule (scanner.py), and the rest follows go-yaml, not PyYAML's composer and constructor:

* an anchor may be defined again (the later one serves the aliases after it); an alias whose value contains
  itself is an error; ``document contains excessive aliasing`` is go-yaml's ``allowedAliasRatio``, counted as
  ``unmarshal`` counts;
* a key defined twice keeps the last value (``yaml.Unmarshal`` is not strict); ``<<`` merges where it stands,
  so a key written before it is overwritten by the merged one and a key after it wins; a sequence of maps is
  merged from its last item to its first;
* a map or a sequence as a key is an error (``invalid map key``); go-yaml ignores a collection's tag;
* sigs.k8s.io/yaml ``convertToJSONableObject``: keys become strings (``1`` is ``"1"``, ``true``/``yes`` are
  ``"true"``, a float key is Go's ``FormatFloat(f, 'g', -1, 32)``); a null or uint64 key is an error; two keys
  of different types that become one string (``1`` and ``"1"``) are kept in an order Go's map iteration picks
  at random, so they are an error here (kubectl's answer would be one or the other);
* ``json.Marshal`` refuses infinities and NaN (``json: unsupported value: +Inf``); apimachinery's
  ``util/json`` reads each number back as int64 when its JSON literal is an integer that fits, float64
  otherwise: ``3.0`` and ``1e5`` arrive as the integers 3 and 100000, ``9223372036854775808`` as a float;
* a ``!!binary`` value is its base64 decoded, invalid UTF-8 replaced byte by byte as ``json.Marshal`` does.
"""

from __future__ import annotations

import base64
import binascii
import math
import re
from dataclasses import dataclass, field
from typing import Any

from .go_scalars import BINARY, MERGE, ResolveError, resolve

_SURROGATE = re.compile("[\ud800-\udfff]")
MAX_DEPTH = 256  # nesting this reader follows (go-yaml: 10,000); deeper is a one-line error, never a RecursionError


class DecodeError(ValueError):
    """A document go-yaml or sigs.k8s.io/yaml refuses; ``mark`` is (line, column), 0-based, when known."""

    def __init__(self, message: str, mark: tuple[int, int] | None = None):
        super().__init__(message)
        self.mark = mark


@dataclass(eq=False)
class Node:
    kind: str  # scalar, sequence, mapping, alias
    mark: tuple[int, int]
    tag: str = ""
    value: str = ""
    plain: bool = False  # libyaml's plain_implicit: plain and untagged, or tagged "!"
    children: list[Node] = field(default_factory=list)
    target: Node | None = None  # an alias's anchored node


def _mark(event) -> tuple[int, int]:
    return (event.start_mark.line, event.start_mark.column)


class Composer:
    """Nodes from libyaml's events, as go-yaml's ``parser`` builds them (decode.go ``parse``)."""

    def __init__(self, events):
        self.events = events
        self.anchors: dict[str, Node] = {}

    def node(self, depth: int = 0) -> Node:
        import yaml

        if depth > MAX_DEPTH:
            raise DecodeError(f"nesting deeper than {MAX_DEPTH} levels, more than this reader follows", None)
        event = self.events.get_event()
        if isinstance(event, yaml.AliasEvent):
            if event.anchor not in self.anchors:
                raise DecodeError(f"unknown anchor '{event.anchor}' referenced", _mark(event))
            return Node("alias", _mark(event), value=event.anchor, target=self.anchors[event.anchor])
        if isinstance(event, yaml.ScalarEvent):
            if _SURROGATE.search(event.value):  # scannerc.go: a \uD800-\uDFFF escape is no character
                raise DecodeError("found invalid Unicode character escape code", _mark(event))
            node = Node("scalar", _mark(event), event.tag or "", event.value, bool(event.implicit[0]))
            self._anchor(event, node)
            return node
        kind = "sequence" if isinstance(event, yaml.SequenceStartEvent) else "mapping"
        node = Node(kind, _mark(event), event.tag or "")
        self._anchor(event, node)
        end = yaml.SequenceEndEvent if kind == "sequence" else yaml.MappingEndEvent
        while not self.events.check_event(end):
            node.children.append(self.node(depth + 1))
        self.events.get_event()
        return node

    def _anchor(self, event, node: Node) -> None:
        if event.anchor is not None:
            self.anchors[event.anchor] = node  # go-yaml: a later definition replaces the earlier one


class GoMap(dict):
    """A ``map[interface{}]interface{}``: Go key identity -> (key, value, value node, key node)."""


def _identity(key: Any) -> tuple:
    if isinstance(key, float) and math.isnan(key):
        return ("nan", object())  # NaN is no Go map key's equal, not even another NaN's
    kind = type(key).__name__ if key is not None else "nil"
    return (kind, key)


def go_text(data: bytes) -> str:
    """Go's ``string(data)`` as ``json.Marshal`` writes it: each byte of an invalid UTF-8 sequence becomes U+FFFD
    (``utf8.DecodeRune`` gives width 1 there)."""
    out, at = [], 0
    while at < len(data):
        lead = data[at]
        width = (
            1 if lead < 0x80 else 2 if 0xC2 <= lead <= 0xDF else 3 if 0xE0 <= lead <= 0xEF else 4 if 0xF0 <= lead <= 0xF4 else 0
        )
        try:
            out.append(data[at : at + width].decode("utf-8") if width else "\ufffd")
            at += max(width, 1)
        except UnicodeDecodeError:
            out.append("\ufffd")
            at += 1
    return "".join(out)


class Decoder:
    """go-yaml's ``decoder`` for an ``interface{}`` target (decode.go ``unmarshal`` and what it calls)."""

    def __init__(self):
        self.decode_count = 1  # the document node (decode.go document)
        self.alias_count = 0
        self.alias_depth = 0
        self.active: set[int] = set()

    def _count(self, node: Node) -> None:
        self.decode_count += 1
        if self.alias_depth > 0:
            self.alias_count += 1
        if (
            self.alias_count > 100
            and self.decode_count > 1000
            and self.alias_count / self.decode_count > _ratio(self.decode_count)
        ):
            raise DecodeError("document contains excessive aliasing", node.mark)

    def value(self, node: Node, depth: int = 0) -> Any:
        self._count(node)
        if depth > MAX_DEPTH:
            raise DecodeError(f"nesting deeper than {MAX_DEPTH} levels, more than this reader follows", node.mark)
        if node.kind == "alias":
            return self._alias(node, lambda target: self.value(target, depth + 1))
        if node.kind == "scalar":
            return self.scalar(node)
        if node.kind == "sequence":
            return [(self.value(child, depth + 1), _target(child)) for child in node.children]
        out = GoMap()
        self._fill(node, out, depth)
        return out

    def _alias(self, node: Node, decode):
        if id(node) in self.active:
            raise DecodeError(f"anchor '{node.value}' value contains itself", node.mark)
        self.active.add(id(node))
        self.alias_depth += 1
        try:
            return decode(node.target)
        finally:
            self.alias_depth -= 1
            self.active.discard(id(node))

    def scalar(self, node: Node) -> Any:
        if not node.tag and not node.plain:
            return node.value  # quoted or block, untagged: a string
        try:
            tag, resolved = resolve(node.tag, node.value)
        except ResolveError as error:
            raise DecodeError(str(error), node.mark) from None
        if tag == BINARY:
            try:
                data = base64.b64decode(node.value.replace("\r", "").replace("\n", ""), validate=True)
            except (binascii.Error, ValueError):
                raise DecodeError("!!binary value contains invalid base64 data", node.mark) from None
            return go_text(data)
        return resolved

    def _fill(self, node: Node, out: GoMap, depth: int) -> None:
        """decode.go ``mapping`` into an existing map: merges where they stand, the last key wins."""
        for key_node, value_node in zip(node.children[0::2], node.children[1::2], strict=False):
            if _is_merge(key_node):
                self._merge(value_node, out, depth)
                continue
            key = self.value(key_node, depth + 1)
            if isinstance(key, GoMap | list):
                raise DecodeError("invalid map key: a mapping or a sequence cannot be a key", key_node.mark)
            out[_identity(key)] = (key, self.value(value_node, depth + 1), _target(value_node), key_node)

    def _merge(self, node: Node, out: GoMap, depth: int) -> None:
        def into(item: Node) -> None:
            target = item.target if item.kind == "alias" else item
            if target is None or target.kind != "mapping":
                raise DecodeError("map merge requires map or sequence of maps as the value", item.mark)
            self._count(item)
            if item.kind == "alias":
                self._alias(item, lambda mapping: (self._count(mapping), self._fill(mapping, out, depth + 1)))
            else:
                self._fill(item, out, depth + 1)

        if node.kind == "sequence":
            for item in reversed(node.children):  # earlier maps take precedence: applied last
                into(item)
        else:
            into(node)


def _target(node: Node) -> Node:
    return node.target if node.kind == "alias" and node.target is not None else node


def _is_merge(node: Node) -> bool:
    return node.kind == "scalar" and node.value == "<<" and (node.plain or node.tag == MERGE)


def _ratio(count: int) -> float:
    """decode.go ``allowedAliasRatio``."""
    if count <= 400_000:
        return 0.99
    if count >= 4_000_000:
        return 0.10
    return 0.99 - 0.89 * ((count - 400_000) / 3_600_000)
