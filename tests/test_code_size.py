"""No class in pvtui/ over 400 lines, no function over 60: read from each module's syntax tree.

A class or function that outgrows them is doing several jobs; split it before it grows further
(a screen's state into its navigator in model/, its text into render/).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "pvtui"
LIMITS = {ast.ClassDef: 400, ast.FunctionDef: 60, ast.AsyncFunctionDef: 60}


def oversized(source: str, name: str) -> list[str]:
    """The classes and functions of SOURCE (a module called NAME) longer than their limit, with their lines."""
    found = []
    for node in ast.walk(ast.parse(source, name)):
        limit = LIMITS.get(type(node))
        if limit is None:
            continue
        first = min([node.lineno, *(decorator.lineno for decorator in node.decorator_list)])
        lines = node.end_lineno - first + 1
        if lines > limit:
            found.append(f"{name}:{first} {node.name}: {lines} lines (at most {limit})")
    return found


def test_no_class_or_function_is_too_long():
    modules = sorted(PACKAGE.rglob("*.py"))
    assert modules
    found = [line for path in modules for line in oversized(path.read_text(), str(path.relative_to(PACKAGE.parent)))]
    assert not found, "\n".join(found)


@pytest.mark.parametrize("kind, limit", [("class", 400), ("def", 60), ("async def", 60)])
def test_the_rule_measures_decorators_and_bodies(kind, limit):
    """The reader counts from the first decorator to the last line: the rule can fail."""
    body = "\n".join("    x = 1" for _ in range(limit - 2))
    fits = f"@decorator\n{kind} f{'()' if 'def' in kind else ''}:\n{body}\n"
    assert oversized(fits, "fits.py") == []
    assert oversized(fits + "    x = 2\n", "long.py") == [f"long.py:1 f: {limit + 1} lines (at most {limit})"]
