"""my_default: option files -> the ``--name[=value]`` arguments of the groups a program reads.

A port of mysql/mysql-server mysys/my_default.cc (8.0 at 0478f4b9; the same code in 8.4)
``search_default_file_with_ext``, ``get_argument`` and ``remove_end_comment``, run on the file's bytes:
the text is encoded as UTF-8 and each byte handled as mysqld handles it (``my_isspace`` of latin1, where
0xA0 is a blank too). Names and values are decoded back from UTF-8 afterwards.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

READ_BYTES = 4094  # fgets(buff, sizeof(buff) - 1) with char buff[4096]: at most 4094 bytes a read
MAX_RECURSION = 10  # max_recursion_level: deeper !include* directives are skipped with a warning
BLANKS = " \t\n\v\f\r\xa0"  # my_isspace(&my_charset_latin1, c)
ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "s": " ", '"': '"', "'": "'", "\\": "\\"}
CNF_EXTENSION = ".cnf"  # f_extensions[] on Unix: the only files !includedir reads


class MyCnfError(ValueError):
    """A configuration string mysqld would refuse to read (it would not start)."""


@dataclass(frozen=True)
class OptionFile:
    """A file mysqld reads. ``start_group`` is the group in effect at its first line; ``None`` means the
    file stands alone and needs its own header. ``appended``: the text was appended to the previous
    file (PS's node.cnf), so it continues the group that file ended in."""

    path: str
    text: str
    start_group: str | None = None
    appended: bool = False


@dataclass(frozen=True)
class Undecided:
    """Something in the files that decides options this reader cannot see (``!include`` of an unseen file)."""

    file: str
    line: int
    reason: str

    def __str__(self) -> str:
        return f"{self.file} line {self.line}: {self.reason}"


@dataclass(frozen=True)
class Argument:
    """One ``--name[=value]`` my_default passes on: ``value`` None for a bare name."""

    name: str
    value: str | None
    group: str
    file: str
    line: int  # the line of the file (a line longer than READ_BYTES keeps its number for its tail)
    split: bool = False  # read from the tail of a line longer than READ_BYTES

    def option(self) -> str:
        """As my_print_defaults prints it."""
        return f"--{self.name}" if self.value is None else f"--{self.name}={self.value}"


def _text(raw: str) -> str:
    """Bytes (held one per character) back to the text they encode."""
    return raw.encode("latin-1").decode("utf-8", "surrogateescape")


def reads(text: str) -> Iterator[tuple[int, bool, str]]:
    """fgets() over the file: (line number, is the tail of a longer line, bytes as latin-1 characters)."""
    data = text.encode("utf-8", "surrogateescape").decode("latin-1")
    position, line, split = 0, 1, False
    while position < len(data):
        newline = data.find("\n", position)
        end = len(data) if newline < 0 else newline + 1
        stop = min(end, position + READ_BYTES)
        chunk = data[position:stop]
        yield line, split, chunk.split("\x00", 1)[0]  # a C string ends at the first NUL
        split = stop < end
        if not split:
            line += 1
        position = stop


def remove_end_comment(text: str) -> str:
    """Cut at the first ``#`` outside quotes; inside quotes ``\\`` protects the next quote."""
    quote, escape = "", False
    for index, char in enumerate(text):
        if char in "'\"" and not escape:
            if not quote:
                quote = char
            elif quote == char:
                quote = ""
        if not quote and char == "#":
            return text[:index]
        escape = bool(quote) and char == "\\" and not escape
    return text


def get_argument(rest: str) -> str | None:
    """get_argument(): the directive's argument, blanks skipped, then cut before its last byte (meant to be
    the newline fgets keeps) and before the blanks preceding it; None when nothing is left (an error)."""
    argument = rest.lstrip(BLANKS)
    end = len(argument) - 1
    while end > 0 and argument[end - 1] in BLANKS:
        end -= 1
    return argument[:end] if end > 0 else None


def _decode_value(raw: str) -> str:
    value = raw.lstrip(BLANKS).rstrip(BLANKS)
    if len(value) > 1 and value[0] in "'\"" and value[-1] == value[0]:
        value = value[1:-1]
    out, index = [], 0
    while index < len(value):
        if value[index] == "\\" and index != len(value) - 1:
            following = value[index + 1]
            out.append(ESCAPES.get(following, "\\" + following))
            index += 2
            continue
        out.append(value[index])
        index += 1
    return "".join(out)


@dataclass
class _Reader:
    by_path: dict[str, OptionFile]
    wanted: frozenset[str] | None  # upper-cased group names; None: every group
    arguments: list[Argument]
    undecided: list[Undecided]
    included: set[str]

    def directive(self, body: str, option_file: OptionFile, line: int, depth: int) -> None:
        for keyword in ("includedir", "include"):
            if body.startswith(keyword) and body[len(keyword) : len(keyword) + 1] in tuple(BLANKS):
                target = get_argument(body[len(keyword) :])
                if target is None:
                    raise MyCnfError(
                        f"{option_file.path} line {line}: '!{keyword}' without a file name "
                        "(mysqld stops: 'Wrong !include directive')"
                    )
                self.include(keyword, _text(target), option_file, line, depth)
                return
        # any other '!' line is ignored by mysqld

    def include(self, keyword: str, target: str, option_file: OptionFile, line: int, depth: int) -> None:
        if keyword == "include":
            targets = [target] if target in self.by_path else []
        else:
            directory = target.rstrip("/") + "/"
            # Only *.cnf names (case-sensitive) are read; my_dir() lists a directory in name order here
            # (each operator directory holds one file, so the order never decides a value there).
            targets = sorted(
                path
                for path in self.by_path
                if path.startswith(directory) and "/" not in path[len(directory) :] and path.endswith(CNF_EXTENSION)
            )
        if not targets:
            self.undecided.append(
                Undecided(
                    option_file.path,
                    line,
                    f"!{keyword} {target} reads a file the pack cannot see, so the options it sets are unknown",
                )
            )
        for path in targets:
            self.included.add(path)
            self.read(self.by_path[path], depth + 1, None)

    def read(self, option_file: OptionFile, depth: int, group: str | None) -> str | None:
        group = group if option_file.appended else option_file.start_group
        for line, split, chunk in reads(option_file.text):
            stripped = chunk.lstrip(BLANKS)
            if not stripped or stripped[0] in "#;":
                continue
            if stripped[0] == "!":
                if depth < MAX_RECURSION:
                    self.directive(stripped[1:].lstrip(BLANKS), option_file, line, depth)
                continue
            if stripped[0] == "[":
                end = stripped.find("]")
                if end < 0:
                    raise MyCnfError(
                        f"{option_file.path} line {line}: {_text(stripped[:60])!r} opens a group "
                        "without ']' (mysqld refuses to start)"
                    )
                group = _text(stripped[1:end].rstrip(BLANKS))
                continue
            if group is None:
                raise MyCnfError(
                    f"{option_file.path} line {line}: option {_text(stripped[:60]).strip()!r} before any "
                    "[group] header (mysqld refuses to start: 'Found option without preceding group')"
                )
            self.option(remove_end_comment(stripped), group, option_file.path, line, split)
        return group

    def option(self, text: str, group: str, path: str, line: int, split: bool) -> None:
        if self.wanted is not None and (not group.isascii() or group.upper() not in self.wanted):
            return  # find_type(group, groups, FIND_TYPE_NO_PREFIX): exact, case-insensitive
        name, equals, value = text.partition("=")
        argument = Argument(
            _text(name.rstrip(BLANKS)),
            _text(_decode_value(value)) if equals else None,
            group.lower() if group.isascii() else group,
            path,
            line,
            split,
        )
        self.arguments.append(argument)


def default_arguments(files: Sequence[OptionFile], groups: Iterable[str] | None) -> tuple[list[Argument], list[Undecided]]:
    """The arguments my_default passes on from ``files`` (read in order; a file another includes is read
    there), for ``groups`` (None: every group), and the includes of files not given."""
    wanted = None if groups is None else frozenset(group.upper() for group in groups)
    reader = _Reader({option_file.path: option_file for option_file in files}, wanted, [], [], set())
    group: str | None = None
    for option_file in files:
        if option_file.path not in reader.included:
            group = reader.read(option_file, 0, group)
    return reader.arguments, reader.undecided


__all__ = [
    "Argument",
    "MyCnfError",
    "OptionFile",
    "READ_BYTES",
    "Undecided",
    "default_arguments",
    "get_argument",
    "reads",
    "remove_end_comment",
]
