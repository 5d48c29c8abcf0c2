"""T3: writes go to the writer endpoint only. A load generator that writes (prepare, cleanup, write/insert/
update/delete/read_write/tpcc tests) must not target the HAProxy replicas endpoint (``<cluster>-haproxy-replicas``
or port 3307) or the Router's read-only ports (6447, 6449): writes there cause certification conflicts."""

from __future__ import annotations

from ._framework import Context, Spec, resource_policy
from ._readers.sysbench import HOST_VARIABLES, invocations, literal_env
from ._readers.workloads import LOAD_GENERATOR
from ._subjects import workload, workload_types

SPEC = Spec(
    name="writer-endpoint",
    rules=("T3",),
    applies_to=workload_types,
    description="load generators that write target the writer endpoint, never the read-only replicas endpoint",
)


def read_only(host: str, port: str) -> bool:
    host = host.lower()
    return "haproxy-replicas" in host or ("haproxy" in host and port == "3307") or ("router" in host and port in ("6447", "6449"))


def check(ctx: Context) -> None:
    subject = workload(ctx, "T3")
    if subject is None:
        return
    with ctx.checking("T3"):
        if subject.role() != LOAD_GENERATOR:
            return
        env = literal_env(subject, (*HOST_VARIABLES, "MYSQL_PORT"))
        for run in invocations(subject.script(), env):
            host = run.options.get("mysql-host") or next((env[v] for v in HOST_VARIABLES if v in env), "")
            port = run.options.get("mysql-port") or env.get("MYSQL_PORT", "3306")
            host, port = host.strip("'\""), port.strip("'\"")
            if run.writes and read_only(host, port):
                writer = host.replace("-haproxy-replicas", "-haproxy")
                ctx.violation(
                    "T3",
                    f"{subject.kind} {subject.name} sends writes (sysbench {run.test or run.subcommand}) to {host}:{port}, a read-only endpoint",
                    "the rule sends writes to the writer endpoint only (writes on replicas cause certification conflicts)",
                    f"point it at {writer}:3306 (HAProxy) or the Router's 6446",
                    field=f"{subject.path}.containers",
                )


POLICY = resource_policy(SPEC, check)
