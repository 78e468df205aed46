"""Trace: the steps of a run over cycles, one lane per IPU (or their nesting, in the flame view, or the
run merged by model-layer path), and under them the cursor's details, the run's step statistics or
the BSP view of an IPU's tiles."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Static

from pvtui.model.queries import unknown_program
from pvtui.model.tables import Table
from pvtui.model.trace_index import TraceIndex, has_bsp, steps_table
from pvtui.model.navigators.trace import FlameCursor, TraceNavigator, step_place
from pvtui.model.unavailable import Unavailable
from pvtui.render.trace import status_text
from pvtui.screens.base import Needs, UnavailableNotice
from pvtui.screens.trace_runs import TraceRuns
from pvtui.widgets.bsp_view import BspView
from pvtui.widgets.detail_text import PaneText
from pvtui.widgets.flame_view import FlameView
from pvtui.widgets.keys import ZOOM, ends, pages
from pvtui.widgets.look import look_of
from pvtui.widgets.palette import phase_fill_styles
from pvtui.widgets.pane_scroll import PaneScroll
from pvtui.widgets.trace_lower import TraceLower
from pvtui.widgets.trace_view import TraceState, lane_legend

PAN_STEP = 0.25  # of the window's width
TALL = 40  # rows from which the flame views take what their rows want and give the rest to the details


class TraceScreen(TraceRuns):
    """Lanes of steps over a cycle window; the cursor is a step on one IPU's lane, or a flame block.

    `nav` (a TraceNavigator) holds the run, window and cursor each key moves, what is read from the
    report (`index`: lanes, flame rows, statistics, built in workers) and which upper and lower panes
    show (`view`, `pane`): a new one is a value of its VIEWS or PANES, a key `view('…')` or `pane('…')`,
    and its drawing where `_view_shown` or TraceLower.draw dispatches.
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

    def __init__(self) -> None:
        super().__init__()
        self._composed_for: tuple[bool, bool] | None = None  # the layout key the screen was composed for

    def _layout_key(self) -> tuple[bool, bool]:
        """What decides which widgets compose yields: a trace at all, and a BSP view or its absence."""
        return self.report.execution is not None, has_bsp(self.report)

    def compose_body(self) -> ComposeResult:
        self._composed_for = self._layout_key()
        if self.report.execution is None:
            yield UnavailableNotice(Unavailable(self.report.missing("execution")))
            return
        yield PaneText(id="trace-status")  # its items on as many lines as the width needs
        yield FlameView(id="trace")
        yield Static(id="trace-legend")
        with TraceLower(initial="details", id="trace-lower"):
            with PaneScroll(id="details", can_focus=False):
                yield PaneText(id="details-text")
            with PaneScroll(id="stats", can_focus=False):
                yield PaneText(id="stats-text")
            with Vertical(id="bsp"):
                yield Static(id="bsp-status")
                if not self._composed_for[1]:
                    yield UnavailableNotice(Unavailable(self.report.missing("bsp")))
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
        self.nav.index = TraceIndex(self.report)
        self.nav.traced = self.report.execution is not None
        self.nav.operation = None
        if self.nav.traced:
            self._show_legend()
            self._open_run(self.nav.run, keep_step, keep_window)

    # The panes ------------------------------------------------------------------------

    def _view_shown(self) -> None:
        """The navigator's view is a new one: draw it."""
        self.set_class(self.nav.view != "lanes", "flame")
        if self.available:
            self._show_flame()
        self.refresh_bindings()

    def _pane_shown(self) -> None:
        """The navigator's pane is a new one: draw it."""
        if self.available:
            self.redraw()
            if self.nav.pane == "bsp":  # its size is known after the layout that shows it
                self.call_after_refresh(self._draw_bsp)

    def redraw(self) -> None:
        nav = self.nav
        merged = nav.merged
        state = TraceState(nav.run, nav.lanes, nav.window, nav.cursor_ipu, nav.cursor_pos,
                           *((("all IPUs",), "IPU-cycles") if merged is not None else ((), "cycles")),
                           origin=nav.bounds[0])
        cursor = nav.flame_cursor if nav.flame is not None else FlameCursor()
        names = merged.tree.names if merged is not None else nav.index.names
        self.query_one(FlameView).show_flame(state, nav.flame, names, cursor)
        no_programs = self.report.missing("programs") if self.report.programs is None else None
        self.query_one("#trace-status", PaneText).show(status_text(self.report, nav, self.size.width - 2,
                                                                    nav.waiting_for(no_programs)))
        if not self.query_one(TraceLower).draw(self.report, nav, self.bytes):
            self._count_steps(nav.index)

    def _draw_bsp(self) -> None:
        self.query_one(TraceLower).draw_bsp(self.report, self.nav)

    def _show_legend(self) -> None:
        """What the cells' fills mean: they change with the theme alone."""
        legend = self.query("#trace-legend")
        if legend:
            text = lane_legend(phase_fill_styles(self.app.theme_variables), look_of(self.app))
            legend.first(Static).update(text, layout=False)

    # Reactions ------------------------------------------------------------------------

    def on_resize(self) -> None:
        if self.available and self.nav.pane == "bsp":
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
        if self.nav.view == "merged":  # a step shows in the view of steps nearest it
            self.nav.show_view("flame")
            self._view_shown()
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
        pane = self.nav.pane
        self.nav.toggle_view(view)
        if self.nav.pane != pane:
            self._pane_shown()
        self._view_shown()

    def action_pane(self, pane: str) -> None:
        self.nav.toggle_pane(pane)
        self._pane_shown()

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
