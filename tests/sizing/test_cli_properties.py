"""The sizing command from the outside, over every flag (hypothesis): random and extreme values.

Whatever is typed, the command answers (exit 0, a JSON document without NaN or Infinity) or refuses with
exit status 2 and exactly one ``error:`` line naming the flag that was typed; never a traceback.
"""

from __future__ import annotations

import contextlib
import io
import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from percona_mysql_k8s.core.rules import THRESHOLDS
from percona_mysql_k8s.sizing.cli import main

BASE = {"--engine": "pxc", "--cpu": "4", "--memory": "8Gi"}
GR_BASE = {"--engine": "group-replication", "--cpu": "4", "--memory": "8Gi"}
NODE_BASE = {"--engine": "pxc", "--node-type": "n2-standard-16", "--provider": "gke"}

DIGITS = st.sampled_from(["0", "1", "7", "9", "٣", "３", "²", "_", ".", "-", "+", "e", " "])
NUMBERS = st.one_of(
    st.integers(-(2**70), 2**70).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.sampled_from(["0", "-1", "1e308", "1e-308", "nan", "inf", "-0", "1_000", "١٢", "３", "9" * 400, "", " 3 "]),
    st.lists(DIGITS, max_size=6).map("".join),
)
QUANTITIES = st.one_of(
    NUMBERS,
    st.tuples(NUMBERS, st.sampled_from(["", "m", "k", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei", "E", "e9", "K", "GB", "i"])).map(
        "".join
    ),
)
TEXT = st.one_of(
    st.text(max_size=12),
    st.sampled_from(
        ["pxc", "gr", "haproxy", "proxysql", "router", "8.0", "8.4", "heavy-oltp", "gke", "eks", "m6i.4xlarge", "e2-medium"]
    ),
)
FLAGS = {
    "--engine": TEXT,
    "--cpu": QUANTITIES,
    "--memory": QUANTITIES,
    "--node-type": TEXT,
    "--provider": TEXT,
    "--daemonset-cpu": QUANTITIES,
    "--daemonset-memory": QUANTITIES,
    "--load": TEXT,
    "--connections": NUMBERS,
    "--proxy": TEXT,
    "--mysql-version": TEXT,
    "--size": NUMBERS,
    "--volume": QUANTITIES,
    "--disk-iops": NUMBERS,
    "--threshold": st.tuples(st.one_of(st.sampled_from(sorted(THRESHOLDS)), st.text(max_size=8)), NUMBERS).map(
        lambda pair: f"{pair[0]}={pair[1]}"
    ),
}


def _run(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from([BASE, GR_BASE, NODE_BASE]), st.sampled_from(sorted(FLAGS)), st.data())
def test_any_value_of_any_flag_is_answered_or_refused_in_one_line(base, flag, data):
    value = data.draw(FLAGS[flag], label=flag)
    args = dict(base)
    args[flag] = value
    argv = [item for pair in args.items() for item in pair] + ["--format", "json"]
    code, out, err = _run(argv)
    assert "Traceback" not in err
    if code == 0:
        assert err == "" and "NaN" not in out and "Infinity" not in out
        answer = json.loads(out)
        assert answer["brownout_seconds"] <= answer["flow_control"]["max_brownout_seconds"] + 0.0005  # printed to 3 decimals
        return
    assert code == 2 and out == "", (argv, code, err)
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    # the flag typed, or (for a conflict between two flags) its name in the message, e.g. "(cpu + memory)"
    assert flag in lines[0] or flag.lstrip("-").replace("-", " ") in lines[0] or flag.lstrip("-") in lines[0], (argv, err)
