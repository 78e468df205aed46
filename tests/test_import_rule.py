"""The layers hold: data flows files -> sources -> bundle -> model -> screens, and the command line
sits beside the screens, never under them; and no module imports itself through others.

Every import in a module counts, a lazy one inside a function and one for type checking too: each
module's syntax tree is read.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "pvtui"

# layer: the packages (and their submodules) that no module of the layer may import
FORBIDDEN = {
    "model": ("textual", "rich", "pvtui.sources", "pvtui.screens", "pvtui.widgets", "pvtui.commands", "pvtui.cli",
              "pvtui.app", "pvtui.render"),
    "sources": ("textual", "rich", "pvtui.screens", "pvtui.widgets", "pvtui.commands", "pvtui.cli", "pvtui.app",
                "pvtui.render"),
    "render": ("textual", "pvtui.screens", "pvtui.widgets", "pvtui.commands", "pvtui.cli", "pvtui.app"),
    "widgets": ("pvtui.commands", "pvtui.cli", "pvtui.screens"),
    "screens": ("pvtui.commands", "pvtui.cli"),
    "commands": ("pvtui.cli",),
}


def imported_names(path: Path, root: Path = PACKAGE.parent) -> set[str]:
    """The modules PATH (a module of a package under ROOT) imports, anywhere in it, as absolute
    dotted names."""
    package = ".".join(path.relative_to(root).with_suffix("").parts[:-1])
    names = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{parent}.{base}" if base else parent
            names.add(base)
            names.update(f"{base}.{alias.name}" for alias in node.names)
    return names


def breaks(name: str, forbidden: tuple[str, ...]) -> bool:
    return any(name == f or name.startswith(f + ".") for f in forbidden)


@pytest.mark.parametrize("layer", sorted(FORBIDDEN))
def test_no_module_of_a_layer_imports_what_lies_above_it(layer):
    modules = sorted((PACKAGE / layer).rglob("*.py"))
    assert modules, f"pvtui/{layer} has no modules"
    wrong = [f"{path.relative_to(PACKAGE.parent)} imports {name}"
             for path in modules for name in sorted(imported_names(path)) if breaks(name, FORBIDDEN[layer])]
    assert not wrong, "\n".join(wrong)


def test_the_rule_reads_lazy_and_relative_imports(tmp_path):
    """The reader finds an import inside a function and resolves a relative one: the rule can fail.
    The probe is a screen module of a package laid out as pvtui is, outside the checkout."""
    probe = tmp_path / "pvtui" / "screens" / "probe.py"
    probe.parent.mkdir(parents=True)
    probe.write_text("def f():\n    from ..commands import common\n")
    assert breaks("pvtui.commands", FORBIDDEN["screens"])
    assert imported_names(probe, root=tmp_path) == {"pvtui.commands", "pvtui.commands.common"}
    assert any(breaks(n, FORBIDDEN["screens"]) for n in imported_names(probe, root=tmp_path))


def test_importing_the_model_and_sources_loads_neither_textual_nor_rich():
    """Beyond the text: nothing they import pulls textual or rich in either."""
    modules = sorted(f"pvtui.{layer}.{p.stem}" for layer in ("model", "sources")
                     for p in (PACKAGE / layer).glob("*.py") if p.stem != "__init__")
    code = (
        "import sys\n"
        + "".join(f"import {m}\n" for m in modules)
        + "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'rich'))\n"
        + "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"the model or the sources import: {out.stdout}"


def test_the_command_line_imports_only_the_command_that_runs():
    code = (
        "import sys\nfrom pvtui import cli\n"
        "try:\n    cli.main(['synth', '--help'])\nexcept SystemExit:\n    pass\n"
        "print(','.join(sorted(m for m in sys.modules if m.startswith('pvtui.commands.'))))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip().splitlines()[-1] == "pvtui.commands.common,pvtui.commands.synth"


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph() -> dict[str, list[str]]:
    """Each module of the package, and the modules of the package it imports."""
    modules = {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}
    return {name: sorted(n for n in imported_names(path) if n in modules and n != name)
            for name, path in modules.items()}


def find_cycle(graph: dict[str, list[str]]) -> list[str] | None:
    """A path of imports from a module back to itself, or None where there is none."""
    done: set[str] = set()
    path: list[str] = []

    def visit(name: str) -> list[str] | None:
        if name in path:
            return path[path.index(name):] + [name]
        if name in done:
            return None
        path.append(name)
        for imported in graph.get(name, ()):
            if (cycle := visit(imported)) is not None:
                return cycle
        path.pop()
        done.add(name)
        return None

    for name in graph:
        if (cycle := visit(name)) is not None:
            return cycle
    return None


def test_no_module_imports_itself_through_others():
    """Lazy and type-checking imports count: each is an edge a later change can make eager."""
    cycle = find_cycle(import_graph())
    assert cycle is None, " -> ".join(cycle)


def test_the_cycle_finder_finds_one():
    assert find_cycle({"a": ["b"], "b": ["c"], "c": ["a"], "d": ["a"]}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": ["b", "c"], "b": ["c"], "c": []}) is None
