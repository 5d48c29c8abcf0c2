"""T4: semi-synchronous replication on PS async clusters: wait point AFTER_SYNC only, at least 2 semi-sync
replicas (rpl_semi_sync_source_wait_for_replica_count, server default 1; the master/slave aliases too).

T4 applies only where semi-sync is in use: the source plugin is loaded (``plugin_load``/``plugin_load_add``
naming semisync_source.so or semisync_master.so) and enabled (``rpl_semi_sync_source_enabled=ON``).
The PS operator 1.x never loads it (percona-server-mysql-operator v1.2.0 has no semi-sync code), so an
async cluster without those lines replicates asynchronously and T4 has nothing to check; demanding
``rpl_semi_sync_source_wait_for_replica_count=2`` there would stop mysqld (unknown variable). A
semi-sync option given without the plugin (and without ``loose-``) is reported: mysqld would not start.
"""

from __future__ import annotations

from percona_mysql_k8s.core.mycnf import is_on

from ._framework import Context, Spec, resource_policy
from ._readers.database import ASYNC, DatabaseView
from ._readers.flow import integer_option
from ._subjects import database, database_types

MIN_SEMI_SYNC_REPLICAS = 2  # the acknowledgements the source waits for (T4)
SPEC = Spec(
    name="semi-sync",
    rules=("T4",),
    applies_to=database_types,
    description=f"where semi-sync is in use, the source waits for at least {MIN_SEMI_SYNC_REPLICAS} semi-sync replicas at AFTER_SYNC",
)
WAIT_POINT = ("rpl_semi_sync_source_wait_point", "rpl_semi_sync_master_wait_point")
REPLICA_COUNT = ("rpl_semi_sync_source_wait_for_replica_count", "rpl_semi_sync_master_wait_for_slave_count")
ENABLED = ("rpl_semi_sync_source_enabled", "rpl_semi_sync_master_enabled")
SOURCE_PLUGINS = ("semisync_source.so", "semisync_master.so")


def semi_sync_plugin_loaded(view: DatabaseView) -> bool:
    return any(library in SOURCE_PLUGINS for library in view.effective().plugin_libraries())


def check(ctx: Context) -> None:
    view = database(ctx, "T4")
    if view is None:
        return
    with ctx.checking("T4"):
        if view.cluster_type() != ASYNC:
            return
        where = view.path(view.config_rel)
        if not semi_sync_plugin_loaded(view):
            # A rpl_semi_sync_* option without its plugin (and without loose-) is an option mysqld does not
            # have: the reader refuses the file (view.effective() raised Malformed naming the line).
            return
        enabled = view.option(*ENABLED)
        if enabled is None or not is_on(enabled[1]):
            return  # the plugin is loaded but off: no semi-sync wait happens
        point = view.option(*WAIT_POINT)
        if point and point[1].strip().upper() != "AFTER_SYNC":
            key = next(name for name in WAIT_POINT if name in view.effective().settings)
            ctx.violation(
                "T4",
                f"{where} sets {point[0]}={view.reading(key)} with semi-sync enabled",
                "the rule allows only AFTER_SYNC (AFTER_COMMIT shows commits a failover can lose)",
                f"set {point[0]}=AFTER_SYNC",
                field=view.config_field(key),
            )
        count = integer_option(view, *REPLICA_COUNT)
        # the name the loaded plugin declares: semisync_master.so has only the master/slave spelling, so the
        # source spelling would be an unknown variable that stops mysqld
        legacy = "semisync_source.so" not in view.effective().plugin_libraries()
        name = count[0] if count else REPLICA_COUNT[1 if legacy else 0]
        if count is None or count[1] < MIN_SEMI_SYNC_REPLICAS:
            found = f"sets {count[0]}={count[1]}" if count else f"leaves {name} at the server default 1"
            ctx.violation(
                "T4",
                f"{where} enables semi-sync and {found}",
                f"the rule waits for at least {MIN_SEMI_SYNC_REPLICAS} semi-sync replicas",
                f"set {name}={MIN_SEMI_SYNC_REPLICAS} (with {MIN_SEMI_SYNC_REPLICAS + 1} or more members)",
                field=view.config_field(*REPLICA_COUNT),
            )


POLICY = resource_policy(SPEC, check)
