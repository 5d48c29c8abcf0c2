"""Offline policy check: ``percona-mysql-policy-check --stack <name>``, no CLI, no cloud credentials.

Runs the stack program with every provider mocked (percona_mysql_k8s.cli.offline), starts the pack exactly as the
engine does and feeds it every resource over the analyzer protocol (``Analyze`` with each resource's
inputs, then ``AnalyzeStack`` with all of them, their parents and dependencies), prints the violations
in the engine's ``Policies:`` format and exits 1 when one is mandatory. It also checks what the engine
never shows a pack: that the stack config keeps password-like keys ``secure:`` (S1).

    percona-mysql-policy-check --stack kind
    percona-mysql-policy-check --stack gke --policy-config policy-config.json
    percona-mysql-policy-check --program examples/eks-pxc-proxysql --stack dev
    percona-mysql-policy-check --stack kind --json

The project is the one around the working directory (or ``--cwd DIR``), found as the CLI finds it, up to
its ``Pulumi.yaml``; the pack is the project's ``policies/`` (or ``--policy-pack DIR``).
From a checkout, ``python -m percona_mysql_k8s.cli.check`` runs the same command.

Before the violations it lists every resource the stack would create, with its key sizes (CPU and
memory of each container, storage, member counts, machine types); ``--json`` prints all of it as one
document (``resources``, ``diagnostics``, ``summary``).

``--manifests PATH... | -`` judges Kubernetes objects instead of a program (GitOps: ``helm template``,
``kustomize build`` or plain manifests): each object goes through the pack as the resource
pulumi-kubernetes would register for it (percona_mysql_k8s.cli.manifests), with the same output
and exit statuses; unreadable input exits 2 naming the file and the document.

    helm template db percona/pxc-db -f values.yaml | percona-mysql-policy-check --manifests -
    percona-mysql-policy-check --manifests deploy/ cluster.yaml
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

from percona_mysql_k8s.cli.engine import Diagnostic, Pack, Resource
from percona_mysql_k8s.cli.manifests import STDIN, ManifestError, ManifestObject, read_manifests, read_values, wire_numbers
from percona_mysql_k8s.cli.project import POLICY_PACK_FILE, find_project, policy_pack_dir, project_file
from percona_mysql_k8s.cli.stack_config import missing_config_hint, program_config, stack_config_file
from percona_mysql_k8s.core.command_line import Parser, UsageError
from percona_mysql_k8s.core.errors import InputError, one_line
from percona_mysql_k8s.policies import SHELL
from percona_mysql_k8s.policies._readers.helm import HELM_TYPES, PMM, PS_DB, PXC_DB
from percona_mysql_k8s.policies._readers.values import deep_merge

MANIFESTS = "manifests"  # the project and stack part of a manifest object's URN
MANIFEST_SUFFIXES = (".yaml", ".yml", ".json")
PASSWORD_CONFIG_KEY = re.compile(r"(password|passwd|token|secret|apikey|api_key)", re.IGNORECASE)
# Keys that name a Kubernetes Secret object, spelled as the operators spell such fields (credentialsSecret,
# secretsName): a reference, not a secret value (backupCredentialsSecret is one).
SECRET_REFERENCE_CONFIG_KEY = re.compile(r"(credentialssecret|secretname|secretsname)$", re.IGNORECASE)


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
    """percona_mysql_k8s.cli.offline registrations as the engine would send them: inputs to Analyze, outputs to AnalyzeStack."""
    return [
        Resource(
            urn=r.urn,
            type=r.type,
            name=r.name,
            properties=(r.state or r.inputs) if outputs else r.inputs,
            parent=r.parent,
            dependencies=tuple(r.dependencies),
            property_dependencies=r.property_dependencies,
            protect=r.protect,
        )
        for r in registrations
    ]


def analyze(
    pack: Pack, inputs: list[Resource], outputs: list[Resource], subjects: Mapping[str, tuple[str, str]]
) -> list[Finding]:
    """Every resource's inputs to ``Analyze``, then all outputs to ``AnalyzeStack`` once, as the engine does.
    ``subjects`` maps a URN to the (type, name) a finding is shown with."""
    findings = []
    for resource in inputs:
        for diagnostic in pack.analyze(resource):
            findings.append(Finding(diagnostic, *subjects[resource.urn]))
    for diagnostic in pack.analyze_stack(outputs):
        findings.append(Finding(diagnostic, *subjects.get(diagnostic.urn, (None, None))))
    return findings


def check_registrations(
    registrations: list,
    *,
    stack: str,
    project: str,
    config: Mapping[str, str] | None = None,
    policy_config: Mapping[str, Mapping[str, Any]] | None = None,
    pack_dir: Path | None = None,
) -> Report:
    registrations = list(registrations)
    subjects = {r.urn: (r.type, r.name) for r in registrations}
    report = Report(pack="percona-mysql", version=pack_version(pack_dir))
    with Pack(pack_dir, stack=stack, project=project, config=config) as pack:
        report.pack = pack.info().name
        pack.configure(policy_config or {})
        report.findings = analyze(pack, to_resources(registrations), to_resources(registrations, outputs=True), subjects)
    return report


def manifest_resources(objects: Iterable[ManifestObject]) -> tuple[list[Resource], dict[str, tuple[str, str]]]:
    """Objects as the resources the engine would send (inputs and outputs alike are the object), each with
    a unique URN, and the subjects findings are shown with (name and where the object was read)."""
    resources, subjects = [], {}
    for index, obj in enumerate(objects):
        urn = f"urn:pulumi:{MANIFESTS}::{MANIFESTS}::{obj.type}::{obj.name}"
        if urn in subjects:  # the same object twice (kubectl would apply the last): keep both judged apart
            urn = f"{urn}#{index}"
        resources.append(Resource(urn=urn, type=obj.type, name=obj.name, properties=wire_numbers(obj.props)))
        subjects[urn] = (obj.type, f"{obj.name} [{obj.origin}]")
    return resources, subjects


def check_manifests(
    objects: Iterable[ManifestObject],
    *,
    policy_config: Mapping[str, Mapping[str, Any]] | None = None,
    pack: Pack | None = None,
    pack_dir: Path | None = None,
) -> Report:
    """The pack's verdict on Kubernetes objects (percona_mysql_k8s.cli.manifests). There is no Pulumi
    stack: the pack gets no stack name, so S4 judges finalizers but not Pulumi's ``protect``; the pack judges
    custom resources as kubectl sends them (``client="kubectl"``: C1 keeps their nulls, core.crd)."""
    resources, subjects = manifest_resources(objects)
    report = Report(pack="percona-mysql", version=pack_version(pack_dir))
    owned = pack is None
    pack = pack or Pack(pack_dir, stack="", project=MANIFESTS, client="kubectl")
    try:
        report.pack = pack.info().name
        pack.configure(policy_config or {})
        report.findings = analyze(pack, resources, resources, subjects)
    finally:
        if owned:
            pack.close()
    return report


def chart_release(chart: str, values_files: Iterable[str], release: str | None = None, stdin=None) -> ManifestObject:
    """A Helm release of ``chart`` with the given values files merged in order (later files win, maps merge
    key by key, as ``helm template -f a.yaml -f b.yaml`` merges them): the resource the pack judges chart values
    as (``kubernetes:helm.sh/v3:Release``, values over the chart defaults)."""
    values: dict = {}
    for given in values_files:
        try:
            text = (stdin or sys.stdin).read() if given == STDIN else Path(given).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            raise ManifestError(f"{given}: cannot be read: {getattr(error, 'strerror', None) or error}") from None
        values = deep_merge(values, read_values(text, given))
    name = release or chart
    files = ", ".join("stdin" if given == STDIN else given for given in values_files)
    return ManifestObject(
        HELM_TYPES[0], name, {"chart": chart, "values": values}, files, 1, 1, described=f"{chart} values: {files}"
    )


def read_manifest_paths(paths: Iterable[str], stdin=None) -> list[ManifestObject]:
    """Every object of the given files (``-`` is stdin; a directory is its *.yaml, *.yml and *.json files,
    as ``kubectl apply -f DIR`` reads it). Raises ManifestError naming the file."""
    objects = []
    for given in paths:
        if given == STDIN:
            objects.extend(read_manifests((stdin or sys.stdin).read(), STDIN))
            continue
        path = Path(given)
        files = sorted(p for p in path.iterdir() if p.suffix in MANIFEST_SUFFIXES and p.is_file()) if path.is_dir() else [path]
        for file in files:
            try:
                text = file.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as error:
                raise ManifestError(f"{file}: cannot be read: {getattr(error, 'strerror', None) or error}") from None
            objects.extend(read_manifests(text, str(file)))
    return objects


def config_findings(stack_file: Path, version: str = "") -> list[Finding]:
    """S1 on the stack config: password-like keys must be ``secure:`` values, never plain text."""
    if not stack_file.exists():
        return []
    config = (yaml.safe_load(stack_file.read_text()) or {}).get("config") or {}
    findings = []
    for key, value in config.items():
        name = str(key).split(":")[-1]
        if PASSWORD_CONFIG_KEY.search(name) and not SECRET_REFERENCE_CONFIG_KEY.search(name) and isinstance(value, str) and value:
            message = (
                f"S1: plain-text passwords never appear in stack config\n"
                f"S1: {stack_file.name} sets {key} in plain text; the rule keeps every password a Pulumi secret. "
                f"Fix: pulumi config set --secret {key.split(':')[-1]} (it is then stored as secure:)."
            )
            findings.append(
                Finding(
                    Diagnostic("no-plaintext-passwords", "percona-mysql", version, "mandatory", message, "", ""),
                    "stack config",
                    stack_file.name,
                )
            )
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


def document(report: Report, entries: list, *, stack: str, project: str) -> dict[str, Any]:
    """The --json output: the resources the stack would create, their sizes, and every diagnostic."""
    return {
        "stack": stack,
        "project": project,
        "pack": {"name": report.pack, "version": report.version},
        "resources": [entry.as_json() for entry in entries],
        "diagnostics": _diagnostics(report),
        "summary": _summary(
            report,
            resources=sum(1 for entry in entries if entry.custom),
            components=sum(1 for entry in entries if not entry.custom),
        ),
    }


def _check_manifests(args) -> int:
    given = [
        flag
        for flag, value in (
            ("--stack", args.stack),
            ("--program", args.program),
            ("--project", args.project),
            ("--config", args.config),
            ("--set", args.set),
        )
        if value
    ]
    if given:
        print(
            f"error: --manifests judges the objects given, not a stack program: {', '.join(given)} does not apply",
            file=sys.stderr,
        )
        return 2
    if bool(args.chart) != bool(args.values):
        print(
            "error: --chart and --values go together: the chart's values are judged as a Helm release of that chart",
            file=sys.stderr,
        )
        return 2
    try:
        objects = read_manifest_paths(args.manifests or [])
        if args.chart:
            objects.append(chart_release(args.chart, args.values, args.release))
        policy_config = read_policy_config(args.policy_config)
        root = _project_or_none(args.cwd)
        # outside a project (a GitOps job with the installed package), the pack shell the package ships
        pack_dir = policy_pack_dir(args.policy_pack, project=root) if args.policy_pack or root else SHELL
    except (ManifestError, ValueError, InputError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    report = check_manifests(objects, policy_config=policy_config, pack_dir=pack_dir)
    if args.json:
        print(json.dumps(manifests_document(report, objects), indent=2))
    else:
        print(render(report, os.path.relpath(pack_dir)))
        print(
            f"\n{len(report.mandatory)} mandatory and {len(report.findings) - len(report.mandatory)} advisory violation(s) "
            f"in {len(objects)} resources."
        )
    return 1 if report.mandatory else 0


def _project_or_none(cwd: Path | None) -> Path | None:
    """Manifests need no project: outside one, the pack is the installed library's own (policy_pack_dir)."""
    try:
        return find_project(cwd)
    except InputError:
        return None


def read_policy_config(path: Path | None) -> dict:
    """``--policy-config``: a JSON object of policy name -> settings (the admission server reads it too); ValueError
    naming the file otherwise."""
    if path is None:
        return {}
    try:
        config = json.loads(path.read_text())
    except (OSError, ValueError) as error:
        raise ValueError(f"--policy-config {path}: not a readable JSON file: {error}") from None
    if not isinstance(config, dict):
        raise ValueError(f"--policy-config {path}: must be a JSON object of policy name -> settings")
    return config


def _diagnostics(report: Report) -> list[dict[str, Any]]:
    return [
        {
            "policy": f.diagnostic.policy,
            "level": f.diagnostic.level,
            "rule": f.diagnostic.rule,
            "resource": {"type": f.resource_type, "name": f.resource_name} if f.resource_type else None,
            "message": f.diagnostic.message,
        }
        for f in report.findings
    ]


def _summary(report: Report, **counts: int) -> dict[str, int]:
    return {**counts, "mandatory": len(report.mandatory), "advisory": len(report.findings) - len(report.mandatory)}


def manifests_document(report: Report, objects: list[ManifestObject]) -> dict[str, Any]:
    """The --manifests --json output: the same shape as the stack check's, with the objects read."""
    return {
        "manifests": sorted({obj.origin.split(" ")[0] for obj in objects}),
        "pack": {"name": report.pack, "version": report.version},
        "resources": [{"type": obj.type, "name": obj.name, "origin": obj.origin} for obj in objects],
        "diagnostics": _diagnostics(report),
        "summary": _summary(report, resources=len(objects)),
    }


def _parser() -> argparse.ArgumentParser:
    parser = Parser(prog="percona-mysql-policy-check", description=__doc__.split("\n\n")[0])
    parser.add_argument("--stack", help="stack name: stacks/Pulumi.<stack>.yaml")
    parser.add_argument(
        "--manifests",
        nargs="+",
        metavar="PATH",
        help="judge Kubernetes manifests instead of a stack: YAML files or directories (kubectl -f style, "
        "helm template or kustomize build output), - for stdin",
    )
    parser.add_argument(
        "--chart",
        choices=(PXC_DB, PS_DB, PMM),
        help="with --values: judge Helm values of this chart (as a Helm release of it), alone or with --manifests",
    )
    parser.add_argument(
        "--values",
        action="append",
        metavar="FILE",
        help="a values file for --chart (repeatable, merged in order as helm -f does; - for stdin)",
    )
    parser.add_argument("--release", help="the release name shown for --chart (default: the chart name)")
    parser.add_argument(
        "-C",
        "--cwd",
        type=Path,
        help="run as if started in DIR: the project is the one around it (default: the working directory), as `pulumi -C DIR`",
    )
    parser.add_argument("--policy-pack", type=Path, help="the pack's directory (default: the project's policies/)")
    parser.add_argument("--program", type=Path, help="a program directory other than stacks/ (its Pulumi.yaml names the project)")
    parser.add_argument("--project", help="project name for --program (default: the name in the program's Pulumi.yaml)")
    parser.add_argument("--config", type=Path, help="JSON object of config for --program (project:key -> value)")
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override a config key for this check, e.g. --set kindHostCpu=8 --set kindHostMemory=32Gi",
    )
    parser.add_argument("--policy-config", type=Path, help="JSON policy config as for `pulumi preview --policy-pack-config`")
    parser.add_argument(
        "--json",
        action="store_true",
        help="print one JSON document: the resources with their sizes, the diagnostics and a summary",
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    try:
        args = _parser().parse_args(argv)
    except UsageError as error:
        print(one_line(f"error: {error}"), file=sys.stderr)
        return 2
    if args.manifests or args.chart or args.values:
        return _check_manifests(args)
    if not args.stack:
        print("error: one of --stack or --manifests is required", file=sys.stderr)
        return 2
    return _check_stack(args)


def _check_stack(args: argparse.Namespace) -> int:
    """--stack (or --program): run the program under mocks, judge what it registers, print the inventory and
    the report; 2 on bad input or a failing program, 1 on a mandatory violation."""
    from percona_mysql_k8s.cli import offline
    from percona_mysql_k8s.cli.inventory import inventory, render_inventory

    malformed = [pair for pair in args.set if "=" not in pair or not pair.split("=", 1)[0]]
    if malformed:
        print(f"error: --set expects KEY=VALUE, got {malformed[0]!r}", file=sys.stderr)
        return 2
    try:
        policy_config = read_policy_config(args.policy_config)
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    overrides = dict(pair.split("=", 1) for pair in args.set)
    try:
        root = find_project(args.cwd) if not args.program else _project_or_none(args.cwd)
        pack_dir = policy_pack_dir(args.policy_pack, project=root or args.cwd)
    except InputError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if not args.program:
        stack_dir = root / (yaml.safe_load(project_file(root).read_text()).get("stackConfigDir") or ".")
        stack_file = stack_dir / f"Pulumi.{args.stack}.yaml"
        if not stack_file.exists():
            known = sorted(path.name[len("Pulumi.") : -len(".yaml")] for path in stack_dir.glob("Pulumi.*.yaml"))
            print(
                f"error: --stack {args.stack}: no {stack_file.relative_to(root)}; valid stacks: {', '.join(known)}",
                file=sys.stderr,
            )
            return 2
    try:
        if args.program:
            project, config = program_config(args.program, args.stack, args.project)
            if args.config:
                config.update(json.loads(args.config.read_text()))
            config.update({f"{project}:{key}": value for key, value in overrides.items()})
            registrations = offline.run_program(args.program, stack=args.stack, config=config, project=project, preview=True)
            has_project = (args.program / "Pulumi.yaml").exists()
            extra: list[Finding] = (
                config_findings(stack_config_file(args.program, args.stack), pack_version(pack_dir)) if has_project else []
            )
        else:
            project = offline.project_name(root)
            config = offline.stack_config(args.stack, root)
            config.update({f"{project}:{key}": value for key, value in overrides.items()})
            registrations = offline.run_stack(args.stack, repository=root, preview=True, overrides=overrides)
            extra = config_findings(stack_file, pack_version(pack_dir))
    except Exception as error:  # noqa: BLE001 - a program error is the user's to read, not a traceback
        hint = missing_config_hint(error)
        print(f"error: the stack program failed under mocks: {error}{hint}", file=sys.stderr)
        return 2
    report = check_registrations(
        registrations, stack=args.stack, project=project, config=config, policy_config=policy_config, pack_dir=pack_dir
    )
    report.findings.extend(extra)
    entries = inventory(registrations)
    if args.json:
        print(json.dumps(document(report, entries, stack=args.stack, project=project), indent=2))
    else:
        print(render_inventory(entries))
        print()
        print(render(report, os.path.relpath(pack_dir)))
        print(
            f"\n{len(report.mandatory)} mandatory and {len(report.findings) - len(report.mandatory)} advisory violation(s) "
            f"in {sum(1 for entry in entries if entry.custom)} resources."
        )
    return 1 if report.mandatory else 0


if __name__ == "__main__":
    sys.exit(main())
