"""Option files read exactly as mysqld reads them, layered in the order the operators write them.

The one reader of my.cnf text in the project: sizing renders with it, the database components render
with it, and the policy pack reads every ``configuration`` string through :func:`effective_options`.

Syntax (MySQL 8.0/8.4 reference manual, "Using Option Files"; mysys/my_default.cc
``search_default_file_with_buffer`` and ``remove_end_comment``):

* a line whose first non-blank character is ``#`` or ``;`` is a comment; mid-line, only ``#`` starts a
  comment (outside quotes), so ``a=1 ; b=2`` sets ``a`` to ``1 ; b=2``;
* ``[group]`` opens a group (names compare case-insensitively, trailing blanks dropped); an option
  before any group in a file is an error and mysqld refuses to start;
* ``name`` or ``name=value``; blanks around ``=`` and at both ends are dropped; one pair of matching
  quotes around the value is removed; the escapes ``\\b \\t \\n \\r \\\\ \\s \\" \\'`` are
  decoded, any other backslash is kept;
* ``!include FILE`` and ``!includedir DIR`` read other files at that point; a file this reader is not
  given cannot be judged and is reported as :class:`Undecided`, never assumed harmless;
* ``-`` and ``_`` are the same in option names, ``loose-`` only turns an unknown-option error into a
  warning, ``skip-``/``disable-`` set a boolean OFF and ``enable-`` ON (my_getopt.cc special prefixes);
  unambiguous prefixes of option names are not accepted since MySQL 5.7 (WL#6978), so a prefix names
  another, unknown, option and is kept as written.

Groups (sql/mysqld.cc ``load_default_groups``): mysqld reads ``[mysqld]``, ``[server]`` and
``[mysqld-MAJOR.MINOR]`` of its own version, in file order; the last value in read order wins, whatever
group it is in. PXC 8.x is MySQL-based and adds no group (MariaDB's ``[galera]`` is not read).

Layering (what each operator puts around the user's ``configuration``):

* PXC (percona-xtradb-cluster-operator b3b0b10, pkg/pxc/app/statefulset/node.go, pkg/controller/pxc/
  config.go; percona-docker percona-xtradb-cluster-8.0/Dockerfile): ``/etc/my.cnf`` is
  ``!include /etc/mysql/node.cnf`` (the entrypoint's wsrep settings), ``!includedir /etc/my.cnf.d/``
  (``auto-config.cnf`` from the ``auto-<cluster>-pxc`` ConfigMap) and ``!includedir
  /etc/percona-xtradb-cluster.conf.d/`` (``init.cnf`` = ``spec.pxc.configuration`` verbatim, a file of
  its own: it needs its own ``[mysqld]`` header). The user's file is read last and wins.
* PS (percona-server-mysql-operator 9adfefa, build/ps-entrypoint.sh ``create_default_cnf``): node.cnf
  is ``[mysqld]`` and the entrypoint's options, then ``auto-config.cnf``, ``my-config.cnf``
  (= ``spec.mysql.configuration``) and ``my-secret.cnf`` appended as text: the user's lines continue
  the ``[mysqld]`` group, and a header inside them switches group for what follows.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

MYSQLD = "mysqld"
SERVER = "server"
PROVIDER_OPTIONS = "wsrep_provider_options"
MYSQL_VERSION_GROUPS = ("mysqld-8.0", "mysqld-8.4")


class MyCnfError(ValueError):
    """A configuration string mysqld would refuse to read (it would not start)."""


@dataclass(frozen=True)
class Setting:
    """One ``name=value`` line as mysqld sees it."""

    key: str  # normalized: lower case, ``_`` for ``-``, ``loose_`` dropped
    value: str  # quotes removed, escapes decoded; ``ON`` for a bare name
    group: str
    file: str
    line: int
    written: str  # the value as the user wrote it (for messages)
    bare: bool = False  # a name without ``=value``
    loose: bool = False  # written ``loose-name``: an unknown option is a warning, not a stop


@dataclass(frozen=True)
class Undecided:
    """Something in the files that decides options this reader cannot see (``!include`` of an unseen file)."""

    file: str
    line: int
    reason: str

    def __str__(self) -> str:
        return f"{self.file} line {self.line}: {self.reason}"


@dataclass(frozen=True)
class OptionFile:
    """A file mysqld reads. ``start_group`` is the group in effect at its first line; ``None`` means the
    file stands alone and needs its own header. ``appended``: the text was appended to the previous
    file (PS's node.cnf), so it continues the group that file ended in."""

    path: str
    text: str
    start_group: str | None = None
    appended: bool = False


@dataclass
class Effective:
    """mysqld's options after reading every file in order: the last setting of each key, and what could not be read."""

    settings: dict[str, Setting] = field(default_factory=dict)
    undecided: list[Undecided] = field(default_factory=list)
    history: list[Setting] = field(default_factory=list)  # every setting read, in read order

    def values(self) -> dict[str, str]:
        return {key: setting.value for key, setting in self.settings.items()}

    def plugin_libraries(self) -> list[str]:
        """Libraries mysqld loads at startup: ``plugin_load`` replaces the list, each ``plugin_load_add``
        adds to it (MySQL manual, "Installing and Uninstalling Plugins"; values ``[name=]lib[;...]``)."""
        libraries: list[str] = []
        for setting in self.history:
            if setting.key not in ("plugin_load", "plugin_load_add"):
                continue
            if setting.key == "plugin_load":
                libraries = []
            for part in setting.value.split(";"):
                library = part.rpartition("=")[2].strip().lower()
                if library:
                    libraries.append(library)
        return libraries


@lru_cache(maxsize=4096)
def normalize_key(key: str) -> str:
    """``loose-Innodb-Buffer-Pool-Size`` -> ``innodb_buffer_pool_size``: the name mysqld resolves."""
    key = key.strip(" \t\n\v\f\r").lower().replace("-", "_")
    if key.startswith("loose_"):
        key = key[len("loose_"):]
    return key


_BOOLEAN_PREFIXES = (("skip_", "OFF"), ("disable_", "OFF"), ("enable_", "ON"))
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "s": " ", '"': '"', "'": "'", "\\": "\\"}
_BLANKS = " \t\n\v\f\r"  # my_isspace() in latin1: what mysqld trims
_NAME = re.compile(r"^[A-Za-z0-9_.\-]+$")


def _remove_end_comment(line: str) -> str:
    """Cut at the first ``#`` outside quotes (my_default.cc ``remove_end_comment``)."""
    quote = ""
    escape = False
    for index, char in enumerate(line):
        if char in "'\"" and not escape:
            if not quote:
                quote = char
            elif quote == char:
                quote = ""
        if not quote and char == "#":
            return line[:index]
        escape = bool(quote) and char == "\\" and not escape
    return line


def _decode(value: str) -> str:
    """Remove one pair of matching quotes, then decode the escapes mysqld knows."""
    if len(value) > 1 and value[0] in "'\"" and value[-1] == value[0]:
        value = value[1:-1]
    out: list[str] = []
    index = 0
    while index < len(value):
        char = value[index]
        if char == "\\" and index + 1 < len(value):
            following = value[index + 1]
            out.append(_ESCAPES.get(following, "\\" + following))
            index += 2
            continue
        out.append(char)
        index += 1
    return "".join(out)


@dataclass(frozen=True)
class _Directive:
    kind: str  # include | includedir
    target: str
    line: int


def _read_lines(text: str, path: str, start_group: str | None) -> Iterable[Setting | _Directive | tuple[str, int]]:
    """Settings, directives and group changes (``(group, line)``) of one file, in order."""
    group = start_group
    for number, raw in enumerate(text.split("\n"), start=1):  # fgets(): only \n ends a line
        line = raw.strip(_BLANKS)
        if not line or line[0] in "#;":
            continue
        if line[0] == "!":
            directive = line[1:].lstrip(_BLANKS)
            for kind in ("includedir", "include"):
                if directive.startswith(kind) and directive[len(kind):len(kind) + 1] in tuple(_BLANKS):
                    yield _Directive(kind, directive[len(kind):].strip(_BLANKS), number)
                    break
            continue  # mysqld ignores any other ``!`` line
        if line[0] == "[":
            end = line.find("]")
            if end < 0:
                raise MyCnfError(f"{path} line {number}: {line[:60]!r} opens a group without ']' (mysqld refuses to start)")
            group = line[1:end].rstrip(_BLANKS).lower()
            yield (group, number)
            continue
        if group is None:
            raise MyCnfError(f"{path} line {number}: option {line[:60]!r} before any [group] header "
                             "(mysqld refuses to start: 'Found option without preceding group')")
        line = _remove_end_comment(line)
        name, separator, value = line.partition("=")
        name = name.strip(_BLANKS)
        written = value.strip(_BLANKS)
        loose = name.lower().replace("-", "_").startswith("loose_")
        if separator:
            yield Setting(normalize_key(name), _decode(written), group, path, number, written, loose=loose)
        else:
            yield Setting(normalize_key(name), "ON", group, path, number, name, bare=True, loose=loose)


def _check_name(setting: Setting) -> Setting:
    """A line in a group mysqld reads must name an option; elsewhere mysqld never parses it as one
    (the upstream cr.yaml's ``[xtrabackup]`` has a prose line ``for PXC 5.7``)."""
    if not _NAME.match(setting.key):
        raise MyCnfError(f"{setting.file} line {setting.line}: cannot read {setting.key[:60]!r} in [{setting.group}] "
                         "as name=value (mysqld stops on an unknown option)")
    return setting


def _expand(setting: Setting) -> list[Setting]:
    """``skip-x`` / ``disable-x`` also set ``x=OFF``, ``enable-x`` sets ``x=ON`` (my_getopt special prefixes)."""
    result = [setting]
    for prefix, state in _BOOLEAN_PREFIXES:
        if setting.bare and setting.key.startswith(prefix):
            name = setting.key[len(prefix):]
            if name:
                result.append(Setting(name, state, setting.group, setting.file, setting.line, setting.written,
                                      loose=setting.loose))
    return result


_TRUE = frozenset({"on", "true", "1"})


def is_on(value: str | None) -> bool:
    """A boolean option as my_getopt reads it: ``ON``, ``TRUE`` or ``1`` (any case) is true."""
    return (value or "").strip().lower() in _TRUE


def mysqld_groups(version: str | None) -> frozenset[str]:
    """Groups mysqld reads: [mysqld], [server] and its own [mysqld-X.Y] (``version`` is ``X.Y``); every
    supported version's group when the version is not known (a breach there may run, so it is read
    rather than ignored)."""
    versions = (f"mysqld-{version}",) if version else MYSQL_VERSION_GROUPS
    return frozenset((MYSQLD, SERVER, *versions))


def read_files(files: Sequence[OptionFile], groups: Iterable[str]) -> Effective:
    """Read ``files`` in order, following ``!include``/``!includedir`` among them by path.

    Raises :class:`MyCnfError` for text mysqld refuses to read. An include of a path that is none of
    ``files`` becomes an :class:`Undecided` finding.
    """
    wanted = frozenset(group.lower() for group in groups)
    by_path = {option_file.path: option_file for option_file in files}
    effective = Effective()
    included: set[str] = set()

    def read(option_file: OptionFile, depth: int, group: str | None) -> str | None:
        if depth > 10:  # my_default.cc max_recursion_level
            effective.undecided.append(Undecided(option_file.path, 0, "includes nest deeper than mysqld follows"))
            return group
        group = group if option_file.appended else option_file.start_group
        for item in _read_lines(option_file.text, option_file.path, group):
            if isinstance(item, _Directive):
                if item.kind == "include":
                    targets = [item.target] if item.target in by_path else []
                else:
                    directory = item.target.rstrip("/") + "/"
                    # Only *.cnf files are read from a directory (Unix). The manual promises no order;
                    # mysys my_dir() sorts by name, which is what is modelled (each operator directory
                    # holds a single file, so the order never decides a value there).
                    targets = sorted(path for path in by_path if path.startswith(directory)
                                     and "/" not in path[len(directory):] and path.endswith(".cnf"))
                if not targets:
                    effective.undecided.append(Undecided(
                        option_file.path, item.line,
                        f"!{item.kind} {item.target} reads a file the pack cannot see, so the options it sets are unknown"))
                for target in targets:
                    included.add(target)
                    read(by_path[target], depth + 1, None)
            elif isinstance(item, tuple):
                group = item[0]
            elif isinstance(item, Setting):
                if item.group in wanted:
                    for setting in _expand(_check_name(item)):
                        effective.history.append(setting)
                        effective.settings.pop(setting.key, None)  # keep read order: the last one is last
                        effective.settings[setting.key] = setting
        return group

    group: str | None = None
    for option_file in files:
        if option_file.path not in included:
            group = read(option_file, 0, group)
    return effective


# ---- the operators' layering -------------------------------------------------------------------------

PXC_USER_FILE = "/etc/percona-xtradb-cluster.conf.d/init.cnf"
PXC_AUTO_FILE = "/etc/my.cnf.d/auto-config.cnf"
PS_NODE_FILE = "/etc/my.cnf.d/node.cnf"
PS_AUTO_FILE = "/etc/mysql/config/auto-config.cnf"
PS_USER_FILE = "/etc/mysql/config/my-config.cnf"


def operator_files(operator: str, configuration: str | None, auto_config: str | None = None) -> list[OptionFile]:
    """The files mysqld reads in a PXC (``pxc``) or PS (``ps``) pod, the user's ``configuration`` among them.

    The operators' own option lines (wsrep addresses, server_id, TLS) are not modelled: no rule reads
    them and the user cannot change them. ``auto_config`` is the auto-tuning text, when the caller knows it.
    """
    configuration = configuration or ""
    if operator == "pxc":
        files = [OptionFile("/etc/mysql/node.cnf", "[mysqld]\n")]
        if auto_config is not None:
            files.append(OptionFile(PXC_AUTO_FILE, auto_config))
        if configuration:
            files.append(OptionFile(PXC_USER_FILE, configuration))
        return files
    if operator == "ps":  # each appended to node.cnf as text (cat "$f"; echo), in this order
        files = [OptionFile(PS_NODE_FILE, "[mysqld]\n")]
        if auto_config is not None:
            files.append(OptionFile(PS_AUTO_FILE, auto_config, appended=True))
        if configuration:
            files.append(OptionFile(PS_USER_FILE, configuration, appended=True))
        return files
    raise ValueError(f"unknown operator {operator!r}")


def effective_options(operator: str, configuration: str | None, version: str | None = None,
                      auto_config: str | None = None) -> Effective:
    """What mysqld runs with, from the user's ``configuration`` in the operator's layering."""
    if configuration is not None and not isinstance(configuration, str):
        raise MyCnfError(f"configuration must be a string, got {type(configuration).__name__}")
    return read_files(operator_files(operator, configuration, auto_config), mysqld_groups(version))


# ---- plain reading and rendering -------------------------------------------------------------------

def parse(text: object, default_section: str | None = MYSQLD) -> dict[str, dict[str, str]]:
    """Groups -> {normalized key -> value} of one file; lines before any header go to ``default_section``
    (``None``: such lines are an error, as for a file of its own)."""
    if text is None:
        return {}
    if not isinstance(text, str):
        raise MyCnfError(f"configuration must be a string, got {type(text).__name__}")
    sections: dict[str, dict[str, str]] = {}
    read_by_mysqld = mysqld_groups(None)
    for item in _read_lines(text, "configuration", default_section):
        if isinstance(item, Setting):
            if item.group in read_by_mysqld:
                _check_name(item)
            sections.setdefault(item.group, {})[item.key] = item.value
        elif isinstance(item, tuple):
            sections.setdefault(item[0], {})
    return sections


def mysqld_options(text: object, default_section: str = MYSQLD, version: str | None = None) -> dict[str, str]:
    """The options mysqld reads from one fragment whose leading lines are in ``default_section``."""
    if text is not None and not isinstance(text, str):
        raise MyCnfError(f"configuration must be a string, got {type(text).__name__}")
    effective = read_files([OptionFile("configuration", text or "", default_section)], mysqld_groups(version))
    return effective.values()


def parse_provider_options(value: str | None) -> dict[str, str]:
    """``"gcache.size=1G; gcs.fc_limit=100"`` -> {"gcache.size": "1G", "gcs.fc_limit": "100"}."""
    options: dict[str, str] = {}
    for part in (value or "").split(";"):
        if not part.strip():
            continue
        key, separator, option_value = part.partition("=")
        if not separator:
            raise MyCnfError(f"wsrep_provider_options: {part.strip()!r} is not key=value")
        options[key.strip().lower()] = option_value.strip()
    return options


def render_provider_options(options: Mapping[str, object]) -> str:
    return "; ".join(f"{key}={value}" for key, value in options.items())


def _quote(text: str) -> str:
    """A value mysqld reads back unchanged: quoted (with ``\\`` and ``"`` escaped) when it has blanks,
    ``#``, ``;``, quotes or backslashes."""
    if text and not re.search(r"[\s;#'\"\\\x00-\x1f]", text):
        return text
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\r", "\\r").replace("\t", "\\t")
    return '"' + escaped + '"'


def render(options: Mapping[str, object], section: str | None = MYSQLD) -> str:
    """Options as an option-file fragment, read back by :func:`parse` to the same values."""
    lines = [f"[{section}]"] if section else []
    for key, value in options.items():
        lines.append(f"{key}={_quote(str(value))}")
    return "\n".join(lines) + "\n"


__all__ = [
    "MYSQLD", "PROVIDER_OPTIONS", "SERVER", "Effective", "MyCnfError", "OptionFile", "Setting", "Undecided",
    "effective_options", "is_on", "mysqld_groups", "mysqld_options", "normalize_key", "operator_files", "parse",
    "parse_provider_options", "read_files", "render", "render_provider_options",
]
