"""INI text read as go-ini v1.67.0 reads it with ``LoadOptions{AllowBooleanKeys: true}``: the library the PXC
operator calls to ask whether ``spec.pxc.configuration`` sets a key (pkg/apis/pxc/v1/pxc_types.go
``ConfigHasKey``: ``ini.LoadSources(ini.LoadOptions{AllowBooleanKeys: true}, ...)``, ``GetSection``,
``HasKey``).

A transcription of github.com/go-ini/ini v1.67.0 parser.go ``(*File).parse``, ``readKeyName``, ``readValue``,
``readMultilines``, ``readContinuationLines`` and ``BOM``, and of section.go ``GetKey`` (which ``HasKey`` calls),
for the options the operator passes (the other options at their zero value):

* the file is read line by line up to each ``\\n``; a UTF-8 or UTF-16 byte order mark is skipped;
* blanks (``unicode.IsSpace``) before a line are skipped; a line starting with ``#`` or ``;`` is a comment;
* ``[`` starts a section whose name runs to the *last* ``]`` of the line, untrimmed (``[ mysqld ]`` is the
  section `` mysqld ``); no ``]`` is an error (``unclosed section``), an empty name too; a section seen before
  is continued, names are case-sensitive;
* a key ends at the first ``=`` or ``:`` and is trimmed; a key may be quoted with ``"``, ``\"\"\"`` or a backquote;
  a line with no delimiter is a boolean key (its whole text, inline comment cut); a line starting with the
  delimiter is an error (``empty key name``); a repeated key replaces the earlier one;
* a value ending in ``\\`` continues on the next lines (``IgnoreContinuation`` is false); a value opened with
  ``\"\"\"`` or a backquote runs to its closing quote, over lines if need be (unclosed: an error);
* ``GetKey`` looks in the section, then in its parents by ``.`` (``[mysqld.x]`` sees ``[mysqld]``'s keys).

Pure; no Pulumi.
"""

from __future__ import annotations

from dataclasses import dataclass, field

DEFAULT_SECTION = "DEFAULT"
KEY_DELIMITERS = "=:"
CHILD_DELIMITER = "."
# unicode.IsSpace for the characters a configuration holds: the Latin-1 blanks and U+0085, U+00A0.
_GO_SPACES = (
    "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)


class GoIniError(ValueError):
    """A text go-ini refuses: ``LoadSources`` returns this error and the operator stops its reconcile."""


@dataclass
class IniFile:
    sections: dict[str, dict[str, str]] = field(default_factory=dict)

    def has_key(self, section: str, key: str) -> bool:
        """``GetSection(section)`` then ``HasKey(key)``; False when the section does not exist."""
        return section in self.sections and self._get_key(section, key)

    def _get_key(self, section: str, key: str) -> bool:
        """``GetKey``: the section's own key, else the nearest existing parent's answer."""
        if key in self.sections[section]:
            return True
        parent = section
        while CHILD_DELIMITER in parent:
            parent = parent[: parent.rfind(CHILD_DELIMITER)]
            if parent in self.sections:
                return self._get_key(parent, key)
        return False


def _strip_left(text: str) -> str:
    return text.lstrip(_GO_SPACES)


def _strip(text: str) -> str:
    return text.strip(_GO_SPACES)


def _key_name(line: str) -> tuple[str, int] | None:
    """``readKeyName``: (key, offset of the value); None when the line has no delimiter; GoIniError otherwise."""
    quote = ""
    if line[0] == '"':
        quote = '"""' if len(line) > 6 and line[:3] == '"""' else '"'
    elif line[0] == "`":
        quote = "`"
    if quote:
        start = len(quote)
        closing = line.find(quote, start)
        if closing < 0:
            raise GoIniError(f"missing closing key quote: {line}")
        rest = line[closing + start :]
        delimiter = min((i for i in (rest.find(c) for c in KEY_DELIMITERS) if i >= 0), default=-1)
        if delimiter < 0:
            return None
        return _strip(line[start:closing]), closing + delimiter + start + 1
    delimiter = min((i for i in (line.find(c) for c in KEY_DELIMITERS) if i >= 0), default=-1)
    if delimiter < 0:
        return None
    if delimiter == 0:
        raise GoIniError(f"empty key name: {line}")
    return _strip(line[:delimiter]), delimiter + 1


class _Lines:
    def __init__(self, text: str):
        self.text, self.position = text, 0

    @property
    def done(self) -> bool:
        return self.position >= len(self.text)

    def next(self) -> str:
        end = self.text.find("\n", self.position)
        end = len(self.text) if end < 0 else end + 1
        line, self.position = self.text[self.position : end], end
        return line


def _multiline(lines: _Lines, first: str, value: str, quote: str) -> str:
    while True:
        following = lines.next()
        at = following.rfind(quote)
        if at > -1:
            return value + following[:at]
        value += following
        if lines.done:
            raise GoIniError(f"missing closing key quote from {first!r} to {following!r}")


def _continuation(lines: _Lines, value: str) -> str:
    while True:
        following = _strip(lines.next())
        if not following:
            return value
        value += following
        if value[-1] != "\\":
            return value
        value = value[:-1]


def _surrounded(text: str, quote: str) -> bool:
    return len(text) >= 2 and text[0] == quote and text[-1] == quote and text[1:].find(quote) == len(text) - 2


def _value(lines: _Lines, raw: str) -> str:
    """``readValue`` with the operator's options."""
    line = _strip_left(raw)
    if not line:
        return ""
    quote = '"""' if len(line) > 3 and line[:3] == '"""' else "`" if line[0] == "`" else ""
    if quote:
        start = len(quote)
        closing = line.rfind(quote, start)
        if closing < start:
            return _multiline(lines, line, line[start:], quote)
        return line[start:closing]
    line = _strip(line)
    if line.endswith("\\"):
        return _continuation(lines, line[:-1])
    comment = min((i for i in (line.find("#"), line.find(";")) if i >= 0), default=-1)
    if comment > -1:
        line = _strip(line[:comment])
    if _surrounded(line, "'") or _surrounded(line, '"'):
        line = line[1:-1]
    return line


def _bom(text: str) -> str:
    """``BOM``: a UTF-8 byte order mark is skipped (a UTF-16 one cannot occur in text decoded as UTF-8)."""
    return text[1:] if text[:1] == "\ufeff" else text


def parse(text: str) -> IniFile:
    """The file as go-ini loads it: section -> key -> value; GoIniError where ``LoadSources`` fails."""
    result = IniFile({DEFAULT_SECTION: {}})
    section = result.sections[DEFAULT_SECTION]
    lines = _Lines(_bom(text))
    while not lines.done:
        line = _strip_left(lines.next())
        if not line or line[0] in "#;":
            continue
        if line[0] == "[":
            closing = line.rfind("]")
            if closing < 0:
                raise GoIniError(f"unclosed section: {line}")
            name = line[1:closing]
            if not name:
                raise GoIniError("empty section name")
            section = result.sections.setdefault(name, {})
            continue
        found = _key_name(line)
        if found is None:  # AllowBooleanKeys: the whole line is the key
            name = _value(lines, line)
            if not name:
                raise GoIniError("empty key name")  # NewBooleanKey -> NewKey
            section[name] = "true"
            continue
        name, offset = found
        if not name:
            raise GoIniError("empty key name")  # NewKey
        section[name] = _value(lines, line[offset:])
    return result
