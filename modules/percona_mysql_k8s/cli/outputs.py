"""Which formats the check writes, and where: ``--format FORMAT[=FILE]``, repeatable.

    --format text                      the engine's ``Policies:`` section with each finding's file:line (default)
    --format json                      one JSON document (``--json`` is the same)
    --format sarif=results.sarif       SARIF 2.1.0 for GitHub code scanning (cli.sarif)
    --format junit=policy.xml          JUnit XML for GitLab, Jenkins (cli.report_formats)
    --format github                    GitHub workflow commands: annotations on the pull request's lines
    --format markdown=summary.md       Markdown for $GITHUB_STEP_SUMMARY

One run writes them all from one verdict (the program runs once). A format without ``=FILE`` goes to standard
output; at most one may. The exit status is the check's, whatever the formats: 0 clean (advisory findings
allowed), 1 a mandatory finding, 2 bad usage or unreadable input (nothing judged).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from percona_mysql_k8s.cli import report_formats, sarif
from percona_mysql_k8s.cli.findings import Report

FORMATS = ("text", "json", "sarif", "junit", "github", "markdown")
CLEAN, MANDATORY_FOUND, BAD_INPUT = 0, 1, 2


class FormatError(ValueError):
    """A ``--format`` the check cannot honour (exit 2)."""


def parse_formats(given: Sequence[str], json_alias: bool) -> list[tuple[str, Path | None]]:
    """(format, file or None for stdout) of every ``--format``; ``text`` alone when none is given."""
    specs = [*given, *(["json"] if json_alias else [])] or ["text"]
    parsed = []
    for spec in specs:
        name, _, file = spec.partition("=")
        if name not in FORMATS:
            raise FormatError(f"--format {spec!r}: the formats are {', '.join(FORMATS)} (FORMAT or FORMAT=FILE)")
        if "=" in spec and not file:
            raise FormatError(f"--format {spec!r}: name the file after '=', or leave '=' out for standard output")
        parsed.append((name, Path(file) if file else None))
    to_stdout = [name for name, file in parsed if file is None]
    if len(to_stdout) > 1:
        raise FormatError(f"--format: {' and '.join(to_stdout)} both go to standard output; give all but one a FILE")
    return parsed


def emit(
    report: Report,
    formats: list[tuple[str, Path | None]],
    *,
    text: Callable[[], str],
    json_document: Callable[[], dict[str, Any]],
    subjects: list[tuple[str, str]],
    rules_uri: str | None,
    stdin_name: str | None = None,
) -> int:
    """Write every format; the check's exit status (2 when a file cannot be written)."""
    renderers: dict[str, Callable[[], str]] = {
        "text": text,
        "json": lambda: json.dumps(json_document(), indent=2) + "\n",
        "sarif": lambda: json.dumps(sarif.document(report, base=rules_uri, stdin_name=stdin_name), indent=2) + "\n",
        "junit": lambda: report_formats.junit(report, subjects),
        "github": lambda: report_formats.github(report),
        "markdown": lambda: report_formats.markdown(report),
    }
    for name, file in formats:
        output = renderers[name]()
        if file is None:
            sys.stdout.write(output if output.endswith("\n") or not output else output + "\n")
            continue
        try:
            file.write_text(output, encoding="utf-8")
        except OSError as error:
            print(f"error: --format {name}={file}: cannot be written: {error.strerror or error}", file=sys.stderr)
            return BAD_INPUT
    return MANDATORY_FOUND if report.mandatory else CLEAN


def location_json(finding) -> dict[str, Any] | None:
    """A finding's location in the JSON document."""
    if finding.location is None:
        return None
    where = {"file": finding.location.file, "line": finding.location.line, "column": finding.location.column}
    if finding.location.template:
        where["template"] = finding.location.template
    return where
