"""The Insights screen's histogram of the tiles by their bytes."""

from __future__ import annotations

from typing import Callable

from rich.text import Text
from textual.widget import Widget

from pvtui.model.insights import histogram
from pvtui.model.navigators.memory import TileMemory
from pvtui.model.unavailable import Unavailable
from pvtui.render.insights import HISTOGRAM_HEIGHT, histogram_text
from pvtui.render.unavailable import unavailable_text


class HistogramChart(Widget):
    """The tiles counted by their bytes, one bin a column at whatever width the chart has; FMT shows bytes."""

    DEFAULT_CSS = """
    HistogramChart { height: auto; }
    """

    def __init__(self, report, memory: TileMemory | None, fmt: Callable[[int], str]) -> None:
        super().__init__()
        self.report, self.memory, self.fmt = report, memory, fmt

    def render(self) -> Text:
        section = histogram(self.report, self.memory, max(self.size.width, 1))
        if isinstance(section, Unavailable):
            return unavailable_text(section)
        return histogram_text(section, self.fmt, HISTOGRAM_HEIGHT)
