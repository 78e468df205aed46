"""The rows of a chart drawn line by line, top to bottom: a marker row, the plot, the x axis and its labels."""

from __future__ import annotations

from typing import Callable

from rich.segment import Segment

MARKER_ROWS = 1
AXIS_ROWS = 2  # the axis line and its labels

Part = Callable[[], list[Segment]]


def chart_row(y: int, plot_rows: int, marker: Part, plot: Callable[[int], list[Segment]], axis: Part,
              labels: Part) -> list[Segment] | None:
    """Row Y, drawn by the part it belongs to (PLOT is given its row counted from the bottom); None below them."""
    if y < MARKER_ROWS:
        return marker()
    if y < MARKER_ROWS + plot_rows:
        return plot(plot_rows - 1 - (y - MARKER_ROWS))
    if y == MARKER_ROWS + plot_rows:
        return axis()
    if y == MARKER_ROWS + plot_rows + 1:
        return labels()
    return None
