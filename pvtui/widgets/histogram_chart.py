"""The Insights screen's histogram of the tiles by their bytes."""

from __future__ import annotations

from functools import partial

from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget

from pvtui.model.insights import histogram
from pvtui.model.navigators.memory import TileMemory
from pvtui.model.unavailable import Unavailable
from pvtui.render.insights import HISTOGRAM_HEIGHT, histogram_text
from pvtui.render.unavailable import unavailable_text
from pvtui.units import format_bytes


class HistogramChart(Widget):
    """The tiles counted by their bytes, one bin a column at whatever width the chart has, bytes in UNITS."""

    DEFAULT_CSS = """
    HistogramChart { height: auto; }
    """

    units = reactive("binary")

    def __init__(self, report, memory: TileMemory | None, units: str) -> None:
        super().__init__()
        self.report, self.memory = report, memory
        self.set_reactive(HistogramChart.units, units)

    def render(self) -> Text:
        section = histogram(self.report, self.memory, max(self.size.width, 1))
        if isinstance(section, Unavailable):
            return unavailable_text(section)
        return histogram_text(section, partial(format_bytes, mode=self.units), HISTOGRAM_HEIGHT)
