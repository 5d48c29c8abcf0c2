"""R7 (stack): a production database's data volume claim holds the data the stack's sysbench prepare writes into it,
plus the binary logs that writing leaves (core.benchmark.data_volume_needed, the sizing's own bound).

The data set comes from the stack itself: every load generator (workloads reader) whose containers (init
containers included: this project's Sysbench Job prepares in one) run an oltp script's ``prepare``, read as sysbench
reads its options (_readers/sysbench.py: ``--tables``, ``--table-size`` or ``--table_size`` on the command line;
``--config-file`` cannot set them), turned into bytes by core.benchmark.data_bytes. The Job targets a database when
its ``--mysql-host`` (else ``MYSQL_HOST``/``MYSQL_HOSTNAME``/``DB_HOST``) names one of the cluster's Services or pods:
``<cluster>-<service>`` (the operators' Services: pxc, pxc-unready, haproxy, haproxy-replicas, proxysql,
proxysql-unready; mysql, mysql-primary, mysql-unready, router) or ``<cluster>-<pxc|mysql>-N.<cluster>-<pxc|mysql>``,
in the namespace the host names next (``shop-haproxy.db.svc``), else the Job's own. Prepares into different
schemas (``--mysql-db``, default sbtest) add up; into the same schema the larger counts (the tables are the same).
A host that names no database of the stack (an IP, an outside name) and a count that is not a literal (a variable
from a Secret) are not judged. Custom resources only: a pxc-db/ps-db release's names are the chart's to render.
The claim's request is read by _readers/volumes.py (Kubernetes quantities); a volume that is no claim is
data-volume's to report. Production only (data_protection.production).
"""

from __future__ import annotations

import math
import re

from percona_mysql_k8s.core.benchmark import ROW_BYTES, data_bytes, data_volume_needed
from percona_mysql_k8s.core.units import GIB

from ._framework import Context, Spec, stack_policy
from ._readers.deferred import Pending
from ._readers.stack import partial_name, read_stack
from ._readers.sysbench import invocations, literal_env, oltp_prepare, target_hosts
from ._readers.values import MISSING, Malformed, as_map, at, known
from ._readers.volumes import CLAIM, read_volume
from ._readers.workloads import LOAD_GENERATOR, workload_view
from .data_protection import SPEC as DATA_PROTECTION
from .data_protection import production

SPEC = Spec(
    name="data-volume-size",
    rules=("R7",),
    settings=DATA_PROTECTION.settings,
    description="a production database's data volume claim holds the data its sysbench prepare Jobs write plus the "
    "binary logs that writing leaves",
    remediation="Raise the claim's storage request (the stack's storageSize) to what the message names, or prepare "
    "a smaller data set (--tables, --table-size).",
)

# The Services (and StatefulSet pods) the operators create for a cluster <name>: pxc-operator pkg/pxc/app/service
# (<name>-pxc, -pxc-unready, -haproxy, -haproxy-replicas, -proxysql, -proxysql-unready); ps-operator pkg/mysql,
# pkg/haproxy, pkg/router (<name>-mysql, -mysql-primary, -mysql-unready, -haproxy, -router).
SERVICES = frozenset(
    ("pxc", "pxc-unready", "haproxy", "haproxy-replicas", "proxysql", "proxysql-unready")
    + ("mysql", "mysql-primary", "mysql-unready", "router")
)
DEFAULT_SCHEMA = "sbtest"  # src/lua/oltp_common.lua, --mysql-db's default (drv_mysql.c)
_VARIABLE = re.compile(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?")


def serves(name: str, namespace: str, host: str, job_namespace: str) -> bool:
    """Whether ``host``, resolved from a pod in ``job_namespace``, reaches the cluster ``name`` in ``namespace``."""
    labels = host.lower().rstrip(".").split(".")
    first, rest = labels[0], labels[1:]
    pod = re.fullmatch(rf"{re.escape(name)}-(pxc|mysql)-[0-9]+", first)
    if pod and rest and rest[0] == f"{name}-{pod.group(1)}":
        rest = rest[1:]  # <pod>.<headless service>.<namespace>
    elif not (first.startswith(f"{name}-") and first[len(name) + 1 :] in SERVICES):
        return False
    return (rest[0] if rest else job_namespace) == namespace


def _namespace(metadata, path: str) -> str:
    value = known(as_map(metadata, path).get("namespace", MISSING), f"{path}.namespace")
    return value if isinstance(value, str) else ""


def _prepares(ctx: Context) -> list[tuple[str, str, list[str], str, int, int, int]]:
    """(Job label, its namespace, hosts, schema, tables, rows, bytes) of every oltp prepare of the stack. A load
    generator unknown at preview is named and left out: what it prepares may only add to a database's data."""
    found = []
    for resource in ctx.resources:
        with ctx.checking("R7", resource.urn, resource.label):
            try:
                workload = workload_view(resource.type, resource.props, resource.name)
                if workload is None or workload.role() != LOAD_GENERATOR:
                    continue
                lines = workload.command_lines()
                env = literal_env(workload, _VARIABLE.findall(lines))
                namespace = _namespace(at(resource.props, "metadata"), "metadata")
            except Malformed:  # unreadable: the resource policies report it
                continue
            for run in invocations(lines, env):
                counts = oltp_prepare(run)
                literal = all("$" not in run.options.get(key, "") for key in ("tables", "table-size"))
                if counts is None or not literal:
                    continue
                schema = run.options.get("mysql-db", DEFAULT_SCHEMA).strip("'\"") or DEFAULT_SCHEMA
                label = f"{workload.kind} {partial_name(workload)}"
                found.append((label, namespace, target_hosts(run, env), schema, *counts, data_bytes(*counts)))
    return found


def _data_set(prepares, name: str, namespace: str) -> tuple[int, list[str]]:
    """The bytes the prepares that reach ``name`` leave there (per schema the largest), and what wrote them."""
    per_schema: dict[str, int] = {}
    written = []
    for label, job_namespace, hosts, schema, tables, rows, size in prepares:
        if any(serves(name, namespace, host, job_namespace) for host in hosts):
            per_schema[schema] = max(per_schema.get(schema, 0), size)
            written.append(f"{label} ({tables} tables x {rows} rows into {schema})")
    return sum(per_schema.values()), written


def check(ctx: Context) -> None:
    stack = read_stack(ctx.resources)
    prepares = None
    for resource, view in stack.databases:
        if view.chart is not None:
            continue
        with ctx.checking("R7", resource.urn, resource.label):
            if not production(ctx, view):
                continue
            if prepares is None:
                prepares = _prepares(ctx)
            if not prepares:
                return
            if isinstance(view.name, Pending):
                view.name.raise_error()
            data, written = _data_set(prepares, view.name, _namespace(view.metadata, "metadata"))
            if not written:
                continue
            rel = f"{view.mysqld_rel}.volumeSpec"
            volume = read_volume(view.get(rel), view.path(rel), view.operator)
            needed = data_volume_needed(data)
            if volume.source != CLAIM or volume.claim_bytes is None or volume.claim_bytes >= needed:
                continue  # no claim, or one the operator refuses: data-volume reports it
            ctx.violation(
                "R7",
                f"{volume.claim_path} is {volume.claim_bytes} bytes, but {'; '.join(written)} "
                f"{'write' if len(written) > 1 else 'writes'} {data} bytes of data "
                f"({ROW_BYTES} bytes a row) into {resource.label}, and the binary logs of that writing as much again: "
                f"it needs {needed} bytes",
                "the rule sizes the data volume for the data plus the binary logs mysqld keeps beside it",
                f"set {volume.claim_path} to at least {math.ceil(needed / GIB)}Gi ({needed} bytes), or prepare a "
                "smaller data set (--tables, --table-size)",
                resource.urn,
                field=volume.claim_path,
            )


POLICY = stack_policy(SPEC, check)
