"""The sizing engine: one database member's budget in, every size and setting out.

A *member* is everything one database node runs: the mysqld pod with its sidecars and one proxy pod.
Its budget is either given (CPU + memory) or the usable allocatable of a node type (K1), one member per
node. The engine splits the budget (M3), fills the mysqld limit with the memory model (M1-M5) so the
buffer pool is what is left (M2), derives connections when asked (M6), and sets flow control (F1-F6,
G1-G4) and probes (K6). Every value records the rule IDs behind it.

One step a module: ``inputs`` (the input and its validation), ``containers`` (the budget and its CPU split),
``buffer_pool`` (the pool's layout), ``options`` (the mysqld options and their memory model), ``appliers``
(appliers, queue and brownout), ``split`` (the memory split for a budget), ``connection_count``
(max_connections and the per-connection buffers), ``result`` (the answer and the rules behind it) and
``engine`` (:func:`size`, which runs them in order).
"""

from __future__ import annotations

from ..rules import MAX_REPLICA_PARALLEL_WORKERS, MAX_WSREP_APPLIER_THREADS, MYSQLD_MAX_CONNECTIONS
from .buffer_pool import MAX_POOL_CHUNKS, MIN_BUFFER_POOL
from .connection_count import MAX_QUANTITY
from .containers import MIN_MYSQLD_CPU
from .engine import size
from .inputs import CLUSTER_SIZES, DEFAULT_DISK_IOPS, SizingInput, validate
from .options import BUFFER_MINIMUMS, BUFFER_SCALE_FULL, BUFFER_SCALE_MIN
from .result import SizingResult

# The names the single module exported for these ranges, kept for its importers; each is defined once, in core/rules.py.
MAX_CONNECTIONS_LIMIT = MYSQLD_MAX_CONNECTIONS
GALERA_MAX_APPLIERS = MAX_WSREP_APPLIER_THREADS
MAX_REPLICA_WORKERS = MAX_REPLICA_PARALLEL_WORKERS

__all__ = [
    "BUFFER_MINIMUMS",
    "BUFFER_SCALE_FULL",
    "BUFFER_SCALE_MIN",
    "CLUSTER_SIZES",
    "DEFAULT_DISK_IOPS",
    "GALERA_MAX_APPLIERS",
    "MAX_CONNECTIONS_LIMIT",
    "MAX_POOL_CHUNKS",
    "MAX_QUANTITY",
    "MAX_REPLICA_WORKERS",
    "MIN_BUFFER_POOL",
    "MIN_MYSQLD_CPU",
    "SizingInput",
    "SizingResult",
    "size",
    "validate",
]
