"""The per-tile difference as a heatmap: one cell per tile, its colour B - A, one Line-API widget.

Each IPU starts a new row; a row is labelled with its IPU (on the IPU's first row) and
its first tile. A tile is up to MAX_CELL columns wide, while every tile still fits in view. Growth is drawn in the theme's error colour, shrinkage in its success
colour, deeper the larger the change against the largest one; unchanged tiles are idle
cells, tiles only one report has a muted dot. Growth also reads "+" and shrinkage "-": a cue that does
not rest on telling red from green.
"""

from __future__ import annotations

from itertools import groupby

import numpy as np
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.binding import Binding
from textual.geometry import Size
from textual.message import Message
from textual.strip import Strip

from pvtui.model.compare import TileDiff
from pvtui.model.navigators.compare import LEVELS, GridRow, TileGrid, change_levels
from pvtui.model.navigators.memory import UNKNOWN_IPU
from pvtui.ui.textual_private import SteadyScrollbars
from pvtui.widgets.keys import PAGE_AND_ENDS
from pvtui.widgets.line_cache import CachedLines
from pvtui.widgets.look import look_of
from pvtui.widgets.scrolling import keep_row_visible
from pvtui.widgets.tell_screen import tell_screen

ONLY_ONE_CODE = LEVELS + 1  # the level of a tile only one report has
MAX_CELL = 3  # columns per tile, where few tiles leave room


class DiffHeatmap(CachedLines, SteadyScrollbars, can_focus=True):
    """Every tile of two reports, coloured by B - A, one selected tile, the viewport following it."""

    BINDINGS = [
        Binding("left", "move(-1)", "Previous tile", show=False),
        Binding("right", "move(1)", "Next tile", show=False),
        Binding("up", "move_row(-1)", "Row up", show=False),
        Binding("down", "move_row(1)", "Row down", show=False),
        *PAGE_AND_ENDS,
    ]

    DEFAULT_CSS = """
    DiffHeatmap {
        scrollbar-size-horizontal: 0;
        height: 1fr;
    }
    """

    class Selected(Message):
        """TILE is selected now."""

        def __init__(self, tile: int) -> None:
            super().__init__()
            self.tile = tile

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.diff: TileDiff | None = None
        self.levels = np.zeros(0, dtype=np.int64)
        self.grid = TileGrid([])
        self.ipu_width = 0
        self.digits = 0
        self.cell = 1  # columns per tile
        self.selected = 0
        self._version = 0
        self._styles: dict[tuple[int, bool], Style] = {}

    def restyle(self) -> None:
        self._styles.clear()

    def on_resize(self) -> None:  # CachedLines.on_resize empties the strips too
        self._layout()

    def show(self, diff: TileDiff, selected: int) -> None:
        self.diff = diff
        self.levels = change_levels(diff.delta, diff.largest_change)
        self._version += 1
        self._strips.clear()
        self._layout()
        self.select(min(max(0, selected), diff.num_tiles - 1), force=True)

    def _layout(self) -> None:
        if self.diff is None:
            return
        ipu = self._ipu_of_every_tile()
        self.digits = len(str(max(self.diff.num_tiles - 1, 0)))
        self.ipu_width = len(f"IPU{int(ipu.max()) if len(ipu) else 0}")
        room = max(1, self.scrollable_content_region.width - self.label_width)
        height = max(1, self.scrollable_content_region.height)
        for self.cell in range(MAX_CELL, 0, -1):  # the widest cells that still fit every tile in view
            self.grid = TileGrid.of(ipu, max(1, room // self.cell))
            if len(self.grid.rows) <= height:
                break
        self.virtual_size = Size(self.scrollable_content_region.width, len(self.grid.rows))
        self._strips.clear()
        self._follow()

    @property
    def label_width(self) -> int:
        return self.ipu_width + 1 + self.digits + 1

    def _ipu_of_every_tile(self) -> np.ndarray:
        diff = self.diff
        assert diff is not None
        longer = diff.a if diff.a.num_tiles >= diff.b.num_tiles else diff.b
        return longer.ipu

    # The selected tile ----------------------------------------------------------------

    def select(self, tile: int, force: bool = False) -> None:
        if self.diff is None or (tile == self.selected and not force):
            return
        self.selected = tile
        tell_screen(self, self.Selected(tile))
        self._follow()
        self.refresh()

    def _follow(self) -> None:
        if self.grid.rows:
            keep_row_visible(self, self.grid.row_of(self.selected))

    def action_move(self, tiles: int) -> None:
        if self.diff is not None:
            self.select(max(0, min(self.selected + tiles, self.diff.num_tiles - 1)))

    def action_move_row(self, rows: int) -> None:
        """The tile in the same column ROWS rows down (up, negative)."""
        if self.grid.rows:
            self.select(self.grid.moved(self.selected, rows))

    def action_page(self, pages: int) -> None:
        self.action_move_row(pages * max(1, self.scrollable_content_region.height - 1))

    def action_move_to_end(self, last: bool) -> None:
        if self.diff is not None:
            self.select(self.diff.num_tiles - 1 if last else 0)

    # Rendering ------------------------------------------------------------------------

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        index = int(self.scroll_y) + y
        if self.diff is None or index >= len(self.grid.rows):
            return Strip.blank(width, self.rich_style)
        row = self.grid.rows[index]
        cursor = self.selected - row.first if 0 <= self.selected - row.first < row.count else -1
        key = (index, width, cursor, self._version)
        strip = self._strips.get(key)
        if strip is None:
            strip = Strip(self._row_segments(row, cursor)).adjust_cell_length(width, self.rich_style)
            self._strips[key] = strip
        return strip

    def _row_segments(self, row: GridRow, cursor: int) -> list[Segment]:
        diff = self.diff
        assert diff is not None
        ipu = "" if not row.opens_ipu else "IPU?" if row.ipu == UNKNOWN_IPU else f"IPU{row.ipu}"
        segments = [Segment(f"{ipu:<{self.ipu_width}} {row.first:>{self.digits}} ", self._muted())]
        codes = self.levels[row.first : row.first + row.count].tolist()
        codes += [ONLY_ONE_CODE] * (row.count - len(codes))  # beyond the compared tiles
        cells = ((code, column == cursor) for column, code in enumerate(codes))
        for (code, at_cursor), run in groupby(cells):
            glyph = self._glyph(code, at_cursor)
            segments.append(Segment(f"{glyph:^{self.cell}}" * len(list(run)), self._style(code, at_cursor)))
        return segments

    def _glyph(self, code: int, cursor: bool) -> str:
        look = look_of(self.app)
        if cursor:
            return look.glyphs.selected
        if code == ONLY_ONE_CODE:
            return look.glyphs.only_one
        return "+" if code > 0 else "-" if code < 0 else " "  # a cue besides red and green, for colour blindness

    def legend(self) -> Text:
        """The colours of shrinkage, no change and growth, and the dot of a tile in one report only."""
        text = Text()
        text.append("shrank ", self._muted())
        for code in range(-LEVELS, LEVELS + 1):
            text.append(self._glyph(code, False), self._style(code, False))
        text.append(" grew  ", self._muted())
        text.append(self._glyph(ONLY_ONE_CODE, False), self._style(ONLY_ONE_CODE, False))
        text.append(" in one report only  ", self._muted())
        text.append(self._glyph(0, True), self._style(0, True))
        text.append(" selected", self._muted())
        return text

    # Colours --------------------------------------------------------------------------

    def _muted(self) -> Style:
        return Style(color=self.theme_colour("pv-muted").rich_color)

    def _style(self, code: int, cursor: bool) -> Style:
        """The cell of a tile at change level CODE (or ONLY_ONE_CODE)."""
        key = (code, cursor)
        style = self._styles.get(key)
        if style is None:
            background = self.theme_colour("background")
            if code == ONLY_ONE_CODE:
                fill = background
            elif code == 0:
                fill = self.theme_colour("pv-idle")
            else:
                towards = self.theme_colour("error" if code > 0 else "success")
                fill = background.blend(towards, 0.25 + 0.75 * abs(code) / LEVELS)
            glyph = self.theme_colour("pv-cursor") if cursor else self.theme_colour("pv-muted")
            plain_cursor = cursor and look_of(self.app).plain  # reversed: a grey of its own
            style = self._styles[key] = Style(color=glyph.rich_color, bgcolor=fill.rich_color, bold=cursor,
                                              reverse=plain_cursor)
        return style

