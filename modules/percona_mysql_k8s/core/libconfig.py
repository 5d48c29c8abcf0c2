"""libconfig files (ProxySQL's ``proxysql.cnf``) read as libconfig 1.7.3 reads them.

ProxySQL 2.7 (the PXC operator's ``percona/proxysql2`` image) bundles libconfig 1.7.3
(sysown/proxysql deps/libconfig) and exits when ``cfg.readFile`` throws a ParseException
(lib/configfile.cpp ``ProxySQL_ConfigFile::OpenFile``). This is a transcription of that version's scanner
and grammar (hyperrealm/libconfig tag v1.7.3, lib/scanner.l and lib/grammar.y):

* comments: ``#`` and ``//`` to the end of the line, ``/* ... */`` across lines, not inside strings;
* strings: ``"..."`` with the escapes ``\\n \\r \\t \\f \\\\ \\"`` and ``\\xHH``; any other backslash is
  kept as a backslash; adjacent strings are concatenated (``"a" "b"`` is ``"ab"``); a string still open at the
  end of the file ends the input there (what came before is read, the string is dropped);
* names ``[A-Za-z*][-A-Za-z0-9_*]*``, compared byte for byte (case matters); ``=`` and ``:`` are the same;
  a setting ends with an optional ``;`` or ``,``; a name twice in one group is a parse error;
* values: ``true``/``false`` in any case, integers (``strtoll`` base 0: ``010`` is octal, ``08`` an error;
  beyond 32 bits an int64), ``L``/``LL`` int64s, ``0x`` hex, floats (``.`` alone is one), groups ``{}``,
  lists ``()`` of any values, arrays ``[]`` of scalars of one type;
* ``@include "file"`` at the start of a line reads another file, which a custom resource cannot carry.

Anything else is a :class:`LibconfigError` with the line, as libconfig reports it: ProxySQL would not start.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

_NAME = re.compile(r"[A-Za-z*][-A-Za-z0-9_*]*")
_FLOAT = re.compile(r"[-+]?[0-9]*\.[0-9]*([eE][-+]?[0-9]+)?|[-+]?[0-9]+(\.[0-9]*)?[eE][-+]?[0-9]+")
_INTEGER64 = re.compile(r"[-+]?[0-9]+L(L)?")
_INTEGER = re.compile(r"[-+]?[0-9]+")
_HEX = re.compile(r"0[Xx][0-9A-Fa-f]+(L(L)?)?")
_BOOL = re.compile(r"(?i:true|false)")
_INCLUDE = re.compile(r"[ \t]*@include[ \t]+\"")
_PUNCTUATION = {"=": "=", ":": "=", ",": ",", "{": "{", "}": "}", "[": "[", "]": "]", "(": "(", ")": ")", ";": ";"}
_ESCAPES = {"n": "\n", "r": "\r", "t": "\t", "f": "\f", "\\": "\\", '"': '"'}
_INT_MIN, _INT_MAX, _LLONG_MAX = -(2**31), 2**31 - 1, 2**63 - 1


class LibconfigError(ValueError):
    def __init__(self, line: int, message: str):
        super().__init__(f"line {line}: {message}")
        self.line = line


@dataclass(frozen=True)
class Scalar:
    kind: str  # bool | int | int64 | float | string
    value: Any
    line: int


@dataclass
class Group:
    """A group's settings in file order (names unique); ``line`` is where it opens."""

    line: int
    settings: dict[str, Any] = field(default_factory=dict)


@dataclass
class Sequence:
    kind: str  # list | array
    line: int
    items: list[Any] = field(default_factory=list)


@dataclass(frozen=True)
class Token:
    kind: str  # name | string | scalar | one of _PUNCTUATION's values | include | error | eof
    value: Any
    line: int
    end: int = 0  # the scanner's line once the token is read (a string may span lines): where libconfig reports

    @property
    def reported(self) -> int:
        return max(self.line, self.end)


def _string(text: str, start: int, line: int) -> tuple[str | None, int, int]:
    """The string opening at ``start`` (after its quote): (value, index after the closing quote, line); value
    None when the file ends first (flex's <<EOF>> rule ends the input in any start condition)."""
    out: list[str] = []
    i = start
    while i < len(text):
        char = text[i]
        if char == '"':
            return "".join(out), i + 1, line
        if char == "\\":
            following = text[i + 1 : i + 2]
            if following in _ESCAPES:
                out.append(_ESCAPES[following])
                i += 2
                continue
            if following in ("x", "X") and re.fullmatch(r"[0-9A-Fa-f]{2}", text[i + 2 : i + 4]):
                out.append(chr(int(text[i + 2 : i + 4], 16)))
                i += 4
                continue
            out.append("\\")  # any other backslash stands for itself
            i += 1
            continue
        line += char == "\n"
        out.append(char)
        i += 1
    return None, len(text), line  # the end of the file inside a string: the scanner stops, the string is dropped


def _integer(text: str, line: int) -> Scalar:
    body = text.lstrip("+-")
    base = 8 if len(body) > 1 and body.startswith("0") else 10  # strtoll(s, &end, 0)
    try:
        value = int(text, base)
    except ValueError:
        raise LibconfigError(line, f"invalid integer {text!r}") from None
    if abs(value) > _LLONG_MAX + (value < 0):
        raise LibconfigError(line, f"integer {text!r} out of range")
    return Scalar("int" if _INT_MIN <= value <= _INT_MAX else "int64", value, line)


def _atof(word: str) -> float:
    """C's atof: the longest prefix that is a number (``.`` and ``.e5`` are 0)."""
    for end in range(len(word), 0, -1):
        try:
            return float(word[:end])
        except ValueError:
            continue
    return 0.0


def _number(text: str, i: int, line: int) -> tuple[Token, int] | None:
    """The longest number at ``i`` (flex: the longest match wins; a tie goes to the earlier rule)."""
    candidates = []
    for pattern, kind in ((_FLOAT, "float"), (_INTEGER, "int"), (_INTEGER64, "int64"), (_HEX, "hex")):
        match = pattern.match(text, i)
        if match:
            candidates.append((len(match.group(0)), -len(candidates), kind, match.group(0)))
    if not candidates:
        return None
    length, _, kind, word = max(candidates)
    if kind == "float":
        return Token("scalar", Scalar("float", _atof(word), line), line), i + length
    if kind == "hex":
        value = int(word.rstrip("L")[2:], 16)
        return Token("scalar", Scalar("int64" if word.endswith("L") else "int", value, line), line), i + length
    if kind == "int64":
        return Token("scalar", Scalar("int64", int(word.rstrip("L")), line), line), i + length
    return Token("scalar", _integer(word, line), line), i + length


def tokens(text: str) -> list[Token]:
    """The scanner (lib/scanner.l): comments and blanks dropped, strings unescaped. The scanner runs as the
    parser asks for tokens, so a scanning error ends the list as an ``error`` token: the parser reports an
    earlier syntax error first, as libconfig does."""
    found: list[Token] = []
    try:
        found.append(Token("eof", None, _scan(text, found)))
    except LibconfigError as error:
        found.append(Token("error", str(error).split(": ", 1)[1], error.line))
    return found


def _scan(text: str, found: list[Token]) -> int:
    """Appends the tokens; returns the line the scanner ends on."""
    i, line, at_line_start = 0, 1, True
    while i < len(text):
        char = text[i]
        if at_line_start and _INCLUDE.match(text, i):
            end = text.find('"', _INCLUDE.match(text, i).end())
            found.append(Token("include", text[_INCLUDE.match(text, i).end() : end], line))
            i = len(text) if end < 0 else end + 1
            at_line_start = False
            continue
        at_line_start = char == "\n"
        if char == "\n":
            line += 1
            i += 1
        elif char in " \t\r\f":
            i += 1
        elif char == "#" or text.startswith("//", i):
            end = text.find("\n", i)
            i = len(text) if end < 0 else end
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            if end < 0:
                end = len(text)  # an unterminated comment runs to the end of the file
            line += text.count("\n", i, end)
            i = end + 2
        elif char == '"':
            value, i, after = _string(text, i + 1, line)
            if value is None:
                line = after
                break
            found.append(Token("string", value, line, after))
            line = after
        elif char in _PUNCTUATION:
            found.append(Token(_PUNCTUATION[char], char, line))
            i += 1
        elif _BOOL.match(text, i) and not _NAME.match(text, i).group(0)[len(_BOOL.match(text, i).group(0)) :]:
            word = _BOOL.match(text, i).group(0)
            found.append(Token("scalar", Scalar("bool", word.lower() == "true", line), line))
            i += len(word)
        elif _NAME.match(text, i):
            word = _NAME.match(text, i).group(0)
            found.append(Token("name", word, line))
            i += len(word)
        else:
            number = _number(text, i, line)
            if number is None:
                raise LibconfigError(line, f"syntax error at {char!r}")
            token, i = number
            found.append(token)
    return line


class _Parser:
    """The grammar (lib/grammar.y) over the tokens."""

    def __init__(self, found: list[Token]):
        self.tokens, self.at = found, 0

    def peek(self) -> Token | None:
        """The next token; None at the end of the file."""
        token = self.tokens[self.at] if self.at < len(self.tokens) else None
        return None if token is None or token.kind == "eof" else token

    def take(self, *kinds: str) -> Token:
        token = self.peek()
        if token is not None and token.kind == "error":
            raise LibconfigError(token.line, token.value)
        if token is None or token.kind not in kinds:
            line = token.reported if token else self.tokens[-1].line  # the eof token's line
            got = "the end of the file" if token is None else repr(token.value)
            raise LibconfigError(line, f"syntax error: expected {' or '.join(kinds)}, got {got}")
        self.at += 1
        return token

    def settings(self, group: Group, closing: str | None) -> Group:
        while True:
            token = self.peek()
            if token is None and closing is None:
                return group
            if token is not None and token.kind == closing:
                return group
            if token is not None and token.kind == "include":
                raise LibconfigError(token.line, f'@include "{token.value}" reads a file the custom resource does not hold')
            name = self.take("name")
            if name.value in group.settings:
                raise LibconfigError(name.line, f"duplicate setting name {name.value!r}")
            self.take("=")
            group.settings[name.value] = self.value()
            if self.peek() is not None and self.peek().kind in (";", ","):
                self.at += 1

    def value(self) -> Any:
        token = self.take("scalar", "string", "{", "(", "[")
        if token.kind == "scalar":
            return token.value
        if token.kind == "string":
            parts = [token.value]
            while self.peek() is not None and self.peek().kind == "string":
                parts.append(self.take("string").value)
            return Scalar("string", "".join(parts), token.line)
        if token.kind == "{":
            group = self.settings(Group(token.line), "}")
            self.take("}")
            return group
        closing = ")" if token.kind == "(" else "]"
        sequence = Sequence("list" if closing == ")" else "array", token.line)
        while self.peek() is not None and self.peek().kind != closing:
            item = self.value()
            if sequence.kind == "array" and (
                not isinstance(item, Scalar) or (sequence.items and item.kind != sequence.items[0].kind)
            ):
                raise LibconfigError(token.line, "mismatched element type in array")
            sequence.items.append(item)
            if self.peek() is not None and self.peek().kind == ",":
                self.at += 1
            elif self.peek() is None or self.peek().kind != closing:
                self.take(",")
        self.take(closing)
        return sequence


def parse(text: str) -> Group:
    """The file's root group, as libconfig 1.7.3 builds it; LibconfigError (with the line) when it cannot."""
    parser = _Parser(tokens(text))
    return parser.settings(Group(1), None)
