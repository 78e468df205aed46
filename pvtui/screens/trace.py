"""Trace: the steps of a run over cycles, one lane per IPU, with the selected step's details or BSP phases."""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

import numpy as np
from rich.style import Style
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.widgets import ContentSwitcher, Static

from pvtui.model import flame as fl
from pvtui.model import trace_views as tv
from pvtui.model.queries import unknown_program
from pvtui.model.step_stats import step_stats
from pvtui.model.step_types import PHASES, phase_of
from pvtui.model.tables import Table
from pvtui.screens.base import ReportScreen, Unavailable
from pvtui.units import count_of, format_cycles
from pvtui.widgets.bsp_view import LEVELS, BspView, bsp_cell_table
from pvtui.widgets.item_lines import item_lines
from pvtui.widgets.look import look_of
from pvtui.widgets.palette import phase_fill_styles, phase_text_styles
from pvtui.widgets.flame_view import FlameCursor, FlameView
from pvtui.widgets.trace_view import CELL_KINDS, GUTTER, TraceState, TraceView, lane_cell_table

if TYPE_CHECKING:
    from pvtui.model.report import Report

ZOOM_STEP = 0.5  # + halves the window, - doubles it
PAN_STEP = 0.25  # of the window's width
EXPORT_CHUNK = 4096  # steps read at a time when exporting


def format_seconds(seconds: float) -> str:
    for scale, unit in ((1, "s"), (1e-3, "ms"), (1e-6, "µs")):
        if seconds >= scale:
            return f"{seconds / scale:.3g} {unit}"
    return f"{seconds * 1e9:.3g} ns"


def percent(value: float) -> str:
    return f"{value * 100:.1f}%"


def step_details(
    report: "Report", step: int, ipu: int, fmt: Callable[[int], str], styles: dict[str, Style]
) -> Text:
    """What the details panel says about STEP, on IPU first and then on every IPU; STYLES colour text."""
    execution = report.execution
    assert execution is not None
    muted = styles.get("muted", Style(dim=True))
    clock = report.target.clock_hz
    out = Text()

    def row(label: str, value: str | Text) -> None:
        out.append(f"{label:<10}", style=muted)
        out.append(value)
        out.append("\n")

    program = int(execution.program[step])
    programs = report.programs
    unknown = unknown_program(report, program)
    if unknown is None:
        type_name = programs.type_name(program)
        phase = phase_of(type_name)
        row("Step", f"{step:,}  program {program:,}  {programs.names[program] or '—'}")
        row("Type", Text.assemble((type_name, styles.get(phase, Style())), (f"  {phase}", muted)))
    else:
        row("Step", f"{step:,}  program {program:,}")
        row("Type", Text(unknown, style=muted))
    cycles = int(execution.cycles[step, ipu])
    start, end = int(execution.cycles_from[step, ipu]), int(execution.cycles_to[step, ipu])
    time = f"  {format_seconds(cycles / clock)} at {clock / 1e9:.3g} GHz" if clock else ""
    row(f"IPU {ipu}", f"{format_cycles(start)} → {format_cycles(end)}  {format_cycles(cycles)} cycles{time}")
    balanced = execution.tile_balance is not None
    if balanced:
        row("Balance", f"tiles {percent(float(execution.tile_balance[step, ipu]))}  "
                       f"active tiles {percent(float(execution.active_tile_balance[step, ipu]))}")
        row("Data", f"in {fmt(int(execution.data_in[step, ipu]))}  out {fmt(int(execution.data_out[step, ipu]))}")
    elif execution.active_tiles is not None:
        row("Active", f"{int(execution.active_tiles[step, ipu]):,} tiles  (balance, data: profile.pop read by libpva)")
    header = ("IPU", "from", "to", "cycles", *(("balance", "active", "in", "out") if balanced else ("active tiles",)))
    rows = []
    for other in range(execution.num_ipus):
        begin = int(execution.cycles_from[step, other])
        rows.append((other, None) if begin < 0 else (other, (
            str(other), f"{begin:,}", f"{int(execution.cycles_to[step, other]):,}",
            f"{int(execution.cycles[step, other]):,}", *_ipu_extras(execution, step, other, fmt),
        )))
    widths = [max([len(h)] + [len(r[i]) for _, r in rows if r]) for i, h in enumerate(header)]
    out.append(" ".join(h.rjust(w) for h, w in zip(header, widths)) + "\n", style=muted)
    for other, cells in rows:
        if cells is None:
            out.append(f"{other:>{widths[0]}} did not run\n", style=muted)
        else:
            line = " ".join(c.rjust(w) for c, w in zip(cells, widths)) + "\n"
            out.append(line, style=Style(bold=True) if other == ipu else Style())
    out.rstrip()
    return out


def _ipu_extras(execution, step: int, ipu: int, fmt: Callable[[int], str]) -> tuple[str, ...]:
    """The step's balance and data on IPU (libpva's), else its active tiles (profile.pop's tables), else nothing."""
    if execution.tile_balance is not None:
        return (percent(float(execution.tile_balance[step, ipu])), percent(float(execution.active_tile_balance[step, ipu])),
                fmt(int(execution.data_in[step, ipu])), fmt(int(execution.data_out[step, ipu])))
    if execution.active_tiles is not None:
        return (f"{int(execution.active_tiles[step, ipu]):,}",)
    return ()


def common_program(programs, first: int, last: int) -> int:
    """The deepest program on both FIRST's and LAST's paths from the root (FIRST when they share none)."""
    if first == last:
        return first
    a, b = programs.path_to(first), programs.path_to(last)
    shared = [x for x, y in zip(a, b) if x == y]
    return shared[-1] if shared else first


def block_details(
    report: "Report", nesting: fl.Nesting, row: fl.FlameRow, block: int, ipu: int, lane: tv.Lane,
    run_cycles: int, styles: dict[str, Style],
) -> Text:
    """What the details panel says about a flame block: its path, cycles, steps and share of the run."""
    muted = styles.get("muted", Style(dim=True))
    execution = report.execution
    first, stop = int(row.first[block]), int(row.stop[block])
    program = int(execution.program[int(lane.steps[first])])
    path = nesting.path(program)[: int(np.flatnonzero(nesting.node_of[program] == row.node[block])[0]) + 1]
    cycles = int(row.cycles[block])
    out = Text()

    def line(label: str, value: str | Text) -> None:
        out.append(f"{label:<10}", style=muted)
        out.append(value)
        out.append("\n")

    line("Block", Text(" › ".join(path), style="bold"))
    share = f"  {percent(cycles / run_cycles)} of the run on IPU {ipu}" if run_cycles else ""
    line("Cycles", f"{format_cycles(cycles)}{share}")
    line("Steps", f"{stop - first:,}  (lane steps {first:,}–{stop - 1:,})")
    start, end = int(row.lane.starts[block]), int(row.lane.ends[block])
    line("Span", f"{format_cycles(start)} → {format_cycles(end)}  {format_cycles(end - start)} cycles")
    if row.leaf[block] and unknown_program(report, program) is None:
        type_name = report.programs.type_name(program)
        line("Type", Text.assemble((type_name, styles.get(phase_of(type_name), Style())), (f"  {phase_of(type_name)}", muted)))
    same = np.asarray(row.node) == row.node[block]
    total = int(np.asarray(row.cycles)[same].sum())
    share = f" ({percent(total / run_cycles)})" if run_cycles else ""
    line("All", f"{format_cycles(total)} cycles{share} in {count_of(int(same.sum()), 'block')} named so at this depth")
    source = "debug.cbor: layer › operation › PopLibs call" if nesting.linked[program] else "the program's name"
    line("Nesting", Text(f"depth {len(path)}, from {source}", style=muted))
    out.rstrip()
    return out


STATS_TYPE_WIDTH = 18  # the step type column of the statistics
STATS_IPU_WIDTH = 27  # each IPU's steps, cycles and share


def stats_text(stats: dict | None, run: int, styles: dict[str, Style], first_ipu: int = 0, width: int = 80) -> Text:
    """The step statistics of RUN: a row per step type, and for each IPU from FIRST_IPU that fits in
    WIDTH its steps, cycles and share; stream copies split into host and remote-buffer rows."""
    if stats is None or run >= len(stats["runs"]):
        return Text("No execution profile: no step statistics.")
    muted = styles.get("muted", Style(dim=True))
    data = stats["runs"][run]
    ipus = data["ipus"]
    fits = max((width - STATS_TYPE_WIDTH) // STATS_IPU_WIDTH, 1)
    first = min(max(first_ipu, 0), max(len(ipus) - fits, 0))
    shown = ipus[first : first + fits]
    out = Text()
    out.append(f"Step statistics, run {run + 1} {data['name']}", style="bold")
    more = f" · IPUs {first}–{first + len(shown) - 1} of {len(ipus)}, up/down for others" if len(shown) < len(ipus) else ""
    out.append(f"{more}\n", style=muted)
    out.append(" " * STATS_TYPE_WIDTH)
    for ipu in shown:
        out.append(f"{'IPU ' + str(ipu['ipu']):>{STATS_IPU_WIDTH}}", style="bold")
    out.append("\n" + f"{'step type':<{STATS_TYPE_WIDTH}}" + f"{'steps':>8}{'cycles':>13}{'share':>6}" * len(shown) + "\n",
               style=muted)
    names = list(dict.fromkeys(name for ipu in ipus for name in ipu["types"]))

    def cells(entry: dict | None, share: bool = True) -> str:
        if not entry or not entry["steps"]:
            return " " * STATS_IPU_WIDTH
        tail = f"{percent(entry['share']):>6}" if share else " " * 6
        return f"{entry['steps']:>8,}{format_cycles(entry['cycles']):>13}{tail}"

    for name in names:
        out.append(_clip(name, STATS_TYPE_WIDTH - 1).ljust(STATS_TYPE_WIDTH), style=styles.get(phase_of(name), Style()))
        out.append("".join(cells(ipu["types"].get(name)) for ipu in shown) + "\n")
        for kind, label in (("host", "  host"), ("remote_buffer", "  remote buffer")):
            parts = [ipu["types"].get(name, {}).get(kind) for ipu in shown]
            if any(part and part["steps"] for part in parts):
                out.append(label.ljust(STATS_TYPE_WIDTH) + "".join(cells(part, share=False) for part in parts) + "\n",
                           style=muted)
    out.append(f"{'all':<{STATS_TYPE_WIDTH}}", style="bold")
    out.append("".join(f"{ipu['steps']:>8,}{format_cycles(ipu['cycles']):>13}{'100%':>6}" for ipu in shown))
    return out


def _clip(text: str, width: int) -> str:
    return text if len(text) <= width else text[: max(width - 1, 0)] + "…"


class TraceScreen(ReportScreen):
    """Lanes of steps over a cycle window; the cursor is a step on one IPU's lane."""

    SCREEN_NAME = "Trace"

    DEFAULT_CSS = """
    TraceScreen #trace-status, TraceScreen #trace-legend, TraceScreen #bsp-status {
        height: 1;
        padding: 0 1;
    }
    TraceScreen #trace-status { height: auto; background: $surface; }
    TraceScreen #trace-legend, TraceScreen #bsp-status { color: $text-muted; }
    TraceScreen TraceView { height: auto; max-height: 50%; }
    TraceScreen.flame TraceView { height: 1fr; max-height: 100%; }
    TraceScreen.flame #trace-lower { height: 8; }
    TraceScreen #trace-lower {
        height: 1fr;
        min-height: 5;
        border-top: solid $panel;
    }
    TraceScreen #details, TraceScreen #stats { padding: 0 1; }
    """

    BINDINGS = [
        Binding("left", "step(-1)", "Previous step", show=False, id="trace.previous"),
        Binding("right", "step(1)", "Next step", show=False, id="trace.next"),
        Binding("up", "lane(-1)", "Previous IPU", show=False, id="trace.lane_up"),
        Binding("down", "lane(1)", "Next IPU", show=False, id="trace.lane_down"),
        Binding("plus,equals_sign", f"zoom({ZOOM_STEP})", "Zoom in", key_display="+", id="trace.zoom_in"),
        Binding("minus", f"zoom({1 / ZOOM_STEP})", "Zoom out", key_display="-", id="trace.zoom_out"),
        Binding("0", "fit", "Fit run", id="trace.fit"),
        Binding("b", "toggle_bsp", "BSP/details", id="trace.bsp"),
        Binding("f", "toggle_flame", "Flame", id="trace.flame"),
        Binding("c", "costliest", "Costliest", id="trace.costliest"),
        Binding("S", "toggle_stats", "Stats", key_display="S", id="trace.stats"),
        Binding("P", "show_program", "Program", key_display="P", id="trace.program"),
        Binding("r", "next_run", "Next run", id="trace.run"),
        Binding("n", "next_bsp_step", "Next step with per-tile cycles", show=False, id="trace.next_bsp"),
        Binding("shift+left,comma", f"pan({-PAN_STEP})", "Pan left", key_display=",", show=False,
                id="trace.pan_left"),
        Binding("shift+right,full_stop", f"pan({PAN_STEP})", "Pan right", key_display=".", show=False,
                id="trace.pan_right"),
        Binding("home", "edge(0)", "Run start", show=False, id="trace.start"),
        Binding("end", "edge(1)", "Run end", show=False, id="trace.end"),
        Binding("T", "next_operation_step", "Next op step", key_display="T", id="trace.operation_step"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.run = 0
        self.lanes: tuple[tv.Lane, ...] = ()
        self.bounds = (0, tv.MIN_SPAN)
        self.window = (0, tv.MIN_SPAN)
        self.cursor_ipu = 0
        self.cursor_pos = -1
        self.show_bsp = False
        self.show_stats = False
        self.flame_on = False
        self.flame_cursor = FlameCursor()
        self._nesting: fl.Nesting | None = None  # built once per report, the first time the flame view shows
        self._flame_of_run: dict[int, tuple[list[fl.FlameRow], ...]] = {}
        self._legend_theme = ""  # the theme the legend was drawn in
        self._details_lines = -1  # lines of the details shown: a change of height needs a layout
        self._status_lines = -1  # lines of the status shown (its height): likewise
        self._details_shown: Text | None = None  # the details text shown
        self._lane_cycles: dict[int, tuple[int, ...]] = {}  # per run, each IPU's cycles: a block's share of them
        self._stats: dict | None = None
        self._stats_of: "Report | None" = None  # the report _stats were counted for (None: not yet)
        self._lanes_of_run: dict[int, tuple[tv.Lane, ...]] = {}
        self.generation = 0  # counts the lanes shown, so cached drawings of older ones are never reused
        self._composed_for: tuple[bool, bool] | None = None  # the layout key the screen was composed for
        self.operation: tuple[str, list[int]] | None = None  # name and execution steps of the operation followed
        self.operation_at = -1  # which of its steps is shown

    @property
    def has_bsp(self) -> bool:
        execution = self.report.execution
        return execution is not None and execution.bsp_steps is not None and execution.bsp_cycles is not None

    def _layout_key(self) -> tuple[bool, bool]:
        """What decides which widgets compose yields: a trace at all, and a BSP view or its absence."""
        return self.report.execution is not None, self.has_bsp

    def compose_body(self) -> ComposeResult:
        self._composed_for = self._layout_key()
        if self.report.execution is None:
            yield Unavailable(self.report.missing("execution"))
            return
        yield Static(id="trace-status")  # its items on as many lines as the width needs
        yield FlameView(id="trace")
        yield Static(id="trace-legend")
        with ContentSwitcher(initial="details", id="trace-lower"):
            with VerticalScroll(id="details", can_focus=False):
                yield Static(id="details-text")
            with VerticalScroll(id="stats", can_focus=False):
                yield Static(id="stats-text")
            with Vertical(id="bsp"):
                yield Static(id="bsp-status")
                if not self.has_bsp:
                    yield Unavailable(self.report.missing("bsp"))
                else:
                    yield BspView(id="bsp-view")

    def show_report(self) -> None:
        if self.report.execution is not None:
            self.watch(self.app, "theme", self._theme_changed, init=False)
            self._open_run(0)

    # The model -----------------------------------------------------------------

    @property
    def available(self) -> bool:
        """True once the trace is composed and a run is shown."""
        return not self.opening and self.report.execution is not None and bool(self.query(TraceView)) \
            and self.run in self._lanes_of_run

    def build_lanes(self, run: int) -> tuple[tv.Lane, ...]:
        """The run's lanes: each IPU's steps sorted by start (reads the run's columns)."""
        execution = self.report.execution
        programs = self.report.programs
        lo, hi = execution.run_range(run)
        phases = tv.step_phases(
            execution.program[lo:hi],
            None if programs is None else programs.type,
            [] if programs is None else programs.type_names,
        )
        return tuple(tv.build_lanes(execution.cycles_from[lo:hi], execution.cycles_to[lo:hi], phases, lo))

    def _open_run(self, run: int, keep_step: int | None = None, keep_window: tuple[int, int] | None = None) -> None:
        """Show RUN, indexing its lanes in a worker the first time (a large run takes longer than a frame)."""
        execution = self.report.execution
        run = min(max(run, 0), max(execution.num_runs - 1, 0))
        if not execution.num_runs:
            self._lanes_of_run[run] = ()
        if run in self._lanes_of_run:
            self._show_run(run, self._lanes_of_run[run], keep_step, keep_window)
        else:
            self._show_status(Text(f"Indexing the steps of run {run + 1}…"))
            self._index_run(run, keep_step, keep_window)

    @work(thread=True, exclusive=True, group="trace-index")
    def _index_run(self, run: int, keep_step: int | None, keep_window: tuple[int, int] | None) -> None:
        report = self.report
        lanes = self.build_lanes(run)
        if report is self.report:
            self.app.call_from_thread(self._indexed, report, run, lanes, keep_step, keep_window)

    def _indexed(self, report, run, lanes, keep_step, keep_window) -> None:
        if report is self.report:
            self._lanes_of_run[run] = lanes
            self._show_run(run, lanes, keep_step, keep_window)

    def _show_run(
        self, run: int, lanes: tuple[tv.Lane, ...], keep_step: int | None, keep_window: tuple[int, int] | None
    ) -> None:
        self.run, self.lanes = run, lanes
        self.generation += 1
        self.bounds = tv.run_span(list(lanes))
        self.window = tv.clamp_window(*keep_window, self.bounds) if keep_window else self.bounds
        self.cursor_ipu = min(self.cursor_ipu, max(len(lanes) - 1, 0))
        lane = self.current_lane
        if lane is None:
            self.cursor_pos = -1
        elif keep_step is not None and (pos := tv.position_of_step(lane, keep_step)) >= 0:
            self.cursor_pos = pos
        else:
            anchor = sum(self.window) / 2 if keep_window else self.bounds[0]
            self.cursor_pos = tv.position_at(lane, anchor)
        self.flame_cursor = FlameCursor()
        if self.flame_on and run not in self._flame_of_run:
            self._start_flame(run)
        self._redraw()

    @property
    def current_lane(self) -> tv.Lane | None:
        return self.lanes[self.cursor_ipu] if self.cursor_ipu < len(self.lanes) else None

    @property
    def selected_step(self) -> int:
        """The absolute index of the selected step, or -1."""
        lane = self.current_lane
        return int(lane.steps[self.cursor_pos]) if lane is not None and self.cursor_pos >= 0 else -1

    def _cursor_range(self) -> tuple[int, int] | None:
        block = self.flame_block
        if block is not None:
            row, b = block
            return int(row.lane.starts[b]), int(row.lane.ends[b])
        lane = self.current_lane
        if lane is None or self.cursor_pos < 0:
            return None
        return int(lane.starts[self.cursor_pos]), int(lane.ends[self.cursor_pos])

    # The flame view ----------------------------------------------------------------

    @property
    def flame(self) -> tuple[list[fl.FlameRow], ...] | None:
        """The run's flame rows per IPU, while the flame view shows and once they are built."""
        return self._flame_of_run.get(self.run) if self.flame_on else None

    @property
    def flame_block(self) -> tuple[fl.FlameRow, int] | None:
        """The flame row and block under the cursor, when it is on a block."""
        flame, cursor = self.flame, self.flame_cursor
        if flame is None or cursor.depth < 0 or cursor.block < 0 or self.cursor_ipu >= len(flame):
            return None
        return flame[self.cursor_ipu][cursor.depth], cursor.block

    def _start_flame(self, run: int) -> None:
        self._show_status(Text(f"Nesting the steps of run {run + 1}…"))
        self._index_flame(run, self.lanes)

    @work(thread=True, exclusive=True, group="trace-flame")
    def _index_flame(self, run: int, lanes: tuple[tv.Lane, ...]) -> None:
        report = self.report
        nesting = self._nesting or fl.build_nesting(report, report.execution.program)
        rows = tuple(fl.lane_flame(report, lane, ipu, nesting) for ipu, lane in enumerate(lanes))
        cycles = tuple(int(np.asarray(report.execution.cycles[:, ipu])[lane.steps].sum())
                       for ipu, lane in enumerate(lanes))
        self.app.call_from_thread(self._flame_indexed, report, run, nesting, rows, cycles)

    def _flame_indexed(self, report, run: int, nesting: fl.Nesting, rows, cycles: tuple[int, ...]) -> None:
        if report is self.report:
            self._nesting = nesting
            self._flame_of_run[run] = rows
            self._lane_cycles[run] = cycles
            if run == self.run:
                self._redraw()
                self.refresh_bindings()

    def _move_flame(self, delta: int) -> None:
        """Up/down in the flame view: to the row DELTA away of those drawn, through every IPU's lane and depth rows."""
        flame, rows = self.flame, self.query_one(FlameView).rows
        at = rows.index((self.cursor_ipu, self.flame_cursor.depth))
        ipu, depth = rows[min(max(at + delta, 0), len(rows) - 1)]
        span = self._cursor_range()
        anchor = (span[0] + span[1]) / 2 if span else sum(self.window) / 2
        if ipu != self.cursor_ipu:
            self.cursor_ipu = ipu
            self.cursor_pos = tv.position_at(self.lanes[ipu], anchor)
        block = -1
        if depth >= 0:
            row = flame[ipu][depth]
            block = row.block_at(self.cursor_pos) if self.cursor_pos >= 0 else -1
            if block < 0 and len(row):
                block = tv.position_at(row.lane, anchor)
            if block >= 0:
                self.cursor_pos = int(row.first[block])
        self.flame_cursor = FlameCursor(depth, block)

    def _step_flame(self, delta: int) -> None:
        row, block = self.flame_block
        block = min(max(block + delta, 0), len(row) - 1)
        self.flame_cursor = FlameCursor(self.flame_cursor.depth, block)
        self.cursor_pos = int(row.first[block])

    # Drawing ---------------------------------------------------------------------

    def _redraw(self) -> None:
        trace = self.query_one(FlameView)
        flame = self.flame
        state = TraceState(self.run, self.lanes, self.window, self.cursor_ipu, self.cursor_pos)
        names = self._nesting.names if self._nesting is not None else []
        trace.show_flame(state, flame, names, self.flame_cursor if flame is not None else FlameCursor())
        self._show_status(self._status_text())
        if self._legend_theme != self.app.theme:  # it changes with the theme alone
            self._legend_theme = self.app.theme
            self.query_one("#trace-legend", Static).update(self._legend_text(), layout=False)
        lower = "stats" if self.show_stats else "bsp" if self.show_bsp else "details"
        self.query_one(ContentSwitcher).current = lower
        if self.show_stats:
            self._draw_stats()
        elif self.show_bsp:
            self._draw_bsp()
        else:
            self._draw_details()

    def _status_text(self) -> Text:
        execution = self.report.execution
        lo, hi = self.window
        span = self.bounds[1] - self.bounds[0]
        zoom = span / max(hi - lo, 1)
        zoom_text = f"×{zoom:,.0f}" if zoom >= 10 else f"×{zoom:.2g}"
        step = self.selected_step
        run = f"Run {self.run + 1}/{execution.num_runs} {execution.run_names[self.run]}" if execution.num_runs \
            else "no runs"
        items = [Text(run, style="bold"), Text(f"cycles {format_cycles(lo)}–{format_cycles(hi)} {zoom_text}"),
                 Text(f"IPU {self.cursor_ipu} step {step:,}" if step >= 0 else f"IPU {self.cursor_ipu} no steps")]
        if self.flame_on and self.flame is None:
            items.append(Text("nesting the steps…"))
        # broken between items, never inside one: a wrap at a space once glued the range to the run's name
        lines = item_lines(items, max(self.size.width - 2, 20), gap=" · ", max_lines=len(items))
        return Text("\n").join(lines)

    def _show_status(self, text: Text) -> None:
        """A layout only when the status takes another number of lines: one per key would cost a frame."""
        lines = len(text.plain.splitlines())
        self.query_one("#trace-status", Static).update(text, layout=lines != self._status_lines)
        self._status_lines = lines

    def _legend_text(self) -> Text:
        cells = lane_cell_table(phase_fill_styles(self.app.theme_variables), look_of(self.app))
        text = Text()
        for index, phase in enumerate(PHASES):
            glyph, style = cells[index * CELL_KINDS]
            text.append(glyph * 2, style=style)
            text.append(f" {phase}  ")
        text.append(*cells[1])  # several steps, drawn as compute's
        text.append(" several steps")
        return text

    def _draw_details(self) -> None:
        step = self.selected_step
        details = self.query_one("#details-text", Static)
        block = self.flame_block
        styles = phase_text_styles(self.app.theme_variables)
        if block is not None:
            self._show_details_text(self._block_details(*block, styles))
            return
        if self.flame is not None and self.flame_cursor.depth >= 0:
            self._show_details_text(Text(f"IPU {self.cursor_ipu} has no steps nested {self.flame_cursor.depth + 1} deep."))
            return
        if step < 0:
            self._show_details_text(Text(f"IPU {self.cursor_ipu} ran no steps in this run."))
            return
        self._show_details_text(step_details(self.report, step, self.cursor_ipu, self.bytes, styles))

    def _show_details_text(self, text: Text) -> None:
        """Show TEXT in the details, with a layout only when its number of lines (its height) changes.

        The same text again (a zoom or a pan that keeps the block) is not drawn again: rendering
        the whole panel cost a third of such a key's frame."""
        if text == self._details_shown:
            return
        lines = text.plain.count("\n")
        self.query_one("#details-text", Static).update(text, layout=lines != self._details_lines)
        self._details_lines, self._details_shown = lines, text

    def _block_details(self, row: fl.FlameRow, block: int, styles: dict[str, Style]) -> Text:
        run_cycles = self._lane_cycles[self.run][self.cursor_ipu]
        return block_details(self.report, self._nesting, row, block, self.cursor_ipu, self.current_lane,
                             run_cycles, styles)

    def _draw_stats(self) -> None:
        styles = phase_text_styles(self.app.theme_variables)
        panel = self.query_one("#stats-text", Static)
        if self._stats_of is not self.report:
            panel.update(Text("Counting the steps of each type…", style=styles.get("muted", Style(dim=True))))
            self._count_steps(self.report)
            return
        width = max(self.query_one("#trace-lower").size.width - 2, 40)
        panel.update(stats_text(self._stats, self.run, styles, self.cursor_ipu, width))

    @work(thread=True, exclusive=True, group="trace-stats")
    def _count_steps(self, report: "Report") -> None:
        """The step statistics, off the UI thread: a large report's take longer than a frame."""
        stats = step_stats(report)
        self.app.call_from_thread(self._steps_counted, report, stats)

    def _steps_counted(self, report: "Report", stats: dict | None) -> None:
        if report is self.report:
            self._stats, self._stats_of = stats, report
            if self.show_stats:
                self._draw_stats()

    def _draw_bsp(self) -> None:
        status = self.query_one("#bsp-status", Static)
        views = self.query(BspView)
        lane = self.current_lane
        if not views or not self.has_bsp:  # no per-tile cycles, or a reload is recomposing the screen
            status.update("")
            return
        if lane is None:
            status.update(f"IPU {self.cursor_ipu} ran no steps in this run.")
            return
        view = views.first()
        execution = self.report.execution
        bsp_cycles = execution.bsp_cycles
        tiles = tv.ipu_tiles(self.cursor_ipu, bsp_cycles.shape[1], execution.num_ipus, self.report.target.tiles_per_ipu)
        width = max(view.scrollable_content_region.width - GUTTER, 0)
        key = (self.generation, self.run, self.cursor_ipu, self.window, width)
        if key != view.key:
            view.show(tv.bsp_frame(lane, self.window, width, execution.bsp_steps, bsp_cycles, tiles), tiles.start, key)
        frame = view.frame
        per_group = -(-frame.tile_cycles.shape[1] // max(view.scrollable_content_region.height, 1))
        cells = bsp_cell_table(phase_fill_styles(self.app.theme_variables), look_of(self.app))
        status.update(Text.assemble(
            f"tiles {tiles.start}–{tiles.stop - 1} ({per_group}/row) · "
            f"tile cycles: {frame.steps_with_data}/{count_of(frame.steps_shown, 'step')} drawn · ",
            cells[0], " working ", cells[2], " some ", cells[LEVELS - 1], " waiting",  # as compute's
        ))

    def on_resize(self) -> None:
        if self.available and self.show_bsp:
            self.call_after_refresh(self._draw_bsp)

    def _theme_changed(self) -> None:
        if self.available:
            self._redraw()

    def units_changed(self) -> None:
        if self.available:
            self._redraw()

    def report_changed(self) -> None:
        super().report_changed()
        self._lanes_of_run.clear()
        self._flame_of_run.clear()
        self._lane_cycles.clear()
        self._nesting = None
        self._stats, self._stats_of = None, None
        self.flame_cursor = FlameCursor()
        self.operation = None
        if self._layout_key() != self._composed_for:
            self.call_later(self._rebuild)
            return
        if self.report.execution is not None:
            self._open_run(self.run, keep_step=self.selected_step, keep_window=self.window)

    async def _rebuild(self) -> None:
        """The reload gained or lost the execution profile or its per-tile cycles: compose the screen again."""
        await self.recompose()
        self._legend_theme, self._details_lines, self._details_shown = "", -1, None  # new widgets: nothing drawn yet
        if self.report.execution is not None:
            self._open_run(self.run)

    def export_table(self) -> Table | None:
        """The steps of the run shown, in step order: program, type, phase, and each IPU's cycles."""
        report = self.report
        execution, programs = report.execution, report.programs
        if execution is None or not execution.num_runs:
            return None
        lo, hi = execution.run_range(self.run)
        ipus = execution.num_ipus
        columns = ["step", "program", "program_name", "type", "phase"]
        for ipu in range(ipus):
            columns += [f"ipu{ipu}_from", f"ipu{ipu}_to", f"ipu{ipu}_cycles"]

        described: dict[int, list] = {}  # program -> [name, type, phase]: loops run the same programs again

        def describe(program: int) -> list:
            if unknown_program(report, program) is not None:
                return [None, None, None]
            type_name = programs.type_name(program)
            return [programs.names[program], type_name, phase_of(type_name)]

        def rows():
            for start in range(lo, hi, EXPORT_CHUNK):
                stop = min(start + EXPORT_CHUNK, hi)
                starts = np.asarray(execution.cycles_from[start:stop]).tolist()
                ends = np.asarray(execution.cycles_to[start:stop]).tolist()
                cycles = np.asarray(execution.cycles[start:stop]).tolist()
                step_programs = np.asarray(execution.program[start:stop]).tolist()
                for i, program in enumerate(step_programs):
                    if program not in described:
                        described[program] = describe(program)
                    row = [start + i, program, *described[program]]
                    for ipu in range(ipus):
                        ran = starts[i][ipu] >= 0
                        row += [starts[i][ipu], ends[i][ipu], cycles[i][ipu]] if ran else [None, None, None]
                    yield row

        name = execution.run_names[self.run] or f"run{self.run + 1}"
        return Table(f"trace-{name}", columns, rows())

    def show_step(self, step: int) -> bool:
        """Select execution STEP (an absolute index) on the first IPU it ran on, opening its run."""
        execution = self.report.execution
        if execution is None or not 0 <= step < execution.num_steps:
            return False
        offsets = np.asarray(execution.run_step_offsets)
        run = int(np.searchsorted(offsets, step, side="right")) - 1
        ran = np.flatnonzero(np.asarray(execution.cycles_from[step]) >= 0)
        self.cursor_ipu = int(ran[0]) if len(ran) else 0
        window = None
        if len(ran):  # the step with ten times its length either side
            start, end = int(execution.cycles_from[step, ran[0]]), int(execution.cycles_to[step, ran[0]])
            pad = 10 * max(end - start, 1)
            window = (start - pad, end + pad)
        self._open_run(run, keep_step=step, keep_window=window)
        return True

    # Actions -----------------------------------------------------------------------

    def follow_operation(self, name: str, steps: list[int]) -> None:
        """Show the next of STEPS, the execution steps of operation NAME: the first, unless it is followed already."""
        if self.operation != (name, steps):
            self.operation, self.operation_at = (name, steps), -1
        self.action_next_operation_step()

    def action_next_operation_step(self) -> None:
        name, steps = self.operation or ("", [])
        if not steps:
            return
        self.operation_at = (self.operation_at + 1) % len(steps)
        step = steps[self.operation_at]
        self.show_step(step)
        self.notify(f"{name}: step {self.operation_at + 1:,} of {len(steps):,} (execution step {step:,})",
                    timeout=3)
        self.refresh_bindings()

    def key_state(self, action: str, parameters: tuple) -> bool | None:
        """The trace's keys apply only when there is a trace."""
        if action == "costliest":  # only in the flame view, once it is built
            return self.flame is not None
        if action == "next_operation_step":
            return self.operation is not None and self.report.execution is not None
        if action in TRACE_ACTIONS:
            return self.report is not None and self.report.execution is not None
        return True

    def _show_cursor(self) -> None:
        span = self._cursor_range()
        if span is not None:
            self.window = tv.show_range(self.window, *span, self.bounds)

    def action_step(self, delta: int) -> None:
        lane = self.current_lane
        if lane is None or not len(lane):
            return
        if self.flame_block is not None:
            self._step_flame(delta)
            self._show_cursor()
            self._redraw()
            return
        self.cursor_pos = min(max(self.cursor_pos + delta, 0), len(lane) - 1)
        self._show_cursor()
        self._redraw()

    def action_lane(self, delta: int) -> None:
        if not self.lanes:
            return
        if self.flame is not None:
            self._move_flame(delta)
            self._show_cursor()
            self._redraw()
            return
        span = self._cursor_range()
        anchor = (span[0] + span[1]) / 2 if span else sum(self.window) / 2
        self.cursor_ipu = min(max(self.cursor_ipu + delta, 0), len(self.lanes) - 1)
        self.cursor_pos = tv.position_at(self.lanes[self.cursor_ipu], anchor)
        self._show_cursor()
        self._redraw()

    def action_zoom(self, factor: float) -> None:
        span = self._cursor_range()
        anchor = (span[0] + span[1]) / 2 if span else sum(self.window) / 2
        self.window = tv.zoom(self.window, anchor, factor, self.bounds)
        self._redraw()

    def action_pan(self, fraction: float) -> None:
        self.window = tv.pan(self.window, fraction, self.bounds)
        self._redraw()

    def action_edge(self, end: int) -> None:
        lane = self.current_lane
        if lane is not None and len(lane):
            self.cursor_pos = len(lane) - 1 if end else 0
        span = self.window[1] - self.window[0]
        start = self.bounds[1] - span if end else self.bounds[0]
        self.window = tv.clamp_window(start, start + span, self.bounds)
        self._redraw()

    def action_fit(self) -> None:
        self.window = self.bounds
        self._redraw()

    def action_next_run(self) -> None:
        execution = self.report.execution
        if execution.num_runs > 1:
            run = (self.run + 1) % execution.num_runs
            self.notify(f"Run {run + 1}: {execution.run_names[run]}", timeout=2)
            self._open_run(run)

    def action_next_bsp_step(self) -> None:
        """Select the lane's next step that has per-tile cycles, and fit the window to it."""
        lane, bsp_steps = self.current_lane, self.report.execution.bsp_steps
        if lane is None or bsp_steps is None:
            self.notify(self.report.missing("bsp"), timeout=4)
            return
        pos = tv.next_position_in(lane, self.cursor_pos, bsp_steps)
        if pos < 0:
            self.notify(f"No later step on IPU {self.cursor_ipu} has per-tile cycles.", timeout=3)
            return
        self.cursor_pos = pos
        self.window = tv.around(int(lane.starts[pos]), int(lane.ends[pos]), self.bounds)
        self._redraw()

    def action_toggle_flame(self) -> None:
        self.flame_on = not self.flame_on
        self.flame_cursor = FlameCursor()
        self.set_class(self.flame_on, "flame")
        if self.flame_on and self.run not in self._flame_of_run and self.lanes is not None:
            self._start_flame(self.run)
        self._redraw()
        self.refresh_bindings()

    def action_costliest(self) -> None:
        """In the flame view, go to the block whose name costs most cycles at this depth (its largest block)."""
        flame = self.flame
        if flame is None:
            return
        depth = max(self.flame_cursor.depth, 0)
        row = flame[self.cursor_ipu][depth]
        if not len(row):
            return
        nodes, cycles = np.asarray(row.node), np.asarray(row.cycles)
        names, inverse = np.unique(nodes, return_inverse=True)
        costliest = int(np.argmax(np.bincount(inverse, weights=cycles)))
        mine = np.flatnonzero(inverse == costliest)
        block = int(mine[np.argmax(cycles[mine])])
        self.flame_cursor = FlameCursor(depth, block)
        self.cursor_pos = int(row.first[block])
        self.window = tv.around(int(row.lane.starts[block]), int(row.lane.ends[block]), self.bounds)
        self._redraw()

    def action_toggle_stats(self) -> None:
        self.show_stats = not self.show_stats
        self._redraw()

    def selected_program(self) -> int:
        """The program of the block under the cursor (its steps' deepest common one), else of the step; -1."""
        execution, programs = self.report.execution, self.report.programs
        if programs is None:
            return -1
        block, lane = self.flame_block, self.current_lane
        if block is not None:
            row, b = block
            first = int(execution.program[int(lane.steps[int(row.first[b])])])
            last = int(execution.program[int(lane.steps[int(row.stop[b]) - 1])])
            return common_program(programs, first, last)
        step = self.selected_step
        return int(execution.program[step]) if step >= 0 else -1

    async def action_show_program(self) -> None:
        program = self.selected_program()
        if program < 0 or unknown_program(self.report, program) is not None:
            self.notify("No program to show for this selection.", severity="warning", timeout=3)
            return
        await self.app.switch_mode("programs")
        screen = self.app.screen
        if hasattr(screen, "jump_to"):
            screen.jump_to(program)

    def action_toggle_bsp(self) -> None:
        self.show_stats = False
        self.show_bsp = not self.show_bsp
        self._redraw()
        if self.show_bsp:
            self.call_after_refresh(self._draw_bsp)


TRACE_ACTIONS = {binding.action.split("(")[0] for binding in TraceScreen.BINDINGS}
