"""The SQL side of the grader, kept thin: connect (every read and write time-boxed) and read.

PyMySQL (pure Python) speaks to MySQL 8 and MariaDB alike; it is the ``grade`` extra
(``pip install 'percona-mysql-k8s[grade]'``, with ``cryptography`` for MySQL 8's caching_sha2_password
over a connection without TLS).
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass

from percona_mysql_k8s.core.memory import PXC

from .checks import Resident
from .proc import local_resident
from .sizing_file import GradeInputError

DEFAULT_PORT = 3306
# performance_schema's own accounting of memory (MySQL 8: instrumented on by default). Each instrument keeps a high-water
# mark beside its current bytes (HIGH_NUMBER_OF_BYTES_USED; storage/perfschema/pfs_stat.h PFS_memory_stat: CURRENT +
# alloc capacity = HIGH). Their sum is at least the peak of the instruments' total (each may have peaked at another
# moment), so a total within the model under it proves the counted memory never exceeded the model.
_PS_MEMORY = (
    "SELECT SUM(HIGH_NUMBER_OF_BYTES_USED), SUM(CURRENT_NUMBER_OF_BYTES_USED) "
    "FROM performance_schema.memory_summary_global_by_event_name"
)
PS_MEMORY_SOURCE = (
    "performance_schema memory_summary_global_by_event_name: the sum of every instrument's HIGH_NUMBER_OF_BYTES_USED; "
    "not counted: the gcache, file pages and allocator overhead"
)


@dataclass(frozen=True)
class Address:
    host: str
    port: int

    def __str__(self) -> str:
        return f"[{self.host}]:{self.port}" if ":" in self.host else f"{self.host}:{self.port}"


# A host name as the resolver takes it (RFC 1123 labels, plus the underscore some resolvers serve), with an optional
# root dot; anything else (white space, brackets, '@', a label over 63 characters) is no host getaddrinfo could find.
_HOST_NAME = re.compile(
    r"(?=.{1,253}\.?\Z)[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?(?:\.[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?)*\.?",
    re.ASCII,
)
_FORMS = "host, host:port, [v6]:port or a bare IPv6 address"


# An IPv6 zone is an interface name or index (Linux: IFNAMSIZ, 15 characters); ipaddress takes any text after '%'.
_ZONE = re.compile(r"[A-Za-z0-9_.-]{1,15}", re.ASCII)


def _is_ipv6(text: str) -> bool:
    address, percent, zone = text.partition("%")
    if percent and not _ZONE.fullmatch(zone):
        return False
    try:
        ipaddress.IPv6Address(address)
    except ValueError:
        return False
    return True


def _is_ip(text: str) -> bool:
    try:
        ipaddress.IPv4Address(text)
    except ValueError:
        return _is_ipv6(text)
    return True


def parse_address(text: str, input_name: str) -> Address:
    """``host``, ``host:port``, ``[v6]:port`` or a bare IPv6 address; the host an IP address or a host name."""
    text = text.strip()
    host, port = text, str(DEFAULT_PORT)
    if text.startswith("["):
        host, bracket, rest = text[1:].partition("]")
        if not bracket or not _is_ipv6(host) or (rest and not rest.startswith(":")):
            raise GradeInputError(input_name, f"{text!r} is not {_FORMS} (brackets hold an IPv6 address)")
        port = rest[1:] if rest else port
    elif text.count(":") == 1:
        host, port = text.split(":")
    elif ":" in text and not _is_ipv6(text):  # a host name has no colon
        raise GradeInputError(input_name, f"{text!r} is not {_FORMS}")
    if not (_is_ip(host) or _HOST_NAME.fullmatch(host)):
        raise GradeInputError(input_name, f"{text!r}: {host!r} is neither an IP address nor a host name")
    if not (port.isascii() and port.isdigit()) or not 1 <= int(port) <= 65535:
        raise GradeInputError(input_name, f"{text!r} is not {_FORMS} with a port in 1..65535")
    return Address(host, int(port))


def _driver():
    try:
        import pymysql
    except ImportError:
        raise GradeInputError("driver", "PyMySQL is not installed: pip install 'percona-mysql-k8s[grade]'") from None
    return pymysql


class Session:
    """One member's connection; a failure names the input the member came from (``--host``, ``--peer``...)."""

    def __init__(self, address: Address, connection, input_name: str) -> None:
        self.address, self.connection, self.input_name = address, connection, input_name

    def query(self, sql: str) -> list[tuple]:
        pymysql = _driver()
        try:
            with self.connection.cursor() as cursor:
                cursor.execute(sql)
                return list(cursor.fetchall())
        except pymysql.err.MySQLError as error:
            raise GradeInputError(self.input_name, f"{self.address}: {' '.join(sql.split()[:3])} ... failed: {error}") from None

    def name_values(self, sql: str) -> dict[str, str]:
        return {str(name).lower(): "" if value is None else str(value) for name, value in self.query(sql)}

    def version(self) -> str:
        return str(self.query("SELECT VERSION()")[0][0])

    def close(self) -> None:
        self.connection.close()


UNKNOWN_SYSTEM_VARIABLE = 1193  # ER_UNKNOWN_SYSTEM_VARIABLE: a server without Galera


def connect(address: Address, user: str, password: str, timeout: float, input_name: str) -> Session:
    """Connect with every read and write limited to ``timeout`` seconds.

    The session reads without Galera's causality wait: with wsrep_sync_wait (G4) every read waits for a
    cluster-wide round trip, so one hung member would stall the reads of the healthy ones.
    """
    pymysql = _driver()
    try:
        connection = pymysql.connect(
            host=address.host,
            port=address.port,
            user=user,
            password=password,
            connect_timeout=timeout,
            read_timeout=timeout,
            write_timeout=timeout,
            autocommit=True,
        )
    except pymysql.err.MySQLError as error:
        raise GradeInputError(input_name, f"{address}: cannot connect as {user!r}: {error}") from None
    try:
        with connection.cursor() as cursor:
            cursor.execute("SET SESSION wsrep_sync_wait = 0")
    except pymysql.err.OperationalError as error:
        if error.args[0] != UNKNOWN_SYSTEM_VARIABLE:
            connection.close()
            raise GradeInputError(input_name, f"{address}: SET SESSION wsrep_sync_wait failed: {error}") from None
    except pymysql.err.MySQLError as error:
        connection.close()
        raise GradeInputError(input_name, f"{address}: SET SESSION wsrep_sync_wait failed: {error}") from None
    return Session(address, connection, input_name)


def member_identity(status: dict[str, str], variables: dict[str, str]) -> str:
    """What tells two connections to the same server apart from two servers."""
    return status.get("wsrep_gcomm_uuid") or variables.get("server_uuid") or variables.get("hostname", "")


def discovered_peers(engine: str, status: dict[str, str], session: Session) -> list[Address]:
    """PXC: ``wsrep_incoming_addresses``; group replication: ``replication_group_members``."""
    if engine == PXC:
        listed = [part.strip() for part in status.get("wsrep_incoming_addresses", "").split(",")]
        return [parse_address(part, "wsrep_incoming_addresses") for part in listed if part and part.upper() != "AUTO"]
    rows = session.query("SELECT MEMBER_HOST, MEMBER_PORT FROM performance_schema.replication_group_members")
    return [Address(str(host), int(port)) for host, port in rows if host and port]


def online_group_members(session: Session) -> int:
    rows = session.query("SELECT COUNT(*) FROM performance_schema.replication_group_members WHERE MEMBER_STATE = 'ONLINE'")
    return int(rows[0][0])


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def resident(session: Session, variables: dict[str, str]) -> tuple[Resident | None, str]:
    """``/proc`` for a server on this machine; else performance_schema's memory accounting where it has one."""
    notes = []
    if _loopback(session.address.host) and variables.get("pid_file"):
        found, note = local_resident(variables["pid_file"], session.address.port)
        if found:
            return found, ""
        notes.append(note)
    else:
        notes.append("not on this machine (no /proc to read)")
    try:
        high, current = session.query(_PS_MEMORY)[0]
    except GradeInputError as error:
        high = current = None
        notes.append(f"performance_schema memory tables unreadable ({error.message})")
    counted = high is not None and int(high) > 0 and variables.get("performance_schema", "").upper() in ("ON", "1")
    if counted:
        return Resident(int(current or 0), int(high), PS_MEMORY_SOURCE), ""
    if high is None or int(high) == 0:
        notes.append("performance_schema counts no memory (off, or memory instruments disabled)")
    return None, "; ".join(notes)
