"""The check's findings for CI systems: JUnit XML (GitLab, Jenkins), GitHub workflow commands, Markdown.

* JUnit: one test suite per resource judged, one test case per resource and rule. A rule the resource breaks at the
  mandatory level is a ``<failure>``; an advisory finding does not fail the check, so its case is ``<skipped>``
  with the message (JUnit has no warning); a resource nothing was found on has one passing case. Each case names
  the file and line of the field (``file``, ``line`` attributes, as pytest and GitLab write them).
* GitHub workflow commands: ``::error file=…,line=…,col=…,title=M1 memory-split::message`` for a mandatory
  finding, ``::warning`` for an advisory one (docs.github.com, "Workflow commands for GitHub Actions": ``%``,
  CR and LF escaped in the message; in properties also ``:`` and ``,``).
* Markdown for ``$GITHUB_STEP_SUMMARY``: the counts, then a table of the findings.
"""

from __future__ import annotations

import xml.etree.ElementTree as ElementTree
from collections import defaultdict

from percona_mysql_k8s.cli.findings import MANDATORY, Finding, Report
from percona_mysql_k8s.core.rules import RULES


def _where(finding: Finding) -> str:
    return str(finding.location) if finding.location else "(no file)"


def _subject(finding: Finding) -> str:
    return f"{finding.resource_type}: {finding.resource_name}" if finding.resource_type else "the stack"


def _title(rule_id: str) -> str:
    rule = RULES.get(rule_id)
    return f"{rule_id} {rule.title}" if rule else rule_id


def junit(report: Report, subjects: list[tuple[str, str]]) -> str:
    """``subjects``: every (type, name) judged, so that a resource with no finding is listed as passing."""
    by_subject: dict[tuple[str, str], list[Finding]] = defaultdict(list)
    for finding in report.ordered():
        by_subject[(finding.resource_type or "stack", finding.resource_name or "")].append(finding)
    root = ElementTree.Element(
        "testsuites",
        name=f"{report.pack}@{report.version}",
        tests="0",
        failures=str(len({(s, f.rule) for s, fs in by_subject.items() for f in fs if f.level == MANDATORY})),
    )
    total = 0
    for subject in [*subjects, *(key for key in by_subject if key not in subjects)]:
        findings = by_subject.get(subject, [])
        name = f"{subject[0]}: {subject[1]}" if subject[1] else subject[0]
        suite = ElementTree.SubElement(root, "testsuite", name=name)
        by_rule: dict[str, list[Finding]] = defaultdict(list)
        for finding in findings:
            by_rule[finding.rule].append(finding)
        if not by_rule:
            ElementTree.SubElement(suite, "testcase", classname=name, name="every rule that applies")
        for rule_id, found in by_rule.items():
            case = ElementTree.SubElement(suite, "testcase", classname=name, name=_title(rule_id))
            first = found[0]
            if first.location:
                case.set("file", first.location.file)
                case.set("line", str(first.location.line))
            mandatory = [f for f in found if f.level == MANDATORY]
            body = "\n".join(f"{_where(f)}: [{f.level}] {f.diagnostic.policy}: {f.text}" for f in found)
            if mandatory:
                element = ElementTree.SubElement(case, "failure", message=mandatory[0].text, type=MANDATORY)
            else:
                element = ElementTree.SubElement(case, "skipped", message=f"advisory: {found[0].text}")
            element.text = body
        counts = {
            "tests": len(suite),
            "failures": sum(1 for case in suite if case.find("failure") is not None),
            "skipped": sum(1 for case in suite if case.find("skipped") is not None),
        }
        for key, value in counts.items():
            suite.set(key, str(value))
        suite.set("errors", "0")
        total += counts["tests"]
    root.set("tests", str(total))
    ElementTree.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ElementTree.tostring(root, encoding="unicode") + "\n"


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def github(report: Report) -> str:
    """One workflow command per finding; the job log shows them and the pull request's diff carries them."""
    lines = []
    for finding in report.ordered():
        command = "error" if finding.level == MANDATORY else "warning"
        properties = []
        if finding.location:
            properties += [
                f"file={_escape_property(finding.location.file)}",
                f"line={finding.location.line}",
                f"col={finding.location.column}",
            ]
        properties.append(f"title={_escape_property(f'{finding.rule} {finding.diagnostic.policy}')}")
        message = f"{finding.text} ({_subject(finding)})"
        lines.append(f"::{command} {','.join(properties)}::{_escape_data(message)}")
    return "\n".join(lines) + ("\n" if lines else "")


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def markdown(report: Report) -> str:
    mandatory, advisory = len(report.mandatory), len(report.advisory)
    mark = "❌" if mandatory else ("⚠️" if advisory else "✅")
    lines = [
        f"### {mark} Percona MySQL policy check ({report.pack}@{report.version})",
        "",
        f"{mandatory} mandatory and {advisory} advisory finding(s) in {report.resources} resources.",
    ]
    if report.findings:
        lines += ["", "| Level | Rule | Where | Resource | Finding |", "|---|---|---|---|---|"]
        for finding in report.ordered():
            lines.append(
                f"| {finding.level} | {_cell(_title(finding.rule))} | `{_cell(_where(finding))}` | "
                f"{_cell(_subject(finding))} | {_cell(finding.text)} |"
            )
    return "\n".join(lines) + "\n"
