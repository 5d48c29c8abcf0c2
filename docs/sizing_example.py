"""Print the tables of the worked example in docs/sizing.md (GKE n2-standard-16, light-oltp, HAProxy).

Our numbers come from the sizing command's JSON, the peer's from the model in tests/peer for the same
usable budget as an open-dimension request with connections = 0. Run from the repository root and
paste the output into docs/sizing.md when the engine changes:

    .venv/bin/python docs/sizing_example.py
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Run as a plain script: the peer model lives in the test tree, importable from the repository root.
sys.path.insert(0, str(ROOT))

from tests.peer.peer_calculator import calculate  # noqa: E402
from tests.peer.safety import judge  # noqa: E402

ENGINES = {"pxc": "pxc", "group-replication": "group_replication"}
MIB, GIB = 2**20, 2**30


def ours(engine: str) -> dict:
    command = [sys.executable, "-m", "percona_mysql_k8s.sizing", "--engine", engine, "--node-type", "n2-standard-16",
               "--provider", "gke", "--load", "light-oltp", "--proxy", "haproxy", "--format", "json"]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, (str(ROOT / "modules"), os.environ.get("PYTHONPATH"))))}
    return json.loads(subprocess.run(command, cwd=ROOT, env=env, check=True, capture_output=True, text=True).stdout)


def mib(value: float) -> str:
    return f"{value / MIB:,.0f} MiB"


def table(header: tuple[str, ...], rows: list[tuple]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]
    return "\n".join(lines)


def budget_table(result: dict) -> str:
    node = result["budget"]["node"]
    rows = [
        ("capacity", f"{node['capacity_cpu_millicores']}m", mib(node["capacity_memory_bytes"])),
        ("- kube/system reserved", f"{node['reserved_cpu_millicores']}m", mib(node["reserved_memory_bytes"])),
        ("- eviction threshold", "0m", mib(node["eviction_memory_bytes"])),
        ("- DaemonSet requests", f"{node['daemonset_cpu_millicores']}m", mib(node["daemonset_memory_bytes"])),
        ("= usable (the member budget)", f"{node['usable_cpu_millicores']}m", mib(node["usable_memory_bytes"])),
    ]
    return table(("K1 term", "CPU", "memory"), rows)


def container_table(results: dict[str, dict]) -> str:
    names = []
    for result in results.values():
        for pod in ("mysqld", "proxy"):
            names += [f"{pod}/{name}" for name in result["pods"][pod]["containers"] if f"{pod}/{name}" not in names]
    rows = []
    for qualified in names:
        pod, name = qualified.split("/")
        cells = []
        for result in results.values():
            present = name in result["pods"][pod]["containers"]
            key = qualified if qualified in result["resources"] else name  # a name in both pods is keyed by pod
            size = result["resources"][key]["limits"] if present else None
            cells.append(f"{size['cpu']}m / {mib(size['memory'])}" if size else "-")
        rows.append((f"{pod} pod: {name}", *cells))
    rows.append(("member total", *(
        f"{r['pods']['member']['limits']['cpu']}m / {mib(r['pods']['member']['limits']['memory'])}" for r in results.values()
    )))
    return table(("container (request = limit)", *results), rows)


def memory_table(results: dict[str, dict]) -> str:
    terms = []
    for result in results.values():
        terms += [term for term in result["memory_model"]["terms"] if term not in terms]
    rows = [(term, *(mib(r["memory_model"]["terms"][term]) if term in r["memory_model"]["terms"] else "-"
                     for r in results.values())) for term in terms]
    rows.append(("**modeled peak**", *(mib(r["memory_model"]["peak_bytes"]) for r in results.values())))
    rows.append(("**mysqld limit**", *(mib(r["memory_model"]["limit_bytes"]) for r in results.values())))
    return table(("M1 term", *results), rows)


def settings_table(results: dict[str, dict]) -> str:
    keys = ("max_connections", "innodb_buffer_pool_size", "innodb_buffer_pool_chunk_size", "innodb_buffer_pool_instances",
            "innodb_redo_log_capacity", "wsrep_provider_options", "wsrep_applier_threads",
            "loose_group_replication_message_cache_size", "loose_group_replication_flow_control_applier_threshold",
            "replica_parallel_workers", "innodb_flush_log_at_trx_commit")
    rows = [(f"`{key}`", *(f"`{r['mysqld'][key]}`" if key in r["mysqld"] else "-" for r in results.values())) for key in keys]
    rows.append(("failover brownout (F5)", *(f"{r['brownout_seconds']} s" for r in results.values())))
    rows.append(("mysqld liveness timeout (K6)",
                 *(f"{r['probes']['mysqld']['liveness']['timeoutSeconds']} s" for r in results.values())))
    return table(("setting", *results), rows)


def peer_table(budget_cpu: int, budget_memory: int) -> str:
    answers = {engine: calculate(db, budget_cpu, budget_memory, 2, 0) for engine, db in ENGINES.items()}
    verdicts = {engine: judge(answer) for engine, answer in answers.items()}
    values = {
        "message type": lambda a: a.message_type,
        "mysqld CPU / memory limit": lambda a: f"{a.mysql_cpu}m / {mib(a.limit_memory('mysql'))}",
        "mysqld requests (95%)": lambda a: f"{a.mysql_cpu * 0.95:.0f}m / {mib(a.mysql_memory * 0.95)}",
        "HAProxy CPU / memory": lambda a: f"{a.proxy_cpu}m / {mib(a.limit_memory('proxy'))}",
        "PMM CPU / memory": lambda a: f"{a.pmm_cpu}m / {mib(a.limit_memory('pmm'))}",
        "max_connections": lambda a: a.max_connections,
        "connections charged for buffers (E = N x λ)": lambda a: int(a.steps["effective_connections"]),
        "innodb_buffer_pool_size": lambda a: mib(a.buffer_pool),
        "innodb_buffer_pool_instances": lambda a: a.buffer_pool_instances,
        "innodb_redo_log_capacity": lambda a: mib(a.redo_log_capacity),
        "innodb_log_files_in_group": lambda a: a.log_files_in_group,
        "gcache.size / message cache": lambda a: mib(a.gcache_size or a.gcs_cache_size),
        "gcs.fc_limit / flow_control_period": lambda a: (a.provider_options or {}).get("gcs.fc_limit", a.gr_flow_control_period),
        "mysqld probe timeout (readiness = liveness)": lambda a: f"{a.probe_timeouts['mysql']} s",
        "innodb_flush_log_at_trx_commit": lambda a: 2,
    }
    rows = [(name, *(value(answers[e]) for e in ENGINES)) for name, value in values.items()]
    rows.append(("our M1 model of the peer's settings: peak",
                 *(f"{mib(verdicts[e].memory.peak_bytes)} ({'fits' if verdicts[e].memory.fits else 'over the limit'})"
                   for e in ENGINES)))
    return table(("peer (open dimension, load 2, connections 0)", *ENGINES), rows)


def main() -> int:
    results = {engine: ours(engine) for engine in ENGINES}
    budget = results["pxc"]["budget"]
    for title, text in (
        ("Budget", budget_table(results["pxc"])),
        ("Containers", container_table(results)),
        ("Memory", memory_table(results)),
        ("Settings", settings_table(results)),
        ("Peer", peer_table(budget["cpu"], budget["memory"])),
    ):
        print(f"### {title}\n\n{text}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
