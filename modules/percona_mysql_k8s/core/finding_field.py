"""Which field a finding judged: written by the policy pack at the end of its message, read back by the check.

The analyzer protocol carries a diagnostic's policy, level, message and URN, and nothing that says which property
of the resource was judged (pulumi ``AnalyzeDiagnostic``). So a rule names its field in the message itself, in one
fixed form that reads well in ``pulumi preview`` too::

    ... Fix: set max_connections=500. (field: spec.pxc.configuration, line 7 of its text)

``path`` is the property path as the messages write it (``spec.pxc.resources.limits.memory``,
``values.pxc.configuration``, ``spec.template.spec.containers[0]``); ``line``, for a field whose value is a text
another program reads (a my.cnf in ``configuration``), the line of that text the finding is about. A stack config
key is the path ``config:<key>`` (the stack's ``Pulumi.<stack>.yaml``, not a property). The check
(percona_mysql_k8s.cli.locations) turns the field into the file, line and column where it is written.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

CONFIG_PREFIX = "config:"
_MARKER = re.compile(r" \(field: (?P<path>.+?)(?:, line (?P<line>[1-9][0-9]*) of its text)?\)$")


@dataclass(frozen=True)
class FindingField:
    path: str  # "" for the resource as a whole
    line: int | None = None  # 1-based line within the field's text value

    def marker(self) -> str:
        """The text appended to a message (empty for the resource as a whole)."""
        if not self.path:
            return ""
        line = f", line {self.line} of its text" if self.line else ""
        return f" (field: {self.path}{line})"

    @property
    def config_key(self) -> str | None:
        """The stack config key a finding about the stack config names (``config:<key>``), else None."""
        return self.path[len(CONFIG_PREFIX) :] if self.path.startswith(CONFIG_PREFIX) else None


def split_field(message: str) -> tuple[str, FindingField]:
    """(message without the marker, the field it names); a message without a marker names the whole resource."""
    match = _MARKER.search(message)
    if match is None:
        return message, FindingField("")
    line = match.group("line")
    return message[: match.start()], FindingField(match.group("path"), int(line) if line else None)
