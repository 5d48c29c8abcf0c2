"""The buffer pool's layout: size, chunk and instances that mysqld keeps exactly as written (M1).

mysqld rounds the pool up to a multiple of chunk x instances (core/memory.py, ``round_buffer_pool``); the
layout chosen here is already such a multiple, so the value it runs with is the value the model charged.
"""

from __future__ import annotations

import math

from ..memory import MAX_BUFFER_POOL_INSTANCES, MULTI_INSTANCE_MIN_POOL
from ..mysqld_catalog import BY_NAME
from ..units import MIB

# InnoDB's minimum innodb_buffer_pool_size (srv_buf_pool_min_size, core/mysqld_catalog.py): below it mysqld does
# not start.
MIN_BUFFER_POOL = BY_NAME["innodb_buffer_pool_size"].minimum
MAX_POOL_CHUNKS = 1000  # InnoDB's guidance; buffer_pool_layout never uses more


def buffer_pool_instances(raw_mib: int, cpu: int) -> int:
    """MySQL 8.4's default of a quarter of the CPUs, used only once the pool holds 1 GiB with them."""
    instances = max(1, min(MAX_BUFFER_POOL_INSTANCES, cpu // 4000))
    return instances if raw_mib // instances * instances >= MULTI_INSTANCE_MIN_POOL // MIB else 1


def buffer_pool_bytes(raw: int, cpu: int) -> int:
    """The pool :func:`buffer_pool_layout` chooses for ``raw``, without choosing the chunk."""
    instances = buffer_pool_instances(raw // MIB, cpu)
    return raw // MIB // instances * instances * MIB


def buffer_pool_layout(raw: int, cpu: int) -> tuple[int, int, int]:
    """(pool, chunk, instances): the pool an exact multiple of chunk x instances, <= raw, monotone in raw.

    Instances follow MySQL 8.4's default of a quarter of the CPUs, used only once the pool holds 1 GiB
    with them (below that mysqld runs one instance). The pool is the largest multiple of ``instances``
    MiB; the chunk is a divisor of the per-instance size chosen so the pool has at most 1000 chunks
    (InnoDB's guidance), so mysqld's round-up (M1) leaves the value unchanged.
    """
    raw_mib = raw // MIB
    instances = buffer_pool_instances(raw_mib, cpu)
    per_instance = raw_mib // instances
    chunks_per_instance = next(d for d in range(min(per_instance, MAX_POOL_CHUNKS // instances), 0, -1) if per_instance % d == 0)
    return per_instance * instances * MIB, per_instance // chunks_per_instance * MIB, instances


def pool_target(floor: float, cpu: int) -> int:
    """The smallest buffer pool :func:`buffer_pool_layout` can emit that is at least ``floor``."""
    floor_mib = max(1, math.ceil(floor / MIB))
    instances = buffer_pool_instances(floor_mib, cpu)
    return math.ceil(floor_mib / instances) * instances * MIB
