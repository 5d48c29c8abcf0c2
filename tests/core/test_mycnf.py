"""my.cnf fragments as the operators take them."""

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st
from percona_mysql_k8s.core.mycnf import (
    PXC_USER_FILE,
    MyCnfError,
    OptionFile,
    effective_options,
    mysqld_groups,
    mysqld_options,
    normalize_key,
    parse,
    parse_provider_options,
    read_files,
    render,
)
from reference_material.resolve import reference_path

PXC_CONFIGURATION = """
[mysqld]
# flow control inside the provider options
wsrep_provider_options="gcache.size=1G; gcache.recover=yes; gcs.fc_limit=160"
innodb-buffer-pool-size = 2G   # inline comment
skip-name-resolve
[sst]
xbstream-opts=--decompress
"""


def test_sections_keys_quotes_and_bare_flags():
    sections = parse(PXC_CONFIGURATION)
    mysqld = sections["mysqld"]
    assert mysqld["innodb_buffer_pool_size"] == "2G"
    assert mysqld["skip_name_resolve"] == "ON"
    assert mysqld["wsrep_provider_options"] == "gcache.size=1G; gcache.recover=yes; gcs.fc_limit=160"
    assert sections["sst"]["xbstream_opts"] == "--decompress"


def test_ps_configuration_has_no_header_and_loose_prefix_is_resolved():
    options = mysqld_options("loose-group-replication-flow-control-mode=DISABLED\nmax_connections=500\n")
    assert options == {"group_replication_flow_control_mode": "DISABLED", "max_connections": "500"}


def test_last_occurrence_wins_and_server_section_is_read():
    assert mysqld_options("[server]\nmax_connections=10\n[mysqld]\nmax_connections=20\nmax_connections=30\n") == {
        "max_connections": "30"
    }


def test_provider_options_parse_into_keys():
    # Galera trims blanks around keys and values and skips empty items; keys are exact.
    assert parse_provider_options("gcache.size=1G; gcs.fc_limit = 100 ;gcs.fc_factor=0.8;") == {
        "gcache.size": "1G",
        "gcs.fc_limit": "100",
        "gcs.fc_factor": "0.8",
    }
    for refused in ("gcs.fc_limit", "GCS.FC_FACTOR=0.8", "gcs.fc_limit=1=2", "=5"):
        with pytest.raises(MyCnfError):
            parse_provider_options(refused)


@pytest.mark.parametrize("bad", ["[mysqld]\n= 5\n", "this is not an option\n", "[mysqld\nx=1\n"])
def test_unreadable_configuration_raises_a_named_error(bad):
    # an empty name and a name with blanks are options mysqld does not have: it stops, and so does the reader
    with pytest.raises(MyCnfError, match="line [12]"):
        mysqld_options(bad)
    with pytest.raises(MyCnfError, match="must be a string"):
        parse(42)


def test_render_round_trips_through_parse():
    options = {"max_connections": "100", "wsrep_provider_options": "gcache.size=1; gcs.fc_limit=100"}
    assert mysqld_options(render(options)) == options
    assert render({"a": "1"}, None) == "a=1\n"


def test_normalize_key():
    assert normalize_key("Loose-Innodb-Buffer-Pool-Size") == "innodb_buffer_pool_size"


# ---- mysqld's option-file rules (MySQL 8.0/8.4 manual "Using Option Files", mysys/my_default.cc) -------


def test_semicolon_mid_line_is_part_of_the_value():
    # ';' starts a comment only as the first non-blank character of a line: this whole tail is the value,
    # so Galera sees gcs.fc_limit=1000 (the old reader cut it at ' ;' and missed the breach).
    options = mysqld_options("[mysqld]\nwsrep_provider_options=gcache.size=1G ; gcs.fc_limit=1000\n; a comment line\n")
    assert options == {"wsrep_provider_options": "gcache.size=1G ; gcs.fc_limit=1000"}
    assert parse_provider_options(options["wsrep_provider_options"])["gcs.fc_limit"] == "1000"


@pytest.mark.parametrize(
    "line", ["max_connections=500 #strict", "max_connections=500#strict", "max_connections = 500   # strict, as sizing chose"]
)
def test_hash_mid_line_starts_a_comment(line):
    assert mysqld_options(line) == {"max_connections": "500"}


def test_hash_inside_quotes_is_kept_and_escapes_are_decoded():
    options = mysqld_options("xa=\"x # y\"\nxb='p\\'q'\nxc=C:\\\\dir\\sname\nxd=\\q\n")
    # \' inside single quotes is a quote; \\ is one backslash; \s a space; unknown \q keeps the backslash.
    assert options == {"xa": "x # y", "xb": "p'q", "xc": "C:\\dir name", "xd": "\\q"}


def test_only_the_groups_mysqld_reads_count_and_last_in_file_order_wins():
    text = (
        "[mysqld]\nmax_connections=100\n[client]\nmax_connections=5\n[server]\nmax_connections=200\n"
        "[mysqld-8.0]\nmax_connections=300\n[mysqld-8.4]\nmax_connections=400\n[mysqld_safe]\nmax_connections=7\n"
    )
    assert effective_options("pxc", text, "8.0").values() == {"max_connections": "300"}
    assert effective_options("pxc", text, "8.4").values() == {"max_connections": "400"}
    # Unknown server version: every version group may be read, the last one in the file stands.
    assert effective_options("pxc", text, None).values() == {"max_connections": "400"}
    assert mysqld_groups("8.4") == {"mysqld", "server", "mysqld-8.4"}


def test_the_same_key_in_mysqld_and_a_later_group_keeps_the_later_value():
    text = "[server]\ngcs=1\n[mysqld]\nx=500\n[mysqld-8.4]\nx=25000\n"
    setting = effective_options("pxc", text, "8.4").settings["x"]
    assert (setting.value, setting.group, setting.line) == ("25000", "mysqld-8.4", 6)


def test_pxc_configuration_is_a_file_of_its_own_that_needs_a_header():
    with pytest.raises(MyCnfError, match="before any \\[group\\]"):
        effective_options("pxc", "max_connections=100\n", "8.0")


def test_ps_configuration_continues_the_mysqld_group_of_node_cnf():
    effective = effective_options("ps", "max_connections=100\n[client]\nuser=x\n[mysqld-8.4]\nmax_connections=9\n", "8.4")
    assert effective.values() == {"max_connections": "9"}


def test_user_file_is_read_after_the_operators_auto_config():
    # PXC: /etc/my.cnf includes node.cnf, then /etc/my.cnf.d/ (auto-config.cnf), then init.cnf: the user wins.
    pxc = effective_options("pxc", "[mysqld]\nmax_connections=50\n", "8.0", auto_config="[mysqld]\nmax_connections=9\n")
    assert pxc.values()["max_connections"] == "50"
    # PS: auto-config.cnf is appended to node.cnf before my-config.cnf.
    ps = effective_options("ps", "max_connections=50\n", "8.4", auto_config="max_connections=9")
    assert ps.values()["max_connections"] == "50"


def test_an_include_of_an_unseen_file_is_undecided_not_good():
    effective = effective_options(
        "pxc", "[mysqld]\nx=1\n!include /etc/mysql/extra.cnf\n!includedir /etc/more\n!nonsense\n", "8.0"
    )
    assert [(item.line, "extra.cnf" in item.reason or "/etc/more" in item.reason) for item in effective.undecided] == [
        (3, True),
        (4, True),
    ]
    assert effective.values() == {"x": "1"}


def test_includes_among_known_files_are_followed_in_place():
    files = [
        OptionFile("/etc/my.cnf", "[mysqld]\nx=1\n!includedir /etc/d/\nx=3\n"),
        OptionFile("/etc/d/b.cnf", "[mysqld]\nx=2\ny=b\n"),
        OptionFile("/etc/d/a.cnf", "[mysqld]\ny=a\n"),
        OptionFile("/etc/d/skip.txt", "[mysqld]\ny=txt\nz=txt\n"),
    ]
    effective = read_files(files, mysqld_groups("8.0"))
    # a.cnf then b.cnf (sorted), x=3 after the directive; skip.txt is not *.cnf so the directive does not
    # read it: a file given but never included is read after the others, in the order given.
    assert effective.values() == {"x": "3", "y": "txt", "z": "txt"}
    assert [setting.file for setting in effective.settings.values()] == ["/etc/my.cnf", "/etc/d/skip.txt", "/etc/d/skip.txt"]
    assert effective.undecided == []


def test_boolean_prefixes_and_loose():
    options = mysqld_options(
        "plugin_load_add=semisync_source.so\nloose-skip-rpl-semi-sync-source-enabled\n"
        "enable-performance-schema\nskip-name-resolve\nmaximum-xbar=3\n"
    )
    assert options["rpl_semi_sync_source_enabled"] == "OFF"
    assert options["performance_schema"] == "ON"
    # skip_name_resolve is not catalogued: kept as written, no option invented from it
    assert options["skip_name_resolve"] == "ON" and "name_resolve" not in options
    assert options["maximum_xbar"] == "3" and "xbar" not in options


def test_a_prefix_is_not_the_option_it_abbreviates():
    # Unambiguous prefixes were removed in MySQL 5.7 (WL#6978): mysqld has no "innodb_buffer_pool_si" and
    # stops; written loose- it is ignored and the buffer pool keeps its default.
    with pytest.raises(MyCnfError, match="line 1.*abbreviation of innodb_buffer_pool_size"):
        mysqld_options("innodb_buffer_pool_si=1G\n")
    assert mysqld_options("loose-innodb_buffer_pool_si=1G\n") == {}


def test_group_without_closing_bracket_stops_mysqld():
    with pytest.raises(MyCnfError, match="without"):
        mysqld_options("[mysqld\nx=1\n")


def test_pxc_user_file_path_is_the_operators():
    assert PXC_USER_FILE == "/etc/percona-xtradb-cluster.conf.d/init.cnf"


_values = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=30)


@given(st.dictionaries(st.from_regex(r"x[a-z0-9_]{0,15}", fullmatch=True), _values, max_size=6))
def test_render_then_read_gives_the_same_values(options):
    # Whatever the value (blanks, '#', ';', quotes, backslashes, newlines), render quotes and escapes it so
    # mysqld's reading gives it back; keys are unique so the last-wins rule does not interfere. Values are
    # stripped by mysqld only outside quotes, and render quotes any value with blanks. Names start with x,
    # which no catalogued option does, so the values are kept as written (string options).
    assert mysqld_options(render(options)) == {key: value for key, value in options.items()}


def test_plugin_load_resets_and_plugin_load_add_accumulates():
    effective = effective_options(
        "ps",
        "plugin_load_add=rpl_semi_sync_source=semisync_source.so\n"
        "plugin-load=a.so;b=b.so\nloose-plugin-load-add=semisync_replica.so\n",
        "8.4",
    )
    assert effective.plugin_libraries() == ["a.so", "b.so", "semisync_replica.so"]


# ---- Percona's own configurations (upstream-corpus.json, mirror-only reference material, read at test time) ----


def _corpus_configurations() -> list[tuple[str, str, str]]:
    result = []
    for entry in json.loads(reference_path("upstream-corpus.json").read_text())["entries"]:
        props, kind = entry["props"], entry["type"]
        helm = "helm.sh" in kind
        operator = (
            ("pxc" if "pxc" in str(props.get("chart")) else "ps") if helm else ("pxc" if "pxc.percona.com" in kind else "ps")
        )
        root = props.get("values" if helm else "spec") or {}
        component = root.get("pxc" if operator == "pxc" else "mysql") if isinstance(root, dict) else None
        text = component.get("configuration") if isinstance(component, dict) else None
        if isinstance(text, str) and text:
            result.append((entry["id"], operator, text))
    return result


def test_every_upstream_configuration_reads_as_mysqld_reads_it():
    configurations = _corpus_configurations()
    assert len(configurations) >= 10  # the corpus holds 21 of them (pxc-op e2e CRs, ps-op e2e CRs)
    by_id = {}
    for entry_id, operator, text in configurations:
        effective = effective_options(operator, text, None)
        assert effective.undecided == [], entry_id
        by_id[entry_id] = effective.values()
    one_pod = by_id["pxc-op:e2e-tests/one-pod/conf/one-pod.yml"]
    assert parse_provider_options(one_pod["wsrep_provider_options"]) == {
        "pc.weight": "10",
        "gcache.size": "1G",
        "gcache.recover": "yes",
    }
    assert one_pod["log_slave_updates"] == "ON"  # a bare name
    # Only [sst] and [xtrabackup]: nothing for mysqld.
    assert by_id["pxc-op:e2e-tests/pitr-gap-errors/conf/pitr-gap-errors.yml"] == {}
