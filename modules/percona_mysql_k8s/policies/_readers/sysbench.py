"""sysbench command lines read out of a load generator's command and arguments (B2, B3, T3, R7).

Shell scripts are split into commands (newlines, ``;``, ``&&``, ``||``, backslash continuations joined)
and each command that runs sysbench is tokenized; ``$VAR``/``${VAR}`` are expanded from the
container's literal environment values.

Options as sysbench reads them (akopytov/sysbench 3ceba0b, src/sysbench.c ``parse_option``: ``--name=value``
only; src/sb_options.c ``opt_name_cmp``: ``-`` and ``_`` in a name are the same, so ``--table-size`` is
``--table_size``; ``set_option``: a later occurrence replaces an earlier one). The oltp scripts' ``tables`` and
``table_size`` are Lua options of type double (src/lua/internal/sysbench.cmdline.lua ``arg_types``: a number
default is ``ARG_DOUBLE``), read with ``strtod(value, NULL)`` (sb_options.c ``sb_opt_to_double``: the longest
number at the start, the rest ignored), defaults 1 and 10000 (src/lua/oltp_common.lua). Such Lua options are
registered after ``--config-file`` is read, with their defaults, which replace the file's values
(sysbench.c ``main``: ``parse_general_arguments`` then ``parse_test_arguments`` -> ``sb_register_arg_set`` ->
``set_option``, which frees the values; akopytov/sysbench issue 498): only the command line sets them.
"""

from __future__ import annotations

import functools
import math
import re
import shlex
from collections.abc import Iterable
from dataclasses import dataclass, field

from .values import Unknown

SUBCOMMANDS = ("prepare", "run", "cleanup", "warmup", "prewarm")
_WRITES = re.compile(r"write|insert|update|delete|tpcc|bulk", re.IGNORECASE)
_VARIABLE = re.compile(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?")


@dataclass(frozen=True)
class Invocation:
    text: str
    options: dict = field(default_factory=dict)
    words: tuple[str, ...] = ()

    @property
    def subcommand(self) -> str | None:
        for word in reversed(self.words):
            if word in SUBCOMMANDS:
                return word
        return None

    @property
    def test(self) -> str:
        tests = [w for w in self.words if w.endswith(".lua") or w.startswith("oltp_") or w.startswith("tpcc")]
        return tests[0] if tests else ""

    @property
    def writes(self) -> bool:
        return self.subcommand in ("prepare", "cleanup") or bool(_WRITES.search(self.test))


def _expand(text: str, env: dict[str, str]) -> str:
    return _VARIABLE.sub(lambda m: env.get(m.group(1), m.group(0)), text)


def invocations(script: str, env: dict[str, str] | None = None) -> list[Invocation]:
    return list(_invocations(script, tuple(sorted((env or {}).items()))))


@functools.lru_cache(maxsize=256)
def _invocations(script: str, env_items: tuple) -> tuple[Invocation, ...]:
    env = dict(env_items)
    text = re.sub(r"\\\r?\n", " ", script)
    result = []
    for command in re.split(r"\n|;|&&|\|\|", text):
        if "sysbench" not in command:
            continue
        command = _expand(command, env)
        try:
            tokens = shlex.split(command, posix=True)
        except ValueError:
            tokens = command.split()
        start = next((i for i, token in enumerate(tokens) if token.rsplit("/", 1)[-1].endswith("sysbench")), None)
        if start is None:
            continue
        options, words = {}, []
        for token in tokens[start + 1 :]:
            if token.startswith("--"):
                key, _, value = token[2:].partition("=")
                options[key.replace("_", "-")] = value
            elif token and not token.startswith(("|", ">", ")")):
                words.append(token.rstrip(")"))
        result.append(Invocation(command.strip(), options, tuple(words)))
    return tuple(result)


def literal_env(workload, uses: Iterable[str] = ()) -> dict[str, str]:
    """The container's literal environment values. At preview a value may be unknown: NotKnown when the script
    expands that variable (or ``uses`` names it), or when a variable's name is unknown (it may be any of them);
    an unknown value nothing reads is left out."""
    env: dict[str, str] = {}
    used = set(_VARIABLE.findall(workload.script())) | set(uses)
    for path, entry, _ in workload.env():
        name, value = entry.get("name"), entry.get("value")
        if isinstance(name, Unknown):
            raise name.error(f"{path}.name")
        if isinstance(value, Unknown):
            if name in used:
                raise value.error(f"{path}.value")
            continue
        if isinstance(name, str) and isinstance(value, str | int | float):
            env[name] = str(value)
    return env


# src/lua/oltp_common.lua sysbench.cmdline.options: the defaults of the oltp scripts' data set.
OLTP_DEFAULT_TABLES, OLTP_DEFAULT_TABLE_SIZE = 1.0, 10000.0
# Where our own components and common Job manifests put the server when --mysql-host is not on the command line.
HOST_VARIABLES = ("MYSQL_HOST", "MYSQL_HOSTNAME", "DB_HOST")
# C strtod's longest prefix: decimal with exponent, hexadecimal (with a binary exponent), inf/infinity, nan.
_STRTOD = re.compile(
    r"\s*([+-]?)(0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)(?:[pP][+-]?[0-9]+)?"
    r"|(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|inf(?:inity)?|nan)",
    re.IGNORECASE,
)


def strtod(text: str) -> float:
    """``strtod(text, NULL)`` as sysbench calls it: the number at the start of ``text``, 0 when there is none."""
    match = _STRTOD.match(text)
    if match is None:
        return 0.0
    sign, number = match.groups()
    if number[:2].lower() == "0x":
        body = number if "p" in number.lower() else number + "p0"
        value = float.fromhex(body)
    else:
        value = float(number)
    return -value if sign == "-" else value


def oltp_prepare(invocation: Invocation) -> tuple[int, int] | None:
    """(tables, rows per table) an oltp script's ``prepare`` creates, or None when ``invocation`` is no such prepare
    or its data set has no end (inf). oltp_common.lua ``prepare``/``create_table``: ``for i = 1, tables`` and
    ``for i = 1, table_size``, so a fraction is cut off and a negative or NaN count creates nothing."""
    script = invocation.test.rsplit("/", 1)[-1]
    if invocation.subcommand != "prepare" or not script.startswith("oltp_"):
        return None
    counts = []
    for key, default in (("tables", OLTP_DEFAULT_TABLES), ("table-size", OLTP_DEFAULT_TABLE_SIZE)):
        value = strtod(invocation.options[key]) if key in invocation.options else default
        if math.isinf(value) and value > 0:
            return None
        counts.append(int(value) if value >= 1 else 0)  # NaN >= 1 is false: nothing created
    return counts[0], counts[1]


def target_hosts(invocation: Invocation, env: dict[str, str]) -> list[str]:
    """The servers ``invocation`` connects to: ``--mysql-host`` (a list option, comma-separated; drv_mysql.c), else
    the first of HOST_VARIABLES the container sets (our Sysbench component writes it into the config file, whose
    driver options sysbench does read, being registered before the file)."""
    host = invocation.options.get("mysql-host") or next((env[v] for v in HOST_VARIABLES if v in env), "")
    return [part.strip().strip("'\"") for part in host.strip("'\"").split(",") if part.strip()]
