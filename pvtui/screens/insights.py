"""The Insights screen: capacity, the fullest tiles, a histogram of the tiles, the largest
vertices, the liveness peaks, suggestions and pipeline splits, one section under the other."""

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

from pvtui.errors import Cancelled
from pvtui.model.navigators.insights import InsightsNavigator
from pvtui.model.insights import insights
from pvtui.model.splits import DEFAULT_LAYER_PATTERN, split_data
from pvtui.model.tables import Table
from pvtui.model.navigators.memory import TileMemory, tile_memory
from pvtui.render.insights import SECTIONS, fullest_rows, headline, section_renderables
from pvtui.render.split import split_renderables
from pvtui.screens.base import Needs, ReportScreen
from pvtui.units import count_of
from pvtui.widgets.histogram_chart import HistogramChart
from pvtui.widgets.to_ui import to_ui

SPLITS = "splits"  # the last section, computed apart as its IPU count changes
NAVIGATION = (*(key for key, _ in SECTIONS), SPLITS)
PATTERN_HINT = "; pvtui split PATH --ipus N --layer-pattern REGEX takes another"
SECTION_KEYS = Binding.Group("Section")


class InsightsScreen(ReportScreen):
    """The insights' sections one under the other, then the pipeline splits; n and N go from section to
    section, + and - split over more or fewer IPUs. `nav` (an InsightsNavigator) holds the insights and
    the split shown, computed in workers; render/insights.py and render/split.py word them."""

    SCREEN_NAME = "Insights"
    DEFAULT_CSS = """
    InsightsScreen #insights { padding: 0 1; }
    InsightsScreen .heading { text-style: bold underline; margin-top: 1; }
    InsightsScreen .body { height: auto; }
    """
    BINDINGS = [
        # n and N share one key bar entry, so that the key bar keeps u, ? and q at 80 columns
        Binding("n", "section(1)", "Next section", id="insights.next", group=SECTION_KEYS),
        Binding("N", "section(-1)", "Previous section", key_display="N", id="insights.previous",
                group=SECTION_KEYS),
        Binding("plus", "split_ipus(1)", "More IPUs", key_display="+", id="insights.more_ipus"),
        Binding("minus", "split_ipus(-1)", "Fewer IPUs", key_display="-", id="insights.fewer_ipus"),
    ]
    KEYS = {
        "split_ipus(1)": Needs(usable=("split_shown", "more_ipus_fit")),
        "split_ipus(-1)": Needs(usable=("split_shown", "fewer_ipus_fit")),
    }

    NAVIGATOR = InsightsNavigator
    nav: InsightsNavigator

    def compose_body(self) -> ComposeResult:
        with VerticalScroll(id="insights"):
            yield Static("Computing insights…", id="insights-progress")

    def show_report(self) -> None:
        self.after_the_frame(self._compute, self.report)
        self.after_the_frame(self._compute_split, self.report, self.nav.ipus)

    def report_changed(self) -> None:
        super().report_changed()
        self.nav.forget()
        self._compute(self.report)
        self._compute_split(self.report, self.nav.ipus)

    def units_changed(self) -> None:
        data = self.nav.data
        if data is not None:
            self.query_one("#insights-headline", Static).update(headline(data, self.bytes))
            for key, _ in SECTIONS:
                for widget in self.query(f".body-{key}").results(Static):
                    widget.update(self._renderable(data, key))
        self._update_split()
        for chart in self.query(HistogramChart):
            chart.units = self.pv_app.units

    @work(thread=True, exclusive=True, group="insights")
    def _compute(self, report) -> None:
        worker = get_current_worker()
        try:
            data = insights(report, cancelled=lambda: worker.is_cancelled)
        except Cancelled:
            return
        memory = tile_memory(report)
        if not worker.is_cancelled:
            to_ui(self, self._show, report, data, memory)

    def _renderable(self, data: dict[str, Any], key: str) -> Group:
        return Group(*section_renderables(key, data[key], self.bytes))

    async def _show(self, report, data: dict[str, Any], memory: TileMemory | None) -> None:
        body = self.query_one("#insights", VerticalScroll)
        await body.remove_children()
        widgets: list[Widget] = [Static(headline(data, self.bytes), id="insights-headline")]
        for key, title in SECTIONS:
            widgets.append(Static(title, classes="heading", id=f"heading-{key}"))
            if key == "histogram":
                widgets.append(HistogramChart(report, memory, self.pv_app.units))
            else:
                widgets.append(Static(self._renderable(data, key), classes=f"body body-{key}"))
        widgets += [Static("Pipeline splits", classes="heading", id=f"heading-{SPLITS}"),
                    Static(self._split_renderable(), classes="body", id="split-body")]
        await body.mount_all(widgets)
        self.nav.data = data

    def action_section(self, step: int) -> None:
        """Scroll the next (STEP 1) or previous (-1) section to the top."""
        section = self.nav.go(step, len(NAVIGATION))
        if section is not None:
            self._scroll_to(NAVIGATION[section])

    def _scroll_to(self, section: str) -> None:
        heading = self.query_one(f"#heading-{section}")
        self.query_one("#insights", VerticalScroll).scroll_to_widget(heading, top=True, animate=False)

    # Pipeline splits ---------------------------------------------------------------

    @work(thread=True, exclusive=True, group="split")
    def _compute_split(self, report, ipus: int) -> None:
        data = split_data(report, ipus, DEFAULT_LAYER_PATTERN)
        if not get_current_worker().is_cancelled:
            to_ui(self, self._show_split, data)

    def _show_split(self, data: dict[str, Any]) -> None:
        again = self.nav.split_in(data)
        self._update_split()
        self.refresh_bindings()
        if again is not None:  # a reload left fewer layers than IPUs
            self._compute_split(self.report, again)

    def _split_renderable(self) -> Group | Text:
        split, ipus = self.nav.split, self.nav.ipus
        if split is None:
            return Text(f"Computing the split over {count_of(ipus, 'IPU')}…", style="italic")
        return Group(*split_renderables(split, self.bytes, boxed=False, pattern_hint=PATTERN_HINT))

    def _update_split(self) -> None:
        for widget in self.query("#split-body").results(Static):
            widget.update(self._split_renderable())

    def action_split_ipus(self, step: int) -> None:
        """Split over one more (STEP 1) or one fewer (-1) IPU, and show the splits."""
        if not self.nav.split_over(step):
            return
        self.refresh_bindings()
        if self.nav.data is not None:  # + and - change the splits: show them
            self.nav.section = NAVIGATION.index(SPLITS)
            self._scroll_to(SPLITS)
        self._compute_split(self.report, self.nav.ipus)

    def export_table(self) -> Table | None:
        if self.nav.data is None:
            return None
        columns, rows = fullest_rows(self.nav.data["fullest_tiles"])
        return Table("insights-fullest-tiles", columns, rows)
