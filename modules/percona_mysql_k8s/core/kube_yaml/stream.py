"""A stream split into documents as apimachinery v0.36.3 ``util/yaml/decoder.go`` splits it, each one decoded."""

from __future__ import annotations

import json
import unicodedata
from dataclasses import dataclass, field

import yaml

from .decode import MAX_DEPTH, Composer, DecodeError, Decoder
from .go_scalars import parse_float
from .scanner import Events
from .to_json import Path, to_json

_JSON_PEEK = 4096  # NewYAMLOrJSONDecoder(r, 4096): how far kubectl looks for the '{' that makes a stream JSON
_INT64 = 1 << 63


@dataclass(frozen=True)
class Document:
    number: int  # 1-based, counting the documents that hold something (``null`` too; not blank or comment-only ones)
    line: int  # 1-based line where its value starts (after the separator and any comments above it)
    value: object  # as kubectl holds it: dicts, lists, str, int (int64), float, bool, None
    marks: dict[Path, tuple[int, int]] = field(default_factory=dict, compare=False, repr=False)
    start: int = 0  # 1-based line where its text starts: after the `---`, comments above the value included
    key_marks: dict[Path, tuple[int, int]] = field(default_factory=dict, compare=False, repr=False)  # each key's (line, column)


class KubeYamlError(ValueError):
    """A stream kubectl cannot read: names the file, the document and where."""

    def __init__(self, file: str, document: int, problem: str, line: int | None = None, column: int | None = None):
        self.file, self.document, self.problem, self.line, self.column = file, document, problem, line, column
        where = f" at line {line}, column {column}" if line is not None else ""
        super().__init__(f"{file}: document {document} is not valid YAML{where}: {problem}")


def _is_space(char: str) -> bool:
    """Go's ``unicode.IsSpace``."""
    return char in "\t\n\v\f\r \x85\xa0" or (ord(char) > 0xFF and unicodedata.category(char) == "Zs")


def _chunks(text: str, file: str, first_number: int, first_line: int) -> list[tuple[int, int, str]]:
    """(number, first line, text) of each document: ``YAMLReader.Read`` over ``LineReader``."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # the text's last newline ends a line, it starts none
    chunks, buffer, start, number = [], [], first_line, first_number
    for offset, raw in enumerate(lines):
        ended = offset < len(lines) - 1 or text.endswith("\n")  # bufio ReadLine drops "\r\n" or "\n", not a last "\r"
        line = raw[:-1] if ended and raw.endswith("\r") else raw
        if line.startswith("---"):
            rest = line[3:].strip(" \t\n\v\f\r\x85\xa0")
            if rest and not rest.startswith("#"):
                raise KubeYamlError(file, number, f"invalid Yaml document separator: {rest}", first_line + offset, 1)
            if buffer:
                chunks.append((number, start, "".join(buffer)))
                buffer, number = [], number + 1
            start = first_line + offset + 1
            continue
        if not buffer:
            start = first_line + offset
        buffer.append(line + "\n")
    if buffer:
        chunks.append((number, start, "".join(buffer)))
    return chunks


class _Blank(Exception):
    """A chunk with no document in it (blank, or comments alone): go-yaml reads nothing."""


def _decode_yaml(chunk: str, file: str, number: int, line: int) -> Document | None:
    """The first document of ``chunk`` as ``yaml.Unmarshal`` reads it (go-yaml reads no further)."""
    events = Events(chunk)
    try:
        events.get_event()  # stream start
        if events.check_event(yaml.StreamEndEvent):
            raise _Blank
        events.get_event()  # document start
        composer = Composer(events)
        root = composer.node()
        marks: dict[Path, tuple[int, int]] = {}
        key_marks: dict[Path, tuple[int, int]] = {}
        value = to_json(Decoder().value(root), root, line - 1, marks, (), key_marks)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None) or getattr(error, "context_mark", None)
        problem = getattr(error, "problem", None) or str(error)
        raise KubeYamlError(file, number, problem, *((mark.line + line, mark.column + 1) if mark else ())) from None
    except DecodeError as error:
        where = (error.mark[0] + line, error.mark[1] + 1) if error.mark else ()
        raise KubeYamlError(file, number, str(error), *where) from None
    except RecursionError:
        raise KubeYamlError(file, number, f"nesting deeper than {MAX_DEPTH} levels, more than this reader follows") from None
    finally:
        events.dispose()
    return None if value is None else Document(number, marks[()][0], value, marks, line, key_marks)


def _json_number(literal: str) -> int | float:
    """sigs.k8s.io/json ``UnmarshalCaseSensitivePreserveInts``: int64 for an integer literal that fits, else
    float64; a literal beyond float64 is an error."""
    if not any(char in literal for char in ".eE"):
        value = int(literal)
        if -_INT64 <= value < _INT64:
            return value
    number = parse_float(literal)
    if number is None:
        raise NumberRangeError(f"json: cannot unmarshal number {literal} into Go value of type float64")
    return number


class NumberRangeError(Exception):
    """A JSON number beyond float64: the stream's syntax is fine, kubectl's decoding of the object fails."""


def _no_constant(name: str):
    raise ValueError(f"invalid character '{name[0]}' looking for beginning of value")


_JSON = json.JSONDecoder(parse_int=_json_number, parse_float=_json_number, parse_constant=_no_constant)


def _json_documents(text: str, file: str) -> tuple[list[Document], int]:
    """``YAMLOrJSONDecoder`` while it reads JSON: the values it decoded and where YAML takes over (-1: the end)."""
    found: list[Document] = []
    at = count = 0
    while True:
        start = at
        while at < len(text) and text[at] in " \t\n\r":
            at += 1
        if at == len(text):
            return found, -1
        try:
            value, end = _JSON.raw_decode(text, at)
        except ValueError as error:
            if count > 1:  # two values decoded: an unambiguous JSON stream, no switch to YAML
                line = text.count("\n", 0, at) + 1
                raise KubeYamlError(file, len(found) + 1, str(error).split(":")[0], line, 1) from None
            return found, start
        line = text.count("\n", 0, at) + 1
        count += 1
        if value is not None:
            found.append(Document(len(found) + 1, line, value, {(): (line, 1)}))
        at = end


def read_stream(text: str, file: str = "-") -> list[Document]:
    """Every document kubectl would read from ``text``, in order, blank and ``null`` ones left out. Raises
    :class:`KubeYamlError` where kubectl stops reading."""
    documents: list[Document] = []
    rest, line = text, 1
    head = text[:_JSON_PEEK].lstrip("".join(c for c in text[:_JSON_PEEK] if _is_space(c)))
    if head.startswith("{"):
        try:
            documents, switch = _json_documents(text, file)
        except NumberRangeError as error:
            raise KubeYamlError(file, 1, str(error)) from None
        if switch < 0:
            return documents
        rest = text[switch:]
        skipped = 0
        while skipped < len(rest) and _is_space(rest[skipped]) and rest[skipped] != "\n":
            skipped += 1
        if skipped < len(rest) and rest[skipped] == "\n":
            skipped += 1  # consumeWhitespace: up to and including the first newline
        line = text.count("\n", 0, switch + skipped) + 1
        rest = rest[skipped:]
    number = len(documents)
    for _, start, chunk in _chunks(rest, file, number + 1, line):
        try:
            document = _decode_yaml(chunk, file, number + 1, start)
        except _Blank:
            continue
        number += 1
        if document is not None:
            documents.append(document)
    return documents


def read_first_document(text: str, file: str = "-") -> Document | None:
    """The first document of ``text`` as ``yaml.Unmarshal`` reads a whole file (Helm's ``chartutil.ReadValues``:
    no splitting, later documents unread). None for an empty file."""
    try:
        return _decode_yaml(text if text.endswith("\n") or not text else text + "\n", file, 1, 1)
    except _Blank:
        return None
