"""core.libconfig against libconfig 1.7.3 itself (the library ProxySQL 2.7 bundles), over generated files.

The C program in libconfig_oracle/ is built against the library's sources: set ``LIBCONFIG_SRC`` to the
``lib`` directory of https://github.com/hyperrealm/libconfig at tag v1.7.3 (``git clone --branch v1.7.3``);
without it (or without a C compiler) the test is skipped. Trees, value types, errors and their lines agree.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from oracles import oracle_missing
from percona_mysql_k8s.core import libconfig

ORACLE = Path(__file__).resolve().parent / "libconfig_oracle" / "dump.c"
SOURCES = ("grammar.c", "scanner.c", "libconfig.c", "scanctx.c", "strbuf.c", "strvec.c", "util.c", "wincompat.c")
REASON = (
    "needs libconfig 1.7.3's sources and a C compiler: git clone --branch v1.7.3 "
    "https://github.com/hyperrealm/libconfig and set LIBCONFIG_SRC to its lib/ directory; an optional oracle: "
    "no package registry the CI machines reach serves those sources, so CI skips it too"
)


@pytest.fixture(scope="module")
def dump(tmp_path_factory) -> Path:
    source = Path(os.environ.get("LIBCONFIG_SRC", "/nonexistent"))
    compiler = shutil.which("gcc") or shutil.which("cc")
    if compiler is None or not all((source / name).is_file() for name in SOURCES):
        oracle_missing(REASON, optional=True)
    build = tmp_path_factory.mktemp("libconfig")
    (build / "xlocale.h").write_text("#include <locale.h>\n")  # glibc has no xlocale.h any more
    binary = build / "dump"
    built = subprocess.run(
        [
            compiler,
            "-O1",
            "-w",
            "-DHAVE_USELOCALE",
            "-DHAVE_NEWLOCALE",
            "-DHAVE_FREELOCALE",
            f"-I{build}",
            f"-I{source}",
            "-o",
            str(binary),
            str(ORACLE),
            *(str(source / n) for n in SOURCES),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    if built.returncode != 0:
        oracle_missing(f"{REASON} ({built.stderr.strip()[:200]})", optional=True)
    return binary


def _ours(text: str):
    try:
        root = libconfig.parse(text)
    except libconfig.LibconfigError as error:
        return ["ERR", error.line]

    def plain(value):
        if isinstance(value, libconfig.Group):
            return {name: plain(item) for name, item in value.settings.items()}
        if isinstance(value, libconfig.Sequence):
            return [plain(item) for item in value.items]
        return {value.kind: value.value}

    return plain(root)


def _theirs(dump: Path, tmp: Path, text: str):
    path = tmp / "t.cfg"
    path.write_text(text, encoding="latin-1")
    out = subprocess.run([str(dump), str(path)], capture_output=True, text=True, encoding="latin-1", timeout=30).stdout.strip()
    if out.startswith("ERR"):
        return ["ERR", int(out.split()[1])]
    return json.loads(out)


PIECES = st.sampled_from(
    [
        "a",
        "b",
        "admin_variables",
        "mysql_users",
        "=",
        ":",
        ";",
        ",",
        "{",
        "}",
        "(",
        ")",
        "[",
        "]",
        " ",
        "\n",
        "\t",
        '"x"',
        '"a\\"b"',
        '"\\x41"',
        '"\\q"',
        '"p#w"',
        "1",
        "-2",
        "010",
        "08",
        "0x1F",
        "5L",
        "1.5",
        ".",
        "1e3",
        "true",
        "FALSE",
        "# c\n",
        "// c\n",
        "/* c\n */",
        '"',
        "$",
        "'",
        "monitor_password",
    ]
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(st.lists(PIECES, min_size=1, max_size=16).map("".join))
def test_core_libconfig_reads_what_libconfig_reads(dump, tmp_path, text):
    assert _ours(text) == _theirs(dump, tmp_path, text), text
