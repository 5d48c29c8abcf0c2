"""The worked example of docs/sizing.md (GKE n2-standard-16, light-oltp, HAProxy): its tables and figures.

Our numbers come from the sizing command's JSON, the peer's from the model in tests/peer for the same
usable budget as an open-dimension request with connections = 0. docs/generate.py writes ``blocks()``
into docs/sizing.md's generated blocks (tests/docs fails when they are stale):

    .venv/bin/python docs/generate.py          # regenerate docs/sizing.md and docs/rules.md
    .venv/bin/python docs/sizing_example.py    # print the blocks
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# The package is the installed one (the command below); only the peer model, test code that is no part of
# the distribution, is read from the repository's test tree.
sys.path.insert(0, str(ROOT))

from percona_mysql_k8s.core.flow_control import apply_rate_tps, brownout_seconds, gr_queue_bound  # noqa: E402
from percona_mysql_k8s.core.redo import MAX_CRASH_RECOVERY_SECONDS, MAX_REDO_VOLUME_FRACTION, recovery_bytes_per_second  # noqa: E402
from percona_mysql_k8s.core.rules import default_thresholds  # noqa: E402

from tests.peer.peer_calculator import calculate  # noqa: E402
from tests.peer.safety import judge  # noqa: E402

ENGINES = {"pxc": "pxc", "group-replication": "group_replication"}
MIB, GIB = 2**20, 2**30


def ours(engine: str) -> dict:
    command = [
        sys.executable,
        "-m",
        "percona_mysql_k8s.sizing",
        "--engine",
        engine,
        "--node-type",
        "n2-standard-16",
        "--provider",
        "gke",
        "--load",
        "light-oltp",
        "--proxy",
        "haproxy",
        "--format",
        "json",
    ]
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
        ("- scheduling margin", f"{node['margin_cpu_millicores']}m", mib(node["margin_memory_bytes"])),
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
    rows.append(
        (
            "member total",
            *(
                f"{r['pods']['member']['limits']['cpu']}m / {mib(r['pods']['member']['limits']['memory'])}"
                for r in results.values()
            ),
        )
    )
    return table(("container (request = limit)", *results), rows)


def memory_table(results: dict[str, dict]) -> str:
    terms = []
    for result in results.values():
        terms += [term for term in result["memory_model"]["terms"] if term not in terms]
    rows = [
        (term, *(mib(r["memory_model"]["terms"][term]) if term in r["memory_model"]["terms"] else "-" for r in results.values()))
        for term in terms
    ]
    rows.append(("**modeled peak**", *(mib(r["memory_model"]["peak_bytes"]) for r in results.values())))
    rows.append(("**mysqld limit**", *(mib(r["memory_model"]["limit_bytes"]) for r in results.values())))
    return table(("M1 term", *results), rows)


def settings_table(results: dict[str, dict]) -> str:
    keys = (
        "max_connections",
        "innodb_buffer_pool_size",
        "innodb_buffer_pool_chunk_size",
        "innodb_buffer_pool_instances",
        "innodb_redo_log_capacity",
        "wsrep_provider_options",
        "wsrep_applier_threads",
        "loose_group_replication_message_cache_size",
        "loose_group_replication_flow_control_applier_threshold",
        "replica_parallel_workers",
        "innodb_flush_log_at_trx_commit",
    )
    rows = [(f"`{key}`", *(f"`{r['mysqld'][key]}`" if key in r["mysqld"] else "-" for r in results.values())) for key in keys]
    rows.append(("failover brownout (F5)", *(f"{r['brownout_seconds']} s" for r in results.values())))
    rows.append(
        ("mysqld liveness timeout (K6)", *(f"{r['probes']['mysqld']['liveness']['timeoutSeconds']} s" for r in results.values()))
    )
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
    rows.append(
        (
            "our M1 model of the peer's settings: peak",
            *(
                f"{mib(verdicts[e].memory.peak_bytes)} ({'fits' if verdicts[e].memory.fits else 'over the limit'})"
                for e in ENGINES
            ),
        )
    )
    return table(("peer (open dimension, load 2, connections 0)", *ENGINES), rows)


def peer_answers(budget_cpu: int, budget_memory: int) -> dict:
    return {engine: calculate(db, budget_cpu, budget_memory, 2, 0) for engine, db in ENGINES.items()}


def budget_text(result: dict) -> str:
    node = result["budget"]["node"]
    allocatable = node["capacity_memory_bytes"] - node["reserved_memory_bytes"] - node["eviction_memory_bytes"]
    return (
        f"The allocatable memory, {allocatable / GIB:.1f} GiB, matches the worked example of "
        "[source 000](rules.md#source-000) (a 16 CPU / 64 GB node is really ~58 GB). With the provider's default "
        f"DaemonSets ({node['daemonset_cpu_millicores']}m / {mib(node['daemonset_memory_bytes'])}) and the scheduling margin, "
        f"the member gets {node['usable_cpu_millicores']}m and {node['usable_memory_bytes'] / GIB:.1f} GiB."
    )


def memory_text(results: dict[str, dict]) -> str:
    pxc, gr = (results[e]["memory_model"]["terms"]["buffer_pool"] for e in ENGINES)
    certification = results["group-replication"]["memory_model"]["terms"]["certification_info"]
    return (
        "Group replication pays for the certification reserve (M5) and the XCom structures (M4): its buffer pool "
        f"is {(pxc - gr) / GIB:.1f} GiB smaller at the same budget. The certification reserve is derived from the "
        f"apply rate and the garbage-collection period (§3), {mib(certification)} here, not a fixed share of the limit."
    )


def differences_text(results: dict[str, dict]) -> str:
    budget = results["pxc"]["budget"]
    peer = peer_answers(budget["cpu"], budget["memory"])
    verdicts = {engine: judge(answer) for engine, answer in peer.items()}
    ours_pool = {e: results[e]["memory_model"]["terms"]["buffer_pool"] for e in ENGINES}
    small = calculate("pxc", 4000, 8 * GIB, 2, 100)  # the peer's own example: PXC, 4 CPU / 8 GiB, 100 connections
    gr_workers = int(results["group-replication"]["mysqld"]["replica_parallel_workers"])
    thresholds = default_thresholds()
    rate = apply_rate_tps(gr_workers, thresholds)
    recovery_rate = recovery_bytes_per_second(3000)
    pxc_peer = peer["pxc"]
    return f"""The peer's buffer pools look similar ({mib(pxc_peer.buffer_pool)[:-4]} against our {mib(ours_pool["pxc"])} for PXC,
{mib(peer["group-replication"].buffer_pool)[:-4]} against {mib(ours_pool["group-replication"])} for GR), but they are not safe.
The peer sets a mysqld memory limit of {mib(pxc_peer.limit_memory("mysql"))}, and our model puts its settings at
{mib(verdicts["pxc"].memory.peak_bytes)} (PXC) and {mib(verdicts["group-replication"].memory.peak_bytes)} (GR). The reasons:

- The peer keeps nothing for the server's fixed overhead, the temporary tables (`temptable_max_ram`
  stays at 8.0's 1 GiB default) or the page cache.
- It charges only 60% of the gcache it configures.
- For GR it sets a message cache of {peer["group-replication"].gcs_cache_size / GIB:.1f} GiB that grows with the connection count and
  has no cap, and it keeps no reserve for certification info.
- Per-connection memory is charged for E = N·λ connections. That is nearly all of them here
  (λ ≈ {pxc_peer.load_factor:.2f}), but almost none for a small member: at 4 CPU / 8 GiB with 100 connections it
  charges {small.steps["effective_connections"]:.2f} of them.
- On top of that, its requests are 95% of its limits (Burstable QoS). Under node pressure the kubelet
  evicts such a pod before a Guaranteed one. Ours has request = limit for every container.

The other settings differ in the direction of the peer's known weaknesses (each one reproduced by the
model in `tests/peer/peer_calculator.py`):

- **Redo larger than the buffer pool.** The redo log ({pxc_peer.redo_log_capacity / GIB:.1f} GiB) exceeds the buffer pool
  ({pxc_peer.buffer_pool / GIB:.1f} GiB), and `innodb_log_files_in_group` is {pxc_peer.log_files_in_group}, above MySQL's maximum of 100.
  Recovering it at 3,000 IOPS ({recovery_rate / 1e6:.1f} MB/s, §3) takes about {pxc_peer.redo_log_capacity / recovery_rate / 60:.0f} minutes.
  Ours keeps the redo recoverable within {MAX_CRASH_RECOVERY_SECONDS} s at the volume's IOPS and within
  {MAX_REDO_VOLUME_FRACTION:.0%} of the volume.
- **Timers.** The Galera timers look sane at this λ (`gcs.fc_limit = {pxc_peer.provider_options["gcs.fc_limit"]}`). They scale with λ
  and have no floor, so at low load they fall to `PT0S` and a single-digit `fc_limit`. The mysqld probe
  timeout of {pxc_peer.probe_timeouts["mysql"]} s, with liveness copying readiness, leaves a hung mysqld in place for
  {pxc_peer.probe_timeouts["mysql"] // 60} minutes. Ours keeps the operator defaults and lengthens liveness only to cover the brownout.
- **Flow control.** The peer sets no `gcs.fc_factor`, no GR applier or certifier threshold and no
  `wsrep_applier_threads`. For GR the server default of 25 000 transactions applies: about
  {brownout_seconds(gr_queue_bound(25000, rate, thresholds), rate):.0f} s of brownout at the apply rate we assume
  ({rate:,.0f} tps, with the flow-control overshoot of §5). For PXC, `fc_limit` follows λ and
  falls to single digits at low load. Ours bounds the brownout at {results["pxc"]["brownout_seconds"]:.2f} s (PXC) and
  {results["group-replication"]["brownout_seconds"]:.1f} s (GR).
- **Durability.** The peer's `innodb_flush_log_at_trx_commit = 2` trades durability away."""


def blocks() -> dict[str, str]:
    """Every generated block of docs/sizing.md, by name."""
    results = {engine: ours(engine) for engine in ENGINES}
    budget = results["pxc"]["budget"]
    return {
        "budget": budget_table(results["pxc"]) + "\n\n" + budget_text(results["pxc"]),
        "containers": container_table(results),
        "memory": memory_table(results) + "\n\n" + memory_text(results),
        "settings": settings_table(results),
        "peer": peer_table(budget["cpu"], budget["memory"]),
        "differences": differences_text(results),
    }


def main() -> int:
    for name, text in blocks().items():
        print(f"<!-- {name} -->\n{text}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
