"""Whether an operator process of the tier is still fit to render: alive, and never panicked (issue 34).

A render wait asks this on every poll (conftest.Tier.assert_operators_healthy), so an operator that dies or panics
fails the test at once, with its own words, instead of surfacing minutes later as a wait's timeout. Two kinds of
panic are told: an unrecovered one kills the process (Go prints ``panic: ...`` and ``goroutine N [running]:`` to
stderr, which the tier's log holds); controller-runtime recovers one in a reconciler and logs it as
``Observed a panic`` (sigs.k8s.io/controller-runtime pkg/internal/controller/controller.go, ``RecoverPanic``), after
which the process lives on and the cluster it reconciled never renders.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Protocol

PANIC = re.compile(r"^panic: |Observed a panic|^goroutine \d+ \[running\]:")


class Process(Protocol):
    def running(self) -> bool: ...
    def log(self) -> str: ...
    def tail(self, lines: int = 20) -> str: ...


def panic_lines(log: str) -> list[str]:
    """The lines of an operator's log that report a panic, with the line after each (its message or frame)."""
    lines = log.splitlines()
    found = []
    for index, line in enumerate(lines):
        if PANIC.search(line):
            found.append(line if index + 1 >= len(lines) else f"{line} | {lines[index + 1].strip()}")
    return found


def operator_failure(operators: Mapping[str, Process]) -> str | None:
    """What is wrong with the first operator that died or panicked, or None while all are fit."""
    for name, process in operators.items():
        panics = panic_lines(process.log())
        if not process.running():
            why = f": {panics[0]}" if panics else ""
            return f"the {name} operator exited{why}; its last lines:\n{process.tail()}"
        if panics:
            return f"the {name} operator panicked: {panics[0]}"
    return None
