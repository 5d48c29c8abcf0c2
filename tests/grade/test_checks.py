"""The grader's rules on readings: each check holds on the matching reading and breaches on one changed value."""

from __future__ import annotations

import json

import pytest
from grade_readings import reading
from percona_mysql_k8s.core.report import to_json
from percona_mysql_k8s.core.rules import resolve_thresholds
from percona_mysql_k8s.core.sizing import SizingInput, size
from percona_mysql_k8s.core.units import MIB
from percona_mysql_k8s.grade import checks, live
from percona_mysql_k8s.grade.checks import BREACHED, HOLDS, NOT_GRADED, Finding, Resident
from percona_mysql_k8s.grade.sizing_file import read_sizing

THRESHOLDS = resolve_thresholds({})


def verdicts(findings, subject_part: str) -> list[str]:
    return [f.verdict for f in findings if subject_part in f.subject]


@pytest.mark.parametrize(
    "sized, live, same",
    [
        ("134217728", "128M", True),
        ("128M", "134217728", True),
        ("1G", "1073741824", True),
        ("1.0", "1", True),
        ("ON", "1", True),
        ("OFF", "0", True),
        ("yes", "ON", True),
        ("O_DIRECT", "o_direct", True),
        ("100", "100", True),
        ("100", "1", False),
        ("ON", "OFF", False),
        ("O_DIRECT", "fsync", False),
        ("1", None, False),
        ("0.5", "1.0", False),
    ],
)
def test_values_compare_as_the_server_means_them(sized, live, same):
    assert checks.same_value(sized, live) is same


def test_the_matching_reading_holds_everywhere(sizing):
    findings = checks.grade(sizing, [reading(sizing)], THRESHOLDS)
    assert [f for f in findings if f.verdict == BREACHED] == []
    assert checks.exit_status(findings) == 0
    # what MariaDB cannot show is listed with the reason, not passed
    skipped = {f.subject for f in findings if f.verdict == NOT_GRADED}
    assert skipped == {
        "temptable_max_ram",
        "temptable_max_mmap",
        "innodb_buffer_pool_instances",
        "innodb_buffer_pool_chunk_size",
        "innodb_parallel_read_threads",
    }


def test_a_variable_off_its_size_breaches_its_rules(sizing):
    findings = checks.variables_as_sized(sizing, reading(sizing, variables={"innodb_buffer_pool_size": "134217728"}))
    [pool] = [f for f in findings if f.subject == "innodb_buffer_pool_size"]
    assert (pool.verdict, pool.rules) == (BREACHED, ("M1", "M2"))
    assert pool.detail == f"134217728, sized {sizing.mysqld['innodb_buffer_pool_size']}"


def test_a_renamed_variable_is_read_under_the_servers_name(sizing):
    findings = checks.variables_as_sized(sizing, reading(sizing, variables={"wsrep_slave_threads": "2"}))
    [appliers] = [f for f in findings if f.subject.startswith("wsrep_applier_threads")]
    assert appliers.subject == "wsrep_applier_threads (wsrep_slave_threads)"
    assert (appliers.verdict, appliers.rules) == (BREACHED, ("G3", "F5"))


def test_on_mysql_the_variable_keeps_its_sized_name_and_absence_breaches(sizing):
    variables = {"wsrep_slave_threads": "4"}  # a MySQL 8 server without wsrep_applier_threads
    read = reading(sizing, variables=variables, version="8.0.36-28.1")
    findings = checks.variables_as_sized(sizing, read)
    # on MySQL 8 nothing is skipped: the TempTable options are graded (absent here: breached)
    assert [f for f in findings if f.verdict == NOT_GRADED] == []
    [temptable] = [f for f in findings if f.subject == "temptable_max_ram"]
    assert temptable.verdict == BREACHED and "absent" in temptable.detail


def test_a_value_no_rule_covers_is_reported_but_never_fails(sizing):
    findings = checks.variables_as_sized(sizing, reading(sizing, variables={"table_open_cache": "2000"}))
    [cache] = [f for f in findings if f.subject == "table_open_cache"]
    assert (cache.verdict, cache.rules) == (BREACHED, ())
    assert checks.exit_status(findings) == 0


def test_provider_options_are_graded_one_by_one(sizing):
    live = reading(
        sizing,
        variables={"wsrep_provider_options": "gcache.size = 256M; gcs.fc_limit = 100; gcs.fc_factor = 0.5; gcache.recover = yes"},
    )
    findings = {f.subject: f for f in checks.variables_as_sized(sizing, live) if f.subject.startswith("wsrep_provider")}
    assert findings["wsrep_provider_options: gcache.size"].verdict == BREACHED
    assert findings["wsrep_provider_options: gcache.size"].rules == ("M1",)
    assert findings["wsrep_provider_options: gcs.fc_factor"].rules == ("G2",)
    assert findings["wsrep_provider_options: gcs.fc_limit"].verdict == HOLDS


def test_the_interval_is_galeras_formula_on_the_live_options_or_pxcs_status(sizing):
    assert checks.modelled_interval(sizing) == (173, 173)
    # MariaDB shows no interval: computed from the live options and the live member count
    assert checks.live_interval(reading(sizing)) == ((173, 173), "Galera's formula on the live options and member count")
    two = reading(sizing, after={"wsrep_cluster_size": "2"})
    assert checks.live_interval(two)[0] == (141, 141)
    # PXC 8 shows it as a status variable, which wins
    pxc = reading(sizing, after={"wsrep_flow_control_interval": "[ 253, 256 ]"})
    assert checks.live_interval(pxc) == ((253, 256), "wsrep_flow_control_interval")
    findings = checks.flow_control_settings(sizing, pxc, THRESHOLDS)
    assert verdicts(findings, "flow-control interval") == [BREACHED]


def test_a_low_fc_limit_breaches_the_interval_not_the_bound(sizing):
    live = reading(sizing, variables={"wsrep_provider_options": "gcs.fc_limit = 1; gcs.fc_factor = 1.0"})
    findings = checks.flow_control_settings(sizing, live, THRESHOLDS)
    assert verdicts(findings, "gcs.fc_limit bounded") == [HOLDS]  # 1 <= max_fc_limit: G1's bound holds
    [interval] = [f for f in findings if f.subject == "flow-control interval"]
    assert interval.verdict == BREACHED and interval.detail.startswith("[2, 2]") and interval.rules == ("G1", "F5")


def test_a_raised_fc_limit_breaches_g1_only(sizing):
    live = reading(sizing, variables={"wsrep_provider_options": "gcs.fc_limit = 500; gcs.fc_factor = 1.0"})
    findings = checks.flow_control_settings(sizing, live, THRESHOLDS)
    assert verdicts(findings, "gcs.fc_limit bounded") == [BREACHED]
    assert verdicts(findings, "gcs.fc_factor in") == [HOLDS]


def test_provider_options_galera_would_refuse_breach_g1_g2_rather_than_read_as_defaults(sizing):
    # galerautils refuses gcs.fc_factor outside [0, 1] (core.galera_options): nothing proves either bound then
    live = reading(sizing, variables={"wsrep_provider_options": "gcs.fc_limit = 500; gcs.fc_factor = 1.5"})
    findings = checks.flow_control_settings(sizing, live, THRESHOLDS)
    assert verdicts(findings, "gcs.fc_limit bounded") == [BREACHED]
    assert verdicts(findings, "gcs.fc_factor in") == [BREACHED]
    assert all("unreadable wsrep_provider_options" in f.detail and "gcs.fc_factor" in f.detail for f in findings)


def test_time_paused_is_the_delta_over_the_window(sizing):
    # 0.5 s of 10 s = 5%: holds; 3 s of 10 s = 30%: above the 25% default
    assert verdicts(checks.paused_by_flow_control(reading(sizing), THRESHOLDS), "paused") == [HOLDS]
    paused = reading(sizing, after={"wsrep_flow_control_paused_ns": "4000000000"})
    [finding] = checks.paused_by_flow_control(paused, THRESHOLDS)
    assert (finding.verdict, finding.rules) == (BREACHED, ("G3",)) and "3.00 s of 10.0 s (30.0%" in finding.detail
    looser = resolve_thresholds({"max_flow_control_paused_fraction": 0.5})
    assert verdicts(checks.paused_by_flow_control(paused, looser), "paused") == [HOLDS]
    # a server without the nanosecond counter cannot be graded on a window
    bare = reading(sizing, before={"wsrep_flow_control_paused_ns": ""}, after={"wsrep_flow_control_paused_ns": ""})
    assert verdicts(checks.paused_by_flow_control(bare, THRESHOLDS), "paused") == [NOT_GRADED]


def test_the_queue_peak_drained_at_the_apply_rate_fits_the_brownout_budget(sizing):
    [held] = checks.queue_peak(sizing, reading(sizing), THRESHOLDS)  # 231 / 200 tps = 1.2 s
    assert held.verdict == HOLDS and "231 write-sets" in held.detail and "1.2 s brownout" in held.detail
    # 30 s x 200 tps = 6000 write-sets is the budget
    assert verdicts(
        checks.queue_peak(sizing, reading(sizing, after={"wsrep_local_recv_queue_max": "6000"}), THRESHOLDS), "queue"
    ) == [HOLDS]
    assert verdicts(
        checks.queue_peak(sizing, reading(sizing, after={"wsrep_local_recv_queue_max": "6001"}), THRESHOLDS), "queue"
    ) == [BREACHED]


def test_membership_needs_the_sized_count_primary_and_synced(sizing):
    assert verdicts(checks.membership(sizing, reading(sizing)), "cluster size") == [HOLDS]
    for change in (
        {"wsrep_cluster_size": "2"},
        {"wsrep_cluster_status": "non-Primary"},
        {"wsrep_local_state_comment": "Donor/Desynced"},
    ):
        assert verdicts(checks.membership(sizing, reading(sizing, after=change)), "cluster size") == [BREACHED], change


def test_resident_memory_against_the_modelled_total(sizing):
    peak = sizing.model_peak_bytes
    at = reading(sizing, resident=Resident(peak - MIB, peak, "/proc/1 VmHWM"))
    assert verdicts(checks.resident_memory(sizing, at), "resident") == [HOLDS]
    over = reading(sizing, resident=Resident(peak - MIB, peak + 1, "/proc/1 VmHWM"))
    assert verdicts(checks.resident_memory(sizing, over), "resident") == [BREACHED]  # the peak counts, not the current
    # a current value is not a peak: below the model it proves nothing (not graded), above it the peak is too
    current = reading(sizing, resident=Resident(peak - MIB, None, "a source without a high-water mark"))
    assert verdicts(checks.resident_memory(sizing, current), "resident") == [NOT_GRADED]
    assert "no high-water mark" in checks.resident_memory(sizing, current)[0].detail
    past = reading(sizing, resident=Resident(peak + 1, None, "a source without a high-water mark"))
    assert verdicts(checks.resident_memory(sizing, past), "resident") == [BREACHED]
    remote = checks.MemberReading("10.0.0.5:3306", "8.0.36", {}, {}, {}, 1.0, None, "not on this machine")
    assert checks.resident_memory(sizing, remote) == [
        Finding(("M1",), "10.0.0.5:3306", "resident memory", NOT_GRADED, "not on this machine")
    ]


def test_group_replication_membership_counts_online_members():
    gr = read_sizing(
        json.dumps(to_json(size(SizingInput(engine="group-replication", cpu_millicores=4000, memory_bytes=8192 * MIB)))),
        "gr.json",
    )
    live = checks.MemberReading("127.0.0.1:3306", "8.0.36-28", {}, {}, {}, 1.0, None, "remote", group_members=2)
    assert verdicts(checks.membership(gr, live), "cluster size") == [BREACHED]
    # group replication is not graded on Galera's flow control
    assert not [f for f in checks.grade(gr, [live], THRESHOLDS) if f.rules and f.rules[0] in ("G1", "G2", "G3")]


class _MemorySession:
    """What live.resident asks a server that is not on this machine: performance_schema's memory summary."""

    def __init__(self, high, current):
        self.address = live.Address("10.0.0.5", 3306)
        self.answer = [(high, current)]
        self.asked: list[str] = []

    def query(self, sql):
        self.asked.append(sql)
        return self.answer


def test_performance_schema_memory_is_its_high_water_marks_not_current_bytes(sizing):
    peak = sizing.model_peak_bytes
    session = _MemorySession(high=peak + 1, current=peak // 2)
    resident, note = live.resident(session, {"performance_schema": "ON", "pid_file": "/var/run/mysqld.pid"})
    assert "HIGH_NUMBER_OF_BYTES_USED" in session.asked[0] and note == ""
    assert (resident.peak_bytes, resident.current_bytes) == (peak + 1, peak // 2)
    # the high-water mark is graded: past the model though what is allocated now is half of it
    assert verdicts(checks.resident_memory(sizing, reading(sizing, resident=resident)), "resident") == [BREACHED]
    within = live.resident(_MemorySession(high=peak, current=peak), {"performance_schema": "ON"})[0]
    assert verdicts(checks.resident_memory(sizing, reading(sizing, resident=within)), "resident") == [HOLDS]
    # performance_schema off, or no memory counted: not graded, with the reason
    off, why = live.resident(_MemorySession(high=0, current=0), {"performance_schema": "OFF"})
    assert off is None and "counts no memory" in why and "not on this machine" in why
