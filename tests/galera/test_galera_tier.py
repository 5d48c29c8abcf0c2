"""The sizing's promises inside a real Galera cluster (marker ``galera``; ``scripts/galera.sh run-tier``).

Three mariadbd 10.11 with Galera 4 run the options ``percona-mysql-sizing --engine pxc --cpu 2 --memory 2560Mi``
writes (translated where MariaDB spells them differently, the rest listed as skipped). sysbench loads one
member at the sizing's connection count, the buffer pools are filled, then the worst case runs on every member
(worst_case.py). The tests assert that every member joins with those options, that Galera logs and acts on the
flow-control interval it reports (two-sided), that peak resident memory stays within the modelled total on every
member, also under the worst case, and that ``percona-mysql-grade`` grades every rule it can on the healthy cluster,
names G3 at its shipped bound when a load makes the appliers slow (no option changed), and G1 on a drifted option.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time

import measure
import pytest
import workload as load
import worst_case as worst
from percona_mysql_k8s.core import flow_control
from percona_mysql_k8s.core.calibration import SHARED_TERM_MARGIN
from percona_mysql_k8s.core.mycnf import PROVIDER_OPTIONS, parse_provider_options
from percona_mysql_k8s.core.rules import default_thresholds
from percona_mysql_k8s.core.units import MIB
from percona_mysql_k8s.grade.checks import NOT_GRADED, modelled_interval, same_value

pytestmark = pytest.mark.galera
GRADE_WINDOW = 10  # seconds of flow control the grader watches


@pytest.fixture(scope="session")
def workload(cluster, sizing, sizing_file, out_dir):
    return load.run(cluster, sizing, sizing_file, out_dir)


@pytest.fixture(scope="session")
def figures(workload, cluster, sizing, sizing_json, translation, out_dir):
    """Per member and per memory term: measured, modelled, ratio; written to measured.json for issue 21."""
    per_member = {
        member.name: measure.member_figures(
            workload.sampler.samples[member.name],
            workload.idle_end,
            workload.oltp_end,
            workload.threads if member is cluster.members[0] else 0,
            workload.final_hwm[member.name],
            sizing.model_terms,
            sizing.max_connections,
            sizing.model_peak_bytes,
        )
        for member in cluster.members
    }
    provider = dict(
        cluster.query(
            cluster.members[0], "SHOW GLOBAL STATUS WHERE Variable_name IN ('wsrep_provider_name', 'wsrep_provider_version')"
        )
    )
    version = cluster.query(cluster.members[0], "SELECT VERSION()")[0][0]
    sysbench_summary = [
        line.strip()
        for line in workload.sysbench_log.read_text().splitlines()
        if line.strip().startswith(("transactions:", "queries:", "ignored errors:"))
    ]
    document = {
        "server": {"version": version, "provider": f"{provider['wsrep_provider_name']} {provider['wsrep_provider_version']}"},
        "sizing": {
            "command": "percona-mysql-sizing " + " ".join(load.SIZING_ARGS),
            "memory_model": sizing_json["memory_model"],
            "max_connections": sizing.max_connections,
            "mysqld_limit_bytes": sizing.model_limit_bytes,
        },
        "sysbench": {
            "threads": workload.threads,
            "seconds": load.SYSBENCH_SECONDS,
            "writer": cluster.members[0].name,
            "summary": sysbench_summary,
            "login_during_load_seconds": round(workload.login_seconds, 1),
            "flow_control_phase": {
                "seconds": load.FLOW_CONTROL_SECONDS,
                "big_rows": load.BIG_ROWS,
                "big_update_seconds": [round(x, 2) for x in workload.big_update_seconds],
            },
        },
        "fill": {
            "batches": workload.fill_batches,
            "bytes_per_batch": load.FILL_ROWS * load.FILL_ROW_BYTES,
            "seconds": round(workload.fill_seconds, 1),
            "pages_free_share": workload.pages_free_share,
        },
        "flow_control": {
            "modelled_interval": list(modelled_interval(sizing)),
            "logged_interval": {m.name: list(m.logged_intervals()[-1]) for m in cluster.members},
            "members": {
                name: {
                    key: workload.fc_after[name][key] - workload.fc_before[name][key]
                    if key != "wsrep_local_recv_queue_max"
                    else workload.fc_after[name][key]
                    for key in workload.fc_after[name]
                }
                for name in workload.fc_after
            },
        },
        "memory": per_member,
        "worst_case": {
            "statement": worst.STATEMENT,
            "seconds": worst.SECONDS,
            "members": {
                member.name: measure.worst_case_figures(
                    workload.sampler.samples[member.name],
                    workload.worst.members[member.name],
                    workload.worst.started,
                    workload.worst.ended,
                    dict(translation.options),
                    sizing.model_terms,
                )
                for member in cluster.members
            },
        },
        "sampler_errors": workload.sampler.errors[:20],
    }
    (out_dir / "measured.json").write_text(json.dumps(document, indent=2) + "\n")
    print(f"\nmeasured/model per memory term (written to {out_dir / 'measured.json'}):")
    print(f"  {'term':<24}{'build-indep.':>13}" + "".join(f"{name:>26}" for name in per_member))
    for term in measure.TERMS:
        cells = "".join(_cell(per_member[n][term]) for n in per_member)
        print(f"  {term:<24}{'yes' if measure.TERMS[term][0] else 'no':>13}{cells}")
    return document


def _cell(figure: dict) -> str:
    if figure["measured_bytes"] is None:
        return f"{'(no clients)':>26}"
    return f"{figure['measured_bytes'] / MIB:>9.1f}/{figure['model_bytes'] / MIB:>7.1f} MiB {figure['ratio']:>5.2f}"


def _live_provider(variables: dict[str, str]) -> dict[str, str]:
    return parse_provider_options(variables[PROVIDER_OPTIONS])


def test_every_member_starts_and_joins_with_the_generated_options(cluster, translation, sizing):
    sized_provider = parse_provider_options(translation.options[PROVIDER_OPTIONS])
    for member in cluster.members:
        status = cluster.status(member)
        assert (
            status["wsrep_cluster_size"],
            status["wsrep_cluster_status"],
            status["wsrep_local_state_comment"],
            status["wsrep_ready"],
        ) == (str(sizing.cluster_size), "Primary", "Synced", "ON"), member.name
        variables = cluster.variables(member)
        differ = {
            name: (value, variables.get(name))
            for name, value in translation.options.items()
            if name != PROVIDER_OPTIONS and not same_value(value, variables.get(name))
        }
        assert differ == {}, f"{member.name} runs other values than the sizing's: {differ}"
        live = _live_provider(variables)
        assert {k: live.get(k) for k in sized_provider if not same_value(sized_provider[k], live.get(k))} == {}
    # every sized key is applied, renamed or skipped with a reason
    applied = set(translation.options) | set(translation.renamed) | {skip.key for skip in translation.skipped}
    assert applied >= set(sizing.mysqld)
    assert all(skip.reason for skip in translation.skipped)


def test_galera_logs_the_interval_the_model_predicts(cluster, sizing):
    provider = parse_provider_options(sizing.mysqld[PROVIDER_OPTIONS])
    expected = flow_control.galera_fc_interval(
        int(provider["gcs.fc_limit"]), float(provider["gcs.fc_factor"]), sizing.cluster_size
    )
    assert expected == modelled_interval(sizing) == (173, 173)  # 100 x sqrt(3) + .5, truncated (gcs.cpp)
    for member in cluster.members:
        logged = member.logged_intervals()
        assert logged, f"{member.name} logged no 'Flow-control interval'"
        assert logged[-1] == expected, f"{member.name} logged {logged}"
    # the first member saw the cluster grow: one interval per member count, each Galera's formula
    assert cluster.members[0].logged_intervals()[-3:] == [
        flow_control.galera_fc_interval(int(provider["gcs.fc_limit"]), float(provider["gcs.fc_factor"]), n) for n in (1, 2, 3)
    ]


def server_interval(cluster, member) -> tuple[tuple[int, int], str]:
    """The flow-control interval as the server reports it: PXC 8's status ``wsrep_flow_control_interval``
    (``[ 173, 173 ]``) where the server has it; MariaDB 10.11 has none (its wsrep status lists only
    ``wsrep_flow_control_active`` / ``_requested`` / ``_paused*`` / ``_sent`` / ``_recv``), so the interval Galera
    last logged (``gcs.cpp`` ``_set_fc_limits``: "Flow-control interval: [lo, hi]")."""
    rows = cluster.query(member, "SHOW GLOBAL STATUS LIKE 'wsrep_flow_control_interval'")
    if rows:
        low, high = (int(part) for part in str(rows[0][1]).strip(" []").split(","))
        return (low, high), "wsrep_flow_control_interval"
    logged = member.logged_intervals()
    assert logged, f"{member.name} reports no flow-control interval (no status, nothing logged)"
    return logged[-1], "the error log"


def test_flow_control_engages_at_the_interval_the_server_reports(workload, figures, cluster, sizing):
    """Two-sided: a member that sent FC_STOP had its receive queue past the upper limit the server reports (Galera
    sends it only then: ``gcs_fc_stop_begin``, queue_len > upper_limit + fc_offset), and no member's queue went further
    than the write-sets already on their way when the stop took effect. The writer commits synchronously, so each of
    its connections has at most one write-set in flight: the sysbench threads and the large update, one each. A queue
    past that tolerance is flow control that engaged late, or not at all."""
    members = figures["flow_control"]["members"]
    in_flight = workload.threads + 1
    intervals = {member.name: server_interval(cluster, member) for member in cluster.members}
    assert {interval for interval, _ in intervals.values()} == {modelled_interval(sizing)}, intervals
    senders = {name: m for name, m in members.items() if m["wsrep_flow_control_sent"] > 0}
    print(
        f"\nflow control under sysbench ({workload.threads} threads, {len(workload.big_update_seconds)} updates of "
        f"{load.BIG_ROWS} rows beside it): "
        + "; ".join(
            f"{name}: interval {intervals[name][0]} ({intervals[name][1]}), sent {m['wsrep_flow_control_sent']}, queue "
            f"peak {m['wsrep_local_recv_queue_max']} ({m['wsrep_local_recv_queue_max'] / intervals[name][0][1]:.2f} x the "
            f"upper limit; tolerance +{in_flight}), paused {m['wsrep_flow_control_paused_ns'] / 1e9:.2f} s"
            for name, m in members.items()
        )
    )
    assert senders, (
        f"flow control never engaged: no member sent FC_STOP under {workload.threads} sysbench threads "
        f"(queue peaks {[m['wsrep_local_recv_queue_max'] for m in members.values()]}); the interval "
        "could not be observed"
    )
    assert members["node1"]["wsrep_flow_control_paused_ns"] > 0 and members["node1"]["wsrep_flow_control_recv"] > 0
    for name, member in members.items():
        high = intervals[name][0][1]
        peak = member["wsrep_local_recv_queue_max"]
        if member["wsrep_flow_control_sent"]:
            assert peak > high, f"{name} sent FC_STOP with its queue at most {peak}, inside the interval {high}"
        # a member may send none while another's stop is in force (stop_count > 0), but no queue outgrows the stop
        assert peak <= high + in_flight, (
            f"{name}: receive queue peaked at {peak}, past the upper limit {high} + {in_flight} write-sets in flight: "
            "flow control did not stop the writer when the queue passed the interval"
        )


def test_blocked_statements_never_starve_the_server(workload, cluster, sizing):
    """The thread pool's cap admits a thread for every connection mysqld accepts (docs/sizing.md §4): under the full
    load a login gets through, and sysbench makes the progress the sizing's own flow-control model assumes.

    The floor on throughput is F5's: the sizing sizes flow control and the failover brownout on the appliers
    draining ``apply_rate_tps`` write-sets a second (one per oltp_read_write transaction), and flow control holds
    the writer to what they drain. A writer below that rate breaks the model's premise; a starved pool (every
    thread held by a blocked statement) ran 1.2 transactions a second here, two orders of magnitude below it.
    """
    variables = cluster.variables(cluster.members[0])
    groups, cap = int(variables["thread_pool_size"]), int(variables["thread_pool_max_threads"])
    assert cap >= sizing.max_connections + 1 + groups, (cap, sizing.max_connections, groups)
    login = workload.login
    assert login is not None and login.returncode in (0, 1), (
        f"percona-mysql-grade could not log in during the load (exit {login.returncode}): {login.stderr.strip()}"
    )
    assert "member(s)" in login.stdout and not login.stderr.strip(), login.stdout + login.stderr
    transactions, per_second = workload.throughput()
    print(
        f"\nunder {workload.threads} sysbench threads: {transactions} transactions ({per_second:.1f}/s, the sizing "
        f"assumes the appliers drain {sizing.apply_rate_tps:.0f}/s); a login took {workload.login_seconds:.1f} s"
    )
    assert per_second >= sizing.apply_rate_tps, (
        f"{per_second:.1f} transactions/s under {workload.threads} threads, below the {sizing.apply_rate_tps:.0f}/s "
        "the sizing's flow control assumes (F5): statements are starving"
    )
    assert transactions >= sizing.apply_rate_tps * load.SYSBENCH_SECONDS


def test_peak_resident_memory_is_within_the_model(workload, figures, sizing):
    assert all(workload.pools_full.values()), (
        f"the buffer pools did not fill in {workload.fill_batches} batches: free share {workload.pages_free_share}"
    )
    for name, terms in figures["memory"].items():
        total = terms["total"]
        assert total["measured_bytes"] <= sizing.model_peak_bytes, (
            f"{name}: peak RSS {total['measured_bytes'] / MIB:.0f} MiB exceeds the modelled "
            f"{sizing.model_peak_bytes / MIB:.0f} MiB"
        )
        # the build-independent terms are what the model says they are
        assert terms["gcache"]["ratio"] == pytest.approx(1.0, abs=0.01), name  # the ring wrapped: all resident
        assert 0.97 <= terms["buffer_pool"]["ratio"] <= 1.0, name  # frames within the configured pool


def test_the_worst_case_stays_within_the_model(workload, figures, sizing):
    """Every statement the pool runs at once takes every buffer the model charges a statement, the other admitted
    connections idle, the buffer pools full (tests/galera/worst_case.py): peak resident memory stays within the
    modelled peak on every member, and where both servers bound a statement by the same options, the model charges it
    at most SHARED_TERM_MARGIN times what it took."""
    for name, worst_figures in figures["worst_case"]["members"].items():
        assert worst_figures["errors"] == [], (name, worst_figures["errors"])
        running = worst_figures["running_clients"]
        assert worst_figures["statements"] >= running, (name, worst_figures["statements"])
        # the pool ran them all at once: no client waited, none beyond the bound ran
        assert worst_figures["most_running_at_once"] == running, (name, worst_figures["most_running_at_once"])
        counters, statements = worst_figures["counters"], worst_figures["statements"]
        assert counters["Select_full_join"] >= statements, (name, counters)  # a join without an index, each time
        assert counters["Created_tmp_disk_tables"] >= statements, (name, counters)  # the temporary table reached its bound
        assert counters["Sort_merge_passes"] >= statements, (name, counters)  # more rows than the sort buffer holds
        assert counters["Handler_read_rnd"] >= statements, (name, counters)  # rows read back by position
        statement = worst_figures["statement"]
        assert statement["measured_bytes"] >= statement["temporary_table_bytes"], (name, statement)
        assert statement["model_bytes"] <= SHARED_TERM_MARGIN * statement["measured_bytes"], (name, statement)
        assert worst_figures["hwm_bytes"] <= sizing.model_peak_bytes, (
            f"{name}: VmHWM {worst_figures['hwm_bytes'] / MIB:.0f} MiB under the worst case exceeds the modelled "
            f"{sizing.model_peak_bytes / MIB:.0f} MiB"
        )
        print(
            f"\n{name}: {statements} worst-case statements, {worst_figures['most_running_at_once']} at once; a statement "
            f"held {statement['measured_bytes'] / MIB:.1f} MiB (charged {statement['model_bytes'] / MIB:.1f}); together "
            f"{worst_figures['statements_together']['measured_bytes'] / MIB:.1f} MiB; VmHWM "
            f"{worst_figures['hwm_bytes'] / MIB:.0f} of {sizing.model_peak_bytes / MIB:.0f} MiB"
        )


def _grade(cluster, member, *extra, admin=True, env=None, timeout=120):
    return load.grade(cluster, member, *extra, admin=admin, env=env, timeout=timeout)


def _stop(process):
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def test_grade_holds_on_the_healthy_cluster(cluster, workload, sizing, sizing_file, translation, out_dir):
    # a write rate a quarter of the apply rate the sizing assumes (F5): flow control has no reason to pause
    rate = max(1, int(sizing.apply_rate_tps / 4))
    background = load.sysbench(
        cluster,
        cluster.members[0],
        workload.password,
        4,
        f"--rate={rate}",
        seconds=GRADE_WINDOW + 20,
        log=out_dir / "sysbench-healthy.log",
        background=True,
    )
    try:
        time.sleep(3)
        # through the SQL ports, the peers discovered from the member itself
        result = _grade(cluster, cluster.members[0], "--sizing", str(sizing_file), "--window", str(GRADE_WINDOW), admin=False)
    finally:
        _stop(background)
    (out_dir / "grade-healthy.txt").write_text(result.stdout + result.stderr)
    print("\n" + result.stdout[-1500:])
    assert result.returncode == 0, result.stdout + result.stderr
    assert "BREACHED" not in result.stdout
    assert f"{len(cluster.members)} member(s)" in result.stdout  # the peers were found from the member itself
    for member in cluster.members:  # resident memory read from /proc for every member
        assert f"127.0.0.1:{member.sql_port}" in result.stdout
    assert result.stdout.count("resident memory: peak") == len(cluster.members)
    # every rule that can be graded on this server was: the only findings not graded are the sized keys MariaDB has
    # no variable for (the dialect table, docs/galera.md), on each member, and nothing else
    not_graded = [line.split() for line in result.stdout.splitlines() if line.strip().startswith(NOT_GRADED)]
    subjects = sorted(fields[3].rstrip(":") for fields in not_graded)
    assert subjects == sorted(skip.key for skip in translation.skipped for _ in cluster.members), not_graded
    assert result.stdout.splitlines()[-1].endswith(f", {len(subjects)} not graded"), result.stdout.splitlines()[-1]


def test_grade_names_g3_when_the_appliers_fall_behind(cluster, workload, sizing, sizing_file, out_dir, tmp_path):
    """No option is changed. Beside the full sysbench load, the writer updates a table without a key back to back,
    which the appliers apply with a scan per changed row (workload.rows_without_a_key_updated): they fall behind, flow control pauses the writer,
    and G3 breaches at its shipped bound. G1 holds on every member, because the load changes no setting."""
    password_file = tmp_path / "password"
    password_file.write_text(cluster.password + "\n")
    password_file.chmod(0o600)
    before = load.fc_status(cluster)
    background = load.sysbench(
        cluster,
        cluster.members[0],
        workload.password,
        workload.threads,
        seconds=GRADE_WINDOW + 30,
        log=out_dir / "sysbench-forced.log",
        background=True,
    )
    with load.rows_without_a_key_updated(cluster) as updates:
        time.sleep(3)
        result = _grade(
            cluster,
            cluster.members[0],
            "--sizing",
            str(sizing_file),
            "--window",
            str(GRADE_WINDOW),
            "--password-file",
            str(password_file),
            env={"MYSQL_PWD": "not-the-password"},
        )
    _stop(background)
    after = load.fc_status(cluster)
    drained = load.wait_drained(cluster)
    (out_dir / "grade-forced.txt").write_text(result.stdout + result.stderr)
    sent = {name: after[name]["wsrep_flow_control_sent"] - before[name]["wsrep_flow_control_sent"] for name in after}
    print("\n" + "\n".join(line for line in result.stdout.splitlines() if "BREACHED" in line or "summary" in line))
    print(
        f"{len(updates)} updates of {load.NOPK_CHANGED} rows without a key; FC_STOP sent {sent}; writer paused "
        f"{(after['node1']['wsrep_flow_control_paused_ns'] - before['node1']['wsrep_flow_control_paused_ns']) / 1e9:.1f} s; "
        f"the queues applied {drained:.0f} s after the load stopped"
    )
    assert result.returncode == 1, result.stdout + result.stderr
    breached = [line for line in result.stdout.splitlines() if "BREACHED" in line]
    bound = default_thresholds()["max_flow_control_paused_fraction"]
    assert any("time paused by flow control" in line and f"at most {bound:.0%}" in line for line in breached), (
        "G3 missed the pauses: " + result.stdout
    )
    assert any(sent[member.name] for member in cluster.members[1:]), f"no applier sent FC_STOP: {sent}"
    # the load changed no setting: G1 holds everywhere, and G3 is the rule named
    assert not [line for line in breached if "gcs.fc_limit" in line or "interval" in line], breached
    summary = result.stdout.splitlines()[-1]
    assert summary.startswith("summary:") and "G3" in summary and "G1" not in summary, summary


def test_grade_names_g1_when_an_option_drifts(cluster, sizing_file, tmp_path):
    """G1 judges settings, which no load changes: a member whose gcs.fc_limit drifted from the sizing (set here, as an
    operator's SET GLOBAL would) is named, with the interval it now runs; nothing else is asked of this run."""
    drifted = cluster.members[1]
    load.wait_drained(cluster)  # nothing left paused by an earlier test: only the drift may be named
    cluster.query(drifted, f"SET GLOBAL wsrep_provider_options = 'gcs.fc_limit={load.FORCED_FC_LIMIT}'")
    try:
        result = _grade(cluster, cluster.members[0], "--sizing", str(sizing_file), "--window", "1")
    finally:
        cluster.query(drifted, "SET GLOBAL wsrep_provider_options = 'gcs.fc_limit=100'")
    breached = [line for line in result.stdout.splitlines() if "BREACHED" in line]
    address = f"127.0.0.1:{drifted.admin_port}"
    assert result.returncode == 1, result.stdout + result.stderr
    assert any(address in line and f"gcs.fc_limit: {load.FORCED_FC_LIMIT}, sized 100" in line for line in breached), breached
    assert any(address in line and "flow-control interval: [17, 17]" in line for line in breached), breached
    g1 = [line for line in breached if "gcs.fc_limit" in line or "interval" in line]
    assert g1 and all(address in line for line in g1), breached  # only the drifted member's settings


def test_grade_gives_up_on_a_stopped_member(cluster, sizing_file):
    stopped = cluster.members[2]
    os.kill(stopped.pid, signal.SIGSTOP)  # queries against it now hang: the grader must time out, not hang
    try:
        started = time.monotonic()
        result = _grade(cluster, cluster.members[0], "--sizing", str(sizing_file), "--window", "1", "--timeout", "2", timeout=60)
        elapsed = time.monotonic() - started
    finally:
        os.kill(stopped.pid, signal.SIGCONT)
    cluster.wait_synced(stopped)
    assert result.returncode == 2, result.stdout + result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and f"127.0.0.1:{stopped.admin_port}" in lines[0], lines
    assert elapsed < 30
