"""my.cnf fragments as the operators take them."""

import pytest
from percona_mysql_k8s.core.mycnf import MyCnfError, mysqld_options, normalize_key, parse, parse_provider_options, render

PXC_CONFIGURATION = """
[mysqld]
# flow control inside the provider options
wsrep_provider_options="gcache.size=1G; gcache.recover=yes; gcs.fc_limit=160"
innodb-buffer-pool-size = 2G   ; inline comment
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
    assert parse_provider_options("gcache.size=1G; gcs.fc_limit = 100 ;GCS.FC_FACTOR=0.8;") == {
        "gcache.size": "1G",
        "gcs.fc_limit": "100",
        "gcs.fc_factor": "0.8",
    }
    with pytest.raises(MyCnfError):
        parse_provider_options("gcs.fc_limit")


@pytest.mark.parametrize("bad", ["[mysqld]\n= 5\n", "this is not an option\n", 42])
def test_unreadable_configuration_raises_a_named_error(bad):
    with pytest.raises(MyCnfError):
        parse(bad)


def test_render_round_trips_through_parse():
    options = {"max_connections": "100", "wsrep_provider_options": "gcache.size=1; gcs.fc_limit=100"}
    assert mysqld_options(render(options)) == options
    assert render({"a": "1"}, None) == "a=1\n"


def test_normalize_key():
    assert normalize_key("Loose-Innodb-Buffer-Pool-Size") == "innodb_buffer_pool_size"
