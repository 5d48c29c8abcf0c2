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
import sys
from collections.abc import Iterable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

import yaml

from percona_mysql_k8s.cli import check_args, outputs, sarif
from percona_mysql_k8s.cli.engine import Pack, Resource
from percona_mysql_k8s.cli.findings import Finding, Location, Report
from percona_mysql_k8s.cli.locations import locate, locate_values
from percona_mysql_k8s.cli.manifest_input import chart_release, read_manifest_paths
from percona_mysql_k8s.cli.manifests import (
    STDIN,
    ManifestError,
    ManifestObject,
    wire_numbers,
)
from percona_mysql_k8s.cli.policy_config import PolicyConfigError, load_document
from percona_mysql_k8s.cli.project import POLICY_PACK_FILE, find_project, policy_pack_dir, project_file
from percona_mysql_k8s.cli.stack_config import (  # noqa: F401 - config_findings: the check's, re-exported
    config_findings,
    config_key_location,
    missing_config_hint,
    program_config,
    stack_config_file,
)
from percona_mysql_k8s.cli.stack_file import StackFileError, stack_file_config
from percona_mysql_k8s.core.command_line import UsageError
from percona_mysql_k8s.core.errors import InputError, one_line
from percona_mysql_k8s.core.finding_field import FindingField
from percona_mysql_k8s.policies import SHELL

MANIFESTS = "manifests"  # the project and stack part of a manifest object's URN


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
            findings.append(Finding(diagnostic, *subjects[resource.urn], urn=resource.urn))
    for diagnostic in pack.analyze_stack(outputs):
        findings.append(Finding(diagnostic, *subjects.get(diagnostic.urn, (None, None)), urn=diagnostic.urn or None))
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
    report.resources = sum(1 for r in registrations if r.custom)
    sites = {r.urn: r.site for r in registrations}
    for finding in report.findings:
        site = sites.get(finding.urn) if finding.urn else None
        finding.location = Location(*site) if site else None
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
    objects = list(objects)
    resources, subjects = manifest_resources(objects)
    report = Report(pack="percona-mysql", version=pack_version(pack_dir), resources=len(objects))
    owned = pack is None
    pack = pack or Pack(pack_dir, stack="", project=MANIFESTS, client="kubectl")
    try:
        report.pack = pack.info().name
        pack.configure(policy_config or {})
        report.findings = analyze(pack, resources, resources, subjects)
    finally:
        if owned:
            pack.close()
    by_urn = {resource.urn: obj for resource, obj in zip(resources, objects, strict=True)}
    for finding in report.findings:
        obj = by_urn.get(finding.urn) if finding.urn else None
        if obj is not None:
            finding.location = object_location(obj, finding.field)
    return report


def object_location(obj: ManifestObject, field: FindingField) -> Location:
    """Where ``field`` of ``obj`` is written: in the values file that sets it (chart values), else in the object's
    own document (cli.locations)."""
    if obj.value_files:
        return locate_values(obj.value_files, field)
    return locate(obj.positions(), field)


def render(report: Report, pack_path: str = "policies") -> str:
    """The engine's rendering of policy results (the ``Policies:`` section of ``pulumi preview``), each finding
    followed by the file, line and column of the field it judged."""
    lines = ["Policies:"]
    mark = "❌" if report.mandatory else ("⚠️" if report.findings else "✅")
    lines.append(f"    {mark} {report.pack}@v{report.version} (local: {pack_path})")
    for finding in report.ordered():
        d = finding.diagnostic
        subject = f"  ({finding.resource_type}: {finding.resource_name})" if finding.resource_type else ""
        lines.append(f"        - [{d.level}]  {d.policy}{subject}")
        for text in d.message.splitlines():
            lines.append(f"          {text}")
        if finding.location is not None:
            template = f" (rendered from {finding.location.template})" if finding.location.template else ""
            lines.append(f"          at {finding.location}{template}")
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
        policy_config = read_policy_config(args.policy_config)  # refused before the manifests are read
    except PolicyConfigError as error:
        print(one_line(f"error: {error}"), file=sys.stderr)
        return 2
    try:
        formats = outputs.parse_formats(args.format, args.json)
        objects = read_manifest_paths(args.manifests or [], allow_empty=args.allow_empty)
        if args.chart:
            objects.append(chart_release(args.chart, args.values, args.release))
        root = _project_or_none(args.cwd)
        # outside a project (a GitOps job with the installed package), the pack shell the package ships
        pack_dir = policy_pack_dir(args.policy_pack, project=root) if args.policy_pack or root else SHELL
        report = check_manifests(objects, policy_config=policy_config, pack_dir=pack_dir)
    except PolicyConfigError as error:
        return _refused_config(args.policy_config, error)
    except (ManifestError, ValueError, InputError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if args.stdin_name:  # stdin's objects are reported under the name the pipeline gives them
        for finding in report.findings:
            if finding.location is not None and finding.location.file == STDIN:
                finding.location = replace(finding.location, file=args.stdin_name)
    return outputs.emit(
        report,
        formats,
        text=lambda: render(report, os.path.relpath(pack_dir)) + "\n\n" + _totals(report) + "\n",
        json_document=lambda: manifests_document(report, objects),
        subjects=[(obj.type, f"{obj.name} [{obj.origin}]") for obj in objects],
        rules_uri=sarif.rules_uri(args.rules_uri, root),
        stdin_name=args.stdin_name,
    )


def _totals(report: Report) -> str:
    return f"{len(report.mandatory)} mandatory and {len(report.advisory)} advisory violation(s) in {report.resources} resources."


def _project_or_none(cwd: Path | None) -> Path | None:
    """Manifests need no project: outside one, the pack is the installed library's own (policy_pack_dir)."""
    try:
        return find_project(cwd)
    except InputError:
        return None


def read_policy_config(path: Path | None) -> dict:
    """``--policy-config`` (the admission server reads it too): the file's JSON, its shape checked as the CLI checks
    it (cli.policy_config), PolicyConfigError naming the file otherwise; the schemas are checked when the pack is
    configured."""
    if path is None:
        return {}
    try:
        return load_document(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as error:
        raise PolicyConfigError(f"--policy-config {path}: cannot be read: {getattr(error, 'strerror', None) or error}") from None
    except PolicyConfigError as error:
        raise PolicyConfigError(f"--policy-config {path}: {error}") from None


def _unset_stack(args: argparse.Namespace, root: Path | None) -> str:
    """Why a stack whose file sets no config failed: it ran on Pulumi.yaml's defaults alone (an error about one of
    them would otherwise read as unrelated to the empty file)."""
    if args.program or root is None:
        return ""
    stack_dir = root / (yaml.safe_load(project_file(root).read_text()).get("stackConfigDir") or ".")
    stack_file = stack_dir / f"Pulumi.{args.stack}.yaml"
    if stack_file_config(stack_file) or args.set:
        return ""
    return (
        f"{stack_file.relative_to(root)} sets no config, so the stack is Pulumi.yaml's defaults alone (target kind, "
        "not ephemeral, backups on); set target and its keys (docs/clusters.md, or start from stacks/Pulumi.kind.yaml): "
    )


def _refused_config(path: Path | None, error: PolicyConfigError) -> int:
    """A policy config `pulumi preview --policy-pack-config` refuses: one line, exit 2."""
    where = f"--policy-config {path}: " if path is not None else ""
    print(one_line(f"error: {where}{error}"), file=sys.stderr)
    return 2


def _diagnostics(report: Report) -> list[dict[str, Any]]:
    return [
        {
            "policy": f.diagnostic.policy,
            "level": f.diagnostic.level,
            "rule": f.diagnostic.rule,
            "resource": {"type": f.resource_type, "name": f.resource_name} if f.resource_type else None,
            "message": f.diagnostic.message,
            "field": f.field.path or None,
            "location": outputs.location_json(f),
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


def main(argv: list[str] | None = None) -> int:
    try:
        args = check_args.parser(__doc__.split("\n\n")[0]).parse_args(argv)
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

    malformed = [pair for pair in args.set if "=" not in pair or not pair.split("=", 1)[0]]
    if malformed:
        print(f"error: --set expects KEY=VALUE, got {malformed[0]!r}", file=sys.stderr)
        return 2
    try:
        formats = outputs.parse_formats(args.format, args.json)
        policy_config = read_policy_config(args.policy_config)
    except (ValueError, PolicyConfigError) as error:
        print(one_line(f"error: {error}"), file=sys.stderr)
        return 2
    overrides = dict(pair.split("=", 1) for pair in args.set)
    try:
        root = find_project(args.cwd) if not args.program else _project_or_none(args.cwd)
        pack_dir = policy_pack_dir(args.policy_pack, project=root or args.cwd)
    except InputError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    has_project = bool(args.program) and (args.program / "Pulumi.yaml").exists()
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
            extra: list[Finding] = (
                config_findings(stack_config_file(args.program, args.stack), pack_version(pack_dir)) if has_project else []
            )
        else:
            project = offline.project_name(root)
            config = offline.stack_config(args.stack, root)
            config.update({f"{project}:{key}": value for key, value in overrides.items()})
            registrations = offline.run_stack(args.stack, repository=root, preview=True, overrides=overrides)
            extra = config_findings(stack_file, pack_version(pack_dir))
    except StackFileError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except Exception as error:  # noqa: BLE001 - a program error is the user's to read, not a traceback
        print(
            f"error: {_unset_stack(args, root)}the stack program failed under mocks: {error}{missing_config_hint(error)}",
            file=sys.stderr,
        )
        return 2
    try:
        report = check_registrations(
            registrations, stack=args.stack, project=project, config=config, policy_config=policy_config, pack_dir=pack_dir
        )
    except PolicyConfigError as error:
        return _refused_config(args.policy_config, error)
    report.findings.extend(extra)
    config_file = stack_file if not args.program else (stack_config_file(args.program, args.stack) if has_project else None)
    for finding in report.findings:
        key = finding.field.config_key
        if key and config_file is not None and config_file.exists():  # a finding about the stack config points at the key's line
            finding.location = config_key_location(config_file, key)
    return _emit_stack_report(args, report, registrations, formats, pack_dir=pack_dir, root=root, project=project)


def _emit_stack_report(args, report: Report, registrations, formats, *, pack_dir: Path, root: Path | None, project: str) -> int:
    """What the program said (warnings, then notes), the inventory, the report: in the formats asked for."""
    from percona_mysql_k8s.cli.inventory import inventory, render_inventory

    entries = inventory(registrations)
    logged = getattr(registrations, "logged", lambda level: [])
    warnings, notes = logged("warning"), logged("info")
    # what the program says first, as the engine shows it beside a preview: a warning changes what is deployed
    said = "".join(one_line(line) + "\n" for line in [*(f"warning: {t}" for t in warnings), *(f"note: {t}" for t in notes)])
    return outputs.emit(
        report,
        formats,
        text=lambda: (
            (said + "\n" if said else "")
            + f"{render_inventory(entries)}\n\n{render(report, os.path.relpath(pack_dir))}\n\n{_totals(report)}\n"
        ),
        json_document=lambda: {
            **document(report, entries, stack=args.stack, project=project),
            "warnings": warnings,
            "notes": notes,
        },
        subjects=[(r.type, r.name) for r in registrations if r.custom],
        rules_uri=sarif.rules_uri(args.rules_uri, root),
    )


if __name__ == "__main__":
    sys.exit(main())
