"""The one HAProxy reader (core.haproxy_config, core.haproxy_proxies, core.haproxy_bound) against haproxy itself.

The oracle is Debian's ``haproxy`` package (``apt-get install haproxy``; bookworm ships 2.6.12; the operators'
images run 2.8, whose only difference for what is read here is the global maxconn's parsing, which the reader
takes as ``version="2.6"``). Over generated configurations in other people's styles (comments, tabs, quotes,
named defaults with ``from``, ``listen`` sections, ``default-server`` before and after servers, ``minconn``,
``atol`` numbers such as ``1k`` or ``+7``, ``no`` prefixes, mistakes), ``haproxy -c`` must accept exactly what the
reader accepts; each accepted one is started on unix sockets in a temporary directory (no TCP port is bound)
and its stats socket must show the limits the reader derives: ``show info`` Maxconn, ``show stat`` slim of each
frontend (its maxconn), server (its maxconn after minconn) and backend (its fullconn, which HAProxy computes
from the frontends that route to it). A last test opens real client connections and counts those reaching a
listener standing in for mysqld: the reader's bound, no more, no fewer.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import threading
import time
from contextlib import contextmanager
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from oracles import oracle_missing
from percona_mysql_k8s.core.haproxy_bound import member_bound
from percona_mysql_k8s.core.haproxy_config import HAProxyConfigError
from percona_mysql_k8s.core.haproxy_proxies import Config, read

REASON = "needs Debian's haproxy as the oracle: apt-get install haproxy (scripts/haproxy-oracle.sh install)"
DIR = "@DIR@"  # replaced by each run's temporary directory


@pytest.fixture(scope="module")
def haproxy() -> str:
    found = shutil.which("haproxy") or shutil.which("haproxy", path="/usr/sbin")
    if found is None:
        oracle_missing(REASON)
    return found


def _check(haproxy: str, path: Path) -> tuple[bool, str]:
    done = subprocess.run([haproxy, "-c", "-f", str(path)], capture_output=True, text=True, timeout=60)
    return done.returncode == 0, done.stdout + done.stderr


@contextmanager
def _running(haproxy: str, path: Path, stats: Path):
    process = subprocess.Popen([haproxy, "-db", "-f", str(path)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 10
        while not stats.exists():
            if process.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"haproxy did not start: {process.stderr.read().decode()[-500:]}")
            time.sleep(0.02)
        yield
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _ask(stats: Path, command: str) -> str:
    deadline = time.monotonic() + 10
    while True:  # the socket file appears a moment before haproxy listens on it
        try:
            return _ask_once(stats, command)
        except (ConnectionRefusedError, FileNotFoundError):
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def _ask_once(stats: Path, command: str) -> str:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
        client.settimeout(10)
        client.connect(str(stats))
        client.sendall(command.encode() + b"\n")
        chunks = []
        while chunk := client.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks).decode()


def _observed(stats: Path) -> tuple[int, dict[tuple[str, str], str]]:
    info = dict(line.split(": ", 1) for line in _ask(stats, "show info").splitlines() if ": " in line)
    rows = [line.split(",") for line in _ask(stats, "show stat").splitlines() if line and not line.startswith("#")]
    header = _ask(stats, "show stat").splitlines()[0].lstrip("# ").split(",")
    slim = header.index("slim")
    return int(info["Maxconn"]), {(row[0], row[1]): row[slim] for row in rows}


def _expected(config: Config, maxconn: int) -> dict[tuple[str, str], str]:
    """The slim column the reader predicts, given the process's Maxconn (derived from this host's limits)."""
    expected: dict[tuple[str, str], str] = {}
    feeding: dict[str, int] = {}
    for name, proxy in config.frontends.items():
        limit = proxy.maxconn or maxconn
        expected[(name, "FRONTEND")] = str(limit)
        static = [*proxy.routes, *([proxy.default_backend] if proxy.default_backend else [])]
        if proxy.kind == "listen" and not proxy.default_backend:
            static.append(name)
        for target in dict.fromkeys(static):
            feeding[target] = feeding.get(target, 0) + limit
    for name, proxy in config.backends.items():
        expected[(name, "BACKEND")] = str(proxy.fullconn or max(1, (feeding.get(name, 0) + 9) // 10))
        for server in proxy.servers:
            expected[(name, server.name)] = str(server.limit or "")
    return expected


# ---- configurations in other people's styles ---------------------------------------------------------------

NUMBERS = st.sampled_from(["7", "12", "+9", "007", "1k", '"15"', "3 # per pod", "40"])
BLANK = st.sampled_from(["  ", "\t", "    ", " \t "])


@st.composite
def configurations(draw) -> str:
    """A configuration in the subset the reader models; sometimes with a mistake haproxy -c refuses."""
    pad = draw(BLANK)
    lines = ["# generated", "global", f"{pad}stats socket {DIR}/stats.sock mode 600 level admin"]
    if draw(st.booleans()):
        lines.append(f"{pad}maxconn {draw(st.sampled_from(['300', '+250', '0', '400', '123']))}")
        if draw(st.booleans()):
            lines.append(f"{pad}maxconn 999  # an alert: the first stays, unless it was 0")
    named: list[str] = []
    for index in range(draw(st.integers(0, 2))):
        header = "defaults"
        if draw(st.booleans()):
            header += f" d{index}"
            if named and draw(st.booleans()):
                header += f" from {draw(st.sampled_from(named))}"
        lines += [header, f"{pad}mode tcp", f"{pad}timeout client 10s", f"{pad}timeout server 10s", f"{pad}timeout connect 1s"]
        if " d" in header:
            named.append(f"d{index}")
        if draw(st.booleans()):
            lines.append(f"{pad}maxconn {draw(NUMBERS)}")
        if draw(st.booleans()):
            lines.append(f"{pad}default-server {draw(st.sampled_from(['maxconn', 'minconn']))} {draw(NUMBERS)}")
        if draw(st.booleans()):
            lines.append(f"{pad}no option dontlognull")
    backends = [f"b{i}" for i in range(draw(st.integers(1, 3)))]
    for name in backends:
        lines += _backend(draw, name, pad, named)
    for index in range(draw(st.integers(1, 3))):
        lines += _frontend(draw, index, pad, named, backends)
    mistake = draw(st.sampled_from([None] * 6 + ["missing", "novalue", "no", "server-in-frontend", "old-style"]))
    if mistake == "missing":
        lines += ["frontend oops", f"{pad}bind unix@{DIR}/oops.sock", f"{pad}default_backend nowhere"]
    elif mistake == "novalue":
        lines += ["frontend oops", f"{pad}bind unix@{DIR}/oops.sock", f'{pad}maxconn ""']
    elif mistake == "no":
        lines += ["frontend oops", f"{pad}bind unix@{DIR}/oops.sock", f"{pad}no maxconn 5"]
    elif mistake == "server-in-frontend":
        lines += ["frontend oops", f"{pad}bind unix@{DIR}/oops.sock", f"{pad}server s 127.0.0.1:3306"]
    elif mistake == "old-style":
        lines += ["frontend oops 127.0.0.1:3306", f"{pad}default_backend {backends[0]}"]
    return "\n".join(lines) + "\n"


def _from(draw, named: list[str]) -> str:
    return f" from {draw(st.sampled_from(named))}" if named and draw(st.booleans()) else ""


def _server_options(draw) -> str:
    options = []
    for keyword in draw(st.lists(st.sampled_from(["maxconn", "minconn", "weight"]), max_size=2)):
        options.append(f"{keyword} {draw(NUMBERS) if keyword != 'weight' else '10'}".replace(" # per pod", ""))
    return (" " + " ".join(options)) if options else ""


def _backend(draw, name: str, pad: str, named: list[str]) -> list[str]:
    lines = [f"backend {name}{_from(draw, named)}", f"{pad}mode tcp", f"{pad}balance roundrobin"]
    if draw(st.booleans()):
        lines.append(f"{pad}fullconn {draw(st.sampled_from(['50', '8']))}")
    for index in range(draw(st.integers(0, 3))):
        if draw(st.booleans()):
            lines.append(f"{pad}default-server{_server_options(draw) or ' maxconn 4'}")
        lines.append(f"{pad}server s{index} 127.0.0.1:3306{_server_options(draw)}")
    return lines


def _frontend(draw, index: int, pad: str, named: list[str], backends: list[str]) -> list[str]:
    kind = draw(st.sampled_from(["frontend", "frontend", "listen"]))
    name = f"f{index}"
    lines = [f"{kind} {name}{_from(draw, named)}", f"{pad}mode tcp", f"{pad}bind unix@{DIR}/{name}.sock"]
    if draw(st.booleans()):
        lines.append(f"{pad}maxconn {draw(NUMBERS)}")
    if draw(st.booleans()):
        lines.append(f"{pad}use_backend {draw(st.sampled_from(backends))} if TRUE")
    if kind == "listen" and draw(st.booleans()):
        lines.append(f"{pad}server own 127.0.0.1:3306{_server_options(draw)}")
    elif kind == "frontend" or draw(st.booleans()):
        lines.append(f"{pad}default_backend {draw(st.sampled_from(backends))}")
    return lines


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(configurations())
def test_haproxy_accepts_what_the_reader_accepts_and_runs_its_limits(haproxy, tmp_path_factory, text):
    directory = tmp_path_factory.mktemp("haproxy")
    written = text.replace(DIR, str(directory))
    path = directory / "haproxy.cfg"
    path.write_text(written)
    accepted, output = _check(haproxy, path)
    try:
        config = read([written], version="2.6")
    except HAProxyConfigError as error:
        assert not accepted, (str(error), written)
        return
    assert accepted, (output, written)
    with _running(haproxy, path, directory / "stats.sock"):
        maxconn, slim = _observed(directory / "stats.sock")
    if config.global_maxconn:
        assert maxconn == config.global_maxconn
    expected = _expected(config, maxconn)
    assert {key: slim.get(key) for key in expected} == expected, written


# ---- the bound, with real connections --------------------------------------------------------------------


class _Mysqld:
    """A listener standing in for mysqld's port: it accepts and holds every connection, and counts them."""

    def __init__(self):
        self.listener = socket.create_server(("127.0.0.1", 0), backlog=256)
        self.port = self.listener.getsockname()[1]
        self.accepted: list[socket.socket] = []
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self):
        while True:
            try:
                connection, _ = self.listener.accept()
            except OSError:
                return
            self.accepted.append(connection)

    def close(self):
        self.listener.close()
        for connection in self.accepted:
            connection.close()


BOUND_CASES = [
    # (configuration, the bound as a reader of the source derives it)
    # two frontends at 3 and 4 sessions, the server unlimited: 3 + 4
    (
        "frontend a\n  bind unix@@DIR@/a.sock\n  maxconn 3\n  default_backend db\n"
        "frontend b\n  bind unix@@DIR@/b.sock\n  maxconn 4\n  default_backend db\n",
        7,
    ),
    # the global maxconn 5 over both frontends
    (
        "global\n  maxconn 5\n  stats socket @DIR@/stats.sock level admin\n"
        "frontend a\n  bind unix@@DIR@/a.sock\n  default_backend db\n"
        "frontend b\n  bind unix@@DIR@/b.sock\n  default_backend db\n",
        5,
    ),
    # a defaults section's default-server reaches the server of a backend in the next file: maxconn 2 (the
    # frontend's "10k" is atol's 10)
    (
        "defaults\n  mode tcp\n  timeout queue 30s\n  default-server maxconn 2\n"
        "frontend a\n  bind unix@@DIR@/a.sock\n  maxconn 10k\n  default_backend db\n",
        2,
    ),
    # minconn above maxconn becomes the maxconn (srv_minmax_conn_apply): 6; the frontend allows 9
    (
        "defaults\n  mode tcp\n  timeout queue 30s\n  default-server maxconn 2 minconn 6\n"
        "frontend a\n  bind unix@@DIR@/a.sock\n  maxconn 9\n  default_backend db\n",
        6,
    ),
]


@pytest.mark.parametrize(("text", "bound"), BOUND_CASES)
def test_connections_reaching_mysqld_are_the_readers_bound(haproxy, tmp_path, text, bound):
    if "stats socket" not in text:
        text = f"global\n  stats socket {DIR}/stats.sock level admin\n" + text
    backend = "backend db\n  mode tcp\n  timeout connect 5s\n  timeout server 60s\n  server m 127.0.0.1:3306\n"
    timeouts = "defaults\n  mode tcp\n  timeout client 60s\n  timeout connect 5s\n  timeout server 60s\n  timeout queue 30s\n"
    if "defaults" not in text:
        text = text.replace("frontend a", timeouts + "frontend a", 1)
    config = read([text.replace(DIR, str(tmp_path)), backend], version="2.6")
    assert member_bound(config, ["127.0.0.1"]).connections == bound
    mysqld = _Mysqld()
    (tmp_path / "a.cfg").write_text(text.replace(DIR, str(tmp_path)))
    (tmp_path / "b.cfg").write_text(backend.replace("3306", str(mysqld.port)))
    clients = []
    process = subprocess.Popen(
        [haproxy, "-db", "-f", str(tmp_path / "a.cfg"), "-f", str(tmp_path / "b.cfg")], stderr=subprocess.PIPE
    )
    try:
        deadline = time.monotonic() + 10
        while not (tmp_path / "stats.sock").exists() and time.monotonic() < deadline:
            time.sleep(0.02)
        for name in ("a", "b"):
            if (tmp_path / f"{name}.sock").exists():
                for _ in range(12):
                    client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                    clients.append(client)
                    client.settimeout(0.5)
                    try:
                        client.connect(str(tmp_path / f"{name}.sock"))
                    except OSError:
                        pass  # the listen backlog is full: this one waits outside HAProxy
        deadline = time.monotonic() + 5
        while len(mysqld.accepted) < bound and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.5)  # room for any connection beyond the bound to arrive (none may)
        assert len(mysqld.accepted) == bound
    finally:
        for client in clients:
            client.close()
        process.terminate()
        process.wait(timeout=10)
        mysqld.close()


_MINIMAL_GLOBAL = "global\n  maxconn 326\n  external-check\n  insecure-fork-wanted\n"
_FRONTEND = "frontend galera-in\n  bind 127.0.0.1:3306\n  mode tcp\n  default_backend galera-nodes\n"


@pytest.mark.parametrize(
    "custom",
    [
        _MINIMAL_GLOBAL + _FRONTEND,  # the backends name `resolvers kubernetes`, which nothing declares
        _MINIMAL_GLOBAL + "resolvers kubernetes\n  parse-resolv-conf\n" + _FRONTEND,
        _MINIMAL_GLOBAL + "resolvers dns\n  parse-resolv-conf\n" + _FRONTEND,
        "global\n  maxconn 326\nresolvers kubernetes\n  parse-resolv-conf\n" + _FRONTEND,  # no global external-check
    ],
    ids=["no-resolvers", "resolvers-kubernetes", "other-resolvers", "no-external-check"],
)
def test_a_custom_global_file_beside_the_operators_backends(haproxy, tmp_path, custom):
    """What the operators' backends need of the custom file (the entrypoint's `haproxy -c` of the pair), as haproxy
    -c decides it: `external-check` in the global section and the `resolvers kubernetes` section they name."""
    from percona_mysql_k8s.core.haproxy_bound import operator_pod_bound
    from percona_mysql_k8s.core.haproxy_operator import member_hosts, operator_backends

    (tmp_path / "global.cfg").write_text(custom)
    (tmp_path / "backends.cfg").write_text(operator_backends("pxc", member_hosts("pxc", "cluster", 3)))
    done = subprocess.run(
        [haproxy, "-c", "-f", str(tmp_path / "global.cfg"), "-f", str(tmp_path / "backends.cfg")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    try:
        operator_pod_bound("pxc", custom, "cluster", 3, version="2.6")
        accepted = True
    except HAProxyConfigError:
        accepted = False
    assert accepted == (done.returncode == 0), done.stdout + done.stderr
