"""Offline policy check: ``python -m percona_mysql_k8s.policies.check --stack <name>``, no CLI, no cloud credentials.

Runs the stack program with every provider mocked (percona_mysql_k8s.offline), starts the pack exactly as the
engine does and feeds it every resource over the analyzer protocol (``Analyze`` with each resource's
inputs, then ``AnalyzeStack`` with all of them, their parents and dependencies), prints the violations
in the engine's ``Policies:`` format and exits 1 when one is mandatory. It also checks what the engine
never shows a pack: that the stack config keeps password-like keys ``secure:`` (S1).

    python -m percona_mysql_k8s.policies.check --stack kind
    python -m percona_mysql_k8s.policies.check --stack gke --policy-config policy-config.json
    python -m percona_mysql_k8s.policies.check --program path/to/program --stack dev --project myproj

The project is the one around the working directory (or ``--cwd DIR``), found as the CLI finds it, up to
its ``Pulumi.yaml``; the pack is the project's ``policies/`` (or ``--policy-pack DIR``).
Installed, it is also the ``percona-mysql-policy-check`` command.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from percona_mysql_k8s.core.errors import InputError
from percona_mysql_k8s.policies._engine import Diagnostic, Pack, Resource
from percona_mysql_k8s.project import POLICY_PACK_FILE, find_project, policy_pack_dir, project_file

PASSWORD_CONFIG_KEY = re.compile(r"(password|passwd|token|secret|apikey|api_key)", re.IGNORECASE)


@dataclass
class Finding:
    diagnostic: Diagnostic
    resource_type: str | None
    resource_name: str | None


@dataclass
class Report:
    pack: str
    version: str
    findings: list[Finding] = field(default_factory=list)

    @property
    def mandatory(self) -> list[Finding]:
        return [f for f in self.findings if f.diagnostic.level == "mandatory"]


def pack_version(pack_dir: Path | None = None) -> str:
    """The version PulumiPolicy.yaml declares (the pack reports no version of its own over the protocol)."""
    return str(yaml.safe_load((policy_pack_dir(pack_dir) / POLICY_PACK_FILE).read_text()).get("version", "0.0.1"))


def to_resources(registrations: Iterable, *, outputs: bool = False) -> list[Resource]:
    """percona_mysql_k8s.offline registrations as the engine would send them: inputs to Analyze, outputs to AnalyzeStack."""
    return [Resource(urn=r.urn, type=r.type, name=r.name, properties=(r.state or r.inputs) if outputs else r.inputs,
                     parent=r.parent, dependencies=tuple(r.dependencies), property_dependencies=r.property_dependencies,
                     protect=r.protect) for r in registrations]


def check_registrations(registrations: list, *, stack: str, project: str, config: Mapping[str, str] | None = None,
                        policy_config: Mapping[str, Mapping[str, Any]] | None = None,
                        pack_dir: Path | None = None) -> Report:
    registrations = list(registrations)
    by_urn = {r.urn: r for r in registrations}
    report = Report(pack="percona-mysql", version=pack_version(pack_dir))
    with Pack(pack_dir, stack=stack, project=project, config=config) as pack:
        report.pack = pack.info().name
        pack.configure(policy_config or {})
        for resource in to_resources(registrations):
            for diagnostic in pack.analyze(resource):
                report.findings.append(Finding(diagnostic, resource.type, resource.name))
        for diagnostic in pack.analyze_stack(to_resources(registrations, outputs=True)):
            subject = by_urn.get(diagnostic.urn)
            report.findings.append(Finding(diagnostic, subject.type if subject else None, subject.name if subject else None))
    return report


def config_findings(stack_file: Path, version: str = "") -> list[Finding]:
    """S1 on the stack config: password-like keys must be ``secure:`` values, never plain text."""
    if not stack_file.exists():
        return []
    config = (yaml.safe_load(stack_file.read_text()) or {}).get("config") or {}
    findings = []
    for key, value in config.items():
        if PASSWORD_CONFIG_KEY.search(str(key).split(":")[-1]) and isinstance(value, str) and value:
            message = (f"S1: plain-text passwords never appear in stack config\n"
                       f"S1: {stack_file.name} sets {key} in plain text; the rule keeps every password a Pulumi secret. "
                       f"Fix: pulumi config set --secret {key.split(':')[-1]} (it is then stored as secure:).")
            findings.append(Finding(Diagnostic("no-plaintext-passwords", "percona-mysql", version, "mandatory",
                                               message, "", ""), "stack config", stack_file.name))
    return findings


def render(report: Report, pack_path: str = "policies") -> str:
    """The engine's rendering of policy results (the ``Policies:`` section of ``pulumi preview``)."""
    lines = ["Policies:"]
    mark = "❌" if report.mandatory else ("⚠️" if report.findings else "✅")
    lines.append(f"    {mark} {report.pack}@v{report.version} (local: {pack_path})")
    order = {"mandatory": 0, "advisory": 1}
    for finding in sorted(report.findings, key=lambda f: (order.get(f.diagnostic.level, 2), f.diagnostic.policy)):
        d = finding.diagnostic
        subject = f"  ({finding.resource_type}: {finding.resource_name})" if finding.resource_type else ""
        lines.append(f"        - [{d.level}]  {d.policy}{subject}")
        for text in d.message.splitlines():
            lines.append(f"          {text}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m percona_mysql_k8s.policies.check", description=__doc__.split("\n\n")[0])
    parser.add_argument("--stack", required=True, help="stack name: stacks/Pulumi.<stack>.yaml")
    parser.add_argument("-C", "--cwd", type=Path, help="run as if started in DIR: the project is the one around it "
                                                       "(default: the working directory), as `pulumi -C DIR`")
    parser.add_argument("--policy-pack", type=Path, help="the pack's directory (default: the project's policies/)")
    parser.add_argument("--program", type=Path, help="a program directory other than stacks/ (config from --config)")
    parser.add_argument("--project", help="project name for --program (default: Pulumi.yaml's)")
    parser.add_argument("--config", type=Path, help="JSON object of config for --program (project:key -> value)")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="override a stack config key for this check, e.g. --set kindHostCpu=8 --set kindHostMemory=32Gi")
    parser.add_argument("--policy-config", type=Path, help="JSON policy config as for `pulumi preview --policy-pack-config`")
    parser.add_argument("--json", action="store_true", help="print the findings as JSON")
    args = parser.parse_args(argv)

    from percona_mysql_k8s import offline

    malformed = [pair for pair in args.set if "=" not in pair or not pair.split("=", 1)[0]]
    if malformed:
        print(f"error: --set expects KEY=VALUE, got {malformed[0]!r}", file=sys.stderr)
        return 2
    policy_config = json.loads(args.policy_config.read_text()) if args.policy_config else {}
    try:
        root = find_project(args.cwd) if not args.program or not args.project else None
        pack_dir = policy_pack_dir(args.policy_pack, project=root or args.cwd)
    except InputError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    try:
        if args.program:
            project = args.project or offline.project_name(root)
            config = json.loads(args.config.read_text()) if args.config else {}
            registrations = offline.run_program(args.program, stack=args.stack, config=config, project=project, preview=True)
            extra: list[Finding] = []
        else:
            project = offline.project_name(root)
            overrides = dict(pair.split("=", 1) for pair in args.set)
            config = offline.stack_config(args.stack, root)
            config.update({f"{project}:{key}": value for key, value in overrides.items()})
            registrations = offline.run_stack(args.stack, repository=root, preview=True, overrides=overrides)
            stack_dir = yaml.safe_load(project_file(root).read_text()).get("stackConfigDir", ".")
            extra = config_findings(root / stack_dir / f"Pulumi.{args.stack}.yaml", pack_version(pack_dir))
    except Exception as error:  # noqa: BLE001 - a program error is the user's to read, not a traceback
        print(f"error: the stack program failed under mocks: {error}", file=sys.stderr)
        return 2
    report = check_registrations(registrations, stack=args.stack, project=project, config=config, policy_config=policy_config,
                                 pack_dir=pack_dir)
    report.findings.extend(extra)
    if args.json:
        print(json.dumps([{"policy": f.diagnostic.policy, "level": f.diagnostic.level, "rule": f.diagnostic.rule,
                           "resource": f"{f.resource_type}: {f.resource_name}" if f.resource_type else None,
                           "message": f.diagnostic.message} for f in report.findings], indent=2))
    else:
        print(render(report, os.path.relpath(pack_dir)))
        print(f"\n{len(report.mandatory)} mandatory and {len(report.findings) - len(report.mandatory)} advisory violation(s) "
              f"in {len(registrations)} resources.")
    return 1 if report.mandatory else 0


if __name__ == "__main__":
    sys.exit(main())
