"""What the Programs screen says about a program: its type, place in the tree, code, compute set
and debug context."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Callable

import numpy as np
from rich.style import Style
from rich.text import Text

from pvtui.model.step_types import phase_of
from pvtui.render.names import CPP_BREAKS, wrap_at_slashes

if TYPE_CHECKING:
    from pvtui.model.report import Report

VERTEX_ROWS = 12  # vertex types listed per compute set
JSON_LINES = 16  # lines of a debug context's fields


def program_details(
    report: "Report",
    program: int,
    fmt: Callable[[int], str],
    styles: dict[str, Style] | None = None,
    width: int = 60,
) -> Text:
    """What the details pane says about PROGRAM; FMT formats bytes, STYLES colours phases."""
    programs = report.programs
    assert programs is not None
    styles = styles or {}
    muted = styles.get("muted", Style(dim=True))
    out = Text()

    def row(label: str, value: str | Text) -> None:
        out.append(f"{label:<10}", style=muted)
        out.append(value)
        out.append("\n")

    type_name = programs.type_name(program)
    phase = phase_of(type_name)
    row("Program", str(program))
    row("Type", Text.assemble((type_name, styles.get(phase, Style())), (f"  {phase}", muted)))
    row("Name", programs.names[program] or "—")
    if programs.has_tree:
        parent = int(programs.parent[program])
        row("Parent", "— (a root)" if parent < 0 else f"{parent}  {_describe(programs, parent)}")
        row("Children", f"{programs.num_children(program):,}")
    else:  # profile.pop read without libpva: a flat list
        row("Tree", Text(report.missing("program_tree"), style=muted))
    if programs.code_bytes is not None:
        code = fmt(int(programs.code_bytes[program]))
        if programs.num_children(program):  # so that a parent's figure is not added to its children's
            code = Text.assemble(code, ("  control code, its children's included", muted))
        row("Code", code)
    _compute_set(out, row, programs, int(programs.compute_set[program]), fmt, muted, width)
    _debug(out, row, report, programs.debug_context(program), muted, width)
    out.rstrip()
    return out


def _describe(programs, program: int) -> str:
    name = programs.names[program]
    return f"{programs.type_name(program)} {name}" if name else programs.type_name(program)


def _compute_set(out: Text, row, programs, compute_set: int, fmt, muted: Style, width: int) -> None:
    if compute_set < 0:
        row("Compute", "none")
        return
    row("Compute", f"set {compute_set}  {programs.compute_set_names[compute_set]}")
    vertices = sorted(programs.compute_set_vertices(compute_set), key=lambda v: -v[1])
    if not vertices:
        out.append("  no vertices recorded\n", style=muted)
        return
    state = np.asarray(programs.vertex_state_bytes)
    # the figures first: a vertex type's name takes the rest of the line, and as many lines as it needs
    out.append(f"  {'instances':>9} {'state':>12}  vertex type\n", style=muted)
    indent = " " * 26
    for vertex_type, count in vertices[:VERTEX_ROWS]:
        name = wrap_at_slashes(programs.vertex_type_names[vertex_type], max(width - len(indent), 12), CPP_BREAKS)
        out.append(f"  {count:>9,} {fmt(int(state[vertex_type]) * count):>12}  {name[0]}\n")
        for line in name[1:]:
            out.append(f"{indent}{line}\n")
    if len(vertices) > VERTEX_ROWS:
        out.append(f"  … {len(vertices) - VERTEX_ROWS} more vertex types\n", style=muted)


def _debug(out: Text, row, report: "Report", context: int, muted: Style, width: int) -> None:
    debug = report.debug
    if debug is None:
        row("Debug", Text(report.missing("debug"), style=muted))
        return
    index = debug.index_of(context) if context >= 0 else -1
    if index < 0:
        row("Debug", Text("no debug context linked to this program", style=muted))
        return
    layer = debug.layer_names[int(debug.layer[index])]
    category_index = int(debug.category[index])
    category = debug.category_names[category_index] if category_index >= 0 else "—"
    row("Debug", f"context {context}  {layer} · {category}")
    row("  name", debug.names[index] or "—")
    for line in _pretty_fields(debug.fields[index], width):
        out.append(f"  {line}\n")


def _pretty_fields(fields: str, width: int) -> list[str]:
    try:
        text = json.dumps(json.loads(fields), indent=1, ensure_ascii=False)
    except ValueError:
        text = fields
    lines = [part for line in text.splitlines() for part in _fold(line, width - 2)]
    if len(lines) > JSON_LINES:
        lines = lines[:JSON_LINES] + [f"… {len(lines) - JSON_LINES} more lines"]
    return lines


def _fold(line: str, width: int) -> list[str]:
    """LINE in pieces of at most WIDTH cells, each after the first indented two more than LINE."""
    indent = " " * (len(line) - len(line.lstrip()) + 2)
    room = max(width - len(indent), 8)
    pieces, line = [line[:width]], line[width:]
    while line:
        pieces.append(indent + line[:room])
        line = line[room:]
    return pieces


def match_status(position: int, matches: int) -> str:
    """Which of the search's MATCHES the program shown is (POSITION from 0), and the keys to the others."""
    return f"match {position + 1:,} of {matches:,}  n/N next/prev"
