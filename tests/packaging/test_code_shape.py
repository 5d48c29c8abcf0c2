"""The house rules of issue 23 that a reviewer would otherwise count by hand: no module in modules/ over
MAX_MODULE_LINES lines, and no function over MAX_FUNCTION_LINES lines unless its docstring says why (``Long
because ...``). Import cycles are import-linter's (the acyclic contract in pyproject.toml)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "modules" / "percona_mysql_k8s"
MAX_MODULE_LINES = 500
MAX_FUNCTION_LINES = 80
REASON = "Long because"


def _modules() -> list[Path]:
    return sorted(path for path in PACKAGE.rglob("*.py") if "__pycache__" not in path.parts)


def _long_functions(tree: ast.AST) -> list[tuple[str, int]]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            length = node.end_lineno - node.lineno + 1
            if length > MAX_FUNCTION_LINES and REASON not in (ast.get_docstring(node) or ""):
                found.append((node.name, length))
    return found


def test_the_package_is_found():
    assert len(_modules()) > 100, PACKAGE


@pytest.mark.parametrize("path", _modules(), ids=lambda path: str(path.relative_to(PACKAGE)))
def test_modules_and_functions_stay_small(path: Path):
    text = path.read_text()
    lines = text.count("\n")
    assert lines <= MAX_MODULE_LINES, f"{path.relative_to(PACKAGE)}: {lines} lines; split it (at most {MAX_MODULE_LINES})"
    long = _long_functions(ast.parse(text))
    assert not long, (
        f"{path.relative_to(PACKAGE)}: {long} over {MAX_FUNCTION_LINES} lines; split them or say why "
        f"in the docstring ('{REASON} ...')"
    )


def test_a_long_function_without_a_reason_is_found():
    body = "\n".join(f"    x{i} = {i}" for i in range(MAX_FUNCTION_LINES))
    assert _long_functions(ast.parse(f"def f():\n{body}\n")) == [("f", MAX_FUNCTION_LINES + 1)]
    reasoned = f'def f():\n    """{REASON} it is a table."""\n{body}\n'
    assert _long_functions(ast.parse(reasoned)) == []
