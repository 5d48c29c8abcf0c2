"""percona-mysql-restore from the outside (hypothesis): any value of any flag, extreme ones included.

Whatever is typed, the command prints a restore object (exit 0) or refuses with exit status 2 and exactly
one ``error:`` line naming the flag; never a traceback, never an object the API server would refuse
(names as Kubernetes validates them) or a point in time no backup can reach.
"""

from __future__ import annotations

import contextlib
import io
from datetime import datetime

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from percona_mysql_k8s.cli import restore
from percona_mysql_k8s.core.names import dns1123_label_problem, dns1123_subdomain_problem

NOW = datetime(2026, 11, 23, 12, 0, 0)
BASE = {"--engine": "pxc", "--cluster": "db1", "--namespace": "mysql", "--backup": "cron-db1-offsite-2026112303"}


class Backups:
    """The cluster's backups, listed (the one API call printing needs)."""

    def list_namespaced_custom_object(self, group, version, namespace, plural, _request_timeout=None):
        field = {"perconaxtradbclusterbackups": "pxcCluster", "perconaservermysqlbackups": "clusterName"}[plural]
        return {
            "items": [
                {
                    "metadata": {"name": "cron-db1-offsite-2026112303"},
                    "spec": {field: "db1"},
                    "status": {"state": "Succeeded", "completed": "2026-11-23T03:04:05Z"},
                }
            ]
        }


NAMES = st.one_of(
    st.text(max_size=20),
    st.text(alphabet="abc-.9", min_size=1, max_size=12),
    st.integers(1, 300).map(lambda n: "a" * n),
    st.sampled_from(["db1\n", "a..b", "-a", "a-", "A", "a.b", "٣", ""]),
)
TIMES = st.one_of(
    st.datetimes(min_value=datetime(1, 1, 1), max_value=datetime(9999, 12, 31)).map(lambda d: d.strftime("%Y-%m-%d %H:%M:%S")),
    st.text(max_size=20),
    st.sampled_from(
        ["0001-01-01 00:00:00", "2026-02-30 10:00:00", "2026-11-23 12:00:01", "2026-11-23 10:15:00\n", "2026-11-23T10:15:00"]
    ),
)
FLAGS = {
    "--engine": st.one_of(st.text(max_size=8), st.sampled_from(["pxc", "gr", "group-replication"])),
    "--cluster": NAMES,
    "--namespace": NAMES,
    "--backup": NAMES,
    "--name": NAMES,
    "--time": TIMES,
}


def _run(argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = restore.main(argv, api=Backups(), now=NOW)
    return code, out.getvalue(), err.getvalue()


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(sorted(FLAGS)), st.data(), st.booleans())
def test_any_value_of_any_flag_is_a_valid_object_or_one_line(flag, data, without_backup):
    args = dict(BASE)
    if without_backup:
        args.pop("--backup")
        args["--time"] = "2026-11-23 10:15:00"
    args[flag] = data.draw(FLAGS[flag], label=flag)
    argv = [item for pair in args.items() for item in pair]
    code, out, err = _run(argv)
    assert "Traceback" not in err
    if code == 0:
        obj = yaml.safe_load(out)
        metadata = obj["metadata"]
        assert dns1123_subdomain_problem(metadata["name"]) is None
        assert dns1123_label_problem(metadata["namespace"]) is None
        when = (obj["spec"].get("pitr") or {}).get("date")
        if when:
            assert datetime(1970, 1, 1) <= datetime.strptime(when, "%Y-%m-%d %H:%M:%S") <= NOW
        return
    assert code == 2 and out == "", (argv, code, err)
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    # the flag, or its value quoted (``no succeeded backup of cluster 'x'``); a cluster name too long for the
    # default restore name is said on --name, which the message asks for
    value = args[flag]
    assert flag in lines[0] or repr(value) in lines[0] or (flag == "--cluster" and "--name" in lines[0]), (argv, err)
