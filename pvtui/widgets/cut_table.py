"""A DataTable of a comparison's names and figures, its wide columns cut to the room there is."""

from __future__ import annotations

from typing import Sequence

from rich.text import Text
from textual.widgets import DataTable

from pvtui.render.compare import fitted_widths


def fill_cut(table: DataTable, headings: Sequence[str], rows: list[list[Text]], cut: Sequence[int], names: int,
             width: int) -> None:
    """TABLE, WIDTH cells wide, shows ROWS under HEADINGS, the columns CUT sharing the room the others leave on a
    line (their cells end in an ellipsis where they are cut), the figures right-aligned (every column but
    NAMES); the cursor stays on its row."""
    room = width - table.styles.scrollbar_size_vertical - 2 * table.cell_padding * len(headings)
    widths = fitted_widths(headings, rows, cut, room)
    cursor = table.cursor_row
    table.clear(columns=True)
    for column, (heading, fitted) in enumerate(zip(headings, widths)):
        table.add_column(Text(heading, justify="left" if column == names else "right"), width=fitted)
    for row in rows:
        for column, (cell, fitted) in enumerate(zip(row, widths)):
            cell.truncate(fitted, overflow="ellipsis")
            cell.justify = "left" if column == names else "right"
        table.add_row(*row)
    table.move_cursor(row=cursor)
