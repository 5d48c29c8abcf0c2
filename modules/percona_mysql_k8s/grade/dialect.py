"""How the sizing's my.cnf reaches a server that spells its options differently.

The sizing writes the names of MySQL 8 (PXC 8.0/8.4, Percona Server 8). MariaDB (10.11 with Galera 4, the
server the Galera tier runs) names two of them differently and has no counterpart for others. One table
serves both directions: the Galera tier writes a MariaDB option file from it, and ``percona-mysql-grade``
reads a live MariaDB server's variables through it. Every key is either passed as written, renamed, or
skipped with the reason, never dropped silently.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from percona_mysql_k8s.core.mycnf import normalize_key

MYSQL = "mysql"
MARIADB = "mariadb"
FLAVOURS = (MYSQL, MARIADB)

_NO_TEMPTABLE = (
    "MariaDB has no TempTable engine: in-memory internal temporary tables use the MEMORY engine, "
    "bounded per table by tmp_table_size and max_heap_table_size (both applied)"
)

# sized key -> (MariaDB's name, why)
MARIADB_RENAMED: Mapping[str, tuple[str, str]] = {
    "wsrep_applier_threads": ("wsrep_slave_threads", "MariaDB keeps Galera's older name (PXC 8.0.26 renamed it)"),
    "innodb_redo_log_capacity": (
        "innodb_log_file_size",
        "MariaDB 10.5+ writes one redo file (ib_logfile0) whose size is the redo capacity",
    ),
}
# sized key -> why MariaDB is not given it
MARIADB_SKIPPED: Mapping[str, str] = {
    "temptable_max_ram": _NO_TEMPTABLE,
    "temptable_max_mmap": _NO_TEMPTABLE,
    "innodb_buffer_pool_instances": "removed in MariaDB 10.6: InnoDB has one buffer pool instance",
    "innodb_buffer_pool_chunk_size": (
        "MariaDB 10.11.19 reports it as 'Deprecated parameter with no effect' "
        "(mariadbd --verbose --help): the buffer pool is reserved as one range"
    ),
    "innodb_parallel_read_threads": "MySQL 8 only (parallel clustered-index reads); MariaDB has no such option",
}


@dataclass(frozen=True)
class Skipped:
    key: str
    value: str
    reason: str

    def __str__(self) -> str:
        return f"{self.key}={self.value}: {self.reason}"


@dataclass(frozen=True)
class Translation:
    """The options a server of ``flavour`` is given, keyed by its own names."""

    flavour: str
    options: Mapping[str, str]
    renamed: Mapping[str, str]  # sized key -> the server's name
    skipped: tuple[Skipped, ...]

    def live_name(self, sized_key: str) -> str | None:
        """The server's name for a sized key; None when the key is skipped on this server."""
        key = normalize_key(sized_key)
        if any(skip.key == key for skip in self.skipped):
            return None
        return self.renamed.get(key, key)


def flavour_of(version: str) -> str:
    """``SELECT VERSION()`` -> the flavour: MariaDB says so in its version string (``10.11.19-MariaDB-0+deb12u1``)."""
    return MARIADB if "mariadb" in version.lower() else MYSQL


def translate(sized: Mapping[str, str], flavour: str) -> Translation:
    """The sizing's mysqld options (``percona-mysql-sizing --format json`` -> ``mysqld``) for ``flavour``.

    Keys are normalized as mysqld reads them (``loose-`` dropped, ``-`` as ``_``), so a live variable name matches.
    """
    if flavour not in FLAVOURS:
        raise ValueError(f"flavour must be one of {', '.join(FLAVOURS)}, got {flavour!r}")
    options: dict[str, str] = {}
    renamed: dict[str, str] = {}
    skipped: list[Skipped] = []
    for written, value in sized.items():
        key = normalize_key(written)
        if flavour == MARIADB and key in MARIADB_SKIPPED:
            skipped.append(Skipped(key, str(value), MARIADB_SKIPPED[key]))
            continue
        if flavour == MARIADB and key in MARIADB_RENAMED:
            renamed[key] = MARIADB_RENAMED[key][0]
            key = renamed[key]
        options[key] = str(value)
    return Translation(flavour, options, renamed, tuple(skipped))
