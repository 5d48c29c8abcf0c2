"""HAProxy configuration files read as HAProxy 2.8 reads them: lines, words, quotes, escapes, environment.

The operators run ``percona/haproxy:2.8.x``; this transcribes haproxy/haproxy tag v2.8.0, src/cfgparse.c
``readcfgfile`` and src/tools.c ``parse_line`` with the options readcfgfile passes (``PARSE_OPT_ENV |
DQUOTE | SQUOTE | BKSLASH | SHARP | WORD_EXPAND``):

* a line ends at a newline, a carriage return or a NUL; leading blanks are skipped; ``[scope]`` lines are
  scopes; ``#`` outside quotes starts a comment;
* blanks outside quotes separate words; ``"..."`` and ``'...'`` quote (no expansion inside single quotes);
* a backslash outside single quotes escapes ``\\\\ \\<space> \\# \\' \\"``, ``\\$`` inside double quotes, and
  writes ``\\t \\n \\r \\xHH``; before any other character it stays a backslash;
* ``$NAME`` and ``${NAME}`` (``${NAME-default}``, ``${NAME[*]}``) are the process environment, expanded
  **only inside double quotes**; ``$`` anywhere else is a literal dollar;
* an unmatched quote or brace, a bad variable name or hex escape is a fatal alert (``haproxy -c`` fails).

Each character of each word remembers whether it came from the text or from the environment, so a
reader can tell a literal value from one the environment (e.g. a Secret through ``envVarsSecret``) gives.
Which section a line belongs to follows the section keywords HAProxy registers (``REGISTER_CONFIG_SECTION``).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

# Section keywords of HAProxy 2.8 (cfgparse.c, cfgparse-listen.c and the REGISTER_CONFIG_SECTION calls).
SECTIONS = frozenset(
    {
        "global",
        "defaults",
        "frontend",
        "backend",
        "listen",
        "userlist",
        "peers",
        "mailers",
        "resolvers",
        "cache",
        "program",
        "http-errors",
        "ring",
        "log-forward",
        "namespace_list",
    }
)
PROXY_SECTIONS = frozenset({"defaults", "frontend", "backend", "listen"})
_VAR_START = re.compile(r"[A-Za-z_.]")
_HEX = "0123456789abcdefABCDEF"
_C_BLANKS = " \t\v\f"  # C's isspace() in the C locale, less the line ends (\n, \r end the line first)


class HAProxyConfigError(ValueError):
    def __init__(self, line: int, message: str):
        super().__init__(f"line {line}: {message}")
        self.line = line


@dataclass(frozen=True)
class Word:
    """One argument of a line: its text and, per character, whether the environment gave it."""

    text: str
    from_environment: tuple[bool, ...]

    def split(self, separator: str) -> tuple[Word, Word | None]:
        """(before, after) the first ``separator``; after is None when there is none."""
        at = self.text.find(separator)
        if at < 0:
            return self, None
        return (Word(self.text[:at], self.from_environment[:at]), Word(self.text[at + 1 :], self.from_environment[at + 1 :]))

    @property
    def literal(self) -> bool:
        """Non-empty and written in the text: no character of it comes from the environment."""
        return bool(self.text) and not any(self.from_environment)


@dataclass(frozen=True)
class Line:
    number: int
    section: str  # the keyword of the section it is in ("" before any)
    words: tuple[Word, ...]


class _Words:
    def __init__(self):
        self.words: list[tuple[list[str], list[bool]]] = [([], [])]

    def emit(self, char: str, environment: bool = False) -> None:
        self.words[-1][0].append(char)
        self.words[-1][1].append(environment)

    def separate(self) -> None:
        self.words.append(([], []))

    def result(self) -> tuple[Word, ...]:
        words = [Word("".join(chars), tuple(flags)) for chars, flags in self.words]
        if words and not words[-1].text:
            words.pop()  # trailing blanks add no empty argument
        return tuple(words)


def _escape(line: str, i: int, dquote: bool) -> tuple[str, int]:
    """A backslash at ``i`` outside single quotes: (the character it writes, the index after it)."""
    following = line[i + 1 : i + 2]
    if following in (" ", "\\"):
        return following, i + 2
    if following in ("t", "n", "r"):
        return {"t": "\t", "n": "\n", "r": "\r"}[following], i + 2
    if following in ("#", "'", '"') or (following == "$" and dquote):
        return following, i + 2
    if following == "x":
        digits = line[i + 2 : i + 4]
        if len(digits) < 2 or any(d not in _HEX for d in digits):
            raise ValueError("truncated or invalid hexadecimal sequence")
        return chr(int(digits, 16)), i + 4
    return "\\", i + 1  # not an escape sequence: the backslash stays


def _variable(line: str, i: int, words: _Words) -> int:
    """``$NAME`` / ``${NAME...}`` inside double quotes at ``i``: emits environment characters, returns the index after."""
    i += 1
    brace = i < len(line) and line[i] == "{"
    i += brace
    if i >= len(line) or not _VAR_START.match(line[i]):
        raise ValueError("forbidden first char in environment variable name")
    start = i
    i += line[i] == "."
    while i < len(line) and (line[i].isascii() and (line[i].isalnum() or line[i] == "_")):
        i += 1
    name = line[start:i]
    if name.startswith(".") and name not in (".LINE", ".FILE", ".SECTION"):
        raise ValueError(f"unsupported internal variable {name}")
    if brace and line[i : i + 3] == "[*]":
        i += 3
    if brace:
        if i < len(line) and line[i] == "-":
            end = line.find("}", i)
            if end < 0:
                raise ValueError("unmatched brace in environment variable name")
            for char in line[i + 1 : end]:  # the default, used when the variable is unset: still the environment's say
                words.emit(char, environment=True)
            i = end
        if i >= len(line) or line[i] != "}":
            raise ValueError("unmatched brace in environment variable name")
        i += 1
    words.emit("$", environment=True)  # stands for the variable's value, whatever it is at run time
    return i


def parse_line(line: str) -> tuple[Word, ...]:
    """``parse_line`` with readcfgfile's options: the words of one line; ValueError for a fatal alert."""
    words, i, squote, dquote, quote_at = _Words(), 0, False, False, -1
    if "\0" in line:
        raise ValueError("stray NUL character")  # readcfgfile's alert: the line is cut there
    while i < len(line):
        char = line[i]
        if char in "\n\r":
            break
        if char == "#" and not squote and not dquote:
            break
        if char == '"' and not squote:
            dquote, quote_at, i = not dquote, i, i + 1
        elif char == "'" and not dquote:
            squote, quote_at, i = not squote, i, i + 1
        elif char == "\\" and not squote:
            written, i = _escape(line, i, dquote)
            words.emit(written)
        elif char in _C_BLANKS and not squote and not dquote:
            while i < len(line) and line[i] in _C_BLANKS:
                i += 1
            words.separate()
        elif char == "$" and dquote:
            i = _variable(line, i, words)
        else:
            words.emit(char)
            i += 1
    if squote or dquote:
        raise ValueError(f"unmatched quote at position {quote_at + 1}")
    return words.result()


# Kept per text: a policy reads the operator's default global file once per cluster; lines and words are frozen.
@functools.lru_cache(maxsize=64)
def parse(text: str) -> tuple[Line, ...]:
    """Every line that says something, with its section; HAProxyConfigError (line number) on a fatal alert."""
    lines: list[Line] = []
    section = ""
    for number, raw in enumerate(text.split("\n"), start=1):
        stripped = raw.lstrip(" \t\v\f\r")  # readcfgfile skips isspace() before parse_line
        if stripped.startswith("["):
            continue  # a scope line (cfg_parse_scope)
        try:
            words = parse_line(stripped)
        except ValueError as error:
            raise HAProxyConfigError(number, str(error)) from None
        if not words or not words[0].text:
            continue
        keyword = words[0].text
        if keyword.startswith("."):
            continue  # .if/.elif/.else/.endif and .notice/.warning: every branch is read (conservative)
        if keyword in SECTIONS:
            section = keyword
        lines.append(Line(number, section, words))
    return tuple(lines)
