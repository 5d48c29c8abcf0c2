"""The config of the program the offline check runs (percona_mysql_k8s.cli.check): its project name, its
stack's ``Pulumi.<stack>.yaml`` or the defaults its ``Pulumi.yaml`` declares, as the Pulumi CLI reads them."""

from __future__ import annotations

import json
import re
from pathlib import Path

import yaml

from percona_mysql_k8s.cli.engine import Diagnostic
from percona_mysql_k8s.cli.findings import Finding, Location
from percona_mysql_k8s.cli.stack_file import stack_file_config
from percona_mysql_k8s.core.kube_yaml import KubeYamlError, read_first_document


def program_config(program: Path, stack: str, project: str | None) -> tuple[str, dict[str, str]]:
    """Project name and config of a program other than stacks/, as the CLI would read them there.

    The project is ``--project`` or the name in the program's own ``Pulumi.yaml`` (the CLI keys config by
    that name); config starts from that file's defaults and its ``Pulumi.<stack>.yaml`` when present.
    """
    from percona_mysql_k8s.cli import offline

    if (program / "Pulumi.yaml").exists():
        name = offline.project_name(program)
        config = offline.stack_config(stack, program) if stack_config_file(program, stack).exists() else _defaults(program)
        return project or name, config if project in (None, name) else _renamed(config, name, project)
    if project is None:
        raise ValueError(f"{program} has no Pulumi.yaml: name its project with --project")
    return project, {}


def stack_config_file(program: Path, stack: str) -> Path:
    settings = yaml.safe_load((program / "Pulumi.yaml").read_text()) or {}
    return program / settings.get("stackConfigDir", ".") / f"Pulumi.{stack}.yaml"


def _defaults(program: Path) -> dict[str, str]:
    settings = yaml.safe_load((program / "Pulumi.yaml").read_text()) or {}
    name = settings["name"]
    return {
        f"{name}:{key}": spec["default"] if isinstance(spec["default"], str) else json.dumps(spec["default"])
        for key, spec in (settings.get("config") or {}).items()
        if isinstance(spec, dict) and "default" in spec
    }


def _renamed(config: dict[str, str], old: str, new: str) -> dict[str, str]:
    return {(f"{new}:{key.split(':', 1)[1]}" if key.startswith(f"{old}:") else key): value for key, value in config.items()}


def missing_config_hint(error: Exception) -> str:
    """Pulumi's ConfigMissingError names the key as project:key; say how to give it to this check too."""
    from pulumi.config import ConfigMissingError

    if not isinstance(error, ConfigMissingError):
        return ""
    return f"\nFor this check: --set {str(error.key).split(':', 1)[-1]}=<value>"


PASSWORD_CONFIG_KEY = re.compile(r"(password|passwd|token|secret|apikey|api_key)", re.IGNORECASE)
# Keys that name a Kubernetes Secret object, spelled as the operators spell such fields (credentialsSecret,
# secretsName): a reference, not a secret value (backupCredentialsSecret is one).
SECRET_REFERENCE_CONFIG_KEY = re.compile(r"(credentialssecret|secretname|secretsname)$", re.IGNORECASE)


def config_key_location(stack_file: Path, key: str) -> Location:
    """The line of ``key`` in the stack's config file (``config:`` -> the key), else the file's first line."""
    try:
        text = stack_file.read_text(encoding="utf-8")
        document = read_first_document(text, str(stack_file))
    except (OSError, UnicodeDecodeError, KubeYamlError):
        return Location(str(stack_file), 1, 1)
    marks = document.key_marks if document is not None else {}
    bare = key.rpartition(":")[2]
    line, column = marks.get(("config", key)) or marks.get(("config", bare)) or marks.get(("config",)) or (1, 1)
    return Location(str(stack_file), line, column)


def config_findings(stack_file: Path, version: str = "") -> list[Finding]:
    """S1 on the stack config: password-like keys must be ``secure:`` values, never plain text."""
    if not stack_file.exists():
        return []
    config = stack_file_config(stack_file)  # a malformed file: one line naming file, line and column
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
                    location=config_key_location(stack_file, key),
                )
            )
    return findings
