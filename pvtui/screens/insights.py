"""The Insights screen: capacity, the fullest tiles, a histogram of the tiles, the largest
vertices, the liveness peaks and suggestions, one section under the other."""

from __future__ import annotations

from typing import Any

from rich.console import Group
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widget import Widget
from textual.widgets import Static
from textual.worker import get_current_worker

from pvtui.commands.insights import (
    HISTOGRAM_HEIGHT,
    SECTIONS,
    fullest_rows,
    headline,
    histogram_text,
    section_renderables,
)
from pvtui.errors import Cancelled
from pvtui.model.insights import histogram, insights
from pvtui.model.tables import Table
from pvtui.model.tile_views import TileMemory, tile_memory
from pvtui.screens.base import ReportScreen


SPLITS = ("Where to split a single-IPU model into pipeline stages is a command, not a screen:"
          " pvtui split PATH --ipus N (add --json for JSON).")


class HistogramChart(Widget):
    """The tiles counted by their bytes, one bin a column at whatever width the chart has."""

    DEFAULT_CSS = """
    HistogramChart { height: auto; }
    """

    def __init__(self, report, memory: TileMemory | None, screen: "InsightsScreen") -> None:
        super().__init__()
        self.report, self.memory, self.owner = report, memory, screen

    def render(self) -> Text:
        section = histogram(self.report, self.memory, max(self.size.width, 1))
        if not section["available"]:
            return Text(section["reason"], style="italic")
        return histogram_text(section, self.owner.bytes, HISTOGRAM_HEIGHT)


class InsightsScreen(ReportScreen):
    SCREEN_NAME = "Insights"
    DEFAULT_CSS = """
    InsightsScreen #insights { padding: 0 1; }
    InsightsScreen .heading { text-style: bold underline; margin-top: 1; }
    InsightsScreen .body { height: auto; }
    """
    BINDINGS = [
        Binding("n", "section(1)", "Next section", id="insights.next"),
        Binding("N", "section(-1)", "Previous section", key_display="N", id="insights.previous"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.data: dict[str, Any] | None = None  # the insights shown, unit-free
        self.section = 0  # the section the last n or N went to

    def compose_body(self) -> ComposeResult:
        with VerticalScroll(id="insights"):
            yield Static("Computing insights…", id="insights-progress")

    def on_mount(self) -> None:
        super().on_mount()
        self._compute(self.report)

    def report_changed(self) -> None:
        super().report_changed()
        self.data = None  # until the new report's insights are in
        self._compute(self.report)

    def units_changed(self) -> None:
        if self.data is not None:
            self.query_one("#insights-headline", Static).update(headline(self.data, self.bytes))
            for key, _ in SECTIONS:
                for widget in self.query(f".body-{key}").results(Static):
                    widget.update(self._renderable(self.data, key))
        self.query(HistogramChart).refresh()

    @work(thread=True, exclusive=True, group="insights")
    def _compute(self, report) -> None:
        worker = get_current_worker()
        try:
            data = insights(report, cancelled=lambda: worker.is_cancelled)
        except Cancelled:
            return
        memory = tile_memory(report)
        if not worker.is_cancelled:
            self.app.call_from_thread(self._show, report, data, memory)

    def _renderable(self, data: dict[str, Any], key: str) -> Group:
        return Group(*section_renderables(key, data[key], self.bytes))

    async def _show(self, report, data: dict[str, Any], memory: TileMemory | None) -> None:
        body = self.query_one("#insights", VerticalScroll)
        await body.remove_children()
        widgets: list[Widget] = [Static(headline(data, self.bytes), id="insights-headline")]
        for key, title in SECTIONS:
            widgets.append(Static(title, classes="heading", id=f"heading-{key}"))
            if key == "histogram":
                widgets.append(HistogramChart(report, memory, self))
            else:
                widgets.append(Static(self._renderable(data, key), classes=f"body body-{key}"))
        widgets += [Static("Pipeline splits", classes="heading"), Static(SPLITS, classes="body", markup=False)]
        await body.mount_all(widgets)
        self.data = data

    def action_section(self, step: int) -> None:
        """Scroll the next (STEP 1) or previous (-1) section to the top."""
        if self.data is None:
            return
        self.section = (self.section + step) % len(SECTIONS)
        heading = self.query_one(f"#heading-{SECTIONS[self.section][0]}")
        self.query_one("#insights", VerticalScroll).scroll_to_widget(heading, top=True, animate=False)

    def export_table(self) -> Table | None:
        if self.data is None:
            return None
        columns, rows = fullest_rows(self.data["fullest_tiles"])
        return Table("insights-fullest-tiles", columns, rows)
