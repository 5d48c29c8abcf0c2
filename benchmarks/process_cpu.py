"""CPU seconds of a command and of every process it starts, by role, read from /proc while it runs.

benchmarks/engine_policy_bench.py times every preview with it (its CPU columns), and ``--processes`` prints where a
preview's CPU goes: the CLI, each language host (the program's and the one that proxies the pack), the program's
Python, the pack's Python, the providers. (The rusage of the CLI would miss the pack: the language host that
proxies it does not always reap it before the CLI exits.)
A process's figure is the last one read before it exited (every 20 ms), so a process that lives less than that may
be missed; a preview's processes live for seconds. Linux only (/proc).
"""

from __future__ import annotations

import os
import subprocess
import tempfile
import time
from collections import Counter
from pathlib import Path

TICK = os.sysconf("SC_CLK_TCK")


def _children(pid: int) -> list[int]:
    """Children of every thread of ``pid`` (a Go program starts its children from any of its threads)."""
    children = []
    try:
        tasks = list(Path(f"/proc/{pid}/task").iterdir())
    except OSError:
        return []
    for task in tasks:
        try:
            children.extend(int(child) for child in (task / "children").read_text().split())
        except OSError:
            continue
    return children


def _descendants(pid: int) -> list[int]:
    found, pending = [], [pid]
    while pending:
        current = pending.pop()
        found.append(current)
        pending.extend(_children(current))
    return found


def _sample(pid: int) -> tuple[float, list[str]] | None:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return None
    fields = stat.rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK, [part.decode(errors="replace") for part in argv if part]


def role(argv: list[str]) -> str:
    """What a process of a preview is, from its command line."""
    name = Path(argv[0]).name if argv else "?"
    text = " ".join(argv)
    if name == "pulumi":
        return "pulumi CLI (engine)"
    if name.startswith("pulumi-language-"):
        return "language hosts"
    if name.startswith("pulumi-resource-"):
        return f"provider {name.removeprefix('pulumi-resource-')}"
    if "pulumi.policy" in text:
        return "the pack (python -m pulumi.policy)"
    if "import pulumi.run.plugin" in text:
        return "language host's check (python -c 'import pulumi.run.plugin')"
    if name.startswith("python"):
        return "program and other Python"
    return name


def run(command: list[str], **popen) -> tuple[subprocess.CompletedProcess, Counter]:
    """Run ``command``; return its result and CPU seconds per role of the processes it started."""
    # the output goes to files, not pipes: a preview with thousands of findings writes more than a pipe holds, and
    # nothing reads a pipe while this loop samples (the preview would block on its write for ever)
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        process = subprocess.Popen(command, stdout=out, stderr=err, text=True, **popen)
        last: dict[int, tuple[float, list[str]]] = {}
        while process.poll() is None:
            for pid in _descendants(process.pid):
                sample = _sample(pid)
                if sample is not None:
                    last[pid] = sample if sample[1] or pid not in last else (sample[0], last[pid][1])
            time.sleep(0.02)
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
    by_role: Counter = Counter()
    for seconds, argv in last.values():
        by_role[role(argv)] += seconds
    return subprocess.CompletedProcess(command, process.returncode, stdout, stderr), by_role
