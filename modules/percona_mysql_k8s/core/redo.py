"""innodb_redo_log_capacity: sized for write absorption, bounded by crash recovery and the volume (K6).

The redo log bounds the *checkpoint age*: how much change may sit in the buffer pool unflushed since the
oldest modification the last checkpoint still covers. A larger redo lets the page cleaner write a hot
page once for many changes, but crash recovery must scan and apply everything since the checkpoint
before mysqld accepts a connection, and a mysqld that is still recovering when its liveness probe
starts is killed and starts over.
"""

from __future__ import annotations

from .probes import OPERATOR_DEFAULTS
from .units import GIB, MIB

REDO_MIN, REDO_MAX = 8 * MIB, 128 * GIB  # innodb_redo_log_capacity range
PAGE_BYTES = 16 * 1024  # InnoDB's default page: the unit recovery reads and writes
# The longest crash recovery the redo may cause: the PXC operator's liveness initialDelaySeconds (300 s,
# INTERFACES §2.6), after which a mysqld still recovering is probed and killed. Sizing only: no policy
# can judge it, since a custom resource does not say the volume's IOPS.
MAX_CRASH_RECOVERY_SECONDS = 300
# The largest share of the data volume the redo may take: it shares the volume with data, undo, binary
# logs and temporary tables, and the project's smallest volume (kind, 10Gi) keeps 1 GiB of redo.
MAX_REDO_VOLUME_FRACTION = 0.1


def recovery_bytes_per_second(disk_iops: int) -> int:
    """Redo that crash recovery gets through per second on a volume of ``disk_iops``.

    Recovery applies the log page by page: every page a record touches is read (a random 16 KiB IO) and
    written back. The assumption is one page touched per 16 KiB of redo, so each 16 KiB of redo costs two
    IOs; a workload of small changes scattered over many pages recovers slower (lower
    max_crash_recovery_seconds for it), one that changes the same pages over and over faster.
    """
    return disk_iops * PAGE_BYTES // 2


def probe_recovery_allowance_seconds(engine: str) -> float:
    """How long the operators' default probes let a starting mysqld recover before killing it (K6).

    PXC probes liveness from initialDelaySeconds and restarts after failureThreshold misses; the PS
    operator's startup probe (12 h timeout, INTERFACES §3.5) holds liveness off until mysqld is up.
    """
    if engine == "pxc":
        live = OPERATOR_DEFAULTS[("pxc", "mysqld")]["liveness"]
        return live.initialDelaySeconds + live.periodSeconds * (live.failureThreshold - 1)
    return 43200.0


def redo_capacity(
    pool_bytes: int,
    share_of_pool: float,
    *,
    engine: str,
    disk_iops: int,
    volume_bytes: int | None,
) -> tuple[int, str]:
    """(innodb_redo_log_capacity in whole MiB, the bound that set it).

    The load profile's share of the buffer pool (write absorption), at most 90% of the pool, bounded by
    the redo recovery can apply within min(MAX_CRASH_RECOVERY_SECONDS, the probes' allowance) at the
    volume's IOPS and by MAX_REDO_VOLUME_FRACTION of the volume.
    """
    seconds = min(MAX_CRASH_RECOVERY_SECONDS, probe_recovery_allowance_seconds(engine))
    bounds = {
        "load profile's share of the buffer pool": int(pool_bytes * share_of_pool),
        "90% of the buffer pool": pool_bytes * 9 // 10,
        f"crash recovery within {seconds:g} s at {disk_iops} IOPS": int(seconds * recovery_bytes_per_second(disk_iops)),
        "innodb_redo_log_capacity maximum": REDO_MAX,
    }
    if volume_bytes is not None:
        bounds[f"{MAX_REDO_VOLUME_FRACTION:.0%} of the volume"] = int(volume_bytes * MAX_REDO_VOLUME_FRACTION)
    reason = min(bounds, key=bounds.__getitem__)
    redo = max(REDO_MIN, bounds[reason] // MIB * MIB)
    return redo, reason if redo > REDO_MIN else "innodb_redo_log_capacity minimum"
