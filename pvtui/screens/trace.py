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

from pvtui.model import trace_views as tv
from pvtui.model.queries import unknown_program
from pvtui.model.step_types import PHASES, phase_of
from pvtui.model.tables import Table
from pvtui.screens.base import ReportScreen, Unavailable
from pvtui.units import format_cycles
from pvtui.widgets.bsp_view import LEVELS, BspView, bsp_cell_table
from pvtui.widgets.look import look_of
from pvtui.widgets.palette import phase_fill_styles, phase_text_styles
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
    row("Balance", f"tiles {percent(float(execution.tile_balance[step, ipu]))}  "
                   f"active tiles {percent(float(execution.active_tile_balance[step, ipu]))}")
    row("Data", f"in {fmt(int(execution.data_in[step, ipu]))}  out {fmt(int(execution.data_out[step, ipu]))}")
    header = ("IPU", "from", "to", "cycles", "balance", "active", "in", "out")
    rows = []
    for other in range(execution.num_ipus):
        begin = int(execution.cycles_from[step, other])
        rows.append((other, None) if begin < 0 else (other, (
            str(other), f"{begin:,}", f"{int(execution.cycles_to[step, other]):,}",
            f"{int(execution.cycles[step, other]):,}",
            percent(float(execution.tile_balance[step, other])),
            percent(float(execution.active_tile_balance[step, other])),
            fmt(int(execution.data_in[step, other])), fmt(int(execution.data_out[step, other])),
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


class TraceScreen(ReportScreen):
    """Lanes of steps over a cycle window; the cursor is a step on one IPU's lane."""

    SCREEN_NAME = "Trace"

    DEFAULT_CSS = """
    TraceScreen #trace-status, TraceScreen #trace-legend, TraceScreen #bsp-status {
        height: 1;
        padding: 0 1;
    }
    TraceScreen #trace-status { background: $surface; }
    TraceScreen #trace-legend, TraceScreen #bsp-status { color: $text-muted; }
    TraceScreen TraceView { height: auto; max-height: 50%; }
    TraceScreen #trace-lower {
        height: 1fr;
        min-height: 5;
        border-top: solid $panel;
    }
    TraceScreen #details { padding: 0 1; }
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
        yield Static(id="trace-status")
        yield TraceView(id="trace")
        yield Static(id="trace-legend")
        with ContentSwitcher(initial="details", id="trace-lower"):
            with VerticalScroll(id="details", can_focus=False):
                yield Static(id="details-text")
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
            self.query_one("#trace-status", Static).update(f"Indexing the steps of run {run + 1}…")
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
        lane = self.current_lane
        if lane is None or self.cursor_pos < 0:
            return None
        return int(lane.starts[self.cursor_pos]), int(lane.ends[self.cursor_pos])

    # Drawing ---------------------------------------------------------------------

    def _redraw(self) -> None:
        trace = self.query_one(TraceView)
        trace.show(TraceState(self.run, self.lanes, self.window, self.cursor_ipu, self.cursor_pos))
        self.query_one("#trace-status", Static).update(self._status_text())
        self.query_one("#trace-legend", Static).update(self._legend_text())
        self.query_one(ContentSwitcher).current = "bsp" if self.show_bsp else "details"
        if self.show_bsp:
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
        text = Text()
        if execution.num_runs:
            text.append(f"Run {self.run + 1}/{execution.num_runs} {execution.run_names[self.run]}", style="bold")
        else:
            text.append("no runs", style="bold")
        text.append(f"  cycles {format_cycles(lo)}–{format_cycles(hi)}  {zoom_text}")
        text.append(f"  IPU {self.cursor_ipu}  step {step:,}" if step >= 0 else f"  IPU {self.cursor_ipu}  no steps")
        return text

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
        if step < 0:
            details.update(f"IPU {self.cursor_ipu} ran no steps in this run.")
            return
        styles = phase_text_styles(self.app.theme_variables)
        details.update(step_details(self.report, step, self.cursor_ipu, self.bytes, styles))

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
            f"tile cycles: {frame.steps_with_data}/{frame.steps_shown} steps drawn · ",
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
        self.operation = None
        if self._layout_key() != self._composed_for:
            self.call_later(self._rebuild)
            return
        if self.report.execution is not None:
            self._open_run(self.run, keep_step=self.selected_step, keep_window=self.window)

    async def _rebuild(self) -> None:
        """The reload gained or lost the execution profile or its per-tile cycles: compose the screen again."""
        await self.recompose()
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
        self.cursor_pos = min(max(self.cursor_pos + delta, 0), len(lane) - 1)
        self._show_cursor()
        self._redraw()

    def action_lane(self, delta: int) -> None:
        if not self.lanes:
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

    def action_toggle_bsp(self) -> None:
        self.show_bsp = not self.show_bsp
        self._redraw()
        if self.show_bsp:
            self.call_after_refresh(self._draw_bsp)


TRACE_ACTIONS = {binding.action.split("(")[0] for binding in TraceScreen.BINDINGS}
