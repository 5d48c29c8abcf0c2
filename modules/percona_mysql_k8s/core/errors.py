"""Errors raised by the core for bad input.

Every error names the offending input key and, where one applies, the rule ID from the rule catalogue (docs/rules.md), so a user
can go from the message to the rule. Callers (the CLI, the stack program) print ``str(error)``: never a
traceback.
"""

from __future__ import annotations


class InputError(ValueError):
    """Bad input to the core: ``key`` is the input (or stack config) key, ``rule`` the rule ID or None."""

    def __init__(self, key: str, message: str, rule: str | None = None):
        self.key = key
        self.rule = rule
        self.message = message
        prefix = f"{rule}: " if rule else ""
        super().__init__(f"{prefix}{key}: {message}")


# What str.splitlines() breaks a line at: a message echoing such a character would not be one line.
_LINE_BREAKS = {ord(char): repr(char)[1:-1] for char in "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"}


def one_line(text: str) -> str:
    """``text`` with every line-breaking character escaped (``\\r``, ``\\x1c``): a command's error stays one line
    whatever input it quotes back."""
    return text.translate(_LINE_BREAKS)
