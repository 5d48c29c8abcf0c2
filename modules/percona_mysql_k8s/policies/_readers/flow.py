"""Flow-control inputs read from a database view, and what sizing would choose instead (F2-F6, G1-G3).

Server defaults apply where an option is not set: they are mysqld's and Galera's own values (MySQL
8.0/8.4 and PXC 8.x reference manuals), not rule thresholds, which come from the rule catalogue.
"""

from __future__ import annotations

from dataclasses import dataclass

from percona_mysql_k8s.core import flow_control, galera_options
from percona_mysql_k8s.core.memory import GR_FLOW_CONTROL_THRESHOLD_DEFAULT as GR_DEFAULT_THRESHOLD
from percona_mysql_k8s.core.memory import REPLICA_WORKERS_DEFAULT

from .database import DatabaseView
from .values import Malformed, describe
from .values import ascii_integer as _ascii_integer

# Galera 4 / PXC 8.x server defaults (the MySQL ones come from core.memory, which sizes with them).
GALERA_APPLIERS_DEFAULT = 2  # wsrep_applier_threads (RULES G3: "default 2 is too low")
GALERA_FC_LIMIT_DEFAULT = 100  # gcs.fc_limit

APPLIER_THRESHOLD = "group_replication_flow_control_applier_threshold"
CERTIFIER_THRESHOLD = "group_replication_flow_control_certifier_threshold"
FLOW_CONTROL_MODE = "group_replication_flow_control_mode"
REPLICA_WORKERS = ("replica_parallel_workers", "slave_parallel_workers")
GALERA_APPLIERS = ("wsrep_applier_threads", "wsrep_slave_threads")


def integer_option(view: DatabaseView, *names: str, minimum: int = 0) -> tuple[str, int] | None:
    """(name, value) of the first option set; Malformed when its value is not a whole number."""
    found = view.option(*names)
    if found is None:
        return None
    name, raw = found
    text = raw.strip()
    if not _ascii_integer(text) or int(text) < minimum:
        raise Malformed(view.path(view.config_rel), f"sets {name}={describe(raw)}, not a whole number >= {minimum}")
    return name, int(text)


# How Galera types the parameters read here (galera_options: gcs/src/gcs_params.cpp params_init_*).
_PROVIDER_NUMBERS = {
    "gcs.fc_limit": lambda key, raw: float(galera_options.integer(key, raw, 0)),
    "gcs.fc_factor": lambda key, raw: galera_options.double(key, raw, 0.0, 1.0),
}


def provider_number(view: DatabaseView, key: str) -> float | None:
    """A numeric Galera parameter as the provider reads it; Malformed when Galera would refuse it."""
    raw = view.provider_options().get(key)
    if raw is None:
        return None
    try:
        return _PROVIDER_NUMBERS[key](key, raw)
    except galera_options.ProviderOptionError as error:
        raise Malformed(
            view.path(view.config_rel), f"sets {key}={describe(raw)} in wsrep_provider_options, which Galera refuses: {error}"
        ) from None


def mysqld_cpu(view: DatabaseView) -> int | None:
    """Millicores of the mysqld container: its CPU limit, else its request (F6)."""
    return view.mysqld_container().resources().cpu


@dataclass(frozen=True)
class Appliers:
    count: int
    source: str  # "wsrep_applier_threads=32" or "the server default 4"


def gr_appliers(view: DatabaseView) -> Appliers:
    found = integer_option(view, *REPLICA_WORKERS, minimum=0)
    if found is None:
        return Appliers(REPLICA_WORKERS_DEFAULT, f"replica_parallel_workers unset (server default {REPLICA_WORKERS_DEFAULT})")
    return Appliers(max(1, found[1]), f"{found[0]}={found[1]}")


def galera_appliers(view: DatabaseView) -> Appliers:
    found = integer_option(view, *GALERA_APPLIERS, minimum=1)
    if found is None:
        return Appliers(GALERA_APPLIERS_DEFAULT, f"wsrep_applier_threads unset (server default {GALERA_APPLIERS_DEFAULT})")
    return Appliers(found[1], f"{found[0]}={found[1]}")


def gr_thresholds(view: DatabaseView) -> tuple[int, int, bool, bool]:
    """(applier, certifier, applier set?, certifier set?) with server defaults for unset ones."""
    applier = integer_option(view, APPLIER_THRESHOLD)
    certifier = integer_option(view, CERTIFIER_THRESHOLD)
    return (
        applier[1] if applier else GR_DEFAULT_THRESHOLD,
        certifier[1] if certifier else GR_DEFAULT_THRESHOLD,
        applier is not None,
        certifier is not None,
    )


def sizing_gr_threshold(view: DatabaseView, thresholds) -> tuple[int, str]:
    """The applier/certifier threshold sizing would choose, and what it was derived from."""
    cpu = mysqld_cpu(view)
    if cpu:
        workers = flow_control.replica_workers(cpu, thresholds)
        basis = f"{workers} appliers for {cpu}m of mysqld CPU"
    else:
        workers = gr_appliers(view).count
        basis = f"{workers} appliers"
    rate = flow_control.apply_rate_tps(workers, thresholds)
    return flow_control.gr_applier_threshold(rate, thresholds), basis


def single_primary_galera(view: DatabaseView) -> bool:
    """gcs.fc_master_slave (deprecated) or gcs.fc_single_primary, as Galera reads booleans."""
    try:
        return galera_options.single_primary(view.provider_options())
    except galera_options.ProviderOptionError as error:
        raise Malformed(view.path(view.config_rel), f"has a wsrep_provider_options flag Galera refuses: {error}") from None


def galera_queue_bound(view: DatabaseView, fc_limit: float, size: int) -> float:
    """G1: the effective queue; Galera scales fc_limit with sqrt(size) unless fc_single_primary is set."""
    return fc_limit if single_primary_galera(view) else flow_control.galera_effective_queue(fc_limit, size)
