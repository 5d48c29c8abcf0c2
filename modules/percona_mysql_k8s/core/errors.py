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
