"""Regenerate what the docs derive from the code, so they cannot drift from it:

* docs/rules.md, the rule catalogue page, from ``percona_mysql_k8s.core.rules`` (rules, thresholds,
  sources) and the pack's policies (which policy enforces which rule);
* the table of the operators' refusals in docs/operator-validation.md, from ``percona_mysql_k8s.core.operator_validation``;
* the generated blocks of docs/sizing.md's worked example (``<!-- BEGIN GENERATED: name -->`` ...
  ``<!-- END GENERATED: name -->``), from the sizing command and the peer model (docs/sizing_example.py).

    .venv/bin/python docs/generate.py           # rewrite the files
    .venv/bin/python docs/generate.py --check   # exit 1 and name the stale files (tests/docs does the same)
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RULES_PAGE = ROOT / "docs" / "rules.md"
SIZING_PAGE = ROOT / "docs" / "sizing.md"

# The rule families, by the first letter of their IDs (presentation only; rules.py holds the rules).
FAMILIES = {
    "K": "K. Kubernetes capacity",
    "M": "M. Memory split of the mysqld container",
    "F": "F. Group replication flow control",
    "G": "G. Galera (PXC) flow control",
    "T": "T. Topology and proxies",
    "B": "B. Benchmarks",
    "S": "S. Safety",
    "R": "R. Recovery (production stacks; ephemeral stacks are exempt)",
    "C": "C. Custom resources",
}


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _number(value: float | int) -> str:
    return f"{value:,}" if isinstance(value, int) else f"{value:g}"


def rules_page() -> str:
    from percona_mysql_k8s.core.rules import RULES, SOURCES
    from percona_mysql_k8s.policies._catalog import SPECS

    enforced_by: dict[str, list[str]] = {}
    for spec in SPECS:
        for rule_id in spec.rules:
            enforced_by.setdefault(rule_id, []).append(spec.name)
    unknown = sorted({rule_id[0] for rule_id in RULES} - set(FAMILIES))
    if unknown:
        raise SystemExit(f"docs/generate.py: no family title for rule IDs starting with {', '.join(unknown)}: add it to FAMILIES")
    lines = [
        "<!-- Generated from modules/percona_mysql_k8s/core/rules.py by `.venv/bin/python docs/generate.py`: do not edit"
        " here (tests/docs/test_generated.py fails when this page is stale). -->",
        "",
        "# The rule catalogue",
        "",
        "Every size the sizing engine computes and every violation the policy pack reports cites one of these",
        "rule IDs. **M** (mandatory): a stack that breaks the rule must not deploy; **A** (advisory): a warning.",
        "A threshold is a number a rule leaves open: its default is the project's choice, overridable per",
        "policy (`pulumi preview --policy-pack-config`, see [policies.md](policies.md)) and in the sizing command",
        "(`--threshold NAME=VALUE`, see [sizing.md](sizing.md)). Sources are listed [at the end](#sources).",
    ]
    for letter, title in FAMILIES.items():
        rules = [rule for rule in RULES.values() if rule.id[0] == letter]
        if not rules:
            continue
        lines += ["", f"## {title}", "", "| ID | Rule | Level | Enforced by | Sources |", "|---|---|---|---|---|"]
        for rule in rules:
            policies = ", ".join(f"`{name}`" for name in enforced_by.get(rule.id, [])) or "sizing only"
            sources = ", ".join(f"[{key}](#source-{key.lower()})" for key in rule.sources) or "project rule"
            level = "M" if rule.mandatory else "A"
            lines.append(
                f'| <a id="{rule.anchor}"></a>{rule.id} | **{_cell(rule.title)}.** {_cell(rule.text)} | {level} | {policies} '
                f"| {sources} |"
            )

        thresholds = [(rule.id, threshold) for rule in rules for threshold in rule.thresholds]
        if thresholds:
            lines += ["", "| Threshold (config key) | Rule | Default | Accepted | Meaning |", "|---|---|---|---|---|"]
            lines += [
                f"| `{t.name}` | {rule_id} | {_number(t.default)} | {_domain(t)} | {_cell(t.description)} |"
                for rule_id, t in thresholds
            ]
    lines += ["", "## Sources", ""]
    for key, documents in SOURCES.items():
        links = "; ".join(f"[{title}]({url})" for title, url in documents)
        lines.append(f'- <a id="source-{key.lower()}"></a>**{key}**: {links}')
    return "\n".join(lines) + "\n"


def _domain(threshold) -> str:
    """``1 to 1,000`` / ``> 0 to 86,400`` / ``0 to < 1``: the values sizing and the pack accept (core.rules)."""
    low = f"> {_number(threshold.minimum)}" if threshold.exclusive_minimum else _number(threshold.minimum)
    high = f"< {_number(threshold.maximum)}" if threshold.exclusive_maximum else _number(threshold.maximum)
    whole = ", whole" if threshold.kind == "integer" else ""
    return f"{low} to {high}{whole}"


_BLOCK = re.compile(r"(<!-- BEGIN GENERATED: (?P<name>[a-z-]+) -->\n)(?P<body>.*?)(<!-- END GENERATED: (?P=name) -->)", re.S)


def sizing_page(current: str) -> str:
    """docs/sizing.md with every generated block replaced by what docs/sizing_example.py computes now."""
    sys.path.insert(0, str(ROOT / "docs"))
    import sizing_example

    blocks = sizing_example.blocks()
    found = {match.group("name") for match in _BLOCK.finditer(current)}
    if found != set(blocks):
        raise SystemExit(
            f"docs/sizing.md: generated blocks {sorted(found)} differ from docs/sizing_example.py's {sorted(blocks)}"
        )
    return _BLOCK.sub(lambda m: m.group(1) + blocks[m.group("name")].rstrip("\n") + "\n" + m.group(4), current)


REFUSALS_PAGE = ROOT / "docs" / "operator-validation.md"
_REFUSALS_BLOCK = re.compile(r"(<!-- BEGIN GENERATED: refusals -->\n).*?(<!-- END GENERATED: refusals -->)", re.S)
OPERATOR_SOURCES = {"pxc": "percona-xtradb-cluster-operator b3b0b10a7 (1.20.0)", "ps": "percona-server-mysql-operator v1.2.0"}


def refusals_page(current: str) -> str:
    """docs/operator-validation.md with its table of refusals from core.operator_validation (rule C2)."""
    from percona_mysql_k8s.core.operator_validation import REFUSALS

    lines = ["| Check | Operator | Field | What it refuses | Source |", "|---|---|---|---|---|"]
    lines += [
        f"| `{r.id}` | {r.operator_name} | `{_cell(r.field)}` | {_cell(r.what)} | {OPERATOR_SOURCES[r.operator]} "
        f"`{_cell(r.source)}` |"
        for r in REFUSALS
    ]
    if not _REFUSALS_BLOCK.search(current):
        raise SystemExit("docs/operator-validation.md: no <!-- BEGIN/END GENERATED: refusals --> block")
    return _REFUSALS_BLOCK.sub(lambda m: m.group(1) + "\n".join(lines) + "\n" + m.group(2), current)


TARGETS: dict[Path, Callable[[str], str]] = {
    RULES_PAGE: lambda _current: rules_page(),
    SIZING_PAGE: sizing_page,
    REFUSALS_PAGE: refusals_page,
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 when a file is stale")
    args = parser.parse_args(argv)
    stale = []
    for path, render in TARGETS.items():
        current = path.read_text() if path.exists() else ""
        wanted = render(current)
        if wanted != current:
            stale.append(path.relative_to(ROOT))
            if not args.check:
                path.write_text(wanted)
    if args.check and stale:
        print(f"stale: {', '.join(map(str, stale))}; regenerate with .venv/bin/python docs/generate.py", file=sys.stderr)
        return 1
    for path in stale:
        print(f"regenerated {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
