"""The grade as text: rule by rule, in catalogue order, then what no rule covers, then one summary line."""

from __future__ import annotations

from collections.abc import Sequence

from percona_mysql_k8s.core.rules import RULES

from .checks import BREACHED, HOLDS, NOT_GRADED, Finding

NO_RULE = "sized values no rule covers (reported, never a breach)"


def render(findings: Sequence[Finding]) -> str:
    by_rule: dict[str, list[Finding]] = {}
    for finding in findings:
        by_rule.setdefault(finding.rules[0] if finding.rules else "", []).append(finding)
    lines: list[str] = []
    for rule_id in [*RULES, ""]:
        group = by_rule.pop(rule_id, None)
        if not group:
            continue
        if rule_id:
            rule = RULES[rule_id]
            lines.append(f"{rule_id} {rule.title} ({rule.level})")
        else:
            lines.append(NO_RULE)
        for finding in group:
            also = f" [also {', '.join(finding.rules[1:])}]" if len(finding.rules) > 1 else ""
            lines.append(f"  {finding.verdict:<10} {finding.member:<22} {finding.subject}: {finding.detail}{also}")
    for rule_id, group in by_rule.items():  # an ID the catalogue does not know: still shown, never dropped
        lines.append(f"{rule_id} (not in the rule catalogue)")
        lines.extend(f"  {f.verdict:<10} {f.member:<22} {f.subject}: {f.detail}" for f in group)
    lines.append(summary(findings))
    return "\n".join(lines)


def summary(findings: Sequence[Finding]) -> str:
    held = sum(f.verdict == HOLDS for f in findings)
    breached = [f for f in findings if f.verdict == BREACHED and f.rules]
    unruled = sum(f.verdict == BREACHED and not f.rules for f in findings)
    skipped = sum(f.verdict == NOT_GRADED for f in findings)
    rules = sorted({rule for f in breached for rule in f.rules}, key=lambda r: list(RULES).index(r) if r in RULES else len(RULES))
    text = f"summary: {held} hold, {len(breached)} breached"
    if rules:
        text += f" ({', '.join(rules)})"
    text += f", {skipped} not graded"
    if unruled:
        text += f", {unruled} sized value(s) without a rule differ"
    return text
