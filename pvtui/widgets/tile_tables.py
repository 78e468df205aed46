"""The Memory screen's detail pane: the selected tile's details, then a tab for each table about it (its
variables, compute sets, vertices or exchange code), sortable, or the reason the report lacks it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from rich.text import Text
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import TabbedContent, TabPane, Tabs

from pvtui.model.tables import Table
from pvtui.model.tile_detail import tile_table, why_missing
from pvtui.model.navigators.memory import TileMemory, tile_vertices
from pvtui.render.columns import share_room
from pvtui.render.memory import LISTED, categories_text, tile_facts, vertices_text
from pvtui.widgets.detail_text import DetailText

if TYPE_CHECKING:
    from textual.widgets import DataTable

    from pvtui.model.report import Report
    from pvtui.widgets.heatmap import Palette

SHOWN_ROWS = 1000  # rows put in the table; export writes them all
LEAST_TEXT = 16  # the fewest cells of a text column (its heading whole) while another takes room; a longer text shows its end
FIRST_TEXTS = ("name", "program")  # the text columns that take room first
HEADINGS = {"always_live": "always", "steps_live": "steps", "debug_context": "debug context",
            "state_bytes": "state", "code_bytes": "code", "instances": "instances", "vertices": "types",
            "compute_set_id": "id", "program_id": "id"}


def sort_rows(rows: list[list[Any]], column: int) -> list[list[Any]]:
    """Numbers largest first, text in order, nothing last."""
    def key(row: list[Any]) -> tuple:
        value = row[column]
        if value is None:
            return (2, 0, "")
        if isinstance(value, (bool, int, float)):
            return (0, -float(value), "")
        return (1, 0, str(value).lower())
    return sorted(rows, key=key)


class TileTablePane(TabPane):
    """One table: `show` fills it for a tile, `next_sort` sorts by the next column.

    Its columns take the room the pane has, the names first; where a text is cut, the line under the
    table shows the texts of the row under the cursor whole.
    """

    DEFAULT_CSS = """
    TileTablePane { padding: 0; }
    TileTablePane DataTable { height: 1fr; }
    TileTablePane DetailText { color: $text-muted; padding: 0 1; }
    TileTablePane .whole { color: $foreground; background: $panel; }
    """

    def __init__(self, title: str, name: str) -> None:
        super().__init__(title, id=f"tab-{name}")
        self.table_name = name
        self.table: Table | None = None
        self.rows: list[list[Any]] = []
        self.sorted: list[list[Any]] = []  # the rows in the order shown
        self.sort_column = 0
        self.tile: int | None = None
        self._bytes_text: Callable[[int], str] | None = None  # how the last fill showed bytes
        self._filled_width = 0  # the pane's width the names were cut for
        self.cut: list[int] = []  # the columns with a text cut to fit

    @property
    def built(self) -> bool:
        return bool(self.children)

    @property
    def grid(self) -> DataTable:
        return self.query_one(f"#table-{self.table_name}")  # type: ignore[return-value]

    async def build(self) -> None:
        """Its widgets, mounted when its tab is first shown: the four tables' cost 40-60 ms of the Memory
        screen's first showing, when most users look at the tiles; Textual's DataTable is imported then (13 M
        instructions, 1% of a start on that screen)."""
        if not self.built:
            from textual.widgets import DataTable

            await self.mount_all([
                DetailText(id=f"missing-{self.table_name}"),  # redrawn on every key: no layout, as a Static costs
                DataTable(id=f"table-{self.table_name}", cursor_type="row", zebra_stripes=True),
                DetailText(id=f"whole-{self.table_name}").add_class("whole"),
            ])

    def show(self, tile: int, table: Table | None, missing: str, bytes_text: Callable[[int], str]) -> None:
        """TABLE's rows for TILE, or MISSING when the report lacks them."""
        notice, grid = self.query_one(f"#missing-{self.table_name}", DetailText), self.grid
        grid.display = table is not None
        self.tile, self.table = tile, table
        if table is None:
            self.query_one(f"#whole-{self.table_name}").display = False
            notice.show(Text(f"Tile {tile}: {missing}"))
            return
        self.rows = [list(row) for row in table.rows]
        what = self.table_name.replace("_", " ")
        notice.show(Text(f"Tile {tile}: {len(self.rows):,} {what}" if self.rows else f"Tile {tile}: no {what}"))
        self._fill(bytes_text)

    def next_sort(self, bytes_text: Callable[[int], str]) -> None:
        """Sort by the next column shown (one with nothing in it is not shown)."""
        if self.table is not None:
            shown = self._shown
            after = [i for i in shown if i > self.sort_column]
            self.sort_column = (after or shown)[0]
            self._fill(bytes_text)

    def row_value(self, row: int, column: str):
        """COLUMN's value in the ROW-th row shown, or None."""
        if self.table is None or column not in self.table.columns or not 0 <= row < min(len(self.sorted), SHOWN_ROWS):
            return None
        return self.sorted[row][self.table.columns.index(column)]

    def cursor_row(self) -> dict[str, Any]:
        """The row under the cursor, column -> value; empty where none is."""
        if self.table is None:
            return {}
        row = self.grid.cursor_row
        return {column: self.row_value(row, column) for column in self.table.columns}

    def sorted_table(self) -> Table | None:
        """The table as shown: every row, in the order shown."""
        if self.table is None:
            return None
        return Table(self.table.name, list(self.table.columns), self.sorted)

    def on_resize(self) -> None:
        if self.table is not None and self._bytes_text is not None and self.size.width != self._filled_width:
            self._fill(self._bytes_text)  # the names take the room there is now

    def _fill(self, bytes_text: Callable[[int], str]) -> None:
        assert self.table is not None
        self._bytes_text, self._filled_width = bytes_text, self.size.width
        grid = self.grid
        cursor = grid.cursor_row
        grid.clear(columns=True)
        columns, shown, texts = self.table.columns, self._shown, self._texts
        self.sorted = sort_rows(self.rows, self.sort_column)
        headings = [HEADINGS.get(columns[i], columns[i]) + ("▼" if i == self.sort_column else "") for i in shown]
        rows = [[_cell(columns[i], row[i], bytes_text) for i in shown] for row in self.sorted[:SHOWN_ROWS]]
        widths = self._widths(rows, headings, [columns[i] for i in shown], [shown.index(i) for i in texts], grid)
        for heading, width in zip(headings, widths):
            grid.add_column(heading, width=width)
        # each cell as Text: a DataTable reads a str cell as markup, and a name may hold some; figures right
        justify = ["left" if i in texts else "right" for i in shown]
        grid.add_rows([Text(_cut(cell, width), justify=side) for cell, width, side in zip(row, widths, justify)]
                      for row in rows)
        if len(self.rows) > SHOWN_ROWS:
            grid.add_row(_cut(f"… {len(self.rows) - SHOWN_ROWS:,} more (x exports them all)", widths[0]),
                         *[""] * (len(shown) - 1))
        self.cut = [shown[k] for k, width in enumerate(widths) if any(len(row[k]) > width for row in rows)]
        self.query_one(f"#whole-{self.table_name}").display = bool(self.cut)
        if rows:
            grid.move_cursor(row=min(cursor, len(rows) - 1), animate=False)
        self._show_whole(grid.cursor_row)

    def _widths(self, rows: list[list[str]], headings: list[str], names: list[str], texts: list[int],
                grid: DataTable) -> list[int]:
        """Each column's cells (NAMES, under HEADINGS): the figures theirs, the texts (at TEXTS) what the
        pane's width leaves, shared names first (render.columns.share_room)."""
        widest = [max([len(heading)] + [len(row[i]) for row in rows]) for i, heading in enumerate(headings)]
        texts = sorted(texts, key=lambda i: (names[i] not in FIRST_TEXTS, i))
        figures = sum(width for i, width in enumerate(widest) if i not in texts)
        room = self.size.width - grid.styles.scrollbar_size_vertical - 2 * grid.cell_padding * len(headings) - figures
        for i, width in zip(texts, share_room(room, [widest[i] for i in texts], LEAST_TEXT)):
            widest[i] = width
        return widest

    @property
    def _shown(self) -> list[int]:
        """The table's columns that hold something: one with nothing in any row takes no room."""
        assert self.table is not None
        return [i for i in range(len(self.table.columns))
                if not self.rows or any(row[i] is not None for row in self.rows)]

    @property
    def _texts(self) -> list[int]:
        """The table's columns of text (names), which share the room the figures leave."""
        assert self.table is not None
        return [i for i in range(len(self.table.columns)) if any(isinstance(row[i], str) for row in self.rows[:SHOWN_ROWS])]

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._show_whole(event.cursor_row)

    def _show_whole(self, row: int) -> None:
        """The texts cut in the table, whole, of ROW (the cursor's)."""
        if not self.cut or not 0 <= row < min(len(self.sorted), SHOWN_ROWS):
            return
        assert self.table is not None
        values = self.sorted[row]
        texts = [f"{HEADINGS.get(self.table.columns[i], self.table.columns[i])}: {values[i]}" for i in self.cut
                 if values[i] is not None]
        self.query_one(f"#whole-{self.table_name}", DetailText).show(Text(" · ".join(texts)))


def _cut(text: str, width: int) -> str:
    """TEXT in WIDTH characters: its end, where it is longer (the last parts of a path say the most)."""
    return text if len(text) <= width else "…" + text[-(width - 1):]


def _cell(column: str, value: Any, bytes_text: Callable[[int], str]) -> str:
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if column.endswith("bytes"):
        return bytes_text(int(value))
    if column.endswith("_id"):
        return str(value)  # a number that names something, as the Programs screen writes it
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


TAB_TITLES = {"variables": "Variables", "compute_sets": "Sets", "vertices": "Vertices", "exchanges": "Exchange"}


class TileDetails(TabbedContent):
    """The Memory screen's detail pane: the selected tile's facts, categories and vertices on the first
    tab, then a tab for each of its tables, filled only when shown."""

    def __init__(self, *, id: str) -> None:
        # No initial tab named: the first is shown. The tabs check a named one as they mount, and raised where the
        # app quit while they did (they are mounted after the Memory screen's first frame: DetailPane).
        super().__init__(id=id)
        columns = Horizontal(DetailText(id="detail-facts"), DetailText(id="detail-categories"), id="detail-columns")
        details = TabPane("Details", VerticalScroll(columns, DetailText(id="detail-vertices"), id="detail-scroll"),
                          id="tab-details")
        for pane in (details, *(TileTablePane(title, name) for name, title in TAB_TITLES.items())):
            self.compose_add_child(pane)

    @property
    def table_pane(self) -> TileTablePane | None:
        """The tab shown when it is one of the tile's tables."""
        active = self.active_pane
        return active if isinstance(active, TileTablePane) else None

    def cursor_row(self) -> tuple[str, dict[str, Any]]:
        """The tab shown's table and the row under its cursor (column -> value); the first tab has none."""
        pane = self.table_pane
        return ("details", {}) if pane is None else (pane.table_name, pane.cursor_row())

    def focus_shown(self) -> None:
        """Focus the table of the tab shown, else the tabs."""
        table = self.table_pane
        if table is not None and table.table is not None:
            table.grid.focus()
        else:
            self.query_one(Tabs).focus()

    def next_tab(self, step: int) -> None:
        tabs = ["tab-details", *(f"tab-{name}" for name in TAB_TITLES)]
        self.active = tabs[(tabs.index(self.active) + step) % len(tabs)]

    def forget_tables(self) -> None:
        """The tables show the tile again when next shown: the model or the units changed."""
        for pane in self.query(TileTablePane):
            pane.tile = None

    def reserve(self, memory: TileMemory, vertices: bool) -> None:
        """Lay the Details tab out once for the longest texts to come: every category, and the VERTICES listed."""
        self.query_one("#detail-categories", DetailText).reserve(1 + len(memory.categories))
        if vertices:
            self.query_one("#detail-vertices", DetailText).reserve(LISTED + 3)  # heading, "… more", a note

    def show_tile(self, report: Report, memory: TileMemory, tile: int, fmt: Callable[[int], str],
                  palette: Palette) -> None:
        """TILE's details, and its table where one is shown; FMT shows bytes, PALETTE colours the categories."""
        missing = report.missing("memory" if memory.source == "archive" else "tile_split")  # the latter: no libpva
        facts = tile_facts(memory, tile, fmt, palette.label, palette.over_label, missing)
        self.query_one("#detail-facts", DetailText).show(facts)
        self.query_one("#detail-categories", DetailText).show(categories_text(memory, tile, fmt, palette.category_swatch))
        self.query_one("#detail-vertices", DetailText).show(vertices_text(tile_vertices(report, tile), fmt))
        self.show_table(report, tile, fmt)

    async def build_shown(self) -> None:
        """The widgets of the tab shown, where it is a table's not shown before."""
        if (table := self.table_pane) is not None:
            await table.build()

    def show_table(self, report: Report, tile: int, fmt: Callable[[int], str]) -> None:
        """Fill the tab's table for TILE, where a table's tab is shown (and built) and shows another tile."""
        table = self.table_pane
        if table is not None and table.built and table.tile != tile:
            name = table.table_name
            table.show(tile, tile_table(report, tile, name), why_missing(report, name), fmt)
