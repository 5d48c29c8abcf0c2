"""Three real ``mariadbd`` with Galera 4 on loopback, started and always stopped by their PIDs.

What this stand-in assumes, and why it is still the real thing: the servers are Debian's MariaDB 10.11 and
galera-4 26.4 packages (no MySQL 8 server is installable here); each has its own option file, datadir and
loopback ports (SQL, gcomm, IST and SST all distinct: Galera's default IST port is gcomm + 1); the first
bootstraps the cluster, the others join it by rsync SST. Servers run as the ``mysql`` user when the tier runs
as root (``mariadbd`` refuses root), as the calling user otherwise. Every query is time-boxed: a SIGSTOPped
member makes queries against it hang.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import re
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import pymysql
from percona_mysql_k8s.core.mycnf import render

GALERA_LIBRARY_CANDIDATES = (
    "/usr/lib/galera/libgalera_smm.so",
    "/usr/lib/libgalera_smm.so",
    "/usr/lib/x86_64-linux-gnu/galera/libgalera_smm.so",
)
QUERY_TIMEOUT = 30  # seconds: every read and write on a connection
START_TIMEOUT = 180  # seconds for one member to start and reach Synced (a joiner copies the datadir by rsync)
STOP_TIMEOUT = 90  # seconds between SIGTERM and SIGKILL
PORTS_PER_MEMBER = 5  # SQL, gcomm, IST, SST, admin
ADMIN_CONNECTIONS = 10  # extra_max_connections: the grader and its peers' sessions
_INTERVAL = re.compile(r"Flow-control interval: \[(\d+), (\d+)\]")


def galera_library() -> str | None:
    return next((path for path in GALERA_LIBRARY_CANDIDATES if Path(path).is_file()), None)


def free_ports(count: int) -> list[int]:
    """``count`` distinct loopback ports, all bound at once so none is handed out twice."""
    sockets = []
    try:
        for _ in range(count):
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sock.bind(("127.0.0.1", 0))
            sockets.append(sock)
        return [sock.getsockname()[1] for sock in sockets]
    finally:
        for sock in sockets:
            sock.close()


@dataclass
class Member:
    index: int
    directory: Path
    sql_port: int
    gcomm_port: int
    ist_port: int
    sst_port: int
    admin_port: int  # MariaDB's extra_port: one thread per connection, never behind the thread pool
    process: subprocess.Popen | None = None

    @property
    def name(self) -> str:
        return f"node{self.index + 1}"

    @property
    def datadir(self) -> Path:
        return self.directory / "data"

    @property
    def socket(self) -> Path:
        return self.directory / "mysqld.sock"

    @property
    def error_log(self) -> Path:
        return self.directory / "error.log"

    @property
    def defaults_file(self) -> Path:
        return self.directory / "my.cnf"

    @property
    def pid(self) -> int:
        if self.process is None:
            raise RuntimeError(f"{self.name} was not started")
        return self.process.pid

    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def log_tail(self, lines: int = 40) -> str:
        try:
            return "\n".join(self.error_log.read_text(errors="replace").splitlines()[-lines:])
        except OSError as error:
            return f"(no error log: {error})"

    def logged_intervals(self) -> list[tuple[int, int]]:
        """Every ``Flow-control interval: [lo, hi]`` Galera logged (gcs.cpp _set_fc_limits), oldest first."""
        text = self.error_log.read_text(errors="replace") if self.error_log.exists() else ""
        return [(int(low), int(high)) for low, high in _INTERVAL.findall(text)]


@dataclass
class GaleraCluster:
    """``options``: the server's own option names and values (already translated for MariaDB);
    ``provider_options``: the sized wsrep_provider_options string, to which the cluster adds its addresses."""

    workdir: Path
    options: Mapping[str, str]
    provider_options: str
    user: str
    password: str
    members: list[Member] = field(default_factory=list)
    size: int = 3

    def __post_init__(self) -> None:
        ports = free_ports(PORTS_PER_MEMBER * self.size)
        self.members = [
            Member(i, self.workdir / f"node{i + 1}", *ports[PORTS_PER_MEMBER * i : PORTS_PER_MEMBER * (i + 1)])
            for i in range(self.size)
        ]
        self._os_user = "mysql" if os.geteuid() == 0 else None  # mariadbd refuses to run as root
        self.pid_ledger = self.workdir / "pids"  # scripts/galera.sh kills whatever is still listed here

    # ---- configuration ---------------------------------------------------------------------------------

    def option_file(self, member: Member) -> str:
        gcomm = ",".join(f"127.0.0.1:{other.gcomm_port}" for other in self.members)
        provider = "; ".join(
            part
            for part in (
                self.provider_options.strip().rstrip(";"),
                f"gmcast.listen_addr=tcp://127.0.0.1:{member.gcomm_port}",
                f"ist.recv_addr=127.0.0.1:{member.ist_port}",
                f"base_host=127.0.0.1; base_port={member.gcomm_port}",
            )
            if part
        )
        own = {
            "datadir": str(member.datadir),
            "socket": str(member.socket),
            "pid_file": str(member.directory / "mysqld.pid"),
            "log_error": str(member.error_log),
            "bind_address": "127.0.0.1",
            "port": str(member.sql_port),
            # the admin route the operators give their own users (admin_address / port 33062 on MySQL 8, where
            # Percona's pool gives those connections a thread past its cap; extra_port on 5.7 and MariaDB, served
            # one thread per connection): the grader connects there, as the operators' probes do
            "extra_port": str(member.admin_port),
            "extra_max_connections": str(ADMIN_CONNECTIONS),
            "skip_name_resolve": "ON",
            # what Galera needs of any server (MariaDB Galera documentation, "Mandatory Options")
            "binlog_format": "ROW",
            "default_storage_engine": "InnoDB",
            "innodb_autoinc_lock_mode": "2",
            "wsrep_on": "ON",
            "wsrep_provider": galera_library() or "",
            "wsrep_cluster_name": "percona-mysql-galera-tier",
            "wsrep_cluster_address": f"gcomm://{gcomm}",
            "wsrep_node_name": member.name,
            "wsrep_node_address": f"127.0.0.1:{member.gcomm_port}",
            "wsrep_node_incoming_address": f"127.0.0.1:{member.sql_port}",
            "wsrep_sst_method": "rsync",
            "wsrep_sst_receive_address": f"127.0.0.1:{member.sst_port}",
        }
        if self._os_user:
            own["user"] = self._os_user
        clash = set(own) & set(self.options)
        if clash:
            raise ValueError(f"the sized options set what the cluster owns: {sorted(clash)}")
        return render({**self.options, "wsrep_provider_options": provider, **own})

    def _own(self, path: Path) -> None:
        if self._os_user:
            record = pwd.getpwnam(self._os_user)
            os.chown(path, record.pw_uid, record.pw_gid)

    def prepare(self) -> None:
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.workdir.chmod(0o755)  # the mysql user walks into it
        for member in self.members:
            member.directory.mkdir()
            member.datadir.mkdir()
            self._own(member.directory)
            self._own(member.datadir)
            member.defaults_file.write_text(self.option_file(member))
            member.defaults_file.chmod(0o644)
        first = self.members[0]
        command = [
            "mariadb-install-db",
            "--no-defaults",
            f"--datadir={first.datadir}",
            "--skip-test-db",
            "--auth-root-authentication-method=normal",
        ]
        if self._os_user:
            command.append(f"--user={self._os_user}")
        result = subprocess.run(command, capture_output=True, text=True, timeout=300)
        if result.returncode:
            raise RuntimeError(f"mariadb-install-db failed ({result.returncode}):\n{result.stdout}\n{result.stderr}")

    # ---- processes -------------------------------------------------------------------------------------

    def start(self, member: Member, bootstrap: bool = False) -> None:
        command = ["mariadbd", f"--defaults-file={member.defaults_file}"]
        if bootstrap:
            command.append("--wsrep-new-cluster")
        with open(member.directory / "stdout.log", "ab") as out:
            member.process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        with open(self.pid_ledger, "a") as ledger:
            ledger.write(f"{member.process.pid}\n")
        self.wait_synced(member)

    def wait_synced(self, member: Member, timeout: float = START_TIMEOUT) -> None:
        deadline = time.monotonic() + timeout
        last = "no answer yet"
        while time.monotonic() < deadline:
            if not member.running():
                raise RuntimeError(f"{member.name} exited with {member.process.returncode}:\n{member.log_tail()}")
            try:
                with self.connect(member, via_socket=True, timeout=5) as connection:
                    state = dict(
                        self.rows(
                            connection, "SHOW GLOBAL STATUS WHERE Variable_name IN ('wsrep_local_state_comment', 'wsrep_ready')"
                        )
                    )
                if state.get("wsrep_local_state_comment") == "Synced" and state.get("wsrep_ready") == "ON":
                    return
                last = str(state)
            except pymysql.err.Error as error:
                last = str(error)
            time.sleep(1)
        raise RuntimeError(f"{member.name} did not reach Synced in {timeout:.0f} s (last: {last}):\n{member.log_tail()}")

    def start_all(self) -> None:
        for index, member in enumerate(self.members):
            self.start(member, bootstrap=index == 0)

    def stop(self, member: Member) -> None:
        """SIGCONT (a stopped server cannot handle SIGTERM), SIGTERM, then SIGKILL after STOP_TIMEOUT."""
        if not member.running():
            return
        for sig in (signal.SIGCONT, signal.SIGTERM):
            with contextlib.suppress(ProcessLookupError):
                os.kill(member.pid, sig)
        try:
            member.process.wait(timeout=STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.kill(member.pid, signal.SIGKILL)
            member.process.wait(timeout=30)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(member.pid, signal.SIGKILL)  # its own process group: an SST script or rsync it left behind

    def stop_all(self) -> None:
        for member in reversed(self.members):  # the bootstrap member last: the others leave cleanly
            self.stop(member)

    def remove(self) -> None:
        shutil.rmtree(self.workdir, ignore_errors=True)

    # ---- SQL -------------------------------------------------------------------------------------------

    def connect(self, member: Member, via_socket: bool = False, timeout: float = QUERY_TIMEOUT, admin: bool = False):
        """A connection whose every read and write gives up after ``timeout`` seconds."""
        if via_socket:  # root over the socket: the only account before the tier's own exists
            return pymysql.connect(
                unix_socket=str(member.socket),
                user="root",
                password="",
                connect_timeout=timeout,
                read_timeout=timeout,
                write_timeout=timeout,
                autocommit=True,
            )
        port = member.admin_port if admin else member.sql_port
        return self.connect_as(member, self.user, self.password, timeout=timeout, port=port)

    @staticmethod
    def connect_as(member: Member, user: str, password: str, timeout: float = QUERY_TIMEOUT, port: int | None = None):
        """A connection to the SQL port (or ``port``) as ``user``, every read and write time-boxed."""
        return pymysql.connect(
            host="127.0.0.1",
            port=port or member.sql_port,
            user=user,
            password=password,
            connect_timeout=min(timeout, QUERY_TIMEOUT),
            read_timeout=timeout,
            write_timeout=timeout,
            autocommit=True,
        )

    @staticmethod
    def rows(connection, sql: str, args=None) -> list[tuple]:
        with connection.cursor() as cursor:
            cursor.execute(sql, args)
            return list(cursor.fetchall())

    def query(self, member: Member, sql: str, args=None, timeout: float = QUERY_TIMEOUT) -> list[tuple]:
        with self.connect(member, timeout=timeout) as connection:
            return self.rows(connection, sql, args)

    def status(self, member: Member, timeout: float = QUERY_TIMEOUT) -> dict[str, str]:
        return {name.lower(): value for name, value in self.query(member, "SHOW GLOBAL STATUS", timeout=timeout)}

    def variables(self, member: Member, timeout: float = QUERY_TIMEOUT) -> dict[str, str]:
        return {name.lower(): value for name, value in self.query(member, "SHOW GLOBAL VARIABLES", timeout=timeout)}

    def create_user(self) -> None:
        """The tier's account, for sysbench and the grader over TCP; replicated to the joiners by SST."""
        with self.connect(self.members[0], via_socket=True) as connection:
            for host in ("127.0.0.1", "localhost"):
                self.rows(connection, f"CREATE USER IF NOT EXISTS '{self.user}'@'{host}' IDENTIFIED BY %s", (self.password,))
                self.rows(connection, f"GRANT ALL ON *.* TO '{self.user}'@'{host}' WITH GRANT OPTION")


@contextlib.contextmanager
def running_cluster(cluster: GaleraCluster) -> Iterator[GaleraCluster]:
    """Prepare and start every member; always stop them (by PID) and remove the work directory."""
    try:
        cluster.prepare()
        cluster.start(cluster.members[0], bootstrap=True)
        cluster.create_user()
        for member in cluster.members[1:]:
            cluster.start(member)
        yield cluster
    finally:
        cluster.stop_all()
