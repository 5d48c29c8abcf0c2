"""Every row of docs/option-files.md, both ways, through the policy that reads it.

Each row is a syntax of option files (or of ``wsrep_provider_options``) in other people's style. Its
breach is written in that syntax and must be caught (a violation of the row's rule, or the reader's
refusal naming the line where mysqld or Galera would not start); its good file is written in the same
syntax and the policy must report nothing. The expectations follow from the sources cited in the table.
"""

from __future__ import annotations

import importlib
import json
import re
from dataclasses import dataclass
from pathlib import Path

import pytest
from harness import resolve_resource, run_resource

DOC = Path(__file__).resolve().parents[2] / "docs" / "option-files.md"
BASES = Path(__file__).resolve().parent / "_bases"
PS_BASE = json.loads((BASES / "ps-gr.json").read_text())["props"]["spec"]["mysql"]["configuration"]
PXC_BASE = json.loads((BASES / "pxc.json").read_text())["props"]["spec"]["pxc"]["configuration"]
LONG = 4094  # my_default reads a line in pieces of at most 4094 bytes


@dataclass(frozen=True)
class Row:
    policy: str  # module under percona_mysql_k8s.policies
    rule: str
    breach: str
    good: str
    base: str = "ps"  # ps (group replication) | pxc | async (PS, no plugins)
    alone: bool = False  # the text is the whole configuration (else appended to the base's)
    refused: bool = False  # the breach is a file mysqld (or Galera) would not start with: an error naming the line

    def configuration(self, text: str) -> str:
        if self.base == "async":
            return "innodb_buffer_pool_size=6G\n" + text
        if self.alone:
            return text
        return PS_BASE + text if self.base == "ps" else PXC_BASE + "[mysqld]\n" + text


CONSISTENCY = "group_replication_consistency"
PROVIDER = 'wsrep_provider_options="gcache.size=1G; {}"\n'
SEMI_SYNC = "plugin_load_add=semisync_source.so\nrpl_semi_sync_source_enabled=ON\nrpl_semi_sync_source_wait_for_replica_count=2\n"

ROWS: dict[str, Row] = {
    # ---- my_default: lines -------------------------------------------------------------------------
    "L1": Row(
        "gr_consistency", "F7", f"; a comment\n{CONSISTENCY}=AFTER\n", f"; {CONSISTENCY}=AFTER\n   # {CONSISTENCY}=AFTER\n"
    ),
    "L2": Row("gr_consistency", "F7", f"{CONSISTENCY}=AFTER # was EVENTUAL\n", f"{CONSISTENCY}=EVENTUAL#AFTER\n"),
    "L3": Row(
        "galera_flow_control",
        "G1",
        "wsrep_provider_options=gcache.size=1G ; gcs.fc_limit=10000\n",
        "wsrep_provider_options=gcache.size=1G ; gcs.fc_limit=100\n",
        base="pxc",
    ),
    "L4": Row("gr_consistency", "F7", f'{CONSISTENCY} = "AFTER"\n', f"{CONSISTENCY}='EVENTUAL' # \"AFTER\"\n"),
    "L5": Row("gr_consistency", "F7", f"{CONSISTENCY}=\\sAFTER\n", f"{CONSISTENCY}=EVENTUAL\\s\n", refused=True),
    "L6": Row(
        "gr_consistency",
        "F7",
        "x_note=" + "v" * (LONG - len("x_note=")) + f"{CONSISTENCY}=AFTER\n",
        "x_note=" + "v" * 100 + f"{CONSISTENCY}=AFTER\n",
    ),
    "L7": Row("gr_consistency", "F7", "!include /etc/mysql/extra.cnf\n", "!include /etc/my.cnf.d/node.cnf\n", refused=True),
    "L8": Row(
        "galera_flow_control",
        "G1",
        "!include\nwsrep_provider_options=gcs.fc_limit=100\n",
        "wsrep_provider_options=gcs.fc_limit=100\n!include",
        base="pxc",
        refused=True,
    ),
    "L9": Row("gr_consistency", "F7", f"[MySQLd]  \n{CONSISTENCY}=AFTER\n", f"[ mysqld]\n{CONSISTENCY}=AFTER\n"),
    "L10": Row(
        "gr_consistency",
        "F7",
        f"[mysqld\n{CONSISTENCY}=EVENTUAL\n",
        f"[mysqld] was [server]\n{CONSISTENCY}=EVENTUAL\n",
        refused=True,
    ),
    "L11": Row(
        "galera_flow_control",
        "G1",
        "wsrep_provider_options=gcs.fc_limit=100\n",
        "[mysqld]\nwsrep_provider_options=gcs.fc_limit=100\n",
        base="pxc",
        alone=True,
        refused=True,
    ),
    "L12": Row(
        "gr_consistency",
        "F7",
        f"{CONSISTENCY}=EVENTUAL\n[server]\n{CONSISTENCY}=AFTER\n",
        f"{CONSISTENCY}=AFTER\n[server]\n{CONSISTENCY}=EVENTUAL\n",
    ),
    "L13": Row("gr_consistency", "F7", f"[mysqld-8.4]\n{CONSISTENCY}=AFTER\n", f"[mysqld-8.0]\n{CONSISTENCY}=AFTER\n"),
    "L14": Row(
        "gr_consistency",
        "F7",
        f"{CONSISTENCY}=AFTER\u00a0\n",
        f"x_note=caf\u00e9 na\u00efve\n{CONSISTENCY}=EVENTUAL\n",
        refused=True,
    ),
    # ---- my_getopt: names and prefixes --------------------------------------------------------------
    "G1": Row("gr_consistency", "F7", "group-replication-consistency=AFTER\n", "group-replication_consistency=EVENTUAL\n"),
    "G2": Row(
        "gr_consistency",
        "F7",
        "Group_Replication_Consistency=EVENTUAL\n",
        "loose-Group_Replication_Consistency=AFTER\n",
        refused=True,
    ),
    "G3": Row(
        "gr_consistency",
        "F7",
        "group_replication_consisten=EVENTUAL\n",
        "loose-group_replication_consisten=AFTER\n",
        refused=True,
    ),
    "G4": Row("gr_consistency", "F7", f"loose-{CONSISTENCY}=AFTER\n", f"loose_{CONSISTENCY}=EVENTUAL\n"),
    "G5": Row("tls_on", "S2", "skip-ssl\n", "skip-ssl=0\ndisable_ssl=0\n"),
    "G6": Row("tls_on", "S2", "enable-ssl=0\n", "enable-ssl=OFF\nenable-ssl=\n"),
    "G7": Row("gr_consistency", "F7", f"maximum-{CONSISTENCY}=AFTER\n", f"maximum-{CONSISTENCY}=EVENTUAL\n"),
    "G8": Row(
        "gr_consistency", "F7", "plugin-group-replication-consistency=AFTER\n", "plugin_group_replication_consistency=EVENTUAL\n"
    ),
    "G9": Row(
        "memory_split", "M5", "loose-group_replication_flow_control_mode=0\n", "loose-group_replication_flow_control_mode=Q\n"
    ),
    "G10": Row("gr_consistency", "F7", f"{CONSISTENCY}=3\n", f"{CONSISTENCY}=BEFORE\n{CONSISTENCY}=even\n"),
    "G11": Row("gr_consistency", "F7", f"{CONSISTENCY}=B\n", f"{CONSISTENCY}=BEFORE_O\n", refused=True),
    # ---- my_getopt: values ---------------------------------------------------------------------------
    "V1": Row("tls_on", "S2", "ssl=no\n", "ssl=TRUE\nssl=on\nssl\n"),
    "V2": Row("memory_split", "M1", "innodb_buffer_pool_size=64Gi\n", "innodb_buffer_pool_size=6GB\n"),
    "V3": Row("memory_split", "M2", "innodb_buffer_pool_size=6.5G\n", "innodb_buffer_pool_size=6144M\n", refused=True),
    "V4": Row("derived_connections", "M6", "max_connections=1000000\n", "max_connections=0\n"),
    "V5": Row("memory_split", "M2", "max_connections=\n", "plugin_load_add=\n", refused=True),
    "V6": Row("memory_split", "M2", "max_connections\n", "performance_schema\n", refused=True),
    "V7": Row("memory_split", "M2", "max_connections=\u0663\u0660\u0660\n", "max_connections=300\n", refused=True),
    "V8": Row("memory_split", "M2", "maximum-max_connections=100\n", "maximum-sort_buffer_size=128K\n", refused=True),
    "V9": Row(
        "replica_parallel_workers",
        "F6",
        "replica_parallel_workers=8\nslave_parallel_workers=64\n",
        "slave_parallel_workers=64\nreplica-parallel-workers=8\n",
    ),
    "V10": Row(
        "galera_applier_threads",
        "G3",
        "wsrep_applier_threads=16\nwsrep_slave_threads=2\n",
        "wsrep_slave_threads=2\nwsrep_applier_threads=16\n",
        base="pxc",
    ),
    # ---- plugins and servers -------------------------------------------------------------------------
    "P1": Row(
        "semi_sync",
        "T4",
        "rpl_semi_sync_source_wait_for_replica_count=2\n",
        "loose-rpl_semi_sync_source_wait_for_replica_count=2\n",
        base="async",
        refused=True,
    ),
    "P2": Row(
        "semi_sync",
        "T4",
        SEMI_SYNC + "rpl_semi_sync_source_wait_point=1\n",
        SEMI_SYNC + "rpl_semi_sync_source_wait_point=after_s\n",
        base="async",
    ),
    "P3": Row(
        "semi_sync",
        "T4",
        SEMI_SYNC + "rpl_semi_sync_master_wait_point=AFTER_SYNC\n",
        "plugin_load_add=semisync_master.so\nrpl_semi_sync_master_enabled=ON\nrpl_semi_sync_master_wait_point=AFTER_SYNC\n"
        "rpl_semi_sync_master_wait_for_slave_count=2\n",
        base="async",
        refused=True,
    ),
    "P4": Row(
        "memory_split",
        "M2",
        'wsrep_provider_options="gcache.size=1G"\n',
        'loose-wsrep_provider_options="gcache.size=1G"\n',
        refused=True,
    ),
    # ---- wsrep_provider_options (Galera) -------------------------------------------------------------
    "W1": Row(
        "galera_flow_control",
        "G1",
        PROVIDER.format("GCS.FC_LIMIT=100"),
        PROVIDER.format("gcs.fc_limit = 100"),
        base="pxc",
        refused=True,
    ),
    "W2": Row(
        "galera_flow_control", "G1", PROVIDER.format("gcs.fc_limit=0x2710"), PROVIDER.format("gcs.fc_limit=0144"), base="pxc"
    ),
    "W3": Row(
        "galera_flow_control",
        "G1",
        PROVIDER.format("gcs.fc_limit=08"),
        PROVIDER.format("gcs.fc_limit=80"),
        base="pxc",
        refused=True,
    ),
    "W4": Row(
        "galera_flow_control",
        "G1",
        PROVIDER.format("gcs.fc_limit=10k"),
        PROVIDER.format("gcs.fc_limit=0K; gcache.size=2g"),
        base="pxc",
    ),
    "W5": Row(
        "galera_flow_control",
        "G1",
        PROVIDER.format("gcs.fc_limit=1Ki"),
        PROVIDER.format(";;gcs.fc_limit=100;"),
        base="pxc",
        refused=True,
    ),
    "W6": Row(
        "galera_flow_control",
        "G2",
        PROVIDER.format("gcs.fc_factor=1.5"),
        PROVIDER.format("gcs.fc_factor=.5"),
        base="pxc",
        refused=True,
    ),
    "W7": Row(
        "galera_flow_control",
        "G1",
        PROVIDER.format("gcs.fc_limit=100; gcs.fc_single_primary=maybe"),
        PROVIDER.format("gcs.fc_single_primary=yep; gcs.fc_master_slave=nope"),
        base="pxc",
        refused=True,
    ),
}


def table_ids() -> list[str]:
    return re.findall(r"^\| ([LGVPW]\d+) \|", DOC.read_text(), re.MULTILINE)


def test_every_row_of_the_table_is_tested_and_every_tested_row_is_in_the_table():
    assert table_ids() == list(ROWS)


def _run(row: Row, text: str, monkeypatch) -> list[str]:
    monkeypatch.setenv("PULUMI_CONFIG", "{}")
    monkeypatch.delenv("PULUMI_STACK", raising=False)
    resource = resolve_resource({"base": "pxc" if row.base == "pxc" else "ps-gr"})
    spec = resource["props"]["spec"]
    spec["pxc" if row.base == "pxc" else "mysql"]["configuration"] = row.configuration(text)
    if row.base == "async":
        spec["mysql"]["clusterType"] = "async"
        spec["orchestrator"]["enabled"] = True  # the PS CRD refuses async without it (C1)
    policy = importlib.import_module(f"percona_mysql_k8s.policies.{row.policy}").POLICY
    return run_resource(policy, resource["type"], resource["props"]).messages


@pytest.mark.parametrize("row_id", list(ROWS))
def test_the_breach_in_this_syntax_is_caught(row_id, monkeypatch):
    row = ROWS[row_id]
    messages = _run(row, row.breach, monkeypatch)
    assert any(message.startswith(f"{row.rule}:") for message in messages), messages
    if row.refused:
        assert any(re.search(r"line \d+", message) for message in messages), messages


@pytest.mark.parametrize("row_id", list(ROWS))
def test_a_good_file_in_this_syntax_passes(row_id, monkeypatch):
    row = ROWS[row_id]
    assert _run(row, row.good, monkeypatch) == []
