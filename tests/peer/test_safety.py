"""The safety judgement of peer answers: the peer's my.cnf reaches our memory model intact."""

from __future__ import annotations

import math

from percona_mysql_k8s.core.sidecars import MONIT_SIDECAR, pmm_client, proxy_container

from .peer_calculator import GIB, GROUP_REPLICATION, MIB, PXC, calculate, open_dimension, run_pass
from .safety import judge, peer_memory_model


def test_example_a_settings_enter_the_model_term_by_term():
    answer = calculate(PXC, 4000, 8 * GIB, 2, 100)
    terms = peer_memory_model(answer).terms
    unit = 2 * MIB * 6  # the peer's static chunk x the 6 instances it emits
    assert terms["buffer_pool"] == math.ceil(6623291040 / unit) * unit
    # the peer runs one thread per connection: every connection idles with its session (64 KiB + 2 x 16 KiB network
    # buffers + 32 KiB binlog cache + 32 KiB binlog statement cache) and keeps its thread (the calibrated 390,912
    # resident bytes), and all 102 may run a statement with the peer's buffers (sort, join, read_rnd) and the
    # default 128 KiB read buffer
    idle = 64 * 1024 + 2 * 16 * 1024 + 2 * 32 * 1024
    statement = 524288 + 393216 + 524288 + 128 * 1024
    assert terms["connections_idle"] == 102 * idle
    assert terms["connections_active"] == 102 * statement
    assert terms["connection_threads"] == 102 * 390_912
    assert terms["gcache"] == 500455615
    assert terms["temporary_tables"] == GIB  # temptable_max_ram is not set by the peer: 8.0's default


def test_example_a_is_not_safe_the_buffer_pool_alone_takes_88_percent():
    safety = judge(calculate(PXC, 4000, 8 * GIB, 2, 100))
    assert not safety.safe
    assert any(problem.startswith("mysqld peak") for problem in safety.problems)


def test_example_b_message_cache_enters_the_model():
    answer = calculate(GROUP_REPLICATION, 4000, 8 * GIB, 2, 500)
    terms = peer_memory_model(answer).terms
    assert terms["xcom_cache"] == 1342177280 + 50 * MIB


def test_an_answer_without_settings_is_never_safe():
    cpu_overloaded = run_pass(PXC, 1, open_dimension(1000, 2 * GIB), 760)
    assert not judge(cpu_overloaded).safe
    # Group replication on 300 MiB: the 128+ MiB message cache leaves the buffer pool under 40% even at
    # 20 connections, so the last pass is memory-overutilized and the server answers HTTP 500.
    out_of_memory = calculate(GROUP_REPLICATION, 1000, 0.3 * GIB, 1, 50)
    assert out_of_memory.http_status == 500 and not out_of_memory.answered
    assert judge(out_of_memory).problems == ("no answer (type 6001, HTTP 500)",)


def test_a_safe_answer_meets_every_condition():
    # 2 CPU / 16 GiB read-heavy was safe before the model counted performance_schema, the buffer-pool
    # descriptors and allocator fragmentation (~1 GB more than that peer limit); heavy OLTP on 4 CPU / 64 GiB
    # was, until each of its 2002 threads was charged its measured resident memory and its binary log statement
    # cache (~280 MiB more, issue 21). Group replication's heavy OLTP on 8 CPU / 64 GiB still fits.
    answer = calculate(GROUP_REPLICATION, 8000, 64 * GIB, 3, 0)
    safety = judge(answer)
    assert safety.safe, safety.problems
    assert safety.memory.peak_bytes <= answer.limit_memory("mysql")
    assert answer.limit_memory("pmm") >= pmm_client(64 * GIB, 4000).memory_bytes
    needed = proxy_container("haproxy", answer.max_connections, answer.mysql_cpu).memory_bytes + MONIT_SIDECAR.memory_bytes
    assert answer.limit_memory("proxy") >= needed
