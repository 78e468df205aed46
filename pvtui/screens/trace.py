"""Trace: the steps of a run over cycles, one lane per IPU (or their nesting, in the flame view, or the
run merged by model-layer path), and under them the cursor's details, the run's step statistics or
the BSP view of an IPU's tiles."""

from __future__ import annotations

from rich.style import Style
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.reactive import var
from textual.widgets import ContentSwitcher, Static

from pvtui.model.queries import unknown_program
from pvtui.model.step_stats import step_stats
from pvtui.model.tables import Table
from pvtui.model.trace_index import TraceIndex, has_bsp, steps_table
from pvtui.model.navigators.trace import FlameCursor, TraceNavigator, step_place
from pvtui.render.trace import cursor_details, merged_details, stats_text, status_text
from pvtui.screens.base import Needs, ReportScreen, Unavailable
from pvtui.widgets.bsp_view import BspView
from pvtui.widgets.detail_text import PaneText
from pvtui.widgets.flame_view import FlameView
from pvtui.widgets.keys import ZOOM, ends, pages
from pvtui.widgets.look import look_of
from pvtui.widgets.palette import phase_fill_styles, phase_text_styles
from pvtui.widgets.to_ui import to_ui
from pvtui.widgets.trace_view import TraceState, TraceView, lane_legend

PAN_STEP = 0.25  # of the window's width
# the upper pane: each IPU's lane of steps, or also its depth rows under it, or the run merged by path
VIEWS = ("lanes", "flame", "merged")
TALL = 40  # rows from which the flame views take what their rows want and give the rest to the details
PANES = ("details", "stats", "bsp")  # the lower pane: the cursor's details, step statistics, the BSP view


class TraceScreen(ReportScreen):
    """Lanes of steps over a cycle window; the cursor is a step on one IPU's lane, or a flame block.

    `nav` (a TraceNavigator) holds the run, window and cursor each key moves; `index` what is read
    from the report (lanes, flame rows, statistics), built in workers. `view` and `pane` choose the
    upper and lower panes: a new one is a value there, a key `view('…')` or `pane('…')`, and its
    drawing where `watch_view` or `_draw_lower` dispatches.
    """

    SCREEN_NAME = "Trace"
    VERTICAL_BREAKPOINTS = [(0, "short"), (TALL, "tall")]

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
    /* tall: the flame as tall as its rows want, the rest to the step's details */
    TraceScreen.flame.tall TraceView { height: auto; max-height: 75%; }
    TraceScreen.flame.tall #trace-lower { height: 1fr; min-height: 8; }
    TraceScreen #trace-lower {
        height: 1fr;
        min-height: 5;
        border-top: solid $panel;
    }
    TraceScreen #details, TraceScreen #stats { padding: 0 1; }
    """

    GIVES_WAY = ("trace.fit", "trace.host_waits", "trace.program", "trace.run", "trace.operation_step")  # on a narrow key bar
    BINDINGS = [
        Binding("left", "step(-1)", "Previous step", show=False, id="trace.previous"),
        Binding("right", "step(1)", "Next step", show=False, id="trace.next"),
        Binding("up", "lane(-1)", "Previous IPU", show=False, id="trace.lane_up"),
        Binding("down", "lane(1)", "Next IPU", show=False, id="trace.lane_down"),
        *ZOOM,
        Binding("0", "fit", "Fit run", id="trace.fit"),
        Binding("b", "pane('bsp')", "BSP/details", id="trace.bsp"),
        Binding("f", "view('flame')", "Flame", id="trace.flame"),
        Binding("M", "view('merged')", "Merged", key_display="M", id="trace.merged"),
        Binding("c", "costliest", "Costliest", id="trace.costliest"),
        Binding("h", "toggle_host_waits", "Host waits", id="trace.host_waits"),
        Binding("S", "pane('stats')", "Stats", key_display="S", id="trace.stats"),
        Binding("P", "show_program", "Program", key_display="P", id="trace.program"),
        Binding("r", "next_run", "Next run", id="trace.run"),
        Binding("n", "next_bsp_step", "Next step with per-tile cycles", show=False, id="trace.next_bsp"),
        Binding("shift+left,comma", f"pan({-PAN_STEP})", "Pan left", key_display=",", show=False,
                id="trace.pan_left"),
        Binding("shift+right,full_stop", f"pan({PAN_STEP})", "Pan right", key_display=".", show=False,
                id="trace.pan_right"),
        *pages("Pan a window left", "Pan a window right"),
        *ends("Run start", "Run end"),
        Binding("T", "next_operation_step", "Next op step", key_display="T", id="trace.operation_step"),
    ]
    NAVIGATOR = TraceNavigator
    nav: TraceNavigator
    EVERY_KEY = Needs(shown=("traced",))
    KEYS = {"costliest": Needs(shown=("has_flame",)), "toggle_host_waits": Needs(shown=("has_flame",)),
            "next_operation_step": Needs(shown=("following",)), "pane('bsp')": Needs(shown=("stepped",)),
            "next_bsp_step": Needs(shown=("stepped",))}
    MOVES = {"step": "step", "zoom": "zoom", "pan": "pan", "page": "page", "move_to_end": "to_end", "fit": "fit",
             "costliest": "costliest", "toggle_host_waits": "toggle_host_waits"}

    view = var(VIEWS[0], init=False)
    pane = var(PANES[0], init=False)

    def __init__(self) -> None:
        super().__init__()
        self.index: TraceIndex | None = None  # the report's, from the first show on
        self._composed_for: tuple[bool, bool] | None = None  # the layout key the screen was composed for
        self._opened = 0  # counts the runs asked for: the indexing of one asked for since is not shown
        self._left = VIEWS[0]  # the view shown before the one shown now

    def _layout_key(self) -> tuple[bool, bool]:
        """What decides which widgets compose yields: a trace at all, and a BSP view or its absence."""
        return self.report.execution is not None, has_bsp(self.report)

    def compose_body(self) -> ComposeResult:
        self._composed_for = self._layout_key()
        if self.report.execution is None:
            yield Unavailable(self.report.missing("execution"))
            return
        yield PaneText(id="trace-status")  # its items on as many lines as the width needs
        yield FlameView(id="trace")
        yield Static(id="trace-legend")
        with ContentSwitcher(initial="details", id="trace-lower"):
            with VerticalScroll(id="details", can_focus=False):
                yield PaneText(id="details-text")
            with VerticalScroll(id="stats", can_focus=False):
                yield PaneText(id="stats-text")
            with Vertical(id="bsp"):
                yield Static(id="bsp-status")
                if not self._composed_for[1]:
                    yield Unavailable(self.report.missing("bsp"))
                else:
                    yield BspView(id="bsp-view")

    def show_report(self) -> None:
        run, window = self.pv_app.remembered("run"), self.pv_app.remembered("window")
        if isinstance(run, int):
            self.nav.run = run  # clamped to the report's runs when it opens
        self._load(keep_step=None, keep_window=tuple(window) if isinstance(window, list) else None)

    def remembered_place(self) -> dict:
        return {"run": int(self.nav.run), "window": [int(n) for n in self.nav.window]} if self.available else {}

    def _load(self, keep_step: int | None, keep_window: tuple[int, int] | None) -> None:
        """Show the report's trace: the run shown before, over KEEP_WINDOW and on KEEP_STEP where they are."""
        self.index = TraceIndex(self.report)
        self.nav.traced = self.report.execution is not None
        self.nav.operation = None
        if self.nav.traced:
            self._show_legend()
            self._open_run(self.nav.run, keep_step, keep_window)

    @property
    def available(self) -> bool:
        """True once the trace is composed and a run is shown."""
        return not self.opening and self.index is not None and self.report.execution is not None \
            and bool(self.query(TraceView)) and self.nav.run in self.index.lanes

    # Runs and their flame rows, read in workers ------------------------------------

    def _open_run(self, run: int, keep_step: int | None = None, keep_window: tuple[int, int] | None = None) -> None:
        """Show RUN, indexing its lanes in a worker the first time (a large run takes longer than a frame)."""
        index, execution = self.index, self.report.execution
        assert index is not None
        run = min(max(run, 0), max(execution.num_runs - 1, 0))
        self._opened += 1
        if run in index.lanes or not execution.num_runs:  # without runs, there is nothing to read
            self._show_run(run, index.lanes.get(run) or index.index_run(run), keep_step, keep_window)
        else:
            self.query_one("#trace-status", PaneText).show(Text(f"Indexing the steps of run {run + 1}…"))
            self._index_run(index, self._opened, run, keep_step, keep_window)

    @work(thread=True, exclusive=True, group="trace-index")
    def _index_run(self, index: TraceIndex, opened: int, run: int, keep_step: int | None,
                   keep_window: tuple[int, int] | None) -> None:
        lanes = index.index_run(run)
        to_ui(self, self._indexed, index, opened, run, lanes, keep_step, keep_window)

    def _indexed(self, index: TraceIndex, opened: int, run: int, lanes, keep_step, keep_window) -> None:
        if index is self.index and opened == self._opened:  # else a reload, or another run or step, came meanwhile
            self._show_run(run, lanes, keep_step, keep_window)

    def _show_run(self, run: int, lanes, keep_step: int | None, keep_window: tuple[int, int] | None) -> None:
        """Show RUN's LANES over KEEP_WINDOW on KEEP_STEP, or where the run opens (its first model layer)."""
        self.nav.show_run(run, lanes, keep_step, keep_window)
        opening = self.index.openings.get(run)
        if keep_step is None and keep_window is None and opening is not None:
            self.nav.open_at(*opening)
        self._show_flame()

    def _show_flame(self) -> None:
        """Give the navigator the run's flame rows or merged flame where the view shows them (built first
        in a worker), and redraw."""
        nav, index = self.nav, self.index
        if self.view == "merged" and nav.run in index.merged:
            nav.show_merged(index.merged[nav.run])
        else:
            nav.leave_merged()
            nav.flame = index.flames.get(nav.run) if self.view == "flame" else None
            if self.view == "flame" and nav.flame is None and self.available:
                self._nest_run(index, nav.run)
            elif self.view == "merged" and self.available:
                self._merge_run(index, nav.run)
        self.redraw()

    @work(thread=True, exclusive=True, group="trace-flame")
    def _nest_run(self, index: TraceIndex, run: int) -> None:
        index.nest_run(run)
        to_ui(self, self._nested, index, run)

    def _nested(self, index: TraceIndex, run: int) -> None:
        if index is self.index and run == self.nav.run and self.view == "flame":
            self.nav.flame = index.flames[run]
            self.redraw()
            self.refresh_bindings()

    @work(thread=True, exclusive=True, group="trace-merge")
    def _merge_run(self, index: TraceIndex, run: int) -> None:
        merged = index.merge_run(run)
        to_ui(self, self._merged, index, run, merged)

    def _merged(self, index: TraceIndex, run: int, merged) -> None:
        if index is not self.index or run != self.nav.run or self.view != "merged":
            return
        if merged is not None:  # else no program table to merge by: the status line says so
            self.nav.show_merged(merged)
        self.redraw()
        self.refresh_bindings()

    @work(thread=True, exclusive=True, group="trace-stats")
    def _count_steps(self, index: TraceIndex) -> None:
        """The step statistics, off the UI thread: a large report's take longer than a frame."""
        index.stats, index.counted = step_stats(index.report), True
        to_ui(self, self._steps_counted, index)

    def _steps_counted(self, index: TraceIndex) -> None:
        if index is self.index and self.pane == "stats":
            self._draw_stats()

    # The panes ------------------------------------------------------------------------

    def watch_view(self, view: str) -> None:
        self.set_class(view != "lanes", "flame")
        self.nav.flame_cursor = FlameCursor()
        if view == "merged" and self.pane == "bsp":  # the BSP view draws one IPU's steps, which merged are not
            self.pane = "details"
        if self.available:
            self._show_flame()
        self.refresh_bindings()

    def watch_pane(self, pane: str) -> None:
        if self.available:
            self.redraw()
            if pane == "bsp":  # its size is known after the layout that shows it
                self.call_after_refresh(self._draw_bsp)

    def redraw(self) -> None:
        nav = self.nav
        merged = nav.merged
        state = TraceState(nav.run, nav.lanes, nav.window, nav.cursor_ipu, nav.cursor_pos,
                           *((("all IPUs",), "IPU-cycles") if merged is not None else ((), "cycles")),
                           origin=nav.bounds[0])
        cursor = nav.flame_cursor if nav.flame is not None else FlameCursor()
        names = merged.tree.names if merged is not None else self.index.names
        self.query_one(FlameView).show_flame(state, nav.flame, names, cursor)
        self.query_one("#trace-status", PaneText).show(status_text(self.report, nav, self.size.width - 2,
                                                                    self._waiting_for()))
        self.query_one(ContentSwitcher).current = self.pane
        self._draw_lower()

    def _waiting_for(self) -> str | None:
        """What the view shown waits for (or lacks), in words; None when it shows."""
        if self.view == "lanes" or self.nav.flame is not None:
            return None
        if self.view == "flame":
            return "nesting the steps…"
        if self.report.programs is None:
            return f"no merged view: {self.report.missing('programs')}"
        return "merging the run's steps by model layer…"

    def _draw_lower(self) -> None:
        {"details": self._draw_details, "stats": self._draw_stats, "bsp": self._draw_bsp}[self.pane]()

    def _draw_details(self) -> None:
        nav, index = self.nav, self.index
        if nav.merged is not None:
            muted = phase_text_styles(self.app.theme_variables).get("muted", Style(dim=True))
            text = merged_details(nav.merged, nav.selected_node, nav.flame_block is None, muted)
            self.query_one("#details-text", PaneText).show(text)
            return
        cycles = index.run_cycles.get(nav.run, ())
        run_cycles = cycles[nav.cursor_ipu] if nav.cursor_ipu < len(cycles) else 0
        styles = phase_text_styles(self.app.theme_variables)
        text = cursor_details(self.report, nav, index.nesting, run_cycles, self.bytes, styles)
        self.query_one("#details-text", PaneText).show(text)

    def _draw_stats(self) -> None:
        styles, index = phase_text_styles(self.app.theme_variables), self.index
        panel = self.query_one("#stats-text", PaneText)
        if not index.counted:
            panel.show(Text("Counting the steps of each type…", style=styles.get("muted", Style(dim=True))))
            self._count_steps(index)
            return
        width = max(self.query_one("#trace-lower").size.width - 2, 40)
        panel.show(stats_text(index.stats, self.nav.run, styles, self.nav.cursor_ipu, width,
                              self.report.execution.total_cycles))

    def _draw_bsp(self) -> None:
        status, views = self.query_one("#bsp-status", Static), self.query(BspView)
        nav, report = self.nav, self.report
        if not views or not has_bsp(report):  # no per-tile cycles, or a reload is recomposing the screen
            status.update("")
        elif nav.current_lane is None:
            status.update(f"IPU {nav.cursor_ipu} ran no steps in this run.")
        else:
            status.update(views.first().draw(report.execution, report.target.tiles_per_ipu, nav.current_lane,
                                             nav.cursor_ipu, nav.window, (nav.generation, nav.run)))

    def _show_legend(self) -> None:
        """What the cells' fills mean: they change with the theme alone."""
        legend = self.query("#trace-legend")
        if legend:
            text = lane_legend(phase_fill_styles(self.app.theme_variables), look_of(self.app))
            legend.first(Static).update(text, layout=False)

    # Reactions ------------------------------------------------------------------------

    def on_resize(self) -> None:
        if self.available and self.pane == "bsp":
            self.call_after_refresh(self._draw_bsp)

    def theme_changed(self) -> None:
        if self.available:
            self._show_legend()
            self.redraw()

    def units_changed(self) -> None:
        if self.available:
            self.redraw()

    def report_changed(self) -> None:
        super().report_changed()
        keep_step, keep_window = self.nav.lanes_place()
        if self._layout_key() != self._composed_for:
            self.call_later(self._rebuild)
        else:
            self._load(keep_step, keep_window)

    async def _rebuild(self) -> None:
        """The reload gained or lost the execution profile or its per-tile cycles: compose the screen again."""
        await self.recompose()
        self._load(keep_step=None, keep_window=None)

    def export_table(self) -> Table | None:
        """The steps of the run shown, in step order: program, type, phase, and each IPU's cycles."""
        return steps_table(self.report, self.nav.run)

    def show_step(self, step: int, ipu: int | None = None) -> bool:
        """Select execution STEP (an absolute index) on IPU, or the first IPU it ran on, opening its run."""
        execution = self.report.execution
        if execution is None or not 0 <= step < execution.num_steps:
            return False
        if self.view == "merged":  # a step shows in the view of steps nearest it
            self.view = "flame"
        run, self.nav.cursor_ipu, window = step_place(execution, step, ipu)
        self._open_run(run, keep_step=step, keep_window=window)
        return True

    def follow_operation(self, name: str, steps: list[int]) -> None:
        """Show the next of STEPS, the execution steps of operation NAME: the first, unless it is followed already."""
        self.nav.follow(name, steps)
        self.action_next_operation_step()

    # Actions ----------------------------------------------------------------------------

    def action_lane(self, delta: int) -> None:
        if self.nav.move_row(delta, self.query_one(FlameView).rows):
            self.redraw()

    def action_view(self, view: str) -> None:
        """VIEW; its key again goes back: from the merged view to the view it came from, else to the lanes."""
        if self.view != view:
            self._left, self.view = self.view, view
        else:
            self.view = self._left if view == "merged" and self._left != view else "lanes"

    def action_pane(self, pane: str) -> None:
        self.pane = "details" if self.pane == pane else pane

    def action_next_run(self) -> None:
        execution = self.report.execution
        if execution.num_runs > 1:
            run = (self.nav.run + 1) % execution.num_runs
            self.notify(f"Run {run + 1}: {execution.run_names[run]}", timeout=2)
            self._open_run(run)

    def action_next_bsp_step(self) -> None:
        """Select the lane's next step that has per-tile cycles, and fit the window to it."""
        bsp_steps = self.report.execution.bsp_steps
        if self.nav.current_lane is None or bsp_steps is None:
            self.notify(self.report.missing("bsp"), timeout=4)
        elif not self.nav.next_of(bsp_steps):
            self.notify(f"No later step on IPU {self.nav.cursor_ipu} has per-tile cycles.", timeout=3)
        else:
            self.redraw()

    def action_next_operation_step(self) -> None:
        step = self.nav.next_operation_step()
        if step is None:
            return
        self.show_step(step)
        name, steps = self.nav.operation
        self.notify(f"{name}: step {self.nav.operation_at + 1:,} of {len(steps):,} (execution step {step:,})",
                    timeout=3)
        self.refresh_bindings()

    async def action_show_program(self) -> None:
        report = self.report
        program = self.nav.selected_program(report.execution, report.programs)
        if program < 0 or unknown_program(report, program) is not None:
            self.notify("No program to show for this selection.", severity="warning", timeout=3)
            return
        await self.show_program(program)
