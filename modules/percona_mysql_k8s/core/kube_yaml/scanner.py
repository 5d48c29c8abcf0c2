"""libyaml's events as go-yaml v2 v2.4.3 scans them (PyYAML's pure-Python scanner, one rule put back).

go-yaml v2 is a Go port of libyaml 0.1; PyYAML's Python scanner follows the later libyaml 0.2 in one place the
manifests differ on: inside a flow collection (``[0:, 1]``, ``{k: a:b}``) a ``:`` that is followed by a flow
indicator ends a plain scalar there. go-yaml v2's ``yaml_parser_scan_plain_scalar`` (scannerc.go) ends a plain
scalar at ``:`` only before a blank, and at ``,?[]{}`` in a flow collection, so ``[0:, 1]`` is the strings
``"0:"`` and ``1``. :meth:`GoScanner.scan_plain` is PyYAML's ``scan_plain`` (MIT licence, PyYAML 6.0) with that
rule alone changed.
"""

from __future__ import annotations

from yaml.parser import Parser
from yaml.reader import Reader
from yaml.scanner import Scanner
from yaml.tokens import ScalarToken

_BLANKZ = "\0 \t\r\n\x85\u2028\u2029"


class GoScanner(Scanner):
    def scan_plain(self):
        chunks: list[str] = []
        start_mark = self.get_mark()
        end_mark = start_mark
        indent = self.indent + 1
        spaces: list[str] | None = []
        while True:
            length = 0
            if self.peek() == "#":
                break
            while True:
                ch = self.peek(length)
                if (
                    ch in _BLANKZ
                    or (ch == ":" and self.peek(length + 1) in _BLANKZ)  # go-yaml: only a blank after ':' ends it
                    or (self.flow_level and ch in ",?[]{}")
                ):
                    break
                length += 1
            if length == 0:
                break
            self.allow_simple_key = False
            chunks.extend(spaces or [])
            chunks.append(self.prefix(length))
            self.forward(length)
            end_mark = self.get_mark()
            spaces = self.scan_plain_spaces(indent, start_mark)
            if not spaces or self.peek() == "#" or (not self.flow_level and self.column < indent):
                break
        return ScalarToken("".join(chunks), True, start_mark, end_mark)


class Events(Reader, GoScanner, Parser):
    """A YAML text's events: check_event, peek_event, get_event."""

    def __init__(self, text: str):
        Reader.__init__(self, text)
        GoScanner.__init__(self)
        Parser.__init__(self)
