"""The operators' own HAProxy files: the default global files byte for byte and the backends their scripts write.

* ``PXC_HAPROXY_GLOBAL``: PXC operator build/haproxy-global.cfg (v1.19.0, unchanged since 2024-07, the same in
  1.20.0 b3b0b10a7); ``PS_HAPROXY_GLOBAL``: PS operator v1.2.0 build/haproxy-global.cfg. A pod runs one of them
  when the custom resource gives no ``configuration``, or one ``haproxy -c`` refuses (build/haproxy-entrypoint.sh).
* ``operator_backends``: the second file, ``/etc/haproxy/<pxc|mysql>/haproxy.cfg``, as
  build/haproxy_add_pxc_nodes.sh and build/haproxy_add_mysql_nodes.sh write it for the members (``send_proxy``
  empty leaves two blanks where it stands; ``SERVER_OPTIONS`` at the operator's own value, no ``maxconn``).

Sizing renders the global files with its ``maxconn`` (plan/database/proxy_config.py); the pack reads them back.
Pure; no Pulumi.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

# Each file byte for byte, as package data beside this module, so that it diffs cleanly against its source.
_FILES = Path(__file__).resolve().parent / "operator_files"
PXC_HAPROXY_GLOBAL = (_FILES / "pxc-haproxy-global.cfg").read_text()
PS_HAPROXY_GLOBAL = (_FILES / "ps-haproxy-global.cfg").read_text()

_PXC_CHECK = "/opt/percona/haproxy_check_pxc.sh"
_PXC_OPTIONS = "resolvers kubernetes check inter 10000 rise 1 fall 2 weight 1 on-marked-down shutdown-sessions"
_PS_OPTIONS = "resolvers kubernetes inter 10000 rise 1 fall 2 check weight 1"
_PS_BACKENDS = ("mysql-primary", "mysql-replicas", "mysql-x", "mysql-admin")
_PS_PRIMARY_CHECK = "/opt/percona/haproxy_check_primary.sh"
_PS_REPLICAS_CHECK = "/opt/percona/haproxy_check_replicas.sh"


# The members a bound is computed over. One member's bound does not depend on how many others there are once there are
# two (each member is one server line in each backend: the first the writer, the others its backups), so a resource's
# size is read up to this many: a malformed size of a billion must not build a billion server lines (T1 reports it).
MEMBERS_FOR_A_BOUND = 9


def member_hosts(operator: str, cluster: str, size: int) -> list[str]:
    component = "pxc" if operator == "pxc" else "mysql"
    count = min(max(1, size), MEMBERS_FOR_A_BOUND)
    return [f"{cluster}-{component}-{i}.{cluster}-{component}" for i in range(count)]


def _backend(name: str, check: str, servers: list[str]) -> str:
    head = f"    backend {name}\n      mode tcp\n      option srvtcpka\n      balance roundrobin\n      option external-check\n"
    return head + f"      external-check command {check}\n" + "".join(f"{line}\n" for line in servers)


def operator_backends(operator: str, hosts: Sequence[str], replicas_only_readers: bool = False) -> str:
    """The second file as the operator's script writes it for these members (the first is the writer/primary)."""
    names = [host.split(".")[0] for host in hosts]
    if operator == "pxc":  # build/haproxy_add_pxc_nodes.sh (send_proxy empty: two blanks where it stands)
        up = "on-marked-up shutdown-backup-sessions"
        rest = sorted(zip(names[1:], hosts[1:], strict=True), reverse=True)  # sort --version-sort -r
        nodes = [f"server {names[0]} {hosts[0]}:3306  {_PXC_OPTIONS} {up}"]
        admin = [f"server {names[0]} {hosts[0]}:33062 {_PXC_OPTIONS} {up}"]
        mysqlx = [f"server {names[0]} {hosts[0]}:33060 {_PXC_OPTIONS} {up}"]
        nodes += [f"server {n} {h}:3306  {_PXC_OPTIONS} backup" for n, h in rest]
        admin += [f"server {n} {h}:33062 {_PXC_OPTIONS} backup" for n, h in rest]
        mysqlx += [f"server {n} {h}:33060  {_PXC_OPTIONS} backup" for n, h in rest]
        replicas = [f"server {n} {h}:3306  {_PXC_OPTIONS}" for n, h in zip(names, hosts, strict=True)]
        return "".join(
            (
                _backend("galera-nodes", _PXC_CHECK, nodes),
                _backend("galera-admin-nodes", _PXC_CHECK, admin),
                _backend("galera-replica-nodes", _PXC_CHECK, replicas[1:] if replicas_only_readers else replicas),
                _backend("galera-mysqlx-nodes", _PXC_CHECK, mysqlx),
            )
        )
    # build/haproxy_add_mysql_nodes.sh: the primary's line (port 3306) opens mysql-primary, mysql-x and mysql-admin
    primary = f"server {names[0]} {hosts[0]}:3306  {_PS_OPTIONS} on-marked-up shutdown-backup-sessions"
    rest = sorted(zip(names[1:], hosts[1:], strict=True), reverse=True)
    check = "/opt/percona/haproxy_check_replicas.sh" if len(rest) > 1 else "/opt/percona/haproxy_check_primary.sh"
    return "".join(
        (
            _backend(
                _PS_BACKENDS[0], _PS_PRIMARY_CHECK, [primary, *(f"server {n} {h}:3306  {_PS_OPTIONS} backup" for n, h in rest)]
            ),
            _backend(
                _PS_BACKENDS[1],
                _PS_REPLICAS_CHECK,
                [f"server {n} {h}:3306  {_PS_OPTIONS}" for n, h in zip(names[1:], hosts[1:], strict=True)],
            ),
            _backend(_PS_BACKENDS[2], check, [primary, *(f"server {n} {h}:33060  {_PS_OPTIONS} backup" for n, h in rest)]),
            _backend(_PS_BACKENDS[3], check, [primary, *(f"server {n} {h}:33062 {_PS_OPTIONS} backup" for n, h in rest)]),
        )
    )
