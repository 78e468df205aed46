"""A table of names and figures drawn line by line: any number of rows (only those in view are drawn),
a header that stays, a cursor row, and columns that take the room there is, names first (render.columns).

The rows come as TableRows whose sequences may compute each row when asked, so a table of a million
rows costs what its visible rows cost. Each line drawn is kept in a Strip cache keyed by its row, the
width and whether the cursor is on it; new rows empty it.
"""

from __future__ import annotations

from rich.cells import cell_len, set_cell_size
from rich.segment import Segment
from rich.style import Style
from textual.binding import Binding
from textual.cache import LRUCache
from textual.events import Click
from textual.geometry import Size
from textual.message import Message
from textual.strip import Strip

from pvtui.render.columns import CELL_PADDING, Fit, TableRows, fit_columns
from pvtui.ui.textual_private import SteadyScrollbars, update_scrollbars
from pvtui.widgets.line_cache import CachedLines
from pvtui.widgets.scrolling import cursor_bindings

ESSENTIAL = 2  # figures shown whenever the names keep their least width beside them
HEADER = 1  # lines above the rows


class FiguresTable(CachedLines, SteadyScrollbars, can_focus=True):
    """Rows of TableRows in the columns that fit, a filter's total row last. Up/down/pages/Home/End move
    the cursor (a RowHighlighted message), Enter selects (RowSelected). Where rows fold (`folds`), right
    asks to open the row under the cursor, left to close it and Space to toggle (a Fold message)."""

    class RowHighlighted(Message):
        """The cursor moved onto row `row` (keyed `key`)."""

        def __init__(self, table: FiguresTable, row: int, key: str | None) -> None:
            super().__init__()
            self.table, self.row, self.key = table, row, key

        @property
        def control(self) -> FiguresTable:
            return self.table

    class RowSelected(RowHighlighted):
        """Enter (or a click on the cursor's row) chose row `row`."""

    class Fold(Message):
        def __init__(self, opened: bool | None) -> None:  # None: toggle
            super().__init__()
            self.opened = opened

    class Refit(Message):
        """The table is not as wide as when its rows were shown (its pane moved under the details, the
        terminal was resized): show them again, so the names and columns take the room there is now."""

    BINDINGS = [
        *cursor_bindings("Row above", "Row below", "First row", "Last row"),
        Binding("enter", "select", "Select", show=False),
        Binding("right", "fold(True)", "Open / first row under", show=False),
        Binding("left", "fold(False)", "Close / row above", show=False),
        Binding("space", "fold(None)", "Open or close", show=False),
    ]

    COMPONENT_CLASSES = {"figures-table--header", "figures-table--cursor", "figures-table--even-row"}

    DEFAULT_CSS = """
    FiguresTable {
        background: $surface;
        color: $foreground;
        overflow-x: hidden;
        overflow-y: scroll;  /* a scrollbar coming and going would cost a layout, and a frame */
        & > .figures-table--header { text-style: bold; background: $panel; color: $foreground; }
        &:ansi > .figures-table--header { background: ansi_bright_blue; color: ansi_default; }
        & > .figures-table--even-row { background: $surface-lighten-1 50%; }
        &:dark > .figures-table--even-row { background: $surface-darken-1 40%; }
        & > .figures-table--cursor {
            background: $block-cursor-blurred-background;
            color: $block-cursor-blurred-foreground;
            text-style: $block-cursor-blurred-text-style;
        }
        &:focus {
            background-tint: $foreground 5%;
            & > .figures-table--cursor {
                background: $block-cursor-background;
                color: $block-cursor-foreground;
                text-style: $block-cursor-text-style;
            }
        }
    }
    """

    STRIP_CACHE_SIZE = 512
    LINES_ON_BASE = True  # every line is drawn over the widget's own style

    folds = False
    shown_width = 0  # the table's width when its rows were last shown

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.rows: TableRows | None = None
        self.fit = Fit([], 0)
        self.widths: dict[str, int] = {}  # each figure column's cells, without padding
        self.cursor_row = 0
        self._look: tuple[Style, ...] = ()  # base, header, cursor, even row: looked up once per repaint
        self._row_styles: dict[str, Style] = {}
        self._generation = 0  # counts the rows shown: a line's cache key
        self._texts: LRUCache[tuple[int, int, int], str] = LRUCache(self.STRIP_CACHE_SIZE)  # each row's line

    # The rows ------------------------------------------------------------------------

    @property
    def row_count(self) -> int:
        """Rows, a filter's total row included."""
        if self.rows is None:
            return 0
        return len(self.rows.keys) + (self.rows.total is not None)

    @property
    def shown_columns(self) -> list[str]:
        """The keys of the columns shown, the names' first."""
        return ["name", *self.fit.columns]

    @property
    def line_width(self) -> int:
        """The cells a row's columns take, padding included."""
        return sum(width + CELL_PADDING for width in (self.fit.name_width, *(self.widths[k] for k in self.fit.columns)))

    def key_at(self, row: int) -> str | None:
        rows = self.rows
        if rows is None or not 0 <= row < self.row_count:
            return None
        return rows.keys[row] if row < len(rows.keys) else rows.total[0]

    @property
    def cursor_key(self) -> str | None:
        """The key of the row under the cursor (None without rows)."""
        return self.key_at(self.cursor_row)

    def show_rows(self, rows: TableRows, min_name: int, keep: str | None = None) -> None:
        """Show ROWS in the table's width, names at least MIN_NAME wide where they can be; the cursor on the
        row keyed KEEP where it is among them, else on the first."""
        self.shown_width = self.size.width
        self.rows = rows
        room = self.scrollable_content_region.width or max(self.app.size.width - 2, 1)
        headings = rows.headings
        widths = rows.widths if rows.widths is not None else {
            key: max((len(c.get(key, "")) for c in rows.cells), default=0) for key in list(headings)[1:]}
        total = rows.total[2] if rows.total is not None else {}
        self.widths = {key: max(widths[key], len(headings[key]) + 1, len(total.get(key, "")))
                       for key in list(headings)[1:]}
        longest = rows.longest_name if rows.longest_name is not None else max(map(len, rows.names), default=0)
        longest = max(longest, len(headings["name"]) + 1, len(rows.total[1]) if rows.total is not None else 0)
        self.fit = fit_columns(room, longest, self.widths, rows.priority, ESSENTIAL, min_name)
        self._generation += 1
        self._strips.clear()
        self._texts.clear()
        size = Size(room, self.row_count + HEADER)
        if size != self.virtual_size:  # else the scrollbar stays as drawn (a sort: 4 ms of a frame less)
            self.set_reactive(FiguresTable.virtual_size, size)
            update_scrollbars(self, size)
        at = index_of(rows, keep)
        self.cursor_row = at if at is not None else 0
        self.scroll_to(y=0, animate=False, immediate=True)
        self._keep_cursor_visible()
        self.refresh()

    def get_row_at(self, row: int) -> list[str]:
        """Row ROW's cells as shown: its name as cut to the name column, then each figure shown."""
        rows = self.rows
        assert rows is not None and 0 <= row < self.row_count
        if row < len(rows.keys):
            name, cells = rows.names[row], rows.cells[row]
        else:
            _, name, cells = rows.total
        return [rows.cut(name, self.fit.name_width), *(cells.get(c, "") for c in self.fit.columns)]

    # The cursor ----------------------------------------------------------------------

    def move_cursor(self, row: int) -> None:
        """Put the cursor on ROW (clamped), scrolled into view; tell the screen (RowHighlighted)."""
        if not self.row_count:
            return
        row = max(0, min(row, self.row_count - 1))
        before, self.cursor_row = self.cursor_row, row
        self._keep_cursor_visible()
        for changed in {before, row}:
            self.refresh_line(changed + HEADER)
        if row != before:
            self.post_message(self.RowHighlighted(self, row, self.cursor_key))

    def _keep_cursor_visible(self) -> None:
        """Scroll the least that shows the cursor's row under the header, at once (one frame per key)."""
        height = max(self.scrollable_content_region.height - HEADER, 1)
        top, row = int(self.scroll_y), self.cursor_row
        if row < top:
            self.scroll_to(y=row, animate=False, immediate=True)
        elif row >= top + height:
            self.scroll_to(y=row - height + 1, animate=False, immediate=True)

    def action_move(self, delta: int) -> None:
        self.move_cursor(self.cursor_row + delta)

    def action_page(self, direction: int) -> None:
        self.move_cursor(self.cursor_row + direction * max(self.scrollable_content_region.height - HEADER - 1, 1))

    def action_move_to_end(self, last: bool) -> None:
        self.move_cursor(self.row_count - 1 if last else 0)

    def action_select(self) -> None:
        if self.row_count:
            self.post_message(self.RowSelected(self, self.cursor_row, self.cursor_key))

    def action_fold(self, opened: bool | None) -> None:
        if self.folds:
            self.post_message(self.Fold(opened))

    def on_click(self, event: Click) -> None:
        """A click moves the cursor onto the row; a click on the cursor's row selects it."""
        row = int(self.scroll_y) + event.y - HEADER
        if event.y < HEADER or not 0 <= row < self.row_count:
            return
        if row == self.cursor_row:
            self.action_select()
        else:
            self.move_cursor(row)

    # Drawing -------------------------------------------------------------------------

    def on_resize(self) -> None:
        super().on_resize()
        if self.size.width != self.shown_width:
            self.post_message(self.Refit())

    def render_lines(self, crop):
        base = self.rich_style
        self._look = (base, *(base + self.get_component_rich_style(f"figures-table--{part}", partial=True)
                              for part in ("header", "cursor", "even-row")))
        return super().render_lines(crop)

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        row = int(self.scroll_y) + y - HEADER if y >= HEADER else -1
        if self.rows is None or row >= self.row_count:
            return Strip.blank(width, self._look[0] if self._look else None)
        key = (row, row == self.cursor_row, width, self._generation, self._look)
        strip = self._strips.get(key)
        if strip is None:
            strip = self._header(width) if row < 0 else self._row(row, width)
            self._strips[key] = strip
        return strip

    def _header(self, width: int) -> Strip:
        rows = self.rows
        labels = [rows.headings[key] + ("▼" if key == rows.sort else "") for key in ["name", *self.fit.columns]]
        return Strip([Segment(self._line(labels, width), self._look[1])], width)

    def _row(self, row: int, width: int) -> Strip:
        base, _, cursor, even = self._look
        rows = self.rows
        total = row >= len(rows.keys)
        style = even if row % 2 else base
        named = "bold" if total else rows.styles[row]
        if named:
            style = style + self._row_style(named)
        if row == self.cursor_row:
            style = style + cursor
        key = (row, width, self._generation)
        text = self._texts.get(key)
        if text is None:  # worded once: a new cursor or focus style draws the same text again
            text = self._texts[key] = self._line(self.get_row_at(row), width)
        return Strip([Segment(text, style)], width)

    def _line(self, cells: list[str], width: int) -> str:
        """CELLS in the fitted columns, the name's left-aligned and the figures' right-aligned."""
        parts = [" " + set_cell_size(cells[0], self.fit.name_width) + " "]
        for text, key in zip(cells[1:], self.fit.columns):
            cells_wide = self.widths[key]
            used = cell_len(text)
            parts.append(" " + (" " * (cells_wide - used) + text if used <= cells_wide else set_cell_size(text, cells_wide))
                         + " ")
        return set_cell_size("".join(parts), width)

    def _row_style(self, named: str) -> Style:
        style = self._row_styles.get(named)
        if style is None:
            style = self._row_styles[named] = Style.parse(named)
        return style


def index_of(rows: TableRows, key: str | None) -> int | None:
    """Where the row keyed KEY is among ROWS (the total row last), or None."""
    if key is None:
        return None
    if rows.total is not None and key == rows.total[0]:
        return len(rows.keys)
    try:
        return rows.keys.index(key)
    except ValueError:
        return None

