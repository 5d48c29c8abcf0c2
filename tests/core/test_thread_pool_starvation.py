"""The thread pool's cap can never starve the server (M6): whatever the sizing answers, every connection the proxies
and mysqld's own users can have open, and so have blocked in a statement, can hold a pool thread.

The defect this guards against was found by the Galera tier: a cap of 4 threads on a 110-connection member let
blocked statements (row locks, Galera commit waits, flow-control pauses) hold every thread, so sysbench stalled and
no login got through (docs/sizing.md §4). Percona's ``create_worker`` counts ``thread_pool_max_threads`` over the
whole server (percona/percona-server ``sql/threadpool_unix.cc``), a group never gets more threads than connections
plus one (``wake_or_create_thread``), and mysqld admits ``max_connections`` + 1 on its ordinary interfaces.
"""

from dataclasses import replace

from hypothesis import assume, given, settings
from percona_mysql_k8s.core.connection_cost import THREAD_POOL_MAX_THREADS_DEFAULT
from percona_mysql_k8s.core.connections import service_connections
from test_sizing_properties import _sized, inputs


@settings(max_examples=300, deadline=None)
@given(inputs())
def test_the_thread_cap_is_never_below_what_proxies_and_service_users_can_have_blocked(inp):
    result = _sized(replace(inp, thread_pool=True))
    assume(result is not None)
    cap = int(result.mysqld["thread_pool_max_threads"])
    groups = int(result.mysqld["thread_pool_size"])
    # what can be blocked at once: every backend connection of every proxy pod, mysqld's own users, and the one
    # connection mysqld admits past max_connections
    blocked = result.input.cluster_size * result.proxy_limits.backend_limit + service_connections(result.thresholds) + 1
    assert blocked <= result.connections + 1  # T5: the proxies fit max_connections
    assert cap >= min(THREAD_POOL_MAX_THREADS_DEFAULT, blocked)
    # and a listener for every group beside them, within Percona's range
    assert cap == min(THREAD_POOL_MAX_THREADS_DEFAULT, result.connections + 1 + groups)
    # the model charges every thread the cap lets exist, and the admin port's past it
    costs = result.memory.connections
    assert costs.threads >= cap + service_connections(result.thresholds)
    # performance_schema has a slot for every one of them: none is lost, and the slots are charged
    slots = int(result.mysqld["performance_schema_max_thread_instances"])
    assert slots >= result.connections + 1 + costs.threads
