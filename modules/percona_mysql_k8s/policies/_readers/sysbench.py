"""sysbench command lines read out of a load generator's command and arguments (B2, B3, T3).

Shell scripts are split into commands (newlines, ``;``, ``&&``, ``||``, backslash continuations joined)
and each command that runs sysbench is tokenized; ``$VAR``/``${VAR}`` are expanded from the
container's literal environment values.
"""

from __future__ import annotations

import functools
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
