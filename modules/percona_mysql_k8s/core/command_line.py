"""The argument parser every console command of the project uses (sizing, grade, restore, policy check, bundle).

Two promises the commands share: a flag is spelled out (no abbreviations: ``--c`` or ``--na`` must not silently
mean ``--cluster`` or ``--name``, nor change meaning when a flag is added), and a flag argparse cannot read is
bad input like any other: ``UsageError``, which each command prints as its one ``error:`` line (exit status 2),
never the whole usage block; bad input the core refuses names the flag (``error_line``). Pure standard library, so the sizing and grading commands (which may import only
the core) use it as well as the tools in ``cli``.
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping, Sequence
from typing import NoReturn

from .errors import InputError


class UsageError(Exception):
    """A flag argparse could not read; reported as one line like every other bad input."""


class Parser(argparse.ArgumentParser):
    """``argparse.ArgumentParser`` that refuses abbreviated flags and raises ``UsageError`` on bad words.

    ``examples``: command lines shown under the help exactly as written (``Examples:``, two spaces in)."""

    def __init__(self, *, examples: Sequence[str] = (), **kwargs) -> None:
        if examples:
            kwargs["epilog"] = "Examples:\n" + "\n".join(f"  {example}" for example in examples)
            kwargs["formatter_class"] = argparse.RawDescriptionHelpFormatter
        super().__init__(allow_abbrev=False, **kwargs)

    def error(self, message: str) -> NoReturn:  # argparse would print the whole usage block, then exit
        raise UsageError(message)


def error_line(error: InputError, flags: Mapping[str, str]) -> str:
    """``error: T2: --proxy: ProxySQL is supported only with PXC ...``: the rule, then the input key as the flag a
    user typed (``flags``; else ``--`` and the key, ``-`` for ``_``), then the message."""
    flag = flags.get(error.key, f"--{error.key.replace('_', '-')}")
    prefix = f"{error.rule}: " if error.rule else ""
    return f"error: {prefix}{flag}: {error.message}"


def parsed_or_error(parser: argparse.ArgumentParser, argv: Sequence[str] | None) -> argparse.Namespace | None:
    """``parser``'s reading of ``argv``, or None once the one ``error:`` line is printed on stderr (exit status 2)."""
    import sys

    from .errors import one_line

    try:
        return parser.parse_args(argv)
    except UsageError as error:
        print(one_line(f"error: {error}"), file=sys.stderr)
        return None
