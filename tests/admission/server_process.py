"""``percona-mysql-admission serve`` as a process on loopback, for the tests and the tiers (the API server calls it)."""

from __future__ import annotations

import os
import signal
import socket
import ssl
import subprocess
import sys
import time
from pathlib import Path

import httpx


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Server:
    """The server on 127.0.0.1 with a certificate for that address (percona_mysql_k8s.admission.tls)."""

    def __init__(self, directory: Path, *, mode: str, extra: tuple[str, ...] = ("--no-cluster",), port: int | None = None):
        from percona_mysql_k8s.admission import tls

        directory.mkdir(parents=True, exist_ok=True)
        self.tls_dir = directory / "tls"
        tls.kept(self.tls_dir, ["localhost"], ["127.0.0.1"])
        self.port = port or free_port()
        self.metrics_port = free_port()
        self.log = directory / f"server-{self.port}.log"
        self.command = [
            sys.executable,
            "-m",
            "percona_mysql_k8s.admission",
            "serve",
            "--mode",
            mode,
            "--host",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--metrics-port",
            str(self.metrics_port),
            "--cert",
            str(self.tls_dir / "tls.crt"),
            "--key",
            str(self.tls_dir / "tls.key"),
            *extra,
        ]
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"https://127.0.0.1:{self.port}/validate"

    @property
    def ca(self) -> ssl.SSLContext:
        """What a client verifies the server with: the CA alone (httpx ``verify=``)."""
        return ssl.create_default_context(cafile=str(self.tls_dir / "ca.crt"))

    def start(self, timeout: float = 60) -> Server:
        handle = self.log.open("ab")
        self.process = subprocess.Popen(self.command, stdout=handle, stderr=subprocess.STDOUT, env=dict(os.environ))
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the admission server exited {self.process.returncode}: {self.log.read_text()[-2000:]}")
            try:
                if httpx.get(f"https://127.0.0.1:{self.port}/readyz", verify=self.ca, timeout=2).status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.2)
        self.stop()
        raise TimeoutError(f"the admission server was not ready in {timeout}s: {self.log.read_text()[-2000:]}")

    def stop(self) -> int | None:
        """SIGTERM (as the kubelet stops a pod), then SIGKILL after 15 s; the exit status."""
        if self.process is None or self.process.poll() is not None:
            return None if self.process is None else self.process.returncode
        self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            return self.process.wait(10)

    def kill(self) -> None:
        """SIGKILL, as a crash or an OOM kill would end it; its pack processes too (in a pod they die with it)."""
        if self.process is not None and self.process.poll() is None:
            children = _children(self.process.pid)
            self.process.kill()
            self.process.wait(10)
            for child in children:
                try:
                    os.kill(child, signal.SIGKILL)
                except ProcessLookupError:
                    pass


def _children(pid: int) -> list[int]:
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.append(int(stat.parent.name))
    return found
