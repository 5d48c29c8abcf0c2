"""The config of the program the offline check runs (percona_mysql_k8s.cli.check): its project name, its
stack's ``Pulumi.<stack>.yaml`` or the defaults its ``Pulumi.yaml`` declares, as the Pulumi CLI reads them."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from percona_mysql_k8s.cli.stack_file import StackFileError, stack_file_config

__all__ = ["StackFileError", "missing_config_hint", "program_config", "stack_config_file", "stack_file_config"]


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
