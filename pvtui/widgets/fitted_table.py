"""A DataTable of names and figures whose columns take the room it has, names first (render.columns),
and whose rows may open and close (a tree of model layers)."""

from __future__ import annotations

from rich.text import Text
from textual.binding import Binding
from textual.message import Message
from textual.widgets import DataTable

from pvtui.render.columns import TableRows, fit_columns

ESSENTIAL = 2  # figures shown whenever the names keep their least width beside them
SCROLLBAR = 2  # cells the vertical scrollbar takes


class FittedTable(DataTable):
    """Rows of TableRows in the columns that fit. Where rows fold (`folds`), right asks to open the row
    under the cursor, left to close it and Space to toggle (a Fold message); elsewhere right and left
    scroll, as a DataTable's do."""

    class Fold(Message):
        def __init__(self, opened: bool | None) -> None:  # None: toggle
            super().__init__()
            self.opened = opened

    class Refit(Message):
        """The table is not as wide as when its rows were shown (its pane moved under the details, the
        terminal was resized): show them again, so the names and columns take the room there is now."""

    BINDINGS = [
        Binding("right", "fold(True)", "Open / first row under", show=False),
        Binding("left", "fold(False)", "Close / row above", show=False),
        Binding("space", "fold(None)", "Open or close", show=False),
    ]
    folds = False
    shown_width = 0  # the table's width when its rows were last shown

    def on_resize(self) -> None:
        if self.size.width != self.shown_width:
            self.post_message(self.Refit())

    def action_fold(self, opened: bool | None) -> None:
        if self.folds:
            self.post_message(self.Fold(opened))
        elif opened is not None:
            self.action_scroll_right() if opened else self.action_scroll_left()

    @property
    def cursor_key(self) -> str | None:
        """The key of the row under the cursor (None without rows)."""
        if not self.row_count or not 0 <= self.cursor_row < self.row_count:
            return None
        return self.coordinate_to_cell_key((self.cursor_row, 0)).row_key.value

    def show_rows(self, rows: TableRows, min_name: int) -> list[str]:
        """Show ROWS in the table's width, names at least MIN_NAME wide where they can be; return the rows'
        keys."""
        self.shown_width = self.size.width
        room = (self.size.width or self.app.size.width) - SCROLLBAR
        self.clear(columns=True)
        totals = [rows.total[2]] if rows.total is not None else []
        figures = list(rows.headings)[1:]
        widths = {key: max([len(rows.headings[key]) + 1, *(len(c.get(key, "")) for c in rows.cells + totals)])
                  for key in figures}
        longest = max([len(rows.headings["name"]) + 1, *map(len, rows.names)])
        fit = fit_columns(room, longest, widths, rows.priority, ESSENTIAL, min_name)
        for key in ["name", *fit.columns]:
            label = rows.headings[key] + ("▼" if key == rows.sort else "")
            self.add_column(Text(label, justify="left" if key == "name" else "right"), key=key,
                            width=fit.name_width if key == "name" else widths[key])
        for key, name, cells, style in zip(rows.keys, rows.names, rows.cells, rows.styles):
            self.add_row(Text(rows.cut(name, fit.name_width), style),
                         *(Text(cells.get(c, ""), style, justify="right") for c in fit.columns), key=key)
        if rows.total is None:
            return list(rows.keys)
        key, label, cells = rows.total
        self.add_row(Text(rows.cut(label, fit.name_width), "bold"),
                     *(Text(cells.get(c, ""), "bold", justify="right") for c in fit.columns), key=key)
        return [*rows.keys, key]
