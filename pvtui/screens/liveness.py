"""Liveness: memory against program step, the peak marked, what is live at the cursor step."""

from __future__ import annotations

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.reactive import var
from textual.worker import get_current_worker

from pvtui.model.navigators.liveness import (VIEWS, LivenessNavigator, StepSeries, compare_steps, steps_table,
                                             tile_series)
from pvtui.model.tables import Table
from pvtui.model.unavailable import Unavailable
from pvtui.render.liveness import Marks, live_list, step_facts
from pvtui.render.step_change import step_columns
from pvtui.screens.base import SHORT, Needs, ReportScreen, UnavailableNotice
from pvtui.widgets.detail_text import PaneText
from pvtui.widgets.keys import ZOOM, ends, pages
from pvtui.widgets.live_variables import LiveVariables
from pvtui.widgets.liveness_chart import LivenessChart
from pvtui.widgets.look import look_of
from pvtui.widgets.to_ui import to_ui


class LivenessScreen(ReportScreen):
    """The chart of memory against step, and under it the cursor step's facts and live variables.

    `nav` (a LivenessNavigator) holds the cursor, window, mark and the series each view draws; `view`
    chooses the chart's series (all IPUs, an IPU, a tile): a new one is a value of VIEWS, its series
    in the navigator's `series`.
    """

    SCREEN_NAME = "Liveness"

    DEFAULT_CSS = """
    LivenessScreen #details {
        height: 9;
        background: $surface;
    }
    LivenessScreen #step-facts {
        width: 42;
        height: 1fr;
        padding: 0 1;
        text-wrap: nowrap;
        text-overflow: ellipsis;
    }
    LivenessScreen #view-missing {
        height: 1fr;
    }
    """

    GIVES_WAY = ("liveness.ipu", "liveness.tile_prev", "liveness.tile_next", "liveness.fit", "liveness.always_live")  # on a narrow key bar
    BINDINGS = [
        Binding("left", "step(-1)", "Previous step", show=False),
        Binding("right", "step(1)", "Next step", show=False),
        Binding("shift+left", "move(-1)", "Previous column", show=False),
        Binding("shift+right", "move(1)", "Next column", show=False),
        *pages("Back one chart width", "Forward one chart width"),
        *ends("First step", "Last step"),
        Binding("k", "peak", "Go to peak", id="liveness.peak"),
        Binding("v", "next_view", "Next view", id="liveness.view"),
        Binding("I", "next_ipu", "Next IPU", key_display="I", id="liveness.ipu"),
        Binding("left_square_bracket", "tile(-1)", "Previous tile", key_display="[", id="liveness.tile_prev"),
        Binding("right_square_bracket", "tile(1)", "Next tile", key_display="]", id="liveness.tile_next"),
        *ZOOM,
        Binding("0", "fit", "Fit all", id="liveness.fit"),
        Binding("a", "next_band", "Always-live band", id="liveness.always_live"),
        Binding("b", "mark", "Mark to compare", id="liveness.mark"),
        Binding("c", "compare_marks", "Compare marks", id="liveness.compare_marks"),
    ]
    NAVIGATOR = LivenessNavigator
    nav: LivenessNavigator
    EVERY_KEY = Needs(shown=("has_steps",))
    KEYS = {"next_ipu": Needs(shown=("ipu_view",)), "tile": Needs(shown=("tile_view",)),
            "compare_marks": Needs(shown=("several_marked",))}
    MOVES = {"step": "step", "page": "page", "move_to_end": "to_end", "zoom": "zoom", "fit": "fit",
             "next_ipu": "next_ipu", "tile": "next_tile", "next_band": "next_band"}

    view = var(VIEWS[0], init=False)
    _listed: tuple = ()  # what the variables panel was last listed for

    def compose_body(self) -> ComposeResult:
        yield UnavailableNotice(id="liveness-missing")
        with Vertical(id="liveness-body", classes="unpainted"):
            yield LivenessChart(id="chart")
            yield UnavailableNotice(id="view-missing")
            with Horizontal(id="details"):
                yield PaneText(id="step-facts")  # its size is the pane's: never laid out again on a key
                yield LiveVariables(id="live-variables")

    def show_report(self) -> None:
        self._fit_details()
        self.query_one(LivenessChart).units = self.pv_app.units
        live = self.report.liveness
        step = self.pv_app.remembered("step")  # the cursor where it was left, else on the peak
        if live is not None and isinstance(step, int) and step < len(live):
            self._load(peak=step)
        else:
            self._load(peak=live.peak_step if live is not None and len(live) else None)
        self.call_after_refresh(self.redraw)  # the zoom shown depends on the chart's width, known after layout

    def remembered_place(self) -> dict:
        return {"step": int(self.nav.cursor)} if self.nav.num_steps else {}

    def _load(self, peak: int | None) -> None:
        live = self.report.liveness
        tiles = None if live is None or live.by_tile is None else live.by_tile.shape[1]
        self.nav.load(0 if live is None else len(live), tiles, peak)
        self.redraw()

    def on_resize(self) -> None:
        if not self.opening:
            self._fit_details()
            self.call_after_refresh(self.redraw)  # the zoom shown depends on the chart's new width

    def _fit_details(self) -> None:
        height = self.size.height
        # on a short terminal the details give way to the chart
        self.query_one("#details").styles.height = height * 3 // 10 if height < SHORT else min(16, max(9, height // 4))
        self.query_one("#step-facts").styles.width = min(72, max(42, self.size.width * 2 // 5))

    # What is shown ------------------------------------------------------------------

    def redraw(self) -> None:
        live = self.report.liveness
        missing = self.query_one("#liveness-missing", UnavailableNotice)
        body = self.query_one("#liveness-body")
        if live is None or not len(live):
            missing.show(Unavailable(self.report.missing("liveness") if live is None else
                                     "The liveness profile has no steps."))
            body.display = False
            return
        missing.show(None)
        body.display = True
        series, why_not = self.nav.series(self.report)
        tile = self.nav.tile_to_read()
        if tile is not None:
            self._read_tile(self.report, tile)
        view_missing = self.query_one("#view-missing", UnavailableNotice)
        view_missing.show(why_not if series is None else None)
        chart = self.query_one(LivenessChart)
        chart.display = not view_missing.display
        chart.show(series, self.nav.window, self.nav.cursor, self.nav.marked, self.nav.band)
        self._show_details(series, chart.plot_width)

    def _show_details(self, series: StepSeries | None, chart_width: int) -> None:
        look = look_of(self.app)
        glyphs = look.glyphs
        # plain, the chart's textures, not its greys, tell the two apart
        marks = Marks(glyphs.shades[1], glyphs.blocks[8], glyphs.marked) if look.plain else Marks(marked=glyphs.marked)
        facts = self.query_one("#step-facts", PaneText)
        width = facts.content_size.width or 40  # set on a resize, in _fit_details
        facts.show_lines(step_facts(self.report, self.nav, series, width, chart_width, self.bytes, marks))
        listed = (self.report, self.nav.cursor, self.nav.marked, self.nav.view, self.pv_app.units, self.minus)
        if listed != self._listed:  # a zoom or a pan leaves the step, and its variables, as they were
            self._listed = listed
            self.query_one(LiveVariables).show(*live_list(self.report, self.nav, self.bytes, self.minus))

    @work(thread=True, exclusive=True, group="liveness-tile")
    def _read_tile(self, report, tile: int) -> None:
        """One tile's column: strided reads over the memory map, off the UI thread, given up when cancelled."""
        series = tile_series(report, tile, lambda: get_current_worker().is_cancelled)
        if series is not None:
            to_ui(self, self._tile_read, report, tile, series)

    def _tile_read(self, report, tile: int, series: StepSeries) -> None:
        if report is self.report and self.nav.tile_read(tile, series):  # else a reload came in meanwhile
            self.redraw()

    def export_table(self) -> Table | None:
        """Every step: its program, not-always-live, always-live and total bytes, and each IPU's share."""
        return steps_table(self.report)

    # Keeping state across reloads and units -------------------------------------------

    def units_changed(self) -> None:
        chart = self.query_one(LivenessChart)
        chart.units = self.pv_app.units
        chart.clear_caches()
        self.redraw()

    def report_changed(self) -> None:
        super().report_changed()
        self.query_one(LivenessChart).clear_caches()
        self._load(peak=None)

    # Actions --------------------------------------------------------------------------

    def watch_view(self, view: str) -> None:
        self.nav.view = view
        self.refresh_bindings()
        self.redraw()

    def go_to(self, step: int) -> None:
        self.nav.go_to(step)
        self.redraw()

    def action_move(self, columns: int) -> None:
        self.nav.move(columns, self.query_one(LivenessChart).plot_width)
        self.redraw()

    def action_peak(self) -> None:
        self.nav.to_peak(self.report)
        self.redraw()

    def action_next_view(self) -> None:
        self.view = VIEWS[(VIEWS.index(self.view) + 1) % len(VIEWS)]

    def action_mark(self) -> None:
        """Mark the cursor's step (or clear the mark on it): the details then compare the cursor's step with it."""
        self.nav.mark()
        if self.nav.marked is not None:
            marked = look_of(self.app).glyphs.marked
            more = len(self.nav.marks)  # with one, the line stays short enough to leave keys beside it at 80 columns
            self.notify(f"Step {self.nav.marked:,} marked ({marked} on the chart): move to another step to compare."
                        if more < 2 else f"Step {self.nav.marked:,} marked: {more} steps marked, c compares them.",
                        timeout=3)
        self.redraw()

    def action_compare_marks(self) -> None:
        """The marked steps and the cursor's, column by column (render.step_change.step_columns)."""
        from pvtui.screens.columns_dialog import ColumnsDialog  # here: its DataTable was 6 ms of the first showing

        columns = compare_steps(self.report, self.nav.compared)
        self.app.push_screen(ColumnsDialog(f"{len(columns)} steps compared, each with the one before it",
                                           *step_columns(columns, self.bytes, self.minus),
                                           "b on a step marks or unmarks it · Esc closes"))

    def on_liveness_chart_picked(self, message: LivenessChart.Picked) -> None:
        self.go_to(message.step)
