"""Offline policy check: ``python -m percona_mysql_k8s.policies.check --stack <name>``, no CLI, no cloud credentials.

Runs the stack program with every provider mocked (percona_mysql_k8s.offline), starts the pack exactly as the
engine does and feeds it every resource over the analyzer protocol (``Analyze`` with each resource's
inputs, then ``AnalyzeStack`` with all of them, their parents and dependencies), prints the violations
in the engine's ``Policies:`` format and exits 1 when one is mandatory. It also checks what the engine
never shows a pack: that the stack config keeps password-like keys ``secure:`` (S1).

    python -m percona_mysql_k8s.policies.check --stack kind
    python -m percona_mysql_k8s.policies.check --stack gke --policy-config policy-config.json
    python -m percona_mysql_k8s.policies.check --program examples/eks-pxc-proxysql --stack dev
    python -m percona_mysql_k8s.policies.check --stack kind --json

Before the violations it lists every resource the stack would create, with its key sizes (CPU and
memory of each container, storage, member counts, machine types); ``--json`` prints all of it as one
document (``resources``, ``diagnostics``, ``summary``).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from percona_mysql_k8s.policies._engine import PACK_DIR, REPOSITORY, Diagnostic, Pack, Resource

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


def pack_version() -> str:
    return str(yaml.safe_load((PACK_DIR / "PulumiPolicy.yaml").read_text()).get("version", "0.0.1"))


def to_resources(registrations: Iterable, *, outputs: bool = False) -> list[Resource]:
    """percona_mysql_k8s.offline registrations as the engine would send them: inputs to Analyze, outputs to AnalyzeStack."""
    return [Resource(urn=r.urn, type=r.type, name=r.name, properties=(r.state or r.inputs) if outputs else r.inputs,
                     parent=r.parent, dependencies=tuple(r.dependencies), property_dependencies=r.property_dependencies,
                     protect=r.protect) for r in registrations]


def check_registrations(registrations: list, *, stack: str, project: str, config: Mapping[str, str] | None = None,
                        policy_config: Mapping[str, Mapping[str, Any]] | None = None) -> Report:
    registrations = list(registrations)
    by_urn = {r.urn: r for r in registrations}
    report = Report(pack="percona-mysql", version=pack_version())
    with Pack(stack=stack, project=project, config=config) as pack:
        report.pack = pack.info().name
        pack.configure(policy_config or {})
        for resource in to_resources(registrations):
            for diagnostic in pack.analyze(resource):
                report.findings.append(Finding(diagnostic, resource.type, resource.name))
        for diagnostic in pack.analyze_stack(to_resources(registrations, outputs=True)):
            subject = by_urn.get(diagnostic.urn)
            report.findings.append(Finding(diagnostic, subject.type if subject else None, subject.name if subject else None))
    return report


def config_findings(stack_file: Path) -> list[Finding]:
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
            findings.append(Finding(Diagnostic("no-plaintext-passwords", "percona-mysql", pack_version(), "mandatory",
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


def program_config(program: Path, stack: str, project: str | None) -> tuple[str, dict[str, str]]:
    """Project name and config of a program other than stacks/, as the CLI would read them there.

    The project is ``--project`` or the name in the program's own ``Pulumi.yaml`` (the CLI keys config by
    that name); config starts from that file's defaults and its ``Pulumi.<stack>.yaml`` when present.
    """
    from percona_mysql_k8s import offline

    if (program / "Pulumi.yaml").exists():
        name = offline.project_name(program)
        config = offline.stack_config(stack, program) if _stack_file(program, stack).exists() else _defaults(program)
        return project or name, config if project in (None, name) else _renamed(config, name, project)
    if project is None:
        raise ValueError(f"{program} has no Pulumi.yaml: name its project with --project")
    return project, {}


def _stack_file(program: Path, stack: str) -> Path:
    settings = yaml.safe_load((program / "Pulumi.yaml").read_text()) or {}
    return program / settings.get("stackConfigDir", ".") / f"Pulumi.{stack}.yaml"


def _defaults(program: Path) -> dict[str, str]:
    settings = yaml.safe_load((program / "Pulumi.yaml").read_text()) or {}
    name = settings["name"]
    return {f"{name}:{key}": spec["default"] if isinstance(spec["default"], str) else json.dumps(spec["default"])
            for key, spec in (settings.get("config") or {}).items() if isinstance(spec, dict) and "default" in spec}


def _renamed(config: dict[str, str], old: str, new: str) -> dict[str, str]:
    return {(f"{new}:{key.split(':', 1)[1]}" if key.startswith(f"{old}:") else key): value for key, value in config.items()}


def _missing_config_hint(error: Exception) -> str:
    """Pulumi's ConfigMissingError names the key as project:key; say how to give it to this check too."""
    from pulumi.config import ConfigMissingError

    if not isinstance(error, ConfigMissingError):
        return ""
    return f"\nFor this check: --set {str(error.key).split(':', 1)[-1]}=<value>"


def document(report: Report, entries: list, *, stack: str, project: str) -> dict[str, Any]:
    """The --json output: the resources the stack would create, their sizes, and every diagnostic."""
    return {
        "stack": stack,
        "project": project,
        "pack": {"name": report.pack, "version": report.version},
        "resources": [entry.as_json() for entry in entries],
        "diagnostics": [{"policy": f.diagnostic.policy, "level": f.diagnostic.level, "rule": f.diagnostic.rule,
                         "resource": {"type": f.resource_type, "name": f.resource_name} if f.resource_type else None,
                         "message": f.diagnostic.message} for f in report.findings],
        "summary": {"resources": sum(1 for entry in entries if entry.custom),
                    "components": sum(1 for entry in entries if not entry.custom),
                    "mandatory": len(report.mandatory), "advisory": len(report.findings) - len(report.mandatory)},
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m percona_mysql_k8s.policies.check", description=__doc__.split("\n\n")[0])
    parser.add_argument("--stack", required=True, help="stack name: stacks/Pulumi.<stack>.yaml")
    parser.add_argument("--program", type=Path, help="a program directory other than stacks/ (its Pulumi.yaml names the project)")
    parser.add_argument("--project", help="project name for --program (default: the name in the program's Pulumi.yaml)")
    parser.add_argument("--config", type=Path, help="JSON object of config for --program (project:key -> value)")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="override a config key for this check, e.g. --set kindHostCpu=8 --set kindHostMemory=32Gi")
    parser.add_argument("--policy-config", type=Path, help="JSON policy config as for `pulumi preview --policy-pack-config`")
    parser.add_argument("--json", action="store_true",
                        help="print one JSON document: the resources with their sizes, the diagnostics and a summary")
    args = parser.parse_args(argv)

    from percona_mysql_k8s import offline

    from ._inventory import inventory, render_inventory

    malformed = [pair for pair in args.set if "=" not in pair or not pair.split("=", 1)[0]]
    if malformed:
        print(f"error: --set expects KEY=VALUE, got {malformed[0]!r}", file=sys.stderr)
        return 2
    policy_config = json.loads(args.policy_config.read_text()) if args.policy_config else {}
    overrides = dict(pair.split("=", 1) for pair in args.set)
    if not args.program:
        stack_dir = REPOSITORY / (yaml.safe_load((REPOSITORY / "Pulumi.yaml").read_text()).get("stackConfigDir") or ".")
        stack_file = stack_dir / f"Pulumi.{args.stack}.yaml"
        if not stack_file.exists():
            known = sorted(path.name[len("Pulumi."):-len(".yaml")] for path in stack_dir.glob("Pulumi.*.yaml"))
            print(f"error: --stack {args.stack}: no {stack_file.relative_to(REPOSITORY)}; valid stacks: {', '.join(known)}",
                  file=sys.stderr)
            return 2
    project = args.project or offline.project_name()
    try:
        if args.program:
            project, config = program_config(args.program, args.stack, args.project)
            if args.config:
                config.update(json.loads(args.config.read_text()))
            config.update({f"{project}:{key}": value for key, value in overrides.items()})
            registrations = offline.run_program(args.program, stack=args.stack, config=config, project=project, preview=True)
            has_project = (args.program / "Pulumi.yaml").exists()
            extra: list[Finding] = config_findings(_stack_file(args.program, args.stack)) if has_project else []
        else:
            config = offline.stack_config(args.stack)
            config.update({f"{project}:{key}": value for key, value in overrides.items()})
            registrations = offline.run_stack(args.stack, preview=True, overrides=overrides)
            extra = config_findings(stack_file)
    except Exception as error:  # noqa: BLE001 - a program error is the user's to read, not a traceback
        hint = _missing_config_hint(error)
        print(f"error: the stack program failed under mocks: {error}{hint}", file=sys.stderr)
        return 2
    report = check_registrations(registrations, stack=args.stack, project=project, config=config, policy_config=policy_config)
    report.findings.extend(extra)
    entries = inventory(registrations)
    if args.json:
        print(json.dumps(document(report, entries, stack=args.stack, project=project), indent=2))
    else:
        print(render_inventory(entries))
        print()
        print(render(report))
        print(f"\n{len(report.mandatory)} mandatory and {len(report.findings) - len(report.mandatory)} advisory violation(s) "
              f"in {sum(1 for entry in entries if entry.custom)} resources.")
    return 1 if report.mandatory else 0


if __name__ == "__main__":
    sys.exit(main())
