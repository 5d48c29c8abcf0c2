"""The operators' HAProxy files kept in core.haproxy_operator are their sources byte for byte.

Read from the operators' kit (``../shared/tools/percona-operators``, or ``PERCONA_OPERATORS_KIT``; the archives
``scripts/operators.sh`` verifies against its SHA256SUMS): build/haproxy-global.cfg of each operator, and the lines
its add-nodes script writes before the servers of each backend.
"""

from __future__ import annotations

import os
import re
import tarfile
from pathlib import Path

import pytest
from percona_mysql_k8s.core.haproxy_operator import PS_HAPROXY_GLOBAL, PXC_HAPROXY_GLOBAL, member_hosts, operator_backends

KIT = Path(
    os.environ.get("PERCONA_OPERATORS_KIT", Path(__file__).resolve().parents[3] / "shared" / "tools" / "percona-operators")
)
ARCHIVES = {"pxc": "percona-xtradb-cluster-operator-b3b0b10a7", "ps": "percona-server-mysql-operator-v1.2.0"}
SCRIPTS = {"pxc": "haproxy_add_pxc_nodes.sh", "ps": "haproxy_add_mysql_nodes.sh"}


def _source(operator: str, name: str) -> str:
    archive = KIT / f"{ARCHIVES[operator]}.tar.xz"
    if not archive.is_file():
        reason = f"needs the operators' kit ({archive}; ../shared/tools/percona-operators beside the clone)"
        if os.environ.get("PERCONA_REFERENCE_REQUIRED") == "1":
            pytest.fail(reason, pytrace=False)
        pytest.skip(reason)
    with tarfile.open(archive) as tar:
        member = tar.extractfile(f"{ARCHIVES[operator]}/build/{name}")
        assert member is not None
        return member.read().decode()


@pytest.mark.parametrize(("operator", "kept"), [("pxc", PXC_HAPROXY_GLOBAL), ("ps", PS_HAPROXY_GLOBAL)])
def test_the_default_global_files_are_the_operators(operator, kept):
    assert kept == _source(operator, "haproxy-global.cfg")


@pytest.mark.parametrize("operator", ["pxc", "ps"])
def test_the_backends_head_as_the_script_writes_them(operator):
    # each heredoc (<<-EOF strips the leading tabs) before a server list: the same lines, in the same order
    script = _source(operator, SCRIPTS[operator])
    heads = [
        re.sub(r"^\t+", "", body, flags=re.M)
        for body in re.findall(r'cat <<-EOF >>?"\$path_to_haproxy_cfg/haproxy\.cfg"\n(.*?)\tEOF', script, re.S)
    ]
    rendered = operator_backends(operator, member_hosts(operator, "c", 3))
    ours = [block for block in re.split(r"(?m)^server .*\n", rendered) if block]
    assert len(heads) == 4
    script_heads = [head.replace("$haproxy_check_script", "haproxy_check_replicas.sh") for head in heads]
    assert ours == script_heads
