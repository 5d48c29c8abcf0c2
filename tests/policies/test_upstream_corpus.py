"""The upstream corpus tier: 184 resources nobody here wrote, through the pack over gRPC and through --manifests.

0 crashes (no gRPC error, no policy reporting that it could not evaluate a resource), and every entry's
diagnostics equal to its reviewed verdict in upstream_verdicts.yaml (see upstream_corpus.py for how to
regenerate it after a deliberate change). The corpus is mirror-only reference material: without it the tests
that read it skip, naming scripts/fetch-reference.sh.
"""

from __future__ import annotations

import json

import pytest
import upstream_corpus as corpus
import yaml
from percona_mysql_k8s.cli import check
from percona_mysql_k8s.cli.engine import Diagnostic
from percona_mysql_k8s.cli.manifests import read_manifests
from percona_mysql_k8s.core.crd import KUBECTL, PULUMI, admit
from percona_mysql_k8s.policies._catalog import MODULES
from pulumi_policy import StackValidationPolicy
from reference_material.resolve import reference_path

REGENERATE = "PYTHONPATH=modules python tests/policies/upstream_corpus.py --write-verdicts"
STACK_POLICIES = {module.SPEC.name for module in MODULES if isinstance(module.POLICY, StackValidationPolicy)}


@pytest.fixture(scope="module")
def entries():
    return corpus.load_corpus(reference_path(corpus.CORPUS_ITEM))


@pytest.fixture(scope="module")
def pack():
    started = corpus.start_pack()
    yield started
    started.close()


@pytest.fixture(scope="module")
def judged(entries, pack):
    return corpus.judge_all(entries, pack)


@pytest.fixture(scope="module")
def verdicts():
    return corpus.load_verdicts()


def test_the_corpus_is_what_the_verdicts_were_reviewed_on(entries, verdicts):
    # 76 PXC CRs, 95 PS CRs and 13 chart releases (pxc-db, ps-db, pmm values and the charts' test values)
    assert len(entries) == 184
    assert {entry["id"] for entry in entries} == set(verdicts), "entries without a verdict (or verdicts without an entry)"


def test_every_verdict_has_a_reviewed_reason(verdicts):
    unreviewed = [
        entry_id
        for entry_id, verdict in verdicts.items()
        if not verdict.get("reason") or verdict["reason"].startswith((corpus.CHANGED, corpus.UNREVIEWED))
    ]
    assert unreviewed == [], f"write the reasons of these verdicts after reviewing them: {unreviewed[:5]}"


def test_no_crash_over_grpc(judged):
    crashed = {entry_id: corpus.crashes(diagnostics) for entry_id, diagnostics in judged.items() if corpus.crashes(diagnostics)}
    assert crashed == {}


def test_grpc_verdicts_match_the_reviewed_ones(judged, verdicts):
    changed = {
        entry_id: {"reviewed": verdicts[entry_id]["diagnostics"], "now": corpus.summarize(diagnostics)}
        for entry_id, diagnostics in judged.items()
        if entry_id in verdicts and corpus.summarize(diagnostics) != verdicts[entry_id]["diagnostics"]
    }
    assert changed == {}, (
        f"{len(changed)} verdict(s) changed; if deliberate, run `{REGENERATE}`, review the diff and "
        f"rewrite their reasons:\n" + yaml.safe_dump(dict(list(changed.items())[:3]), sort_keys=False)
    )


def _custom_resources(entries):
    return [(index, entry) for index, entry in enumerate(entries) if corpus.is_object(entry)]


def test_manifests_give_every_custom_resource_its_reviewed_verdict(entries, pack, verdicts):
    """Each CR written as a kubectl-style YAML file and read back by --manifests' reader: the same type token
    as the corpus's and the same verdict as over gRPC (judged alone, as each entry is its own stack)."""
    crs = _custom_resources(entries)
    assert len(crs) == 171  # the 13 chart releases are Helm inputs, not objects
    changed = {}
    for _, entry in crs:
        objects = read_manifests("# " + entry["file"] + "\n---\n" + yaml.safe_dump(entry["props"]), entry["id"])
        assert [(obj.type, obj.props) for obj in objects] == [(entry["type"], entry["props"])]
        report = check.check_manifests(objects, pack=pack)
        now = corpus.summarize([finding.diagnostic for finding in report.findings])
        if now != verdicts[entry["id"]]["diagnostics"]:
            changed[entry["id"]] = now
    assert changed == {}, f"--manifests disagrees with the reviewed verdicts of {sorted(changed)[:5]}"


def _refused_only_as_kubectl_sends_it(crs) -> set[str]:
    """The CRs whose nulls kubectl's server-side apply sends and the API server refuses ("must be of type string:
    \"null\"", shown by the API-server tier's manifests differential), where pulumi-kubernetes sends no null: from
    --manifests they get C1 alone (a refused object is no subject of any other rule)."""
    found = set()
    for _, entry in crs:
        props = entry["props"]
        as_kubectl = admit(props["apiVersion"], props["kind"], props, client=KUBECTL)
        as_pulumi = admit(props["apiVersion"], props["kind"], props, client=PULUMI)
        if as_kubectl is not None and as_kubectl.refused and not as_pulumi.refused:
            assert all('"null"' in str(error) or error.path == "<nil>" for error in as_kubectl.errors), entry["id"]
            found.add(entry["id"])
    return found


def test_the_command_on_the_whole_corpus(entries, verdicts, tmp_path, capsys):
    """`--manifests DIR` over all 171 CRs at once (one file each): exits 1 (mandatory violations), no crash, and
    every CR gets the resource-policy diagnostics of its reviewed verdict."""
    crs = _custom_resources(entries)
    for index, entry in crs:
        (tmp_path / f"{index:03d}.yaml").write_text(yaml.safe_dump(entry["props"]))
    code = check.main(["--manifests", str(tmp_path), "--json"])
    findings = json.loads(capsys.readouterr().out)["diagnostics"]
    assert code == 1
    assert [f["message"] for f in findings if any(marker in f["message"] for marker in corpus.CRASH_MARKERS)] == []
    by_file: dict[str, list] = {f"{index:03d}.yaml": [] for index, _ in crs}
    for finding in findings:
        if finding["policy"] not in STACK_POLICIES:
            origin = finding["resource"]["name"].rsplit(" [", 1)[1]
            by_file[origin.split(", document")[0].rsplit("/", 1)[-1]].append(finding)
    refused_as_sent = _refused_only_as_kubectl_sends_it(crs)
    # a null secretsName in 81 PS e2e get_cr CRs (an 82nd is refused either way) and one PXC haproxy.podDisruptionBudget
    assert len(refused_as_sent) == 82, sorted(refused_as_sent)[:3]
    for index, entry in crs:
        expected = [row for row in verdicts[entry["id"]]["diagnostics"] if row["policy"] not in STACK_POLICIES]
        if entry["id"] in refused_as_sent:  # the reviewed verdicts are Pulumi's, which sends no null
            expected = [{"policy": "crd-admission", "rule": "C1", "level": "mandatory"}]
        got = corpus.summarize(
            [Diagnostic(f["policy"], "", "", f["level"], f["message"], "", "") for f in by_file[f"{index:03d}.yaml"]]
        )
        assert got == expected, entry["id"]


def test_chart_values_through_the_command(entries, verdicts, tmp_path, capsys):
    """The 13 chart entries as a user would check them: their values written to a file, `--chart NAME --values FILE`;
    each gets its reviewed verdict."""
    releases = [entry for entry in entries if not corpus.is_object(entry)]
    assert len(releases) == 13
    for index, entry in enumerate(releases):
        values = tmp_path / f"values-{index}.yaml"
        values.write_text(yaml.safe_dump(entry["props"]["values"]))
        code = check.main(["--chart", entry["props"]["chart"], "--values", str(values), "--json"])
        findings = json.loads(capsys.readouterr().out)["diagnostics"]
        now = corpus.summarize([Diagnostic(f["policy"], "", "", f["level"], f["message"], "", "") for f in findings])
        assert now == verdicts[entry["id"]]["diagnostics"], entry["id"]
        assert code == (1 if any(row["level"] == "mandatory" for row in now) else 0)
