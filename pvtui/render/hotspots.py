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
from pvtui.render.columns import TOTAL, Computed, TableRows, cut_middle, total_label
from pvtui.units import count_of, format_cycles, format_share

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


class ShownKeys(Computed[str]):
    """The keys of the rows shown, in their order: each row of the table read, as text; found by numpy."""

    def __init__(self, shown: np.ndarray) -> None:
        super().__init__(len(shown), lambda i: str(int(shown[i])))
        self.shown = shown

    def index(self, key: str, *_) -> int:
        hits = np.flatnonzero(self.shown == int(key)) if key.isdigit() else ()
        if not len(hits):
            raise ValueError(key)
        return int(hits[0])

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and key.isdigit() and bool((self.shown == int(key)).any())


def widest(values: np.ndarray, text: Callable[[object], str]) -> int:
    """The cells of the widest of VALUES (none negative) as TEXT words them: the largest's."""
    return len(text(values.max())) if len(values) else 0


def hotspot_rows(table: HotspotTable, shown: np.ndarray, sort: str, filtered: bool,
                 fmt: Callable[[int], str]) -> TableRows:
    """Every row of SHOWN (rows of TABLE) as the screen shows them, each worded when drawn; FILTERED adds
    the total of every row kept. FMT formats bytes."""
    ipus = table.cycles_by_ipu.shape[1]
    headings = dict(HEADINGS)
    if table.by != "exchange":
        for key in ("kind", "data_in", "data_out"):
            del headings[key]
    elif table.data_in is None:
        del headings["data_in"], headings["data_out"]
    headings.update({ipu_key(i): f"IPU {i}" for i in range(ipus)})
    total = None
    if filtered and len(shown):
        sums = table.totals(shown)
        total = (TOTAL, total_label(len(shown)), {
            "cycles": f"{sums['cycles']:,}", "count": f"{sums['count']:,}", "longest": f"{sums['max_cycles']:,}",
            "share": format_share(sums["cycles"] / table.total if table.total else None)})
    column = "cycles" if sort == "name" else sort
    priority = [column, *(c for c in ("cycles", "share", "count", "longest", "mean") if c != column),
                "layer", "kind", ("data_in", "data_out"), tuple(ipu_key(i) for i in range(ipus))]
    rows = len(shown)
    return TableRows(headings, ShownKeys(shown), Computed(rows, lambda i: table.names[shown[i]]),
                     Computed(rows, lambda i: row_cells(table, int(shown[i]), fmt)), Computed(rows, lambda i: ""),
                     priority, column, cut_middle, total, column_widths(table, fmt), table.longest_name)


def column_widths(table: HotspotTable, fmt: Callable[[int], str]) -> dict[str, int]:
    """The widest cell of each column over every row of TABLE (the same whichever rows a filter keeps)."""
    commas = "{:,}".format
    widths = {"cycles": widest(table.cycles, commas), "share": widest(table.share, format_share),
              "count": widest(table.count, commas), "mean": widest(np.rint(table.mean), "{:,.0f}".format),
              "longest": widest(table.longest, commas), "layer": max((len(layer) for layer in set(table.layers) if layer), default=1)}
    widths.update({ipu_key(i): widest(column, commas) for i, column in enumerate(table.cycles_by_ipu.T)})
    if table.kinds:
        widths["kind"] = max(map(len, table.kinds))
    if table.data_in is not None and table.data_out is not None:
        widths["data_in"] = max((len(fmt(int(b))) for b in table.data_in.tolist()), default=0)
        widths["data_out"] = max((len(fmt(int(b))) for b in table.data_out.tolist()), default=0)
    return widths


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
    """Single steps as the screen shows them: every row of SHOWN, each worded when drawn."""
    programs = report.programs
    offsets = np.asarray(report.execution.run_step_offsets)

    def name(i: int) -> str:
        program = int(steps.programs[shown[i]])
        return programs.names[program] if program >= 0 else NO_PROGRAM

    def cells(i: int) -> dict[str, str]:
        row = int(shown[i])
        program, step = int(steps.programs[row]), int(steps.steps[row])
        return {"cycles": f"{int(steps.cycles[row]):,}", "step": f"{step:,}", "ipu": str(int(steps.ipus[row])),
                "run": str(int(np.searchsorted(offsets, step, side="right"))),
                "type": programs.type_name(program) if program >= 0 else "—"}

    column = "cycles" if sort == "name" else sort
    priority = [column, *(c for c in ("cycles", "step", "ipu", "type", "run") if c != column)]
    rows = len(shown)
    return TableRows(STEP_HEADINGS, ShownKeys(shown), Computed(rows, name), Computed(rows, cells),
                     Computed(rows, lambda i: ""), priority, sort, cut_middle)


def hotspot_header(nav: HotspotsNavigator, host: dict[str, int]) -> Text:
    """The line above the table: which table, how many rows, what is counted; the host waits apart."""
    table = nav.table
    header = Text(no_wrap=False)
    header.append(f"Hotspots: {LABELS[nav.by]}", "bold")
    kept = len(nav.shown)
    if isinstance(table, StepRows):
        header.append(f" · the {kept:,} longest of {table.kept:,} step-IPU pairs")
    else:
        whole = len(table) if table is not None else 0
        header.append(f" · {kept:,} of {whole:,}")
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
