"""The mysqld options the project reads, typed as my_getopt types them (MySQL 8.0/8.4, PXC 8.x).

Each entry is the ``my_option`` mysqld builds for one variable: its getopt type, whether it takes an
argument, its limits and block size (``getopt_ll_limit_value``), its enum names (``TYPELIB``), whether it
belongs to a plugin (a plugin variable also answers to ``plugin-<name>`` and its ``maximum-`` storage is
the variable itself: sql/sql_plugin.cc ``construct_options``), and the source line it comes from.
Sources are mysql/mysql-server (8.0 and 8.4 branches), percona/percona-xtradb-cluster for ``wsrep_*``:

* SYS  = sql/sys_vars.cc (``Sys_var_*`` definitions: ``VALID_RANGE(min, max)``, ``BLOCK_SIZE``)
* OPTS = sql/mysqld.cc ``my_long_options``
* INNO = storage/innobase/handler/ha_innodb.cc ``MYSQL_SYSVAR_*`` (plugin ``InnoDB``)
* GR   = plugin/group_replication/src/plugin.cc ``MYSQL_SYSVAR_*`` with plugin_variables.h limits
* SEMI = plugin/semisync/semisync_source_plugin.cc (commit 1ae3a27a), built twice: semisync_source.so
  names its variables ``rpl_semi_sync_source_*``, semisync_master.so (``USE_OLD_SEMI_SYNC_TERMINOLOGY``)
  ``rpl_semi_sync_master_*``; the two libraries refuse to load together, so the two spellings are two
  plugins, not aliases of one variable
* PXC  = percona/percona-xtradb-cluster sql/sys_vars.cc (``wsrep_*``)

Plugin variables exist only while their plugin is loaded: InnoDB always, group replication where the
operator runs it (or ``plugin_load`` names it), semi-sync only through ``plugin_load``/``plugin_load_add``.
"""

from __future__ import annotations

from dataclasses import dataclass

KIB, MIB, GIB = 1 << 10, 1 << 20, 1 << 30
INT_MAX, UINT_MAX = (1 << 31) - 1, (1 << 32) - 1
LONG_MAX, ULONG_MAX = (1 << 63) - 1, (1 << 64) - 1  # LP64 (Linux x86_64/arm64): long is 64 bits
LLONG_MAX, ULLONG_MAX = LONG_MAX, ULONG_MAX

# my_getopt.cc max_of_int_range(): the largest value each GET_* integer type holds.
TYPE_MAX = {"int": INT_MAX, "uint": UINT_MAX, "long": LONG_MAX, "ulong": ULONG_MAX, "ll": LLONG_MAX, "ull": ULLONG_MAX}
SIGNED = frozenset({"int", "long", "ll"})

# sql/sql_plugin.cc global_plugin_typelib: the <plugin> / plugin-<plugin> load option.
PLUGIN_LOAD_CHOICES = ("OFF", "ON", "FORCE", "FORCE_PLUS_PERMANENT")


@dataclass(frozen=True)
class Option:
    """One mysqld option as my_getopt sees it."""

    name: str  # the variable (lower case, ``_``)
    kind: str  # bool | int | uint | long | ulong | ll | ull | enum | str
    arg: str  # opt (OPT_ARG) | req (REQUIRED_ARG): a bare name is refused for ``req``
    scope: str  # global | session: ``maximum-`` needs session storage (sys_var::max_var_ptr)
    source: str
    minimum: int = 0
    maximum: int = 0  # 0: no upper limit but the type's (getopt_ull_limit_value)
    block: int = 1
    choices: tuple[str, ...] = ()
    plugin: str | None = None  # the plugin that registers it (None: the server itself)
    aliases: tuple[str, ...] = ()  # other names of the same storage (Sys_var_deprecated_alias)
    operators: tuple[str, ...] = ("pxc", "ps")  # servers that have it: PXC (Galera) and/or PS
    default: int | None = None  # compiled default of a session integer (what ``maximum-`` lowers)


def _int(name, kind, source, minimum, maximum, block=1, arg="req", scope="global", **extra) -> Option:
    return Option(name, kind, arg, scope, source, minimum, maximum, block, **extra)


def _bool(name, source, scope="global", **extra) -> Option:
    return Option(name, "bool", "opt", scope, source, **extra)


def _enum(name, choices, source, scope="global", arg="req", **extra) -> Option:
    return Option(name, "enum", arg, scope, source, choices=tuple(choices), **extra)


def _str(name, source, scope="global", arg="req", **extra) -> Option:
    return Option(name, "str", arg, scope, source, **extra)


INNODB, GROUP_REPLICATION = "innodb", "group_replication"
SEMISYNC_SOURCE, SEMISYNC_MASTER = "rpl_semi_sync_source", "rpl_semi_sync_master"
SEMISYNC_REPLICA, SEMISYNC_SLAVE = "rpl_semi_sync_replica", "rpl_semi_sync_slave"
# Shared object -> plugin name (the MySQL manual's plugin tables; semisync_*_plugin.cc mysql_declare_plugin).
PLUGIN_LIBRARIES = {
    "group_replication.so": GROUP_REPLICATION,
    "semisync_source.so": SEMISYNC_SOURCE,
    "semisync_master.so": SEMISYNC_MASTER,
    "semisync_replica.so": SEMISYNC_REPLICA,
    "semisync_slave.so": SEMISYNC_SLAVE,
}
BUILTIN_PLUGINS = frozenset({INNODB})


def _semisync_source(plugin: str, replica: str) -> list[Option]:
    """SEMI: semisync_source_plugin.cc semi_sync_master_system_vars[] (one plugin per library)."""
    src = f"SEMI semisync_source_plugin.cc MYSQL_SYSVAR ({plugin})"
    return [
        _bool(f"{plugin}_enabled", src, plugin=plugin),
        _int(f"{plugin}_timeout", "ulong", src, 0, ULONG_MAX, arg="opt", plugin=plugin),
        _bool(f"{plugin}_wait_no_{replica}", src, plugin=plugin),
        _int(f"{plugin}_trace_level", "ulong", src, 0, ULONG_MAX, arg="opt", plugin=plugin),
        _enum(f"{plugin}_wait_point", ("AFTER_SYNC", "AFTER_COMMIT"), src, arg="opt", plugin=plugin),
        _int(f"{plugin}_wait_for_{replica}_count", "uint", src, 1, 65535, arg="opt", plugin=plugin),
    ]


def _semisync_replica(plugin: str) -> list[Option]:
    src = f"SEMI semisync_replica_plugin.cc MYSQL_SYSVAR ({plugin})"
    return [
        _bool(f"{plugin}_enabled", src, plugin=plugin),
        _int(f"{plugin}_trace_level", "ulong", src, 0, ULONG_MAX, arg="opt", plugin=plugin),
    ]


def _flow_control(suffix, kind, source, minimum, maximum) -> Option:
    """``group_replication_flow_control_<suffix>``: an integer of the group replication plugin, optional argument."""
    return _int(f"group_replication_flow_control_{suffix}", kind, source, minimum, maximum, arg="opt", plugin=GROUP_REPLICATION)


_GR_THRESHOLD = "GR plugin.cc MYSQL_SYSVAR_LONG(flow_control_*) 0..MAX_FLOW_CONTROL_THRESHOLD (INT_MAX32)"

OPTIONS: tuple[Option, ...] = (
    # ---- the server (sql/sys_vars.cc, sql/mysqld.cc) ----
    _int("max_connections", "ulong", "SYS Sys_max_connections VALID_RANGE(1, 100000)", 1, 100000),
    _int(
        "sort_buffer_size",
        "ulong",
        "SYS Sys_sort_buffer VALID_RANGE(MIN_SORT_MEMORY=32K, ULONG_MAX)",
        32 * KIB,
        ULONG_MAX,
        scope="session",
        default=256 * KIB,
    ),
    _int(
        "join_buffer_size",
        "ulong",
        "SYS Sys_join_buffer_size VALID_RANGE(128, ULONG_MAX) BLOCK_SIZE(128)",
        128,
        ULONG_MAX,
        128,
        scope="session",
        default=256 * KIB,
    ),
    _int(
        "read_buffer_size",
        "ulong",
        "SYS Sys_read_buff_size VALID_RANGE(IO_SIZE*2, INT_MAX32) BLOCK_SIZE(IO_SIZE)",
        8192,
        INT_MAX,
        4096,
        scope="session",
        default=128 * KIB,
    ),
    _int(
        "read_rnd_buffer_size",
        "ulong",
        "SYS Sys_read_rnd_buff_size VALID_RANGE(1, INT_MAX32)",
        1,
        INT_MAX,
        scope="session",
        default=256 * KIB,
    ),
    _int(
        "binlog_cache_size",
        "ulong",
        "SYS Sys_binlog_cache_size VALID_RANGE(IO_SIZE, ULONG_MAX) BLOCK_SIZE(IO_SIZE)",
        4096,
        ULONG_MAX,
        4096,
    ),
    _int(
        "thread_stack", "ulong", "SYS Sys_thread_stack VALID_RANGE(128K, ULONG_MAX) BLOCK_SIZE(1024)", 128 * KIB, ULONG_MAX, 1024
    ),
    _int(
        "net_buffer_length",
        "ulong",
        "SYS Sys_net_buffer_length VALID_RANGE(1024, 1M) BLOCK_SIZE(1024)",
        1024,
        MIB,
        1024,
        scope="session",
        default=16 * KIB,
    ),
    _int(
        "tmp_table_size",
        "ull",
        "SYS Sys_tmp_table_size VALID_RANGE(1024, ULLONG_MAX)",
        1024,
        ULLONG_MAX,
        scope="session",
        default=16 * MIB,
    ),
    _int(
        "max_heap_table_size",
        "ull",
        "SYS Sys_max_heap_table_size VALID_RANGE(16384, ULLONG_MAX) BLOCK_SIZE(1024)",
        16384,
        ULLONG_MAX,
        1024,
        scope="session",
        default=16 * MIB,
    ),
    _int("temptable_max_ram", "ull", "SYS Sys_temptable_max_ram VALID_RANGE(2M, ULLONG_MAX)", 2 * MIB, ULLONG_MAX),
    _int("temptable_max_mmap", "ull", "SYS Sys_temptable_max_mmap VALID_RANGE(0, ULLONG_MAX)", 0, ULLONG_MAX),
    _int(
        "replica_parallel_workers",
        "ulong",
        "SYS Sys_replica_parallel_workers VALID_RANGE(0, MTS_MAX_WORKERS=1024)",
        0,
        1024,
        aliases=("slave_parallel_workers",),
    ),
    _bool("performance_schema", "SYS Sys_pfs_enabled (performance_schema, READ_ONLY, OPT_ARG)"),
    _bool("ssl", 'OPTS {"ssl", OPT_USE_SSL, GET_BOOL, OPT_ARG} (deprecated 8.0.26)'),
    _str("tls_version", "SYS Sys_tls_version (Sys_var_charptr)"),
    _bool("log_bin_trust_function_creators", "SYS Sys_trust_function_creators (OPT_ARG)"),
    _enum("binlog_format", ("MIXED", "STATEMENT", "ROW"), "SYS Sys_binlog_format binlog_format_names[]", scope="session"),
    _str("plugin_load", 'OPTS {"plugin-load", OPT_PLUGIN_LOAD, GET_STR, REQUIRED_ARG}'),
    _str("plugin_load_add", 'OPTS {"plugin-load-add", OPT_PLUGIN_LOAD_ADD, GET_STR, REQUIRED_ARG}'),
    # ---- InnoDB (a plugin: plugin-innodb-* answers too) ----
    _int(
        "innodb_buffer_pool_size",
        "ll",
        "INNO MYSQL_SYSVAR_LONGLONG(buffer_pool_size) srv_buf_pool_min_size=5M, srv_buf_pool_max_size, block 1M",
        5 * MIB,
        LLONG_MAX,
        MIB,
        plugin=INNODB,
    ),
    _int(
        "innodb_buffer_pool_instances",
        "long",
        "INNO MYSQL_SYSVAR_LONG(buffer_pool_instances) 0..MAX_BUFFER_POOLS=64",
        0,
        64,
        plugin=INNODB,
    ),
    _int(
        "innodb_buffer_pool_chunk_size",
        "ull",
        "INNO MYSQL_SYSVAR_ULONGLONG(buffer_pool_chunk_size) min 1M, block 1M",
        MIB,
        ULLONG_MAX,
        MIB,
        plugin=INNODB,
    ),
    _int(
        "innodb_log_buffer_size",
        "ulong",
        "INNO MYSQL_SYSVAR_ULONG(log_buffer_size) INNODB_LOG_BUFFER_SIZE_MIN=256K, block 1024",
        256 * KIB,
        ULONG_MAX,
        1024,
        plugin=INNODB,
    ),
    _bool("innodb_adaptive_hash_index", "INNO MYSQL_SYSVAR_BOOL(adaptive_hash_index, PLUGIN_VAR_OPCMDARG)", plugin=INNODB),
    # ---- group replication (plugin group_replication) ----
    _enum(
        f"{GROUP_REPLICATION}",
        PLUGIN_LOAD_CHOICES,
        "sql_plugin.cc construct_options global_plugin_typelib",
        arg="opt",
        plugin=GROUP_REPLICATION,
    ),
    _enum(
        "group_replication_flow_control_mode",
        ("DISABLED", "QUOTA"),
        'GR plugin_variables.h flow_control_mode_values[] = {"DISABLED", "QUOTA"}',
        arg="opt",
        plugin=GROUP_REPLICATION,
    ),
    *(
        _flow_control(name, "long", _GR_THRESHOLD, 0, INT_MAX)
        for name in ("applier_threshold", "certifier_threshold", "min_quota", "min_recovery_quota", "max_quota")
    ),
    *(
        _flow_control(name, "int", f"GR MYSQL_SYSVAR_INT(flow_control_{name}) {low}..{high}", low, high)
        for name, low, high in (("period", 1, 60), ("hold_percent", 0, 100), ("release_percent", 0, 1000))
    ),
    _enum(
        "group_replication_consistency",
        ("EVENTUAL", "BEFORE_ON_PRIMARY_FAILOVER", "BEFORE", "AFTER", "BEFORE_AND_AFTER"),
        "GR plugin.cc consistency_levels typelib (enum_group_replication_consistency_level order)",
        scope="session",
        arg="opt",
        plugin=GROUP_REPLICATION,
    ),
    _int(
        "group_replication_message_cache_size",
        "ulong",
        "GR plugin_variables.h MIN_MESSAGE_CACHE_SIZE=134217728 (8.0.21+; 1G before), MAX_MESSAGE_CACHE_SIZE=ULONG_MAX",
        128 * MIB,
        ULONG_MAX,
        arg="opt",
        plugin=GROUP_REPLICATION,
    ),
    # ---- semi-synchronous replication (plugin_load only) ----
    *(
        _enum(plugin, PLUGIN_LOAD_CHOICES, "sql_plugin.cc construct_options global_plugin_typelib", arg="opt", plugin=plugin)
        for plugin in (SEMISYNC_SOURCE, SEMISYNC_MASTER, SEMISYNC_REPLICA, SEMISYNC_SLAVE)
    ),
    *_semisync_source(SEMISYNC_SOURCE, "replica"),
    *_semisync_source(SEMISYNC_MASTER, "slave"),
    *_semisync_replica(SEMISYNC_REPLICA),
    *_semisync_replica(SEMISYNC_SLAVE),
    # ---- Galera (PXC only) ----
    _str("wsrep_provider", "PXC Sys_wsrep_provider (READ_ONLY)", operators=("pxc",)),
    _str("wsrep_provider_options", "PXC Sys_wsrep_provider_options (READ_ONLY)", operators=("pxc",)),
    _int(
        "wsrep_applier_threads",
        "ulong",
        "PXC Sys_wsrep_applier_threads VALID_RANGE(1, 512)",
        1,
        512,
        aliases=("wsrep_slave_threads",),
        operators=("pxc",),
    ),
    _int(
        "wsrep_sync_wait",
        "uint",
        "PXC Sys_wsrep_sync_wait VALID_RANGE(0, WSREP_SYNC_WAIT_MAX=15)",
        0,
        15,
        scope="session",
        default=0,
        operators=("pxc",),
    ),
)

BY_NAME: dict[str, Option] = {}
for _option in OPTIONS:
    for _name in (_option.name, *_option.aliases):
        BY_NAME[_name] = _option

# Families whose every member is listed above: a name inside one that is none of them is an option
# mysqld does not have (the semi-sync plugins register exactly these variables, SEMI above).
COMPLETE_FAMILIES = tuple(f"{plugin}_" for plugin in (SEMISYNC_SOURCE, SEMISYNC_MASTER, SEMISYNC_REPLICA, SEMISYNC_SLAVE))

# Strict prefixes of listed names that are (or may be) options in their own right, so the abbreviation
# test never calls them unknown: OPTS "log-bin"; the InnoDB and TempTable engines' names and ``wsrep``
# (kept out of any verdict rather than proven absent). Listed names are found before this is asked.
PREFIX_OPTIONS = frozenset({"log_bin", "innodb", "temptable", "wsrep"})


__all__ = [
    "BY_NAME",
    "COMPLETE_FAMILIES",
    "GROUP_REPLICATION",
    "INNODB",
    "OPTIONS",
    "Option",
    "PLUGIN_LIBRARIES",
    "PREFIX_OPTIONS",
    "SIGNED",
    "TYPE_MAX",
]
