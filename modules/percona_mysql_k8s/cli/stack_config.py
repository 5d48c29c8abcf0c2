"""The config of the program the offline check runs (percona_mysql_k8s.cli.check): its project name, its
stack's ``Pulumi.<stack>.yaml`` or the defaults its ``Pulumi.yaml`` declares, as the Pulumi CLI reads them."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import yaml


class StackFileError(ValueError):
    """A stack file that cannot be read as a stack's config: one line naming the file (and the line and column)."""


def stack_file_config(path: Path) -> dict[str, Any]:
    """The ``config:`` mapping of a ``Pulumi.<stack>.yaml`` ({} when the file sets none). A file that is no YAML
    mapping is a StackFileError naming the file, line and column, not the parser's several lines."""
    shown = os.path.relpath(path) if Path(path).resolve().is_relative_to(Path.cwd()) else path
    try:
        document = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark is not None else ""
        problem = " ".join(part for part in (error.context, error.problem) if part)
        raise StackFileError(f"{shown}: {where}{problem} (not valid YAML)") from None
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as error:
        raise StackFileError(f"{shown}: cannot be read: {getattr(error, 'strerror', None) or error}") from None
    if document is None:
        return {}
    if not isinstance(document, dict):
        raise StackFileError(f"{shown}: a stack file is a mapping (config:, encryptionsalt:, ...), not {type(document).__name__}")
    config = document.get("config")
    if config is None:
        return {}
    if not isinstance(config, dict):
        raise StackFileError(f"{shown}: config: is a mapping of project:key -> value, not {type(config).__name__}")
    return config


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
