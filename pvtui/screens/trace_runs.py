"""The Trace screen's runs: each indexed, nested into flame rows, merged by model-layer path and its steps
counted in workers (a large run's take longer than a frame), then handed to the navigator."""

from __future__ import annotations

from rich.text import Text
from textual import work

from pvtui.model.navigators.trace import TraceNavigator
from pvtui.model.step_stats import step_stats
from pvtui.model.trace_index import TraceIndex
from pvtui.screens.base import ReportScreen
from pvtui.widgets.detail_text import PaneText
from pvtui.widgets.to_ui import to_ui
from pvtui.widgets.trace_lower import TraceLower
from pvtui.widgets.trace_view import TraceView


class TraceRuns(ReportScreen):
    """What the Trace screen reads of a run, off the UI thread; each worker's answer is shown only while it
    is still the one asked for (no reload, other run or view came meanwhile). The screen draws (`redraw`)."""

    nav: TraceNavigator

    @property
    def available(self) -> bool:
        """True once the trace is composed and a run is shown."""
        return not self.opening and self.nav.index is not None and self.report.execution is not None \
            and bool(self.query(TraceView)) and self.nav.run in self.nav.index.lanes

    def _open_run(self, run: int, keep_step: int | None = None, keep_window: tuple[int, int] | None = None) -> None:
        """Show RUN, indexing its lanes in a worker the first time (a large run takes longer than a frame)."""
        index, execution = self.nav.index, self.report.execution
        assert index is not None
        run = min(max(run, 0), max(execution.num_runs - 1, 0))
        self.nav.opened += 1
        if run in index.lanes or not execution.num_runs:  # without runs, there is nothing to read
            self._show_run(run, index.lanes.get(run) or index.index_run(run), keep_step, keep_window)
        else:
            self.query_one("#trace-status", PaneText).show(Text(f"Indexing the steps of run {run + 1}…"))
            self.after_the_frame(self._index_run, index, self.nav.opened, run, keep_step, keep_window)

    @work(thread=True, exclusive=True, group="trace-index")
    def _index_run(self, index: TraceIndex, opened: int, run: int, keep_step: int | None,
                   keep_window: tuple[int, int] | None) -> None:
        lanes = index.index_run(run)
        to_ui(self, self._indexed, index, opened, run, lanes, keep_step, keep_window)

    def _indexed(self, index: TraceIndex, opened: int, run: int, lanes, keep_step, keep_window) -> None:
        if index is self.nav.index and opened == self.nav.opened:  # else a reload, or another run or step, came meanwhile
            self._show_run(run, lanes, keep_step, keep_window)

    def _show_run(self, run: int, lanes, keep_step: int | None, keep_window: tuple[int, int] | None) -> None:
        """Show RUN's LANES over KEEP_WINDOW on KEEP_STEP, or where the run opens (its first model layer)."""
        self.nav.show_run(run, lanes, keep_step, keep_window)
        opening = self.nav.index.openings.get(run)
        if keep_step is None and keep_window is None and opening is not None:
            self.nav.open_at(*opening)
        self._show_flame()

    def _show_flame(self) -> None:
        """Give the navigator the run's flame rows or merged flame where the view shows them (built first
        in a worker), and redraw."""
        nav, index = self.nav, self.nav.index
        if nav.view == "merged" and nav.run in index.merged:
            nav.show_merged(index.merged[nav.run])
        else:
            nav.leave_merged()
            nav.flame = index.flames.get(nav.run) if nav.view == "flame" else None
            if nav.view == "flame" and nav.flame is None and self.available:
                self._nest_run(index, nav.run)
            elif nav.view == "merged" and self.available:
                self._merge_run(index, nav.run)
        self.redraw()

    @work(thread=True, exclusive=True, group="trace-flame")
    def _nest_run(self, index: TraceIndex, run: int) -> None:
        index.nest_run(run)
        to_ui(self, self._nested, index, run)

    def _nested(self, index: TraceIndex, run: int) -> None:
        if index is self.nav.index and run == self.nav.run and self.nav.view == "flame":
            self.nav.flame = index.flames[run]
            self.redraw()
            self.refresh_bindings()

    @work(thread=True, exclusive=True, group="trace-merge")
    def _merge_run(self, index: TraceIndex, run: int) -> None:
        merged = index.merge_run(run)
        to_ui(self, self._merged, index, run, merged)

    def _merged(self, index: TraceIndex, run: int, merged) -> None:
        if index is not self.nav.index or run != self.nav.run or self.nav.view != "merged":
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
        if index is self.nav.index and self.nav.pane == "stats":
            self.query_one(TraceLower).draw_stats(self.report, self.nav)
