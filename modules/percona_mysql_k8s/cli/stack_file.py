"""One stack file, ``Pulumi.<stack>.yaml``, read for the offline check: its ``config:`` mapping, or one line naming the
file, line and column of what YAML refuses (the parser's own report is several lines about ``<unicode string>``)."""

from __future__ import annotations

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
