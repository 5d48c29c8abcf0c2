"""Rule by rule: does a live member match its sizing? Pure functions over what the client read.

Each check returns :class:`Finding` objects naming the catalogue rules it grades. A value the server cannot
show (a MariaDB server has no TempTable engine; memory of a remote server without performance_schema) is
*not graded*, with the reason, never passed silently.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from percona_mysql_k8s.core import flow_control
from percona_mysql_k8s.core.memory import PXC
from percona_mysql_k8s.core.mycnf import PROVIDER_OPTIONS, MyCnfError, parse_provider_options
from percona_mysql_k8s.core.units import MIB, parse_mysql_size

from .dialect import flavour_of, translate
from .sizing_file import Sizing

HOLDS, BREACHED, NOT_GRADED = "holds", "BREACHED", "not graded"
# Provider options with a rule of their own; any other sized one is graded under wsrep_provider_options' rules.
PROVIDER_OPTION_RULES = {"gcache.size": ("M1",), "gcs.fc_limit": ("G1", "F5"), "gcs.fc_factor": ("G2",)}
_BOOLEANS = {"on": True, "off": False, "yes": True, "no": False, "true": True, "false": False, "1": True, "0": False}
_PXC_INTERVAL = re.compile(r"^\s*\[\s*(\d+)\s*,\s*(\d+)\s*\]\s*$")


@dataclass(frozen=True)
class Finding:
    rules: tuple[str, ...]  # catalogue IDs; () for a sized value no rule covers (reported, never a breach)
    member: str  # host:port, or "cluster"
    subject: str
    verdict: str  # HOLDS, BREACHED or NOT_GRADED
    detail: str


@dataclass(frozen=True)
class Resident:
    """A member's resident memory and where it was read (``/proc/<pid>``, ``performance_schema``)."""

    current_bytes: int
    peak_bytes: int | None
    source: str


@dataclass(frozen=True)
class MemberReading:
    address: str
    version: str
    variables: Mapping[str, str]  # SHOW GLOBAL VARIABLES, names in lower case
    before: Mapping[str, str]  # SHOW GLOBAL STATUS at the start of the window
    after: Mapping[str, str]  # ... and at its end
    window_seconds: float
    resident: Resident | None
    resident_note: str = ""  # why resident memory could not be read
    group_members: int | None = None  # group replication: ONLINE members this member sees


# ---- values ----------------------------------------------------------------------------------------------


def _size(value: str) -> int | None:
    try:
        return parse_mysql_size(value.strip())
    except ValueError:
        return None


def _float(value: str) -> float | None:
    try:
        number = float(value)
    except ValueError:
        return None
    return number if math.isfinite(number) else None


def same_value(sized: str, live: str | None) -> bool:
    """Equal as the server means them: sizes as bytes (``128M`` = ``134217728``), numbers as numbers
    (``1.0`` = ``1``), booleans by meaning (``ON`` = ``1`` = ``yes``), anything else case-insensitively."""
    if live is None:
        return False
    for convert in (_size, _float):
        a, b = convert(sized), convert(live)
        if a is not None and b is not None:
            return a == b
    a_bool, b_bool = _BOOLEANS.get(sized.strip().lower()), _BOOLEANS.get(live.strip().lower())
    if a_bool is not None and b_bool is not None:
        return a_bool == b_bool
    return sized.strip().lower() == live.strip().lower()


def _mib(num_bytes: float) -> str:
    return f"{num_bytes / MIB:,.1f} MiB"


def _provider(options: Mapping[str, str]) -> dict[str, str]:
    try:
        return parse_provider_options(options.get(PROVIDER_OPTIONS, ""))
    except MyCnfError:
        return {}


# ---- checks ----------------------------------------------------------------------------------------------


def variables_as_sized(sizing: Sizing, reading: MemberReading) -> list[Finding]:
    """Every sized option against the live variable, under the rules the sizing names for it."""
    translation = translate(sizing.mysqld, flavour_of(reading.version))
    findings = [
        Finding(sizing.rules.get(skip.key, ()), reading.address, skip.key, NOT_GRADED, skip.reason)
        for skip in translation.skipped
    ]
    for written, value in sizing.mysqld.items():
        name = translation.live_name(written)
        if name is None or name == PROVIDER_OPTIONS:
            continue
        live = reading.variables.get(name)
        label = written if name == written else f"{written} ({name})"
        rules = sizing.rules.get(written, ())
        if same_value(value, live):
            findings.append(Finding(rules, reading.address, label, HOLDS, f"{live} as sized"))
        else:
            shown = "absent: the server has no such variable" if live is None else live
            findings.append(Finding(rules, reading.address, label, BREACHED, f"{shown}, sized {value}"))
    if sizing.engine == PXC:
        findings.extend(_provider_options_as_sized(sizing, reading))
    return findings


def _provider_options_as_sized(sizing: Sizing, reading: MemberReading) -> list[Finding]:
    sized = _provider(sizing.mysqld)
    live = _provider(reading.variables)
    findings = []
    for key, value in sized.items():
        rules = PROVIDER_OPTION_RULES.get(key, sizing.rules.get(PROVIDER_OPTIONS, ()))
        actual = live.get(key)
        verdict = HOLDS if same_value(value, actual) else BREACHED
        detail = f"{actual} as sized" if verdict == HOLDS else f"{actual if actual is not None else 'absent'}, sized {value}"
        findings.append(Finding(rules, reading.address, f"{PROVIDER_OPTIONS}: {key}", verdict, detail))
    return findings


def _fc_settings(provider: Mapping[str, str], fc_limit_default: int) -> tuple[int | None, float | None, bool]:
    limit = _size(provider.get("gcs.fc_limit", str(fc_limit_default)))
    factor = _float(provider.get("gcs.fc_factor", str(flow_control.GALERA_FC_FACTOR_DEFAULT)))
    single = provider.get("gcs.fc_single_primary", provider.get("gcs.fc_master_slave", "no"))
    return limit, factor, bool(_BOOLEANS.get(single.strip().lower(), False))


def modelled_interval(sizing: Sizing) -> tuple[int, int]:
    """G1: the interval Galera logs for the sized options on the sized cluster."""
    limit, factor, single = _fc_settings(_provider(sizing.mysqld), 100)
    if limit is None or factor is None:
        raise ValueError("the sizing's wsrep_provider_options has no readable gcs.fc_limit / gcs.fc_factor")
    return flow_control.galera_fc_interval(limit, factor, sizing.cluster_size, single)


def live_interval(reading: MemberReading) -> tuple[tuple[int, int] | None, str]:
    """PXC 8 shows ``wsrep_flow_control_interval`` (``[ 173, 173 ]``); MariaDB does not, so Galera's own
    formula is applied to the live provider options and the live member count."""
    shown = _PXC_INTERVAL.match(reading.after.get("wsrep_flow_control_interval", ""))
    if shown:
        return (int(shown.group(1)), int(shown.group(2))), "wsrep_flow_control_interval"
    limit, factor, single = _fc_settings(_provider(reading.variables), 16)  # Galera's own default limit
    members = _size(reading.after.get("wsrep_cluster_size", ""))
    if limit is None or factor is None or not members or limit < 1 or not 0 <= factor <= 1:
        return None, "unreadable gcs.fc_limit / gcs.fc_factor / wsrep_cluster_size"
    return flow_control.galera_fc_interval(
        limit, factor, members, single
    ), "Galera's formula on the live options and member count"


def flow_control_settings(sizing: Sizing, reading: MemberReading, thresholds: Mapping[str, float]) -> list[Finding]:
    """G1/G2 on the live provider options, and the interval against the model's."""
    maximum = thresholds["max_fc_limit"]
    try:
        provider = parse_provider_options(reading.variables.get(PROVIDER_OPTIONS, ""))
    except MyCnfError as error:
        # Galera's defaults must not stand in for options nobody can read: both bounds are unproven
        unreadable = f"unreadable {PROVIDER_OPTIONS}: {error}"
        return [
            Finding(("G1",), reading.address, "gcs.fc_limit bounded", BREACHED, unreadable),
            Finding(("G2",), reading.address, "gcs.fc_factor in (0, 1]", BREACHED, unreadable),
        ]
    limit, factor, _ = _fc_settings(provider, 16)
    findings = [
        Finding(
            ("G1",),
            reading.address,
            "gcs.fc_limit bounded",
            HOLDS if limit is not None and 1 <= limit <= maximum else BREACHED,
            f"{limit} (at most {maximum:g})",
        ),
        Finding(
            ("G2",),
            reading.address,
            "gcs.fc_factor in (0, 1]",
            HOLDS if factor is not None and 0 < factor <= 1 else BREACHED,
            f"{factor}",
        ),
    ]
    expected = modelled_interval(sizing)
    actual, source = live_interval(reading)
    verdict = HOLDS if actual == expected else BREACHED
    shown = f"[{actual[0]}, {actual[1]}]" if actual else "unknown"
    findings.append(
        Finding(
            ("G1", "F5"),
            reading.address,
            "flow-control interval",
            verdict,
            f"{shown} ({source}), modelled [{expected[0]}, {expected[1]}] for {sizing.cluster_size} members",
        )
    )
    return findings


def membership(sizing: Sizing, reading: MemberReading) -> list[Finding]:
    """T1: the cluster has the sized number of members, and this one is a synced part of the primary component."""
    if sizing.engine == PXC:
        size = _size(reading.after.get("wsrep_cluster_size", ""))
        state = (reading.after.get("wsrep_cluster_status"), reading.after.get("wsrep_local_state_comment"))
        healthy = size == sizing.cluster_size and state == ("Primary", "Synced")
        detail = f"{size} members, {state[0]}, {state[1]} (sized {sizing.cluster_size}, Primary, Synced)"
    else:
        size = reading.group_members
        healthy = size == sizing.cluster_size
        detail = f"{size} ONLINE group members (sized {sizing.cluster_size})"
    return [Finding(("T1",), reading.address, "cluster size", HOLDS if healthy else BREACHED, detail)]


def paused_by_flow_control(reading: MemberReading, thresholds: Mapping[str, float]) -> list[Finding]:
    """G3: the share of the window this member spent paused (``wsrep_flow_control_paused_ns`` delta; FLUSH
    STATUS does not reset it, so only a delta is a window's figure)."""
    before = _size(reading.before.get("wsrep_flow_control_paused_ns", ""))
    after = _size(reading.after.get("wsrep_flow_control_paused_ns", ""))
    if before is None or after is None or reading.window_seconds <= 0:
        return [
            Finding(
                ("G3",),
                reading.address,
                "time paused by flow control",
                NOT_GRADED,
                "the server shows no wsrep_flow_control_paused_ns",
            )
        ]
    paused = max(0, after - before) / 1e9
    share = paused / reading.window_seconds
    limit = thresholds["max_flow_control_paused_fraction"]
    return [
        Finding(
            ("G3",),
            reading.address,
            "time paused by flow control",
            HOLDS if share <= limit else BREACHED,
            f"{paused:.2f} s of {reading.window_seconds:.1f} s ({share:.1%}; at most {limit:.0%}, "
            "config max_flow_control_paused_fraction)",
        )
    ]


def queue_peak(sizing: Sizing, reading: MemberReading, thresholds: Mapping[str, float]) -> list[Finding]:
    """F5: the largest receive queue this member held, drained at the sizing's apply rate, fits the brownout budget."""
    peak = _size(reading.after.get("wsrep_local_recv_queue_max", ""))
    if peak is None:
        return [Finding(("F5",), reading.address, "receive queue peak", NOT_GRADED, "no wsrep_local_recv_queue_max")]
    seconds = peak / sizing.apply_rate_tps
    budget = thresholds["max_failover_brownout_seconds"]
    low, high = modelled_interval(sizing)
    return [
        Finding(
            ("F5",),
            reading.address,
            "receive queue peak",
            HOLDS if seconds <= budget else BREACHED,
            f"{peak} write-sets (modelled interval [{low}, {high}]; since start or FLUSH STATUS) / "
            f"{sizing.apply_rate_tps:g} tps = {seconds:.1f} s brownout (at most {budget:g} s)",
        )
    ]


def resident_memory(sizing: Sizing, reading: MemberReading) -> list[Finding]:
    """M1: the peak of resident memory within the modelled peak. Only a high-water mark is compared: what a member
    holds now says nothing about its peak, so a source that shows only current bytes is not graded."""
    resident = reading.resident
    if resident is None:
        return [Finding(("M1",), reading.address, "resident memory", NOT_GRADED, reading.resident_note)]
    if resident.peak_bytes is None:  # what it holds now is a lower bound of its peak: a breach, never a pass
        over = resident.current_bytes > sizing.model_peak_bytes
        return [
            Finding(
                ("M1",),
                reading.address,
                "resident memory",
                BREACHED if over else NOT_GRADED,
                f"{resident.source} shows {_mib(resident.current_bytes)} now and no high-water mark: a current value is "
                f"not a peak{', and already past the modelled ' + _mib(sizing.model_peak_bytes) if over else ''}",
            )
        ]
    measured, kind = resident.peak_bytes, "peak"
    verdict = HOLDS if measured <= sizing.model_peak_bytes else BREACHED
    return [
        Finding(
            ("M1",),
            reading.address,
            "resident memory",
            verdict,
            f"{kind} {_mib(measured)} ({resident.source}) of the modelled {_mib(sizing.model_peak_bytes)} "
            f"({measured / sizing.model_peak_bytes:.0%})",
        )
    ]


def grade(sizing: Sizing, readings: Sequence[MemberReading], thresholds: Mapping[str, float]) -> list[Finding]:
    """Every check on every member, in member order."""
    findings: list[Finding] = []
    for reading in readings:
        findings.extend(variables_as_sized(sizing, reading))
        findings.extend(membership(sizing, reading))
        if sizing.engine == PXC:
            findings.extend(flow_control_settings(sizing, reading, thresholds))
            findings.extend(paused_by_flow_control(reading, thresholds))
            findings.extend(queue_peak(sizing, reading, thresholds))
        findings.extend(resident_memory(sizing, reading))
    return findings


def exit_status(findings: Sequence[Finding]) -> int:
    """0 when every graded rule holds, 1 when one is breached (a value no rule covers never fails)."""
    return 1 if any(f.verdict == BREACHED and f.rules for f in findings) else 0
