"""Resident memory of a server on this machine, from ``/proc`` (Linux, proc(5)).

The server names its PID file (``@@pid_file``); the PID is trusted only when that process owns the socket
listening on the port the grader dialled: behind ``kubectl port-forward`` the listener is kubectl, and a
PID file path from inside a pod may name an unrelated local process. Memory is VmHWM (peak resident set)
and VmRSS, never VmSize: MariaDB 10.11 reserves ``innodb_buffer_pool_size_max`` of address space.
"""

from __future__ import annotations

from pathlib import Path

from .checks import Resident

LISTEN = "0A"  # include/net/tcp_states.h TCP_LISTEN, as /proc/net/tcp prints it


def status_bytes(text: str) -> dict[str, int]:
    """``/proc/<pid>/status`` -> {"VmHWM": bytes, "VmRSS": bytes, ...} for the ``kB`` fields."""
    fields = {}
    for line in text.splitlines():
        name, _, rest = line.partition(":")
        parts = rest.split()
        if len(parts) == 2 and parts[1] == "kB" and parts[0].isascii() and parts[0].isdigit():
            fields[name] = int(parts[0]) * 1024
    return fields


def listening_inodes(table: str, port: int) -> set[int]:
    """Socket inodes listening on ``port`` in a ``/proc/<pid>/net/tcp`` or ``tcp6`` table."""
    inodes = set()
    for line in table.splitlines()[1:]:
        columns = line.split()
        if len(columns) < 10:
            continue
        _, _, local_port = columns[1].rpartition(":")
        try:
            if int(local_port, 16) == port and columns[3] == LISTEN:
                inodes.add(int(columns[9]))
        except ValueError:
            continue
    return inodes


def _socket_inodes(fd_dir: Path) -> set[int]:
    inodes = set()
    for fd in fd_dir.iterdir():
        try:
            target = str(fd.readlink())
        except OSError:
            continue
        if target.startswith("socket:[") and target.endswith("]"):
            inodes.add(int(target[len("socket:[") : -1]))
    return inodes


def local_resident(pid_file: str, port: int, proc: Path = Path("/proc")) -> tuple[Resident | None, str]:
    """The server's resident memory, or None and why it cannot be read here."""
    try:
        pid = int(Path(pid_file).read_text().split()[0])
    except (OSError, ValueError, IndexError) as error:
        return None, f"pid file {pid_file} is not readable here ({type(error).__name__}): not a local server"
    base = proc / str(pid)
    try:
        listening = set()
        for table in ("tcp", "tcp6"):
            path = base / "net" / table
            if path.exists():
                listening |= listening_inodes(path.read_text(), port)
        owned = _socket_inodes(base / "fd")
        status = status_bytes((base / "status").read_text())
    except OSError as error:
        return None, f"/proc/{pid} is not readable ({type(error).__name__}: {error.strerror or error})"
    if not listening & owned:
        return None, f"process {pid} (from {pid_file}) does not listen on port {port}: not the server dialled"
    if "VmRSS" not in status:
        return None, f"/proc/{pid}/status has no VmRSS"
    return Resident(status["VmRSS"], status.get("VmHWM"), f"/proc/{pid} VmHWM"), ""
