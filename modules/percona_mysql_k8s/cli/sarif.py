"""The check's findings as SARIF 2.1.0 (OASIS), the format GitHub code scanning reads (``upload-sarif``).

* ``tool.driver.rules``: every rule of the catalogue (core.rules, the one definition): its ID, a name, the title
  as short description, the rule's text as full description, its help (text and Markdown), the link to its row in
  docs/rules.md (``helpUri``) and its default level (``error`` for a mandatory rule, ``warning`` for an advisory
  one);
* one result per finding: its rule (``ruleId``, ``ruleIndex``), its level as the pack enforced it (the policy
  config may change a rule's level), the message, the file, line and column of the field it judged
  (cli.locations), the resource as a logical location, and ``partialFingerprints`` that hold across commits: the
  rule, the policy, the resource and the field, not the line (lines move when the file is edited) nor the numbers
  in the message.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Iterable
from pathlib import Path, PurePosixPath
from typing import Any

import percona_mysql_k8s
from percona_mysql_k8s.cli.findings import MANDATORY, Finding, Report
from percona_mysql_k8s.core.rules import RULES

SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
TOOL = "percona-mysql-policy-check"
FINGERPRINT = "perconaMysqlFinding/v1"
STDIN_URI = "stdin"


def rules_uri(explicit: str | None, project: Path | None) -> str | None:
    """Where docs/rules.md is for links: ``--rules-uri``, else the commit being checked on GitHub Actions
    (GITHUB_SERVER_URL, GITHUB_REPOSITORY, GITHUB_SHA), else the project's own file; None when none is known
    (SARIF wants an absolute URI: the rules then carry their help text alone)."""
    if explicit:
        return explicit
    server, repository, sha = (os.environ.get(name) for name in ("GITHUB_SERVER_URL", "GITHUB_REPOSITORY", "GITHUB_SHA"))
    if server and repository and sha:
        return f"{server}/{repository}/blob/{sha}/docs/rules.md"
    page = project / "docs" / "rules.md" if project else None
    return page.resolve().as_uri() if page and page.exists() else None


def _name(title: str) -> str:
    """``Memory limit = request.`` -> ``MemoryLimitRequest``: SARIF's rule name is an identifier-like word."""
    return "".join(word[:1].upper() + word[1:] for word in re.findall(r"[A-Za-z0-9]+", title))


def rule_descriptors(base: str | None) -> list[dict[str, Any]]:
    descriptors = []
    for rule in RULES.values():
        level = "error" if rule.mandatory else "warning"
        descriptor: dict[str, Any] = {
            "id": rule.id,
            "name": _name(rule.title),
            "shortDescription": {"text": f"{rule.id}: {rule.title}"},
            "fullDescription": {"text": rule.text},
            "help": {
                "text": f"{rule.id} ({rule.level.value}): {rule.title}. {rule.text}",
                "markdown": f"**{rule.id} {rule.title}** ({rule.level.value}). {rule.text}",
            },
            "defaultConfiguration": {"level": level},
            "properties": {"tags": ["percona-mysql", rule.level.value], "precision": "very-high"},
        }
        if base:
            descriptor["helpUri"] = f"{base}#{rule.anchor}"
        descriptors.append(descriptor)
    return descriptors


def artifact_uri(file: str, stdin_name: str | None = None) -> str:
    """A file as SARIF names it: relative to the working directory (the repository root in CI), with ``/``."""
    if file == "-":
        return stdin_name or STDIN_URI
    path = Path(file)
    if path.is_absolute():
        try:
            path = path.resolve().relative_to(Path.cwd().resolve())
        except ValueError:
            return path.resolve().as_uri()
    return str(PurePosixPath(*path.parts))


def fingerprints(findings: Iterable[Finding]) -> list[str]:
    """One stable identity per finding: what it is about, never where it sits; repeats numbered in order."""
    seen: dict[str, int] = {}
    result = []
    for finding in findings:
        identity = "\0".join(
            (
                finding.rule,
                finding.diagnostic.policy,
                finding.resource_type or "",
                finding.resource_name.split(" [")[0] if finding.resource_name else "",
                finding.field.path,
                re.sub(r"\d+", "#", finding.text),
            )
        )
        digest = hashlib.sha256(identity.encode()).hexdigest()[:32]
        seen[digest] = seen.get(digest, 0) + 1
        result.append(f"{digest}:{seen[digest]}")
    return result


def document(report: Report, *, base: str | None = None, stdin_name: str | None = None) -> dict[str, Any]:
    """The SARIF log of one check."""
    descriptors = rule_descriptors(base)
    index = {descriptor["id"]: number for number, descriptor in enumerate(descriptors)}
    ordered = report.ordered()
    results = []
    for finding, fingerprint in zip(ordered, fingerprints(ordered), strict=True):
        result: dict[str, Any] = {
            "ruleId": finding.rule if finding.rule in index else finding.diagnostic.policy,
            "level": "error" if finding.level == MANDATORY else "warning",
            "message": {"text": finding.text},
            "partialFingerprints": {FINGERPRINT: fingerprint},
            "properties": {"policy": finding.diagnostic.policy, "enforcementLevel": finding.level},
        }
        if finding.rule in index:
            result["ruleIndex"] = index[finding.rule]
        if finding.field.path:
            result["properties"]["field"] = finding.field.path
        if finding.location is not None:
            physical: dict[str, Any] = {
                "artifactLocation": {"uri": artifact_uri(finding.location.file, stdin_name)},
                "region": {"startLine": finding.location.line, "startColumn": finding.location.column},
            }
            result["locations"] = [{"physicalLocation": physical}]
            if finding.location.template:
                result["properties"]["helmTemplate"] = finding.location.template
        if finding.resource_type:
            result.setdefault("locations", [{}])[0]["logicalLocations"] = [
                {"fullyQualifiedName": f"{finding.resource_type}::{finding.resource_name}", "kind": "resource"}
            ]
        results.append(result)
    driver: dict[str, Any] = {
        "name": TOOL,
        "version": percona_mysql_k8s.__version__,
        "semanticVersion": percona_mysql_k8s.__version__,
        "rules": descriptors,
    }
    if base:
        driver["informationUri"] = base
    return {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {"driver": driver},
                "columnKind": "unicodeCodePoints",
                "results": results,
                "properties": {"pack": report.pack, "packVersion": report.version, "resources": report.resources},
            }
        ],
    }
