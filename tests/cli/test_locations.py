"""Every finding names the file, line and column of the field it judged, in every format (issue 36).

The corpus (tests/cli/_located/) is manifests in helm template's style (``# Source:`` comments, flow style, an anchor
and an alias, a my.cnf in ``configuration: |``), in kustomize's style (sorted keys, ``|-``) and two chart values
files merged in order. A line ending in ``# expect: RULE[, RULE]`` is where those rules' findings must point: the
expected lines are read from the corpus files themselves, never written here. SARIF is validated against the SARIF
2.1.0 schema (jsonschema) and by Microsoft's SARIF multitool, JUnit read back with junitparser.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
from junitparser import Failure, JUnitXml, Skipped
from oracles import oracle_missing
from percona_mysql_k8s.cli import check
from percona_mysql_k8s.cli.locations import Positions, locate, resolve
from percona_mysql_k8s.cli.manifests import read_manifests
from percona_mysql_k8s.core.finding_field import FindingField, split_field
from reference_material.resolve import reference_path

CORPUS = Path(__file__).resolve().parent / "_located"
MANIFESTS = [CORPUS / "pxc-helm-template.yaml", CORPUS / "ps-kustomize.yaml"]
VALUES = [CORPUS / "values" / "pxc-db-base.yaml", CORPUS / "values" / "pxc-db-prod.yaml"]
MARKER = re.compile(r"#\s*expect:\s*([A-Z][0-9](?:\s*,\s*[A-Z][0-9])*)\s*$")
MULTITOOL_PREFIX = Path(os.environ.get("SARIF_MULTITOOL_PREFIX", Path.home() / ".cache" / "percona-mysql-k8s" / "npm"))


def expected(file: Path) -> set[tuple[str, int]]:
    """(rule, line) of every ``# expect:`` marker of a corpus file."""
    found = set()
    for number, line in enumerate(file.read_text().splitlines(), start=1):
        match = MARKER.search(line)
        if match:
            found |= {(rule.strip(), number) for rule in match.group(1).split(",")}
    return found


def _relative(path: Path) -> str:
    return os.path.relpath(path)


@pytest.fixture(scope="module")
def manifest_outputs(tmp_path_factory):
    """One check of the manifests corpus writing every format: (exit code, {format: path})."""
    out = tmp_path_factory.mktemp("formats")
    files = {name: out / f"out.{name}" for name in ("sarif", "junit", "github", "markdown", "json")}
    code = check.main(["--manifests", *map(_relative, MANIFESTS), *(f"--format={name}={path}" for name, path in files.items())])
    return code, files


@pytest.fixture(scope="module")
def values_outputs(tmp_path_factory):
    """One check of the layered chart values writing SARIF, JUnit and annotations: (exit code, {format: path})."""
    out = tmp_path_factory.mktemp("values")
    files = {name: out / f"values.{name}" for name in ("sarif", "junit", "github")}
    values = (f"--values={_relative(v)}" for v in VALUES)
    code = check.main(["--chart", "pxc-db", *values, *(f"--format={name}={path}" for name, path in files.items())])
    return code, files


def _sarif_lines(log: dict) -> dict[str, set[tuple[str, int]]]:
    by_file: dict[str, set[tuple[str, int]]] = {}
    for result in log["runs"][0]["results"]:
        where = result["locations"][0]["physicalLocation"]
        by_file.setdefault(where["artifactLocation"]["uri"], set()).add((result["ruleId"], where["region"]["startLine"]))
    return by_file


ANNOTATION = re.compile(r"^::(error|warning) file=([^,]+),line=(\d+),col=(\d+),title=([A-Z][0-9]) ([a-z-]+)::(.+)$")
JUNIT_FINDING = re.compile(r"^(.+?):(\d+):(\d+): \[(mandatory|advisory)\] ")


def _annotation_lines(text: str) -> dict[str, set[tuple[str, int]]]:
    """(rule, line) by file of every ``::error``/``::warning`` command; a line that is no such command fails."""
    found: dict[str, set[tuple[str, int]]] = {}
    for line in text.splitlines():
        match = ANNOTATION.match(line)
        assert match, line
        found.setdefault(match.group(2), set()).add((match.group(5), int(match.group(3))))
    return found


def _junit_lines(path: Path) -> dict[str, set[tuple[str, int]]]:
    """(rule, line) by file of every finding a JUnit case reports, read with junitparser: a case is one resource and
    rule, its ``file``/``line`` its first finding's, its body one ``file:line:column: [level]`` line per finding."""
    found: dict[str, set[tuple[str, int]]] = {}
    for suite in JUnitXml.fromfile(str(path)):
        for case in suite:
            if not case.result:
                continue
            rule = case.name.split(" ")[0]
            located = [JUNIT_FINDING.match(line) for line in (case.result[0].text or "").splitlines()]
            assert located and all(located), case.result[0].text
            first = located[0]
            assert (case._elem.get("file"), case._elem.get("line")) == (first.group(1), first.group(2))
            for match in located:
                found.setdefault(match.group(1), set()).add((rule, int(match.group(2))))
    return found


def _every_format_names_the_marked_lines(files: dict[str, Path], corpus: list[Path]) -> None:
    """SARIF, JUnit and annotations each put every finding, and only them, at the lines the corpus marks."""
    wanted = {_relative(path): expected(path) for path in corpus}
    wanted = {file: lines for file, lines in wanted.items() if lines}
    assert _sarif_lines(json.loads(files["sarif"].read_text())) == wanted
    assert _junit_lines(files["junit"]) == wanted
    assert _annotation_lines(files["github"].read_text()) == wanted


def test_every_manifest_finding_points_at_its_marked_line(manifest_outputs):
    code, files = manifest_outputs
    assert code == 1  # mandatory findings
    by_file = _sarif_lines(json.loads(files["sarif"].read_text()))
    for corpus in MANIFESTS:
        assert by_file.get(_relative(corpus)) == expected(corpus), corpus.name
    assert set(by_file) == {_relative(corpus) for corpus in MANIFESTS}


def test_the_option_line_inside_a_block_scalar_and_the_column_of_a_flow_key(manifest_outputs):
    _, files = manifest_outputs
    log = json.loads(files["sarif"].read_text())
    lines = {
        (r["ruleId"], r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]): r["locations"][0]["physicalLocation"][
            "region"
        ]
        for r in log["runs"][0]["results"]
    }
    text = MANIFESTS[0].read_text().splitlines()
    g1 = lines[("G1", _relative(MANIFESTS[0]))]
    assert text[g1["startLine"] - 1][g1["startColumn"] - 1 :].startswith("wsrep_provider_options=")
    k2 = lines[("K2", _relative(MANIFESTS[0]))]  # the key judged inside a flow mapping, reached through an alias too
    assert text[k2["startLine"] - 1][k2["startColumn"] - 1 :].startswith("memory: 100M")
    f2 = lines[("F2", _relative(MANIFESTS[1]))]
    assert (
        MANIFESTS[1]
        .read_text()
        .splitlines()[f2["startLine"] - 1]
        .strip()
        .startswith("loose_group_replication_flow_control_applier_threshold=5000")
    )


def test_helm_source_comments_name_the_template(manifest_outputs):
    _, files = manifest_outputs
    log = json.loads(files["sarif"].read_text())
    templates = {r["properties"].get("helmTemplate") for r in log["runs"][0]["results"] if "pxc-helm" in json.dumps(r)}
    assert templates == {"pxc-db/templates/cluster.yaml"}


def test_values_findings_point_into_the_file_that_sets_the_value(values_outputs):
    """Every finding of the layered values at its marked line, in SARIF, JUnit and annotations alike: a value the
    later file writes in its line there (Helm keeps the later), one only the base writes in the base, an option of
    the my.cnf on its own line inside ``configuration: |``, and a value neither writes at the later file's first key."""
    code, files = values_outputs
    assert code == 1
    _every_format_names_the_marked_lines(files, VALUES)
    # T1's size is written by both files: the finding is prod's line, never base's
    assert ("T1", 5) not in _sarif_lines(json.loads(files["sarif"].read_text()))[_relative(VALUES[0])]


def test_junit_has_a_case_per_resource_and_rule_at_the_marked_lines(manifest_outputs):
    _, files = manifest_outputs
    xml = JUnitXml.fromfile(str(files["junit"]))
    seen: dict[str, set[tuple[str, int]]] = {}
    names = []
    for suite in xml:
        for case in suite:
            names.append((suite.name, case.name))
            results = case.result
            if not results:
                continue
            kinds = {type(r) for r in results}
            assert kinds <= {Failure, Skipped}
            rule = case.name.split(" ")[0]
            file = case._elem.get("file")  # junitparser exposes the standard attributes; file/line are pytest's and GitLab's
            seen.setdefault(file, set()).add((rule, int(case._elem.get("line"))))
    assert len(names) == len(set(names))  # one case per resource and rule
    _every_format_names_the_marked_lines(files, MANIFESTS)  # every finding, each case's body naming its lines
    for corpus in MANIFESTS:
        # a case points at its rule's first finding; each marked (rule, line) pair is a case when its rule has one finding
        rules = {rule for rule, _ in expected(corpus)}
        assert {rule for rule, _ in seen[_relative(corpus)]} == rules
        assert seen[_relative(corpus)] <= expected(corpus)
    # the ConfigMap and the Secret break nothing: each is one passing case
    passing = [s.name for s in xml for c in s if not c.result]
    assert any("ConfigMap" in name for name in passing) and any("Secret" in name for name in passing)


def test_github_annotations_carry_file_line_and_rule(manifest_outputs):
    _, files = manifest_outputs
    found = _annotation_lines(files["github"].read_text())
    for corpus in MANIFESTS:
        assert found[_relative(corpus)] == expected(corpus)


def test_markdown_summary_and_json_carry_locations(manifest_outputs):
    _, files = manifest_outputs
    summary = files["markdown"].read_text()
    assert summary.startswith("### ❌ Percona MySQL policy check")
    document = json.loads(files["json"].read_text())
    g1 = next(d for d in document["diagnostics"] if d["rule"] == "G1")
    assert g1["field"] == "spec.pxc.configuration" and g1["location"]["file"] == _relative(MANIFESTS[0])
    assert f"`{_relative(MANIFESTS[0])}:{g1['location']['line']}:{g1['location']['column']}`" in summary


def test_sarif_is_valid_against_the_sarif_2_1_0_schema(manifest_outputs):
    _, files = manifest_outputs
    schema = json.loads(reference_path("sarif/sarif-2.1.0.json").read_text())
    log = json.loads(files["sarif"].read_text())
    validator = jsonschema.validators.validator_for(schema)(schema, format_checker=jsonschema.FormatChecker())
    assert [error.message for error in validator.iter_errors(log)] == []
    rules = {rule["id"]: rule for rule in log["runs"][0]["tool"]["driver"]["rules"]}
    assert rules["M1"]["defaultConfiguration"]["level"] == "error" and rules["R6"]["defaultConfiguration"]["level"] == "warning"
    levels = {(r["ruleId"], r["level"]) for r in log["runs"][0]["results"]}
    assert ("T1", "error") in levels and ("R6", "warning") in levels
    # a broken log is refused: the validation can fail
    broken = json.loads(json.dumps(log))
    broken["runs"][0]["results"][0]["level"] = "fatal"
    assert list(validator.iter_errors(broken))


def _multitool() -> Path | None:
    installed = MULTITOOL_PREFIX / "node_modules" / ".bin" / "sarif-multitool"
    return installed if installed.exists() else (Path(found) if (found := shutil.which("sarif-multitool")) else None)


def test_sarif_multitool_validates_the_log(manifest_outputs, tmp_path):
    tool = _multitool()
    if tool is None:
        oracle_missing(
            f"Microsoft's SARIF multitool is not installed: npm install --prefix {MULTITOOL_PREFIX} @microsoft/sarif-multitool@5.7.0"
        )
    _, files = manifest_outputs
    broken = _broken_copy(files["sarif"], tmp_path)
    report = tmp_path / "validation.sarif"
    done = subprocess.run(  # both logs in one run: the tool's start is most of its time
        [str(tool), "validate", str(files["sarif"]), str(broken), "--output", str(report), "--log", "ForceOverwrite"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    problems: dict[str, list[str]] = {files["sarif"].name: [], broken.name: []}
    for result in json.loads(report.read_text())["runs"][0].get("results", []):
        if result.get("level", "warning") in ("error", "warning"):
            uri = result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
            problems[Path(uri).name].append(result["message"].get("text", result.get("ruleId")))
    assert problems[files["sarif"].name] == []
    assert problems[broken.name]  # a result whose rule the driver lacks is caught: the validation can fail


def _broken_copy(sarif: Path, tmp_path: Path) -> Path:
    """The same log with a result whose rule is not among the driver's rules: the multitool must say so."""
    log = json.loads(sarif.read_text())
    log["runs"][0]["results"][0]["ruleIndex"] = 10_000
    broken = tmp_path / "broken.sarif"
    broken.write_text(json.dumps(log))
    return broken


def test_partial_fingerprints_survive_lines_moving(tmp_path):
    moved = tmp_path / "moved.yaml"
    moved.write_text("# two lines\n# added above\n" + MANIFESTS[1].read_text())
    logs = []
    for source in (MANIFESTS[1], moved):
        out = tmp_path / f"{source.stem}.sarif"
        check.main(["--manifests", str(source), f"--format=sarif={out}"])
        logs.append(json.loads(out.read_text())["runs"][0]["results"])
    assert [r["partialFingerprints"] for r in logs[0]] == [r["partialFingerprints"] for r in logs[1]]
    assert [r["locations"][0]["physicalLocation"]["region"]["startLine"] + 2 for r in logs[0]] == [
        r["locations"][0]["physicalLocation"]["region"]["startLine"] for r in logs[1]
    ]
    assert len({json.dumps(r["partialFingerprints"]) for r in logs[0]}) == len(logs[0])


def test_exit_codes(tmp_path, capsys):
    clean = tmp_path / "clean.yaml"
    clean.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {a: b}\n")
    assert check.main(["--manifests", str(clean), "--format", "github"]) == 0
    assert check.main(["--manifests", str(MANIFESTS[1]), "--format", "github"]) == 1
    broken = tmp_path / "broken.yaml"
    broken.write_text("apiVersion: v1\nkind: [\n")
    assert check.main(["--manifests", str(broken)]) == 2
    assert check.main(["--manifests", str(clean), "--format", "xml"]) == 2
    assert check.main(["--manifests", str(clean), "--format", "sarif", "--format", "junit"]) == 2
    assert check.main(["--manifests", str(clean), "--format", f"sarif={tmp_path / 'missing' / 'x.sarif'}"]) == 2
    err = capsys.readouterr().err
    assert "the formats are text, json, sarif, junit, github, markdown" in err and "both go to standard output" in err


def test_a_stack_finding_points_at_the_config_key_or_the_program_line(tmp_path):
    """S1 at the key's line of Pulumi.<stack>.yaml; a resource's findings at the program's line that created it."""
    (tmp_path / "Pulumi.yaml").write_text("name: located\nruntime: python\n")
    (tmp_path / "Pulumi.dev.yaml").write_text("config:\n  located:region: eu\n  located:dbPassword: hunter2  # expect: S1\n")
    cluster = read_manifests(MANIFESTS[0].read_text(), str(MANIFESTS[0]))[1].props
    (tmp_path / "cluster.json").write_text(json.dumps(cluster))
    (tmp_path / "__main__.py").write_text(
        "import json, pathlib, pulumi, pulumi_kubernetes as k8s\n"
        "props = json.loads((pathlib.Path(__file__).parent / 'cluster.json').read_text())\n"
        "k8s.apiextensions.CustomResource('shop', api_version=props['apiVersion'], kind=props['kind'],  # expect: T1\n"
        "    metadata=props['metadata'], spec=props['spec'], opts=pulumi.ResourceOptions(protect=True))\n"
    )
    files = {name: tmp_path / f"stack.{name}" for name in ("sarif", "junit", "github")}
    code = check.main(
        ["--program", str(tmp_path), "--stack", "dev", *(f"--format={name}={path}" for name, path in files.items())]
    )
    assert code == 1
    readers = {
        "sarif": lambda path: _sarif_lines(json.loads(path.read_text())),
        "junit": _junit_lines,
        "github": lambda path: _annotation_lines(path.read_text()),
    }
    for name, read in readers.items():  # SARIF, JUnit and annotations alike
        by_name = {Path(file).name: found for file, found in read(files[name]).items()}
        assert set(by_name) == {"Pulumi.dev.yaml", "__main__.py"}, name
        assert by_name["Pulumi.dev.yaml"] == expected(tmp_path / "Pulumi.dev.yaml"), name
        program = by_name["__main__.py"]  # every resource finding at the line that created the resource
        assert {line for _, line in program} == {line for _, line in expected(tmp_path / "__main__.py")}, name
        assert ("T1", 3) in program and ("G1", 3) in program, name


@pytest.mark.parametrize(
    ("path", "at", "whole"),
    [
        ("spec.pxc.size", ("spec", "pxc", "size"), True),
        ("spec.pxc.resources.limits.memory", ("spec", "pxc", "resources", "limits", "memory"), True),
        ("spec.pxc.tolerations[0].key", ("spec", "pxc", "tolerations", 0, "key"), True),
        ("spec.pxc.nodeSelector.mysql.percona.com/pool", ("spec", "pxc", "nodeSelector", "mysql.percona.com/pool"), True),
        ("spec.backup.storages[offsite].s3", ("spec", "backup", "storages", "offsite", "s3"), True),
        ("spec.pxc.resources.limits.ephemeral", ("spec", "pxc", "resources", "limits"), False),
        ("spec.pxc.tolerations[7]", ("spec", "pxc", "tolerations"), False),
        ("", (), True),
    ],
)
def test_resolve_walks_keys_with_dots_indices_and_bracketed_keys(path, at, whole):
    value = read_manifests(MANIFESTS[0].read_text(), "x")[1].props
    assert resolve(value, path) == (at, whole)


def test_a_folded_or_quoted_text_points_at_its_key():
    text = 'a:\n  b: >\n    x=1\n    y=2\n  c: "x=1\\ny=2"\n'
    obj = read_manifests("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm}\ndata:\n  k: |\n    x=1\n    y=2\n", "f")[0]
    literal = locate(obj.positions(), FindingField("data.k", 2))
    assert (literal.line, literal.column) == (7, 5)
    for folded in (text,):
        lines = tuple(folded.split("\n"))
        from percona_mysql_k8s.core.kube_yaml import read_first_document

        document = read_first_document(folded, "f")
        positions = Positions("f", document.value, document.marks, document.key_marks, lines)
        assert locate(positions, FindingField("a.b", 2)).line == 2
        assert locate(positions, FindingField("a.c", 2)).line == 5


def test_the_field_marker_round_trips():
    message, field = split_field("F2: x sets y=5; allowed. Fix: z. (field: spec.a[0].b, line 7 of its text)")
    assert (message, field) == ("F2: x sets y=5; allowed. Fix: z.", FindingField("spec.a[0].b", 7))
    assert split_field("T1: no field here")[1] == FindingField("")
    assert FindingField("spec.x", 3).marker() == " (field: spec.x, line 3 of its text)"


def test_the_command_runs_as_a_module_with_stdin_named(tmp_path):
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "percona_mysql_k8s.cli.check",
            "--manifests",
            "-",
            "--stdin-name",
            "rendered/orders.yaml",
            "--format",
            "github",
        ],
        input=MANIFESTS[1].read_text(),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 1, done.stderr
    assert {
        (m[1], int(m[0])) for m in re.findall(r"file=rendered/orders.yaml,line=(\d+),col=\d+,title=([A-Z]\d)", done.stdout)
    } == (expected(MANIFESTS[1]))
