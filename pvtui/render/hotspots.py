"""The Hotspots screen's text: each table's rows and total, the header, and the selected row's details."""

from __future__ import annotations

from typing import Callable

import numpy as np
from rich.text import Text

from pvtui.model.navigators.hotspots import HotspotsNavigator
from pvtui.model.hotspots import LABELS, NO_PROGRAM, HotspotTable, StepRows, TileBalance, compute_set_vertices
from pvtui.model.operations import layer_label
from pvtui.model.report import Report
from pvtui.model.unavailable import Unavailable
from pvtui.render.columns import TOTAL, TableRows, cut_middle, total_label
from pvtui.units import count_of, format_cycles, format_share

SHOWN_ROWS = 60  # rows drawn: the first in the order chosen (the filter reaches the others; the total counts all)
LISTED = 6  # vertex types named in the details
HEADINGS = {"name": "name", "cycles": "IPU-cycles", "share": "share", "count": "IPU-steps", "mean": "mean",
            "longest": "longest", "kind": "kind", "data_in": "bytes in", "data_out": "bytes out",
            "layer": "model layer"}
STEP_HEADINGS = {"name": "program", "cycles": "cycles", "step": "step", "ipu": "IPU", "run": "run", "type": "type"}
# what each column counts, for `?` and the README (one name per figure: design.md's Words)
COLUMN_WORDS = (
    ("IPU-cycles", "the row's cycles summed over every profiled run, step and IPU that ran it"),
    ("share", "of the IPU-cycles of every step of the runs counted, host waits included"),
    ("IPU-steps", "the step-IPU pairs that ran it: a step on 4 IPUs counts 4"),
    ("mean", "IPU-cycles per IPU-step"),
    ("longest", "its longest single step on one IPU (T shows it in the Trace)"),
    ("IPU N", "its IPU-cycles on IPU N, where the columns fit"),
    ("model layer", "the model layer of the program that ran its longest step"),
    ("bytes in/out", "exchanges: the bytes its steps moved in and out, where libpva read the report"),
)


def ipu_key(ipu: int) -> str:
    return f"ipu{ipu}"


def hotspot_rows(table: HotspotTable, shown: np.ndarray, sort: str, filtered: bool,
                 fmt: Callable[[int], str]) -> TableRows:
    """The first SHOWN_ROWS of SHOWN (rows of TABLE) as the screen shows them; FILTERED adds the total of
    every row kept. FMT formats bytes."""
    ipus = table.cycles_by_ipu.shape[1]
    headings = dict(HEADINGS)
    if table.by != "exchange":
        for key in ("kind", "data_in", "data_out"):
            del headings[key]
    elif table.data_in is None:
        del headings["data_in"], headings["data_out"]
    headings.update({ipu_key(i): f"IPU {i}" for i in range(ipus)})
    rows = shown[:SHOWN_ROWS].tolist()
    cells = [row_cells(table, row, fmt) for row in rows]
    names = [table.names[row] for row in rows]
    total = None
    if filtered and len(shown):
        sums = table.totals(shown)
        total = (TOTAL, total_label(len(shown)), {
            "cycles": f"{sums['cycles']:,}", "count": f"{sums['count']:,}", "longest": f"{sums['max_cycles']:,}",
            "share": format_share(sums["cycles"] / table.total if table.total else None)})
    column = "cycles" if sort == "name" else sort
    priority = [column, *(c for c in ("cycles", "share", "count", "longest", "mean") if c != column),
                "layer", "kind", ("data_in", "data_out"), tuple(ipu_key(i) for i in range(ipus))]
    return TableRows(headings, [str(row) for row in rows], names, cells, [""] * len(rows), priority, column,
                     cut_middle, total)


def row_cells(table: HotspotTable, row: int, fmt: Callable[[int], str]) -> dict[str, str]:
    cells = {
        "cycles": f"{int(table.cycles[row]):,}", "share": format_share(float(table.share[row])),
        "count": f"{int(table.count[row]):,}", "mean": f"{float(table.mean[row]):,.0f}",
        "longest": f"{int(table.longest[row]):,}", "layer": table.layers[row] or "—",
    }
    cells.update({ipu_key(i): f"{c:,}" for i, c in enumerate(table.cycles_by_ipu[row].tolist())})
    if table.kinds:
        cells["kind"] = table.kinds[row]
    if table.data_in is not None and table.data_out is not None:
        cells["data_in"], cells["data_out"] = fmt(int(table.data_in[row])), fmt(int(table.data_out[row]))
    return cells


def step_rows(report: Report, steps: StepRows, shown: np.ndarray, sort: str) -> TableRows:
    """Single steps as the screen shows them: the first SHOWN_ROWS of SHOWN."""
    programs = report.programs
    offsets = np.asarray(report.execution.run_step_offsets)
    rows = shown[:SHOWN_ROWS].tolist()
    names, cells = [], []
    for row in rows:
        program, step = int(steps.programs[row]), int(steps.steps[row])
        names.append(programs.names[program] if program >= 0 else NO_PROGRAM)
        cells.append({"cycles": f"{int(steps.cycles[row]):,}", "step": f"{step:,}", "ipu": str(int(steps.ipus[row])),
                      "run": str(int(np.searchsorted(offsets, step, side="right"))),
                      "type": programs.type_name(program) if program >= 0 else "—"})
    column = "cycles" if sort == "name" else sort
    priority = [column, *(c for c in ("cycles", "step", "ipu", "type", "run") if c != column)]
    return TableRows(STEP_HEADINGS, [str(row) for row in rows], names, cells, [""] * len(rows), priority, sort,
                     cut_middle)


def hotspot_header(nav: HotspotsNavigator, host: dict[str, int]) -> Text:
    """The line above the table: which table, how many rows, what is counted; the host waits apart."""
    table = nav.table
    header = Text(no_wrap=False)
    header.append(f"Hotspots: {LABELS[nav.by]}", "bold")
    kept = len(nav.shown)
    if isinstance(table, StepRows):
        header.append(f" · the {min(kept, SHOWN_ROWS):,} longest of {table.kept:,} step-IPU pairs")
    else:
        whole = len(table) if table is not None else 0
        header.append(f" · {min(kept, SHOWN_ROWS):,} of {whole:,}" + (f" ({kept:,} kept)" if kept != whole else ""))
    header.append(f" · by {nav.sort}")
    header.append(f" · {'every run' if nav.run is None else f'run {nav.run + 1}'}")
    header.append(f" · {nav.type_name or 'every step type'}")
    if nav.filter_text:
        header.append(f" · name contains {nav.filter_text!r}")
    header.append(f"\nhost waits apart, not ranked: {format_cycles(host['cycles'])} IPU-cycles in"
                  f" {count_of(host['count'], 'IPU-step')}", "dim")
    return header


def _line(text: Text, label: str, value: str) -> None:
    text.append(f"{label:<13} ")
    text.append(value + "\n")


def hotspot_details(report: Report, nav: HotspotsNavigator, fmt: Callable[[int], str]) -> Text:
    """What the details pane says of the row under the cursor."""
    table, row = nav.table, nav.selected()
    text = Text()
    if table is None or row is None:
        return text
    program = nav.selected_program()
    if isinstance(table, HotspotTable):
        text.append(table.names[row] + "\n", "bold")
    else:
        text.append((report.programs.names[program] if program >= 0 else NO_PROGRAM) + "\n", "bold")
    if program >= 0:
        _line(text, "Program", f"{program} {report.programs.type_name(program)} (Enter: in Programs)")
        context_lines(text, report, report.programs.debug_context(program))
    if isinstance(table, StepRows):
        _line(text, "Cycles", f"{int(table.cycles[row]):,} on IPU {int(table.ipus[row])},"
                              f" step {int(table.steps[row]):,}")
    else:
        if table.kinds:
            _line(text, "Kind", table.kinds[row])
        _line(text, "IPU-cycles", f"{int(table.cycles[row]):,} ({format_share(float(table.share[row]))})")
        _line(text, "IPU-steps", f"{int(table.count[row]):,}, mean {float(table.mean[row]):,.0f}")
        _line(text, "Longest", f"{int(table.longest[row]):,} on IPU {int(table.longest_ipu[row])},"
                               f" step {int(table.longest_step[row]):,} (T)")
        per_ipu = ", ".join(f"IPU {i} {c:,}" for i, c in enumerate(table.cycles_by_ipu[row].tolist()) if c)
        _line(text, "By IPU", per_ipu or "—")
        if table.data_in is not None and table.data_out is not None:
            _line(text, "Bytes in/out", f"{fmt(int(table.data_in[row]))} / {fmt(int(table.data_out[row]))}")
        elif table.by == "exchange":
            _line(text, "Bytes in/out", report.missing("step_details"))
    layer = nav.selected_layer()
    if layer is not None:
        _line(text, "Model layer", f"{layer} (L: in Operations)")
    compute_set = nav.selected_compute_set()
    if compute_set is not None:
        balance_lines(text, nav.selected_balance())
        vertex_lines(text, report, compute_set)
    return text


def context_lines(text: Text, report: Report, context: int) -> None:
    """The debug context CONTEXT: its id, who made it and its name, where debug.cbor has it."""
    if context < 0:
        return
    debug = report.debug
    row = debug.index_of(context) if debug is not None else -1
    if row < 0:
        _line(text, "Debug context", str(context))
        return
    _line(text, "Debug context", f"{context} {layer_label(debug.layer_names[int(debug.layer[row])])}")
    text.append(f"  {debug.names[row]}\n")


def heading(text: Text, title: str, value: object) -> bool:
    """TITLE as a heading; under it, where VALUE is Unavailable, why (and False)."""
    text.append(title + "\n", "bold")
    if isinstance(value, Unavailable):
        text.append(value.reason + "\n", "dim")
        return False
    return True


def balance_lines(text: Text, balance: TileBalance | Unavailable) -> None:
    if heading(text, "Balance over tiles", balance):
        _line(text, "Slowest tile", f"{balance.slowest:,}: {balance.slowest_cycles:,} cycles (w: in Memory)")
        _line(text, "Max/mean", f"{balance.max_over_mean:.2f} over {count_of(balance.tiles, 'tile')},"
                                f" {count_of(balance.steps, 'step')} with per-tile cycles")


def vertex_lines(text: Text, report: Report, compute_set: int) -> None:
    vertices = compute_set_vertices(report, compute_set)
    if heading(text, "Vertices (codelets)", vertices):
        for name, instances in vertices[:LISTED]:
            text.append(f"  {instances:>8,} {name}\n")
        if len(vertices) > LISTED:
            text.append(f"  … and {len(vertices) - LISTED:,} more\n", "dim")


def hotspot_total_details(nav: HotspotsNavigator) -> Text:
    return Text(f"The total of what the filter {nav.filter_text!r} keeps: every row it matches"
                f" ({len(nav.shown):,}), the longest step the longest of theirs.")


def columns_help() -> str:
    """What each column counts, one line each."""
    return "\n".join(f"{name}: {words}" for name, words in COLUMN_WORDS)
