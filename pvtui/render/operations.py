"""The Operations screen's text for the operations of a debug layer: each row's figures and details."""

from __future__ import annotations

from typing import Callable

from rich.text import Text

from pvtui.model.operations import COLUMNS, LayerOperations, OperationRow, cycles_note, layer_label
from pvtui.model.report import Report
from pvtui.render.columns import TOTAL, TableRows, cut_middle, total_label
from pvtui.units import count_of, format_cycles

LISTED = 6  # programs and operations named in the details
HEADINGS = {"name": "name", "memory bytes": "memory", "code bytes": "code", "variable bytes": "variables",
            "cycles": "IPU-cycles", "programs": "progs", "operations": "ops", "first step": "step"}
SORT_COLUMN = {"memory": "memory bytes", "code": "code bytes", "variables": "variable bytes", "cycles": "cycles",
               "programs": "programs", "step": "first step", "name": "name"}
# the figures of an operation by how much they matter once the sort's is shown: the details give every one
PRIORITY = ("memory bytes", "cycles", "first step", "programs", "operations", "variable bytes", "code bytes")


def operation_rows(rows: list[OperationRow], sort: str, filtered: bool, fmt: Callable[[int], str]) -> TableRows:
    """ROWS, sorted by SORT, as the Operations screen shows them; FILTERED adds their total as a last row."""
    cells = [operation_cells(row, fmt) for row in rows]
    column = SORT_COLUMN[sort]
    total = None
    if filtered and rows:
        cycles = [row.cycles for row in rows if row.cycles is not None]
        total = (TOTAL, total_label(len(rows)), {
            "memory bytes": fmt(sum(row.memory for row in rows)), "code bytes": fmt(sum(r.code_bytes for r in rows)),
            "cycles": f"{sum(cycles):,}" if cycles else "—",
            "operations": f"{sum(len(row.operations) for row in rows):,}"})
    return TableRows({key: HEADINGS[key] for key in COLUMNS}, [row.name for row in rows],
                     [row.name for row in rows], cells, [""] * len(rows),
                     [column, *(c for c in PRIORITY if c != column)], column, cut_middle, total)


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


def operation_header(view: LayerOperations, shown: int, sort: str, text: str) -> Text:
    """The line above the operations of a debug layer: how many are shown, their order, the filter."""
    if view.reason:
        return Text(f"{view.label}: {view.reason.reason}  (L: next debug layer)")
    header = Text(no_wrap=True, overflow="ellipsis")
    header.append(f"{view.label} operations", "bold")
    header.append(f" · {shown:,} of {len(view.rows):,} · by {sort}")
    if text:
        header.append(f" · name contains {text!r}")
    return header


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
