"""No class in pvtui/ over 400 lines (a screen's, in pvtui/screens/, over 300), no function over 60: read from
each module's syntax tree.

A class or function that outgrows them is doing several jobs; split it before it grows further
(a screen's state into its navigator in model/navigators/, its text into render/, a pane into a widget).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "pvtui"
LIMITS = {ast.ClassDef: 400, ast.FunctionDef: 60, ast.AsyncFunctionDef: 60}
SCREEN_LIMITS = {**LIMITS, ast.ClassDef: 300}  # a screen designed small: its state in a navigator


def oversized(source: str, name: str, limits: dict = LIMITS) -> list[str]:
    """The classes and functions of SOURCE (a module called NAME) longer than their LIMITS, with their lines."""
    found = []
    for node in ast.walk(ast.parse(source, name)):
        limit = limits.get(type(node))
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
    found = [line for path in modules for line in oversized(path.read_text(), str(path.relative_to(PACKAGE.parent)),
                                                             SCREEN_LIMITS if path.parent.name == "screens" else LIMITS)]
    assert not found, "\n".join(found)


@pytest.mark.parametrize("kind, limit", [("class", 400), ("def", 60), ("async def", 60)])
def test_the_rule_measures_decorators_and_bodies(kind, limit):
    """The reader counts from the first decorator to the last line: the rule can fail."""
    body = "\n".join("    x = 1" for _ in range(limit - 2))
    fits = f"@decorator\n{kind} f{'()' if 'def' in kind else ''}:\n{body}\n"
    assert oversized(fits, "fits.py") == []
    assert oversized(fits + "    x = 2\n", "long.py") == [f"long.py:1 f: {limit + 1} lines (at most {limit})"]


def test_a_screen_class_is_held_to_300_lines():
    body = "\n".join("    x = 1" for _ in range(299))
    screen = f"class S:\n{body}\n"
    assert oversized(screen, "s.py", SCREEN_LIMITS) == []
    assert oversized(screen + "    x = 2\n", "s.py", SCREEN_LIMITS) == ["s.py:1 S: 301 lines (at most 300)"]
    assert oversized(screen + "    x = 2\n", "s.py") == []  # elsewhere, 400
