"""Load profiles: what changes with the workload, in one table.

Per-connection buffers follow the peer calculator's per-load tables (ALGORITHM §3.3), which encode the
seed author's tuning experience; unlike the peer we charge them in full for every connection (M1).
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType

from .units import KIB, MIB

READ_HEAVY, LIGHT_OLTP, HEAVY_OLTP, WRITE_HEAVY = "read-heavy", "light-oltp", "heavy-oltp", "write-heavy"


@dataclass(frozen=True)
class LoadProfile:
    name: str
    sort_buffer_size: int
    join_buffer_size: int
    read_buffer_size: int
    read_rnd_buffer_size: int
    log_buffer_bytes: int
    # Redo capacity as a share of the buffer pool: dirty pages can never exceed the pool, so a redo
    # larger than it buys nothing; write-heavy loads get up to innodb_max_dirty_pages_pct (90%).
    redo_share_of_buffer_pool: float
    purge_threads_per_core: float
    adaptive_hash_index: bool
    # B4: a CPU-bound profile keeps its data inside the buffer pool, an IO-bound one exceeds it.
    data_to_buffer_pool_ratio: float
    # M6: connections one mysqld core can serve; a derived max_connections never exceeds
    # cores x this. The seed author's calculator charges 0.8 / 1.2 / 1.6 / 2.0 millicores per connection
    # by load (ALGORITHM §3.1), i.e. 1250 / 833 / 625 / 500 per core.
    connections_per_core: int


PROFILES = MappingProxyType(
    {
        READ_HEAVY: LoadProfile(READ_HEAVY, 256 * KIB, 256 * KIB, 128 * KIB, 256 * KIB, 16 * MIB, 0.25, 0.25, True, 0.5, 1250),
        LIGHT_OLTP: LoadProfile(LIGHT_OLTP, 512 * KIB, 512 * KIB, 128 * KIB, 384 * KIB, 16 * MIB, 0.5, 0.25, False, 0.8, 833),
        HEAVY_OLTP: LoadProfile(HEAVY_OLTP, 1536 * KIB, 1024 * KIB, 128 * KIB, 704 * KIB, 32 * MIB, 0.75, 0.5, False, 2.0, 625),
        WRITE_HEAVY: LoadProfile(WRITE_HEAVY, 2048 * KIB, 1024 * KIB, 128 * KIB, 704 * KIB, 64 * MIB, 0.9, 0.5, False, 3.0, 500),
    }
)
LOADS = tuple(PROFILES)
