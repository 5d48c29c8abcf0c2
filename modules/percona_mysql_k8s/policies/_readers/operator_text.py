"""What the operators read out of text fields of a custom resource: image tags and versions, and the
``{{containerMemoryLimit}}`` templates of my.cnf values (rendered as the operators render them, pongo2).
"""

from __future__ import annotations

import ast
import operator
import re
from typing import Any

from .values import MISSING, as_str, join

_TEMPLATE = re.compile(r"\{\{(.*?)\}\}")
_TEMPLATE_OPS = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
}


def _evaluate(node: ast.AST, limit: int) -> float:
    if isinstance(node, ast.Expression):
        return _evaluate(node.body, limit)
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float) and not isinstance(node.value, bool):
        return node.value
    if isinstance(node, ast.Name) and node.id == "containerMemoryLimit":
        return limit
    if isinstance(node, ast.BinOp) and type(node.op) in _TEMPLATE_OPS:
        return _TEMPLATE_OPS[type(node.op)](_evaluate(node.left, limit), _evaluate(node.right, limit))
    raise ValueError("unsupported template expression")


def render_template(value: str, limit: int) -> str:
    """``{{containerMemoryLimit * 3 / 4}}`` with the container limit, as the operators render it (pongo2)."""

    def substitute(match: re.Match) -> str:
        expression = match.group(1).strip()
        if len(expression) > 200:
            raise ValueError("template too long")
        result = _evaluate(ast.parse(expression, mode="eval"), limit)
        return str(int(result))

    return _TEMPLATE.sub(substitute, value)


def has_template(text: str | None) -> bool:
    return bool(text) and "{{" in text


def image_tag(image: Any, path: str) -> tuple[str | None, str | None]:
    """(repository, tag) of an image given as ``repo:tag`` or as a chart's ``{repository, tag}``."""
    if isinstance(image, dict):
        repository = as_str(image.get("repository", MISSING), join(path, "repository"))
        tag = image.get("tag", MISSING)
        if isinstance(tag, int | float) and not isinstance(tag, bool):
            tag = str(tag)
        return repository, as_str(tag, join(path, "tag"))
    text = as_str(image, path)
    if not text:
        return None, None
    text = text.split("@", 1)[0]
    repository, _, tag = text.rpartition(":")
    if not repository or "/" in tag:  # no tag, or a registry port
        return text, None
    return repository, tag


_VERSION = re.compile(r"^v?(\d+)\.(\d+)")


def major_minor(tag: str | None) -> tuple[int, int] | None:
    match = _VERSION.match(tag or "")
    return (int(match.group(1)), int(match.group(2))) if match else None
