"""How many connections one HAProxy pod can open to one mysqld (T5), from the files it really runs.

The operators start ``haproxy -f <global file> -f /etc/haproxy/<pxc|mysql>/haproxy.cfg``: the global file is
the custom ``configuration`` when ``haproxy -c`` accepts it with the second file, else the operator's default
(PXC 1.20.0 and PS v1.2.0 build/haproxy-entrypoint.sh: ``haproxy -c ... || EC=$?``, then "The custom config ...
is not valid and will be ignored"). The second file holds the backends ``haproxy_add_pxc_nodes.sh`` /
``haproxy_add_mysql_nodes.sh`` write, one server per member with ``SERVER_OPTIONS`` (no ``maxconn``):

* PXC: ``galera-nodes`` and ``galera-replica-nodes`` reach each member's port 3306 (the writer is in both
  unless the replicas service takes only readers), ``galera-admin-nodes`` 33062, ``galera-mysqlx-nodes`` 33060;
* PS: ``mysql-primary`` and ``mysql-replicas`` reach port 3306; the script puts the primary's 3306 line into
  ``mysql-x`` and ``mysql-admin`` too (``NODE_LIST_MYSQLX=("$primary_mysql_node" ...)``), so the primary's 3306
  takes sessions from all four backends.

mysqld's ``max_connections`` counts connections on port 3306 (the admin port and the X protocol have their own
limits). In TCP mode one session is one server connection, so the connections to a member are bounded by the
flow from the frontends (each at its session limit) through the backends they route to, to that member's
servers (each at its ``maxconn``, unbounded at 0), and by the global ``maxconn`` over all sessions. The bound is
that maximum flow, at its worst member; a server another proxy section declares may reach any member.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from . import haproxy_proxies
from .haproxy_config import HAProxyConfigError
from .haproxy_operator import member_hosts, operator_backends
from .haproxy_proxies import Config, Proxy, Server

SQL_PORT = "3306"
_UNBOUNDED = 1 << 40


@dataclass(frozen=True)
class Bound:
    """One pod's connections to its most exposed member, and what limits them."""

    connections: int
    global_maxconn: int
    derived: bool  # the global maxconn came from the descriptor limit
    limited_by: str  # "the global maxconn 326" / "frontends galera-in (300) + ..." / "servers ..."
    from_environment: tuple[str, ...] = ()


def _reaches(server: Server, host: str, hosts: set[str]) -> bool:
    if server.host in hosts:
        return server.host == host and server.port == SQL_PORT
    return server.port in (None, SQL_PORT) or (server.port or "")[:1] in "+-"


def _max_flow(capacity: dict[str, dict[str, int]], source: str, sink: str) -> tuple[int, set[str]]:
    """Edmonds-Karp: (the flow, the nodes the source still reaches: one side of a minimum cut)."""
    residual = {node: dict(edges) for node, edges in capacity.items()}
    for node, edges in capacity.items():
        for target in edges:
            residual.setdefault(target, {}).setdefault(node, 0)
    total = 0
    while True:
        parents, queue = {source: source}, [source]
        for node in queue:
            for target, room in residual[node].items():
                if room > 0 and target not in parents:
                    parents[target] = node
                    queue.append(target)
        if sink not in parents:
            return total, set(parents)
        path, node = [], sink
        while node != source:
            path.append((parents[node], node))
            node = parents[node]
        pushed = min(residual[a][b] for a, b in path)
        for a, b in path:
            residual[a][b] -= pushed
            residual[b][a] += pushed
        total += pushed


def _flow(config: Config, host: str, hosts: set[str]) -> tuple[int, list[str]]:
    graph: dict[str, dict[str, int]] = {"source": {}}
    for name, proxy in config.frontends.items():
        graph["source"][f"fe:{name}"] = config.frontend_limit(proxy)
        graph[f"fe:{name}"] = {f"be:{backend.name}": _UNBOUNDED for backend in config.targets(proxy)}
    labels: dict[str, str] = {}
    for name, backend in config.backends.items():
        edges = graph.setdefault(f"be:{name}", {})
        for index, server in enumerate(backend.servers):
            if _reaches(server, host, hosts):
                node = f"srv:{name}:{index}"
                edges[node] = _UNBOUNDED
                limit = server.limit
                graph[node] = {"sink": _UNBOUNDED if limit is None else limit * server.count}
                labels[node] = f"{name}/{server.name} (maxconn {limit})"
    flow, reached = _max_flow(graph, "source", "sink")
    cut = [f"{name[3:]} ({room})" for name, room in graph["source"].items() if name not in reached and room > 0] + [
        labels[node] for node in labels if node in reached
    ]
    return flow, cut


def member_bound(config: Config, hosts: Sequence[str]) -> Bound:
    """The most connections one pod opens to any one member's port 3306."""
    known = set(hosts)
    global_maxconn, derived = config.effective_global()
    worst, cut = max((_flow(config, host, known) for host in hosts), key=lambda pair: pair[0])
    if global_maxconn <= worst:
        how = "derived from the descriptor limit" if derived else "set in the global section"
        return Bound(
            global_maxconn,
            global_maxconn,
            derived,
            f"the global maxconn {global_maxconn} ({how})",
            tuple(config.from_environment),
        )
    if worst == 0:
        why = "no frontend routes to a backend with a server on a member's port 3306"
    else:
        why = "the sessions of " + " + ".join(cut) if cut else "the frontends and servers that reach it"
    return Bound(worst, global_maxconn, derived, why, tuple(config.from_environment))


def pod_bound(texts: Sequence[str], hosts: Sequence[str], version: str = "2.8") -> Bound:
    """``member_bound`` of the configuration HAProxy builds from these files; HAProxyConfigError if it refuses them."""
    return member_bound(haproxy_proxies.read(texts, version), hosts)


def operator_pod_bound(
    operator: str, text: str, cluster: str = "cluster", size: int = 3, replicas_only_readers: bool = False, version: str = "2.8"
) -> Bound:
    """The bound of one pod running ``text`` as its global file beside the backends the operator writes for ``size``
    members of ``cluster``; HAProxyConfigError when ``haproxy -c`` refuses the pair."""
    hosts = member_hosts(operator, cluster, size)
    return pod_bound([text, operator_backends(operator, hosts, replicas_only_readers)], hosts, version)


__all__ = [
    "Bound",
    "HAProxyConfigError",
    "Proxy",
    "member_bound",
    "member_hosts",
    "operator_backends",
    "operator_pod_bound",
    "pod_bound",
]
