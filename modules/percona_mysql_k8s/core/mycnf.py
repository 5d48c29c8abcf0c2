"""Option files read exactly as mysqld reads them, layered in the order the operators write them.

The one reader of my.cnf text in the project: sizing renders with it, the database components render
with it, and the policy pack reads every ``configuration`` string through :func:`effective_options`.
docs/option-files.md tabulates every rule below with its source line and the tests of both directions.

Two stages, as in mysqld:

1. my_default (mysql/mysql-server mysys/my_default.cc 8.0 at 0478f4b9, ``search_default_file_with_ext``
   and ``remove_end_comment``) turns the files into ``--name[=value]`` arguments of the groups mysqld
   reads; this module ports it on the file's bytes (UTF-8), with latin1 ``my_isspace`` (0xA0 is a blank):
   lines are ``fgets`` reads of at most 4094 bytes (``char buff[4096]`` read with ``sizeof(buff) - 1``),
   so a longer line is cut and its tail read as a line of its own; ``#``/``;`` first = comment; ``!include
   X``/``!includedir X`` (the keyword then a blank; the argument loses its last byte, which is meant to be
   the newline, and an empty argument stops mysqld); ``[group]``; an option before any group stops mysqld;
   ``#`` outside quotes ends the line; ``name = value`` with blanks trimmed, one pair of quotes removed and
   ``\\b \\t \\n \\r \\s \\" \\' \\\\`` decoded.
2. my_getopt (:mod:`.mysqld_options`, catalogue :mod:`.mysqld_catalog`) matches each name exactly (case
   and all, ``-`` = ``_``), strips ``skip- disable- enable- maximum- loose-`` as it does, and stores the
   value mysqld keeps. An option mysqld would not recognise stops it unless written ``loose-``: proven
   unknown names (capitals or other characters no option has, abbreviations of known names, names of a
   plugin that is not loaded, options of the other server) raise :class:`MyCnfError` naming the line; a
   name this project does not catalogue is kept as written, with no verdict.

Groups (sql/mysqld.cc ``load_default_groups``): ``[mysqld]``, ``[server]`` and ``[mysqld-MAJOR.MINOR]`` of
its own version, compared case-insensitively (``find_type(..., FIND_TYPE_NO_PREFIX)``); the last value in
read order wins, whatever group or alias (``slave_``/``replica_``) it came from.

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

from . import galera_options
from .mycnf_files import Argument, MyCnfError, OptionFile, Undecided, default_arguments
from .mysqld_catalog import BUILTIN_PLUGINS, BY_NAME, GROUP_REPLICATION, PLUGIN_LIBRARIES, Option
from .mysqld_options import Refused, prefixed_argument, set_value, strip_prefix
from .mysqld_unknown import unknown_reason

MYSQLD = "mysqld"
SERVER = "server"
PROVIDER_OPTIONS = "wsrep_provider_options"
MYSQL_VERSION_GROUPS = ("mysqld-8.0", "mysqld-8.4")
TEMPLATE = "{{"  # the operators' auto-tuning templates (pkg/pxc/app/config: pongo2 over containerMemoryLimit)


@dataclass(frozen=True)
class Setting:
    """One option as mysqld stores it."""

    key: str  # the variable (catalogued), else the name as written with ``_`` for ``-`` and no ``loose_``
    value: str  # what mysqld keeps: canonical (``ON``, ``QUOTA``, ``8589934592``) for a catalogued option
    group: str
    file: str
    line: int
    written: str  # the value as the user wrote it, or the name of a bare option (for messages)
    bare: bool = False  # a name without ``=value``
    loose: bool = False  # written with ``loose-``
    name: str = ""  # the option name as written, special prefixes removed (``slave_parallel_workers``)
    known: bool = False  # a catalogued option: ``value`` is mysqld's own reading of it
    warning: str | None = None  # what mysqld logs about the value (adjusted, unrecognised boolean)


@dataclass
class Effective:
    """mysqld's options after reading every file in order: the last setting of each variable, and what could not be read."""

    settings: dict[str, Setting] = field(default_factory=dict)
    undecided: list[Undecided] = field(default_factory=list)
    history: list[Setting] = field(default_factory=list)  # every setting applied, in read order
    ignored: list[tuple[Argument, str]] = field(default_factory=list)  # loose- options mysqld does not have
    arguments: list[Argument] = field(default_factory=list)  # what my_default hands to my_getopt

    def values(self) -> dict[str, str]:
        return {key: setting.value for key, setting in self.settings.items()}

    def warnings(self) -> list[str]:
        return [f"{setting.file} line {setting.line}: {setting.warning}" for setting in self.history if setting.warning]

    def plugin_libraries(self) -> list[str]:
        """Libraries mysqld loads at startup: ``plugin_load`` replaces the list, each ``plugin_load_add``
        adds to it (sql/mysqld.cc ``mysqld_get_one_option`` OPT_PLUGIN_LOAD/OPT_PLUGIN_LOAD_ADD; values
        ``[name=]lib[;...]``)."""
        return _libraries(self.history)


def _libraries(settings: Iterable[Setting]) -> list[str]:
    libraries: list[str] = []
    for setting in settings:
        if setting.key not in ("plugin_load", "plugin_load_add"):
            continue
        if setting.key == "plugin_load":
            libraries = []
        for part in setting.value.split(";"):
            library = part.rpartition("=")[2].strip()
            if library:
                libraries.append(library)
    return libraries


@dataclass(frozen=True)
class Server:
    """What decides which options exist: the server (``pxc`` has ``wsrep_*``, ``ps`` does not; None:
    either) and the plugins loaded besides ``plugin_load`` (the PS operator runs group replication)."""

    operator: str | None = None
    plugins: frozenset[str] = BUILTIN_PLUGINS | {GROUP_REPLICATION}


def server_for(operator: str | None) -> Server:
    if operator == "pxc":
        return Server("pxc", BUILTIN_PLUGINS)
    return Server(operator)


@lru_cache(maxsize=4096)
def normalize_key(key: str) -> str:
    """``loose-Innodb-Buffer-Pool-Size`` -> ``innodb_buffer_pool_size``: the project's own spelling of a
    key it writes (sizing output); foreign text goes through :func:`read_files`, which matches exactly."""
    key = key.strip(" \t\n\v\f\r").lower().replace("-", "_")
    if key.startswith("loose_"):
        key = key[len("loose_") :]
    return key


def _available(option: Option, server: Server, plugins: frozenset[str]) -> bool:
    if server.operator and server.operator not in option.operators:
        return False
    return option.plugin is None or option.plugin in plugins


def _lookup(name: str, server: Server, plugins: frozenset[str]) -> Option | None:
    """findopt(): the option spelled ``name`` (``-`` = ``_``), or its ``plugin-`` alias (sql_plugin.cc)."""
    key = name.replace("-", "_")
    option = BY_NAME.get(key)
    if option is None and key.startswith("plugin_"):
        option = BY_NAME.get(key[len("plugin_") :])
        option = option if option is not None and option.plugin else None
    return option if option is not None and _available(option, server, plugins) else None


def _resolve(name: str, server: Server, plugins: frozenset[str]) -> tuple[Option | None, str | None, bool, list[str]]:
    """my_handle_options(): (option, the prefix stripped last, loose?, every spelling tried)."""
    tried, rest, loose = [name], name, False
    option = _lookup(name, server, plugins)
    prefix = None
    while option is None and (stripped := strip_prefix(rest)) is not None:
        prefix, rest = stripped
        loose = loose or prefix == "loose"
        tried.append(rest)
        option = _lookup(rest, server, plugins)
    return option, prefix if option is not None else None, loose, tried


def _loaded_plugins(arguments: Sequence[Argument], server: Server) -> frozenset[str]:
    """Plugins mysqld loads: the server's own and those ``plugin_load``/``plugin_load_add`` name."""
    loads = []
    for argument in arguments:
        option, _, _, _ = _resolve(argument.name, server, server.plugins)
        if option is not None and option.name in ("plugin_load", "plugin_load_add"):
            loads.append(Setting(option.name, argument.value or "", argument.group, argument.file, argument.line, ""))
    names = {PLUGIN_LIBRARIES.get(library) for library in _libraries(loads)}  # dlopen: exact
    return server.plugins | frozenset(name for name in names if name)


def _where(argument: Argument) -> str:
    split = " (the part past byte 4094, which mysqld reads as a line of its own)" if argument.split else ""
    return f"{argument.file} line {argument.line}{split}"


def _current(effective: Effective, option: Option) -> int | None:
    setting = effective.settings.get(option.name)
    if setting is None:
        return option.default
    return int(setting.value) if setting.value.isascii() and setting.value.isdigit() else None  # a template: unknown


def _apply(effective: Effective, argument: Argument, server: Server, plugins: frozenset[str]) -> None:
    option, prefix, loose, tried = _resolve(argument.name, server, plugins)
    if option is None:
        reasons = [unknown_reason(name, server.operator, plugins) for name in tried]
        if all(reasons):
            if loose:
                effective.ignored.append((argument, reasons[-1] or ""))
                return
            raise MyCnfError(
                f"{_where(argument)}: mysqld has no option {argument.name!r} ({reasons[-1]}), so it stops "
                "at startup with 'unknown variable'; fix the name, prefix it with loose- or remove the line"
            )
        key = argument.name.replace("-", "_")
        key = key[len("loose_") :] if key.startswith("loose_") else key
        _store(effective, _setting(argument, key, "ON" if argument.value is None else argument.value, loose, argument.name))
        return
    if argument.value is not None and TEMPLATE in argument.value and prefix is None:
        # The operator renders {{containerMemoryLimit ...}} before mysqld reads the file: kept as written
        # for the policies, which render it themselves (policies/_readers/memory.py).
        _store(effective, _setting(argument, option.name, argument.value, loose, argument.name, known=True))
        return
    value_argument = prefixed_argument(prefix, argument.value)
    try:
        if prefix == "maximum" and option.plugin is None:  # sys_var::max_var_ptr(): session storage only
            if option.scope != "session":
                raise Refused(f"the maximum value of {option.name!r} cannot be set (a global variable)")
            value = set_value(option, value_argument)
            current = _current(effective, option) if option.kind not in ("bool", "enum", "str") else None
            if value is None or current is None or int(value.text) >= current:
                return  # the session cap only; getopt_ll/ull lower the value when it is above the cap
        else:
            value = set_value(option, value_argument)
    except Refused as error:
        raise MyCnfError(f"{_where(argument)}: {error}; mysqld stops at startup ('Error while setting value')") from None
    if value is None:
        return  # a bare string option keeps its value
    name = tried[-1] if prefix else argument.name
    _store(effective, _setting(argument, option.name, value.text, loose, name, known=True, warning=value.warning))


def _setting(
    argument: Argument, key: str, value: str, loose: bool, name: str, known: bool = False, warning: str | None = None
) -> Setting:
    """The setting ``argument`` makes: where it was written, and as what (its value, or the name of a bare option)."""
    written = argument.value if argument.value is not None else argument.name
    return Setting(
        key, value, argument.group, argument.file, argument.line, written, argument.value is None, loose, name, known, warning
    )


def _store(effective: Effective, setting: Setting) -> None:
    effective.history.append(setting)
    effective.settings.pop(setting.key, None)  # keep read order: the last one is last
    effective.settings[setting.key] = setting


def mysqld_groups(version: str | None) -> frozenset[str]:
    """Groups mysqld reads: [mysqld], [server] and its own [mysqld-X.Y] (``version`` is ``X.Y``); every
    supported version's group when the version is not known (a breach there may run, so it is read
    rather than ignored)."""
    versions = (f"mysqld-{version}",) if version else MYSQL_VERSION_GROUPS
    return frozenset((MYSQLD, SERVER, *versions))


def read_files(files: Sequence[OptionFile], groups: Iterable[str], server: Server | None = None) -> Effective:
    """Read ``files`` in order as mysqld does (includes among them followed by path).

    Raises :class:`MyCnfError` for text mysqld refuses to read or an option it would stop on. An
    include of a path that is none of ``files`` becomes an :class:`Undecided` finding.
    """
    server = server or Server()
    arguments, undecided = default_arguments(files, groups)
    effective = Effective(undecided=undecided, arguments=arguments)
    plugins = _loaded_plugins(arguments, server)
    for argument in arguments:
        _apply(effective, argument, server, plugins)
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
    if operator == "ps":  # each appended to node.cnf as text (cat "$f"; echo), in this order: the echo ends
        files = [OptionFile(PS_NODE_FILE, "[mysqld]\n")]  # the text's last line with a newline
        if auto_config is not None:
            files.append(OptionFile(PS_AUTO_FILE, auto_config + "\n", appended=True))
        if configuration:
            files.append(OptionFile(PS_USER_FILE, configuration + "\n", appended=True))
        return files
    raise ValueError(f"unknown operator {operator!r}")


def effective_options(
    operator: str, configuration: str | None, version: str | None = None, auto_config: str | None = None
) -> Effective:
    """What mysqld runs with, from the user's ``configuration`` in the operator's layering."""
    if configuration is not None and not isinstance(configuration, str):
        raise MyCnfError(f"configuration must be a string, got {type(configuration).__name__}")
    return read_files(operator_files(operator, configuration, auto_config), mysqld_groups(version), server_for(operator))


# ---- plain reading and rendering -------------------------------------------------------------------

_TRUE = frozenset({"on", "true", "1"})


def is_on(value: str | None) -> bool:
    """A boolean as my_getopt reads it (get_bool_argument): ``ON``, ``TRUE`` or ``1`` in any case."""
    return (value or "").strip().lower() in _TRUE


def parse(text: object, default_section: str | None = MYSQLD) -> dict[str, dict[str, str]]:
    """Groups -> {normalized key -> value} of one file as my_default reads it, every group (``[sst]``
    too); lines before any header go to ``default_section`` (``None``: such lines are an error)."""
    if text is None:
        return {}
    if not isinstance(text, str):
        raise MyCnfError(f"configuration must be a string, got {type(text).__name__}")
    arguments, _ = default_arguments([OptionFile("configuration", text, default_section)], None)
    sections: dict[str, dict[str, str]] = {}
    for argument in arguments:
        section = sections.setdefault(argument.group, {})
        if argument.name:
            section[normalize_key(argument.name)] = "ON" if argument.value is None else argument.value
    return sections


def mysqld_options(text: object, default_section: str = MYSQLD, version: str | None = None) -> dict[str, str]:
    """The options mysqld keeps from one fragment whose leading lines are in ``default_section``."""
    if text is not None and not isinstance(text, str):
        raise MyCnfError(f"configuration must be a string, got {type(text).__name__}")
    effective = read_files([OptionFile("configuration", text or "", default_section)], mysqld_groups(version))
    return effective.values()


def parse_provider_options(value: str | None) -> dict[str, str]:
    """``"gcache.size=1G; gcs.fc_limit=100"`` -> {"gcache.size": "1G", "gcs.fc_limit": "100"}, as Galera
    splits it (:func:`percona_mysql_k8s.core.galera_options.parse`: keys exact, escapes honoured)."""
    try:
        return galera_options.parse(value)
    except galera_options.ProviderOptionError as error:
        raise MyCnfError(str(error)) from None


def render_provider_options(options: Mapping[str, object]) -> str:
    return "; ".join(f"{key}={value}" for key, value in options.items())


def _quote(text: str) -> str:
    """A value mysqld reads back unchanged: quoted (with ``\\`` and ``"`` escaped) when it has blanks,
    ``#``, ``;``, quotes, backslashes or any non-ASCII character (a UTF-8 byte 0xA0 at either end is a
    latin1 blank to my_default and would be trimmed outside quotes)."""
    if text and text.isascii() and not re.search(r"[\s;#'\"\\\x00-\x1f\x7f]", text):
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
    "MYSQLD",
    "PROVIDER_OPTIONS",
    "SERVER",
    "Argument",
    "Effective",
    "MyCnfError",
    "OptionFile",
    "Server",
    "Setting",
    "Undecided",
    "effective_options",
    "is_on",
    "mysqld_groups",
    "mysqld_options",
    "normalize_key",
    "operator_files",
    "parse",
    "parse_provider_options",
    "read_files",
    "render",
    "render_provider_options",
    "server_for",
]
