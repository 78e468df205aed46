"""The rows of a chart drawn line by line, top to bottom: a marker row, the plot, the x axis and its labels."""

from __future__ import annotations

from typing import Callable, Container, Iterable

from rich.segment import Segment

from pvtui.units import format_bytes
from pvtui.widgets.look import UNICODE, Glyphs

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


def labelled_levels(plot_rows: int) -> list[int]:
    """The plot rows (0 at the bottom) with a y label: every quarter or so, never the bottom one."""
    return [level for level in range(plot_rows)
            if not (plot_rows - 1 - level) % max(2, plot_rows // 4) and not (level == 0 and plot_rows > 1)]


def y_value(top: float, level: int, plot_rows: int) -> float:
    """The bytes at the top of plot row LEVEL."""
    return top * (level + 1) / plot_rows


def y_label_width(top: float, plot_rows: int, units: str) -> int:
    """The columns of the y labels and the axis: the widest label (not always the top's: 914.5 MiB is
    wider than 1.4 GiB), so that every row's plot starts in the same column."""
    labels = [format_bytes(top, units), format_bytes(0, units)]
    labels += [format_bytes(y_value(top, level, plot_rows), units) for level in labelled_levels(plot_rows)]
    return max(len(label) for label in labels) + 2


def y_label(top: float, level: int, plot_rows: int, label_width: int, units: str, labelled: Container[int],
            glyphs: Glyphs = UNICODE) -> str:
    """The y axis beside plot row LEVEL: its bytes where LABELLED holds it, else the bare axis."""
    if level not in labelled:
        return " " * (label_width - 1) + glyphs.axis[0]
    return format_bytes(y_value(top, level, plot_rows), units).rjust(label_width - 2) + " " + glyphs.axis[1]


def axis_line(label_width: int, plot_width: int, tick_columns: Iterable[int], units: str,
              glyphs: Glyphs = UNICODE) -> str:
    """The x axis: zero bytes under the y labels, then a line with a tick at each column given."""
    line = [glyphs.axis[3]] * plot_width
    for column in tick_columns:
        line[column] = glyphs.axis[4]
    return format_bytes(0, units).rjust(label_width - 2) + " " + glyphs.axis[2] + "".join(line)


def cell_glyph(eighths: int, lower: int, upper: int, empty: int, blocks: str = UNICODE.blocks) -> tuple[str, int, int]:
    """What a stacked cell draws, and the layers below and above its glyph's edge: a full or
    empty cell shows one layer, a part-filled one LOWER in its bottom EIGHTHS and UPPER above."""
    if eighths >= 8:
        upper = lower
    elif eighths <= 0:
        lower = upper
    char = " " if lower == empty else (blocks[8] if lower == upper else blocks[eighths])
    return char, lower, upper
