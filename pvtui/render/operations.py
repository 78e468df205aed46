"""The Operations screen's text for the operations of a debug layer: each row's figures and details."""

from __future__ import annotations

from typing import Callable

from rich.text import Text

from pvtui.model.operations import OperationRow, cycles_note, layer_label
from pvtui.model.report import Report
from pvtui.units import count_of, format_cycles

LISTED = 6  # programs and operations named in the details
HEADINGS = {"name": "name", "memory bytes": "memory", "code bytes": "code", "variable bytes": "variables",
            "cycles": "IPU-cycles", "programs": "progs", "operations": "ops", "first step": "step"}


def operation_cells(row: OperationRow, fmt: Callable[[int], str]) -> dict[str, str]:
    """The row's figures as shown, by column; FMT formats bytes."""
    return {
        "memory bytes": fmt(row.memory),
        "code bytes": fmt(row.code_bytes),
        "variable bytes": "not found" if row.variable_bytes is None else fmt(row.variable_bytes),
        "cycles": format_cycles(row.cycles),
        "programs": f"{len(row.programs):,}",
        "operations": f"{len(row.operations):,}",
        "first step": "—" if row.first_step < 0 else f"{row.first_step:,}",
    }


def operation_details(report: Report, row: OperationRow, layer: str, fmt: Callable[[int], str]) -> Text:
    """What the details pane says of ROW, an operation of debug layer LAYER; FMT formats bytes."""
    muted = "dim"
    text = Text()
    text.append(row.name + "\n", "bold")
    if row.context >= 0:
        text.append(f"{layer_label(layer)} debug context {row.context}\n", muted)
    if len(row.operations) > 1:
        names = ", ".join(report.operations.names[op] for op in row.operations[:LISTED])
        more = f" and {len(row.operations) - LISTED} more" if len(row.operations) > LISTED else ""
        text.append(f"{count_of(len(row.operations), 'operation')}: {names}{more}\n")
    text.append(f"Code          {fmt(row.code_bytes)}  (leaf programs)\n")
    if row.variable_bytes is None:
        text.append("Variables     not found by name in the liveness data\n")
    else:
        text.append(f"Variables     {fmt(row.variable_bytes)}")
        text.append(f"  ({row.unmatched_variables} not found)\n" if row.unmatched_variables else "\n")
    text.append(f"Memory        {fmt(row.memory)}\n")
    if row.cycles is not None:
        text.append(f"IPU-cycles    {format_cycles(row.cycles)} in {count_of(row.steps, 'step')}\n")
    text.append(cycles_note(report) + "\n", muted)
    if row.foreign_calls:
        text.append("It calls code another operation owns: those steps, cycles and code count there.\n", muted)
    if row.first_step >= 0:
        text.append(f"First step    {row.first_step:,}, the first of its {row.steps:,}"
                    "  (T: in the trace; T again: the next)\n")
    if row.liveness_steps is not None:
        text.append(f"Liveness      steps {row.liveness_steps[0]:,}–{row.liveness_steps[1]:,}\n")
    programs = report.programs
    text.append(f"Programs ({len(row.programs):,})  P shows the first in the tree\n", "bold")
    for program in row.programs[:LISTED].tolist():
        text.append(f"  {program:>6} {programs.type_name(program):<14} {programs.names[program]}\n")
    if len(row.programs) > LISTED:
        text.append(f"  … and {len(row.programs) - LISTED:,} more\n", muted)
    return text
