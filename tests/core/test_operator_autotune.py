"""The operators' auto-tuning (core.operator_autotune) and PXC's go-ini test of the text (core.go_ini): by hand from
the owners' code, and against go-ini v1.67.0 itself (the module the PXC operator pins), built from the Go module
proxy (tests/core/go_ini_oracle)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracles import oracle_missing
from percona_mysql_k8s.core import go_ini
from percona_mysql_k8s.core.mycnf import effective_options
from percona_mysql_k8s.core.operator_autotune import (
    AutotuneRefused,
    auto_config,
    auto_config_text,
    autotune_memory,
    configured,
)

GO_ORACLE = Path(__file__).resolve().parent / "go_ini_oracle"
GI = 1073741824


@pytest.mark.parametrize(
    ("text", "pxc", "ps"),
    [
        ("[mysqld]\nmax_connections=500\n", True, True),
        ("[mysqld]\nmax-connections=500\n", False, False),  # mysqld reads it; neither operator sees the key
        ("[mysqld]\nloose-max_connections=500\n", False, True),  # PS: the name is in the text
        ("[mysqld]\n# max_connections=500\n", False, True),  # a comment
        ("[mysqld]\nmysqlx_max_connections=50\n", False, True),  # a longer name
        ("[mysqld]\nMAX_CONNECTIONS=500\n", False, False),  # case: go-ini and strings.Contains are exact
        ("[server]\nmax_connections=500\n", False, True),  # another group mysqld reads
        ("[ mysqld ]\nmax_connections=500\n", False, True),  # go-ini keeps the blanks of a section name
        ("[mysqld]\n  max_connections : 500 ; why\n", True, True),  # ':' and an inline comment
        ("[mysqld.x]\n[mysqld]\nmax_connections\n", True, True),  # a boolean key
        ("[mysqld]\nsql_mode=STRICT\\\nmax_connections=500\n", False, True),  # go-ini continues the value
        ("max_connections=500\n", False, True),  # before any section: go-ini's DEFAULT
        ("[mysqld]\n`max_connections` = 500\n", True, True),  # a quoted key
    ],
)
def test_who_sees_a_configured_key(text, pxc, ps):
    assert configured("pxc", text, "max_connections") is pxc
    assert configured("ps", text, "max_connections") is ps


@pytest.mark.parametrize("text", ["[mysqld\nmax_connections=1\n", "[]\n", "[mysqld]\n=5\n", '[mysqld]\n"abc = 1\n'])
def test_go_ini_refuses_and_the_pxc_operator_stops(text):
    with pytest.raises(AutotuneRefused):
        auto_config("pxc", text, 16 * GI)


def test_the_pxc_values_by_hand():
    # 16Gi: 75 % = 12884901825 (q/100*75), 4 GiB left >= 1e9; up to 128 MiB: 12884901888; above 1 GiB, eight chunks
    # of 1610612736, which is a whole MiB, so the operator adds one more: 1611661312 x 8 = 12893290496
    auto = auto_config("pxc", "[mysqld]\nwsrep_applier_threads=8\n", 16 * GI)
    assert auto.written == {
        "innodb_buffer_pool_chunk_size": "1611661312",
        "innodb_buffer_pool_size": "12893290496",
        "max_connections": "1365",
    }
    assert auto_config_text("pxc", auto).startswith("[mysqld]\ninnodb_buffer_pool_chunk_size = 1611661312\n")
    # 2Gi: 75 % leaves less than 1e9, so 50 % = 1073741800 -> 1073741824 (not above 1 GiB: no chunk line)
    assert auto_config("pxc", "", 2 * GI).written == {"innodb_buffer_pool_size": "1073741824", "max_connections": "170"}


def test_the_ps_values_by_hand():
    # 4Gi: 50 % = 2 GiB, eight instances of 256 MiB
    assert auto_config("ps", "", 4 * GI).written == {
        "innodb_buffer_pool_size": "2147483648",
        "innodb_buffer_pool_chunk_size": "268435456",
        "max_connections": "341",
    }
    # a chunk size the text names is left alone; 1Gi: 512 MiB, a multiple of 128 MiB already
    assert auto_config("ps", "innodb_buffer_pool_chunk_size=64M", GI).written == {
        "innodb_buffer_pool_size": "536870912",
        "max_connections": "85",
    }


def test_memory_each_operator_tunes_from():
    assert autotune_memory("pxc", None, 4 * GI) == (None, "")  # PXC: limits.memory only
    assert autotune_memory("ps", None, 4 * GI) == (4 * GI, "requests.memory")
    assert autotune_memory("ps", 8 * GI, 4 * GI) == (8 * GI, "limits.memory")
    assert auto_config("pxc", "", None).written == {}


def test_below_twelve_mebibytes_the_operators_refuse():
    with pytest.raises(AutotuneRefused):
        auto_config("ps", "", 12582879)
    # unless the key is configured: then it never divides
    assert "max_connections" not in auto_config("ps", "max_connections=10", 12582879).written


def test_the_users_file_wins_over_the_auto_config():
    # mysqld reads auto-config.cnf first (core.mycnf operator_files): the operator's value for a key the user sets
    # under another spelling is overridden
    text = "[mysqld]\nmax-connections=500\n"
    auto = auto_config_text("pxc", auto_config("pxc", text, 16 * GI))
    assert effective_options("pxc", text, "8.4", auto).values()["max_connections"] == "500"


# ---- go-ini itself ----------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def oracle(tmp_path_factory) -> Path:
    go = shutil.which("go")
    reason = f"the go-ini differential needs Go and github.com/go-ini/ini v1.67.0 (cd {GO_ORACLE} && go mod download)"
    if go is None:
        oracle_missing(reason)
    binary = tmp_path_factory.mktemp("go-ini") / "oracle"
    built = subprocess.run(
        [go, "build", "-o", str(binary), "."],
        cwd=GO_ORACLE,
        capture_output=True,
        text=True,
        env={**os.environ, "GOFLAGS": "-mod=mod", "GOPROXY": "off"},
        timeout=600,
    )
    if built.returncode != 0:
        oracle_missing(f"{reason}: {built.stderr.strip()[:200]}")
    return binary


PIECES = st.sampled_from(
    ["[mysqld]", "[ mysqld ]", "[mysqld.x]", "[server]", "[mysqld", "[]", "max_connections", "max-connections"]
    + ["innodb_buffer_pool_size", "=", ":", " = ", "500", "#", ";", "\\", '"', "`", '"""', "\n", "\n", "\n", " ", "\t"]
    + ["loose-", "MAX_CONNECTIONS", "\ufeff", "\r\n", "x"]
)
TEXTS = st.lists(st.lists(PIECES, max_size=14).map("".join), min_size=100, max_size=100)


@settings(max_examples=15, deadline=None)
@given(TEXTS)
def test_go_ini_reads_as_go_ini(oracle, texts):
    answer = subprocess.run(
        [str(oracle)], input="".join(json.dumps(t) + "\n" for t in texts), capture_output=True, text=True, timeout=120, check=True
    ).stdout.splitlines()
    for text, theirs in zip(texts, answer, strict=True):
        try:
            parsed = go_ini.parse(text)
            ours = json.dumps(
                {key: parsed.has_key("mysqld", key) for key in ("innodb_buffer_pool_size", "max_connections")},
                separators=(",", ":"),
            )
        except go_ini.GoIniError:
            ours = "ERR"
        assert ours == theirs, text
