"""Helpers of the grader's tests: the tier's member (2 CPU / 2,560 MiB PXC) and a live reading that matches its sizing.

The reading is what a MariaDB 10.11 member of the Galera tier returned for the same sizing (names as MariaDB
spells them, Galera's provider options as it prints them); each test changes one thing in it.
"""

from __future__ import annotations

from percona_mysql_k8s.core.sizing import SizingInput
from percona_mysql_k8s.core.units import MIB
from percona_mysql_k8s.grade.checks import MemberReading, Resident
from percona_mysql_k8s.grade.dialect import MARIADB, translate

MEMBER = SizingInput(engine="pxc", cpu_millicores=2000, memory_bytes=2560 * MIB)
MARIADB_VERSION = "10.11.19-MariaDB-0+deb12u1"
# Galera prints every provider option, "name = value; ..."; these are the sized ones among a few others.
LIVE_PROVIDER = (
    "base_host = 127.0.0.1; base_port = 4567; gcache.recover = yes; gcache.size = 134217728; "
    "gcs.fc_debug = 0; gcs.fc_factor = 1.0; gcs.fc_limit = 100; gcs.fc_master_slave = no; "
    "gcs.fc_single_primary = no; pc.weight = 1"
)


def live_variables(sizing) -> dict[str, str]:
    translation = translate(sizing.mysqld, MARIADB)
    variables = {name: value for name, value in translation.options.items()}
    variables["wsrep_provider_options"] = LIVE_PROVIDER
    variables["wsrep_on"] = "ON"
    return variables


def reading(sizing, *, variables=None, before=None, after=None, window=10.0, resident=None, note="", version=MARIADB_VERSION):
    status = {
        "wsrep_cluster_size": "3",
        "wsrep_cluster_status": "Primary",
        "wsrep_local_state_comment": "Synced",
        "wsrep_flow_control_paused_ns": "1000000000",
        "wsrep_local_recv_queue_max": "231",
    }
    return MemberReading(
        address="127.0.0.1:3306",
        version=version,
        variables={**live_variables(sizing), **(variables or {})},
        before={**status, **(before or {})},
        after={**status, "wsrep_flow_control_paused_ns": "1500000000", **(after or {})},
        window_seconds=window,
        resident=resident if resident is not None else Resident(1200 * MIB, 1300 * MIB, "/proc/1 VmHWM"),
        resident_note=note,
    )
