"""Whether an operator process of the tier is still fit to render: alive, and never panicked (issue 34).

A render wait asks this on every poll (conftest.Tier.assert_operators_healthy), so an operator that dies or panics
fails the test at once, with its own words, instead of surfacing minutes later as a wait's timeout. Two kinds of
panic are told: an unrecovered one kills the process (Go prints ``panic: ...`` and ``goroutine N [running]:`` to
stderr, which the tier's log holds); controller-runtime recovers one in a reconciler and logs it as
``Observed a panic`` (sigs.k8s.io/controller-runtime pkg/internal/controller/controller.go, ``RecoverPanic``), after
which the process lives on and the cluster it reconciled never renders.

A recovered panic can be the refusal a test provokes on purpose: the PS operator panics on a ``crVersion`` it cannot
parse (hashicorp/go-version ``Must`` in api/v1 ``Version()``, percona-server-mysql-operator v1.2.0
api/v1/perconaservermysql_types.go:1058), which C2 refuses as ``ps-cr-version``. Such a cluster is named as expected
(``expected``: its namespace and name), and its recovered panics alone are passed over; a crash never is.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from typing import Protocol

RECOVERED = "Observed a panic"
PANIC = re.compile(rf"^panic: |{RECOVERED}|^goroutine \d+ \[running\]:")
# controller-runtime's structured log names the reconciled object: ..."namespace": "ns", "name": "cluster", ...
_OBJECT = re.compile(r'"namespace": "(?P<namespace>[^"]*)", "name": "(?P<name>[^"]*)"')


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


_READ: dict[int, tuple[int, list[str]]] = {}  # id(process) -> (bytes of its log read, the panics found in them)


def _panics(process: Process) -> list[str]:
    """The panics in the process's log; an OperatorProcess's log is read on from where the last call stopped (a wait
    asks every second, and a log grows to megabytes)."""
    path = getattr(process, "log_path", None)
    if path is None or not path.exists():
        return panic_lines(process.log())
    offset, found = _READ.get(id(process), (0, []))
    with path.open("rb") as log:
        log.seek(offset)
        chunk = log.read()
    complete = chunk.rfind(b"\n") + 1  # whole lines only: the rest is read next time
    found = found + panic_lines(chunk[:complete].decode(errors="replace"))
    _READ[id(process)] = (offset + complete, found)
    return found


def _expected(line: str, expected: Collection[tuple[str, str]]) -> bool:
    """Whether ``line`` is a recovered panic about a cluster a test provokes it with."""
    found = _OBJECT.search(line) if RECOVERED in line else None
    return found is not None and (found.group("namespace"), found.group("name")) in expected


def operator_failure(operators: Mapping[str, Process], expected: Collection[tuple[str, str]] = ()) -> str | None:
    """What is wrong with the first operator that died or panicked, or None while all are fit; ``expected``: the
    (namespace, name) of clusters whose recovered panic is the refusal a test provokes."""
    for name, process in operators.items():
        panics = _panics(process)
        if not process.running():
            why = f": {panics[0]}" if panics else ""
            return f"the {name} operator exited{why}; its last lines:\n{process.tail()}"
        unexpected = [line for line in panics if not _expected(line, expected)]
        if unexpected:
            return f"the {name} operator panicked: {unexpected[0]}"
    return None
