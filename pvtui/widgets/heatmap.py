"""The tile heatmap: one Line-API widget with a row per tile (or per group of tiles).

A row reads: cursor mark, tile number (or range), IPU, a swatch whose colour is the
tile's bytes against the per-tile limit, the bytes, then a bar of the tile's memory
stacked by category (gaps last), the limit marked as a column and the part of the
bar beyond it in the over-limit colour. Rows are rendered from numpy in O(width)
and cached as Strips keyed on everything that changes them.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.cache import LRUCache
from textual.events import Click
from textual.geometry import Region, Size
from textual.message import Message
from textual.strip import Strip

from pvtui.model.arrays import runs_by_row
from pvtui.model.navigators.memory import TileMemory, TileRows, tile_rows, visible_tiles
from pvtui.ui.textual_private import SteadyScrollbars, update_scrollbars
from pvtui.units import format_bytes
from pvtui.widgets.look import UNICODE, Glyphs, Look, look_of
from pvtui.widgets.palette import rich_colour
from pvtui.widgets.scrolling import keep_row_visible
from pvtui.widgets.tell_screen import tell_screen

CATEGORY_COLOURS = tuple(f"pv-cat-{i}" for i in range(6))
HEAT_COLOURS = tuple(f"pv-heat-{i}" for i in range(5))
LINES_KEPT = 2048  # rows kept rendered, per cache

class Palette(NamedTuple):
    """The styles and glyphs a row is drawn with, from the theme's pv-* variables and the look.

    In colour, a cell's colour says what fills it; plain (see look.py), its glyph does too:
    each category its own fill, the swatch a shade, the cursor row reversed.
    """

    categories: tuple[Style, ...]  # the largest categories, in order
    rest: Style  # categories beyond the palette
    gaps: Style
    over: Style  # bar cells beyond the limit
    limit: Style  # the limit mark on an empty cell
    heat: tuple[Style, ...]  # swatch: bytes against the limit, low to high
    label: Style
    over_label: Style
    cursor_label: Style
    cursor_empty: Style
    glyphs: Glyphs = UNICODE
    fills: str = " " * 8  # per category, then the rest, then over the limit
    heat_fills: str = " " * 5  # per heat level

    @classmethod
    def from_variables(cls, v: dict[str, str], look: Look = Look()) -> "Palette":
        glyphs = look.glyphs

        def fill(name: str) -> Style:
            if look.plain:  # the glyph in the colour, over the background: it, not a grey, says which
                return Style(color=rich_colour(v, name), bgcolor=rich_colour(v, "background"))
            return Style(bgcolor=rich_colour(v, name))

        cursor = (Style(reverse=True, bold=True) if look.plain else
                  Style(color=rich_colour(v, "background"), bgcolor=rich_colour(v, "pv-cursor"), bold=True))
        return cls(
            categories=tuple(fill(name) for name in CATEGORY_COLOURS),
            rest=fill("pv-muted"),
            gaps=Style(color=rich_colour(v, "pv-muted"), bgcolor=rich_colour(v, "pv-idle")),
            over=Style(bgcolor=rich_colour(v, "pv-over"), reverse=look.plain, bold=look.plain),
            limit=Style(color=rich_colour(v, "pv-limit"), bold=True),
            heat=tuple(fill(name) for name in HEAT_COLOURS),
            label=Style(color=rich_colour(v, "foreground")),
            over_label=Style(color=rich_colour(v, "pv-over"), bold=True, underline=look.plain),
            cursor_label=cursor,
            cursor_empty=Style(bgcolor=rich_colour(v, "pv-idle")),
            glyphs=glyphs,
            fills=glyphs.categories + glyphs.over if look.plain else " " * 8,
            heat_fills=glyphs.heat if look.plain else " " * 5,
        )

    def category(self, index: int) -> Style:
        return self.categories[index] if index < len(self.categories) else self.rest

    def fill_of(self, index: int) -> str:
        """The glyph that fills category INDEX's cells (the rest share one)."""
        return self.fills[min(index, len(self.categories))]

    def category_swatch(self, index: int) -> tuple[str, Style]:
        """Two cells of category INDEX, as its bar cells draw: plain, the glyph says which (in colour
        over the background, spaces would be blank)."""
        return self.fill_of(index) * 2, self.category(index)

    def heat_level(self, fraction: float) -> int:
        """The swatch's level for a tile at FRACTION of its limit: the number of heat levels when over 1."""
        if fraction > 1:
            return len(self.heat)
        return min(int(fraction * len(self.heat)), len(self.heat) - 1)

    def swatch(self, level: int) -> tuple[str, Style]:
        """The swatch's glyph and style at LEVEL (see heat_level; NO_SWATCH: none of the variable here)."""
        if level == NO_SWATCH:
            return " ", self.cursor_empty
        if level == len(self.heat):
            return self.fills[-1], self.over
        return self.heat_fills[level], self.heat[level]


NO_SWATCH = -1  # a swatch level: the variable colouring the swatches has nothing on the tile


def variable_level(palette: Palette, variable_bytes: tuple[np.ndarray, int], tile: int) -> int:
    """The swatch level of TILE when VARIABLE_BYTES (bytes per tile, its top) colours the swatches."""
    values, top = variable_bytes
    return palette.heat_level(values[tile] / top) if values[tile] > 0 else NO_SWATCH

def bar_cells(category_bytes: np.ndarray, gaps_bytes: np.ndarray | int, scale: int, width: int) -> np.ndarray:
    """What fills each of WIDTH cells of each bar ([bars, width]), a bar per row of CATEGORY_BYTES
    ([bars, C]) with its GAPS_BYTES ([bars], or one for all): a category index, C for gaps, C + 1 for nothing.

    A cell shows whatever covers its centre, so the bar is as long as the bytes are.
    """
    gaps = np.maximum(np.broadcast_to(gaps_bytes, len(category_bytes)), 0)
    cumulative = np.cumsum(np.column_stack([category_bytes, gaps]), axis=1)
    centres = (np.arange(width) + 0.5) * (scale / width)
    # the parts that end at or before a cell's centre: which part covers it, for every bar in one pass
    return (cumulative[:, None, :] <= centres[None, :, None]).sum(axis=2)

def limit_column(limit: int | None, scale: int, width: int) -> int | None:
    if not limit or width <= 0:
        return None
    return min(int(limit / scale * width), width - 1)

def bar_segments(
    cells: np.ndarray, num_categories: int, limit_col: int | None, palette: Palette, cursors: list[bool]
) -> list[list[Segment]]:
    """Each bar of CELLS ([bars, width]) as segments: one per run of equal cells, the limit column split
    out; CURSORS says which bars are the cursor's."""
    width = cells.shape[1]
    over_code = num_categories + 2
    codes = cells.copy()
    breaks = []
    if limit_col is not None:
        beyond = codes[:, limit_col + 1:]
        beyond[beyond <= num_categories] = over_code
        breaks = [column for column in (limit_col, limit_col + 1) if column < width]  # the limit column: a run
    bar_of, start, stop = runs_by_row(codes, breaks)
    empties = [palette.cursor_empty if cursor else Style() for cursor in cursors]
    drawn: list[list[Segment]] = [[] for _ in cursors]
    for bar, begin, end, code in zip(bar_of.tolist(), start.tolist(), stop.tolist(), codes[bar_of, start].tolist()):
        if code == over_code:
            style = palette.over
        elif code == num_categories:
            style = palette.gaps
        elif code > num_categories:
            style = empties[bar]
        else:
            style = palette.category(code)
        if begin == limit_col:
            drawn[bar].append(Segment(palette.glyphs.limit, style + palette.limit))
        else:
            drawn[bar].append(Segment(_fill(code, num_categories, over_code, palette) * (end - begin), style))
    return drawn


def _fill(code: int, num_categories: int, over_code: int, palette: Palette) -> str:
    """The glyph of a bar cell of CODE (see bar_segments)."""
    if code == num_categories:
        return palette.glyphs.gaps
    if code == over_code:
        return palette.fills[-1]
    return " " if code > num_categories else palette.fill_of(code)

class RowLayout(NamedTuple):
    """Column widths of the row label, fixed for a given report, zoom and units."""

    tile_width: int
    ipu_width: int
    bytes_width: int

    @property
    def label_width(self) -> int:
        # mark, tile, space, IPU, space, 2-cell swatch, space, bytes, space
        return 1 + self.tile_width + 1 + self.ipu_width + 1 + 2 + 1 + self.bytes_width + 1

def widest_bytes_label(values: np.ndarray, units: str) -> int:
    """The width of the widest `format_bytes` label of VALUES (bytes, not negative).

    Within one unit a label only widens as the value grows, so formatting the largest
    value of each unit is enough: a handful of labels instead of one per tile.
    """
    values = np.asarray(values)
    if len(values) == 0:
        return 1
    if units == "bytes":
        return len(format_bytes(int(values.max()), units))
    base = 1024 if units == "binary" else 1000
    unit = np.searchsorted(base ** np.arange(1, 5, dtype=np.float64), values, side="right")
    largest = np.full(5, -1, dtype=np.int64)
    np.maximum.at(largest, unit, values.astype(np.int64))
    return max(len(format_bytes(int(v), units)) for v in largest if v >= 0)


def row_layout(memory: TileMemory, zoom: int, units: str, gaps: bool) -> RowLayout:
    """Widths that fit every tile's label, whatever rows are shown."""
    digits = len(str(max(memory.num_tiles - 1, 0)))
    tile_width = digits if zoom == 1 else 2 * digits + 1
    ipu_width = len(f"IPU{max(memory.ipus, default=0)}")
    return RowLayout(tile_width, ipu_width, widest_bytes_label(memory.totals(gaps), units))

def rows_segments(
    memory: TileMemory,
    rows: TileRows,
    drawn: list[int],
    width: int,
    layout: RowLayout,
    gaps: bool,
    units: str,
    cursor_row: int | None,
    palette: Palette,
    variable_bytes: tuple[np.ndarray, int] | None = None,
) -> list[list[Segment]]:
    """The heatmap rows DRAWN, each WIDTH cells wide, their bars found together; VARIABLE_BYTES (bytes per tile,
    its top) colours the swatch instead of the tile's total against its limit."""
    tiles = rows.representative[drawn]
    totals = memory.totals(gaps)[tiles].tolist()
    limit = memory.limit
    scale = memory.scale(gaps)
    lines = []
    for row, tile, total in zip(drawn, tiles.tolist(), totals):
        cursor = row == cursor_row
        first, last = rows.span(row)
        tile_text = str(first) if rows.zoom == 1 else f"{first}–{last}"
        over = bool(limit) and total > limit
        fraction = total / (limit or scale)
        level = (palette.heat_level(fraction) if variable_bytes is None
                 else variable_level(palette, variable_bytes, tile))
        swatch, swatch_style = palette.swatch(level)
        name_style = palette.cursor_label if cursor else palette.label
        bytes_style = palette.cursor_label if cursor else (palette.over_label if over else palette.label)
        mark = palette.glyphs.pointer if cursor else " "
        ipu = "IPU?" if not memory.ipu_known else f"IPU{int(memory.ipu[tile])}"
        lines.append([
            Segment(f"{mark}{tile_text:>{layout.tile_width}} {ipu:<{layout.ipu_width}} ", name_style),
            Segment(swatch * 2, swatch_style),
            Segment(" ", name_style),
            Segment(f"{format_bytes(total, units):>{layout.bytes_width}}", bytes_style),
            Segment(" "),
        ])
    bar_width = width - layout.label_width
    if bar_width > 0 and drawn:
        gap_bytes = memory.including_gaps[tiles] - memory.excluding_gaps[tiles] if gaps else 0
        cells = bar_cells(memory.by_category[tiles], gap_bytes, scale, bar_width)
        bars = bar_segments(cells, len(memory.categories), limit_column(limit, scale, bar_width), palette,
                            [row == cursor_row for row in drawn])
        for line, bar in zip(lines, bars):
            line += bar
    return lines

def legend(memory: TileMemory, palette: Palette, gaps: bool) -> list[Text]:
    """The legend's entries: the marks first (gaps, the limit, over it, the shared colour of the other
    categories), then the colour of each of the largest categories."""
    shown = len(palette.categories)
    entries = []
    if gaps and memory.has_gaps:
        entries.append(Text.assemble((palette.glyphs.gaps * 2, palette.gaps), " gaps"))
    if memory.limit:
        entries.append(Text.assemble((palette.glyphs.limit, palette.limit), " limit"))
        entries.append(Text.assemble((palette.fills[-1] * 2, palette.over), " over the limit"))
    if len(memory.categories) > shown:
        others = len(memory.categories) - shown
        entries.append(Text.assemble(palette.category_swatch(shown), f" the other {others}"))
    entries += [Text.assemble(palette.category_swatch(index), f" {name}")
                for index, name in enumerate(memory.categories[:shown])]
    return entries

class TileHeatmap(SteadyScrollbars, can_focus=False):
    """Every tile's memory as rows of bars, one selected tile, the viewport following it.

    Its keys are MemoryViews' (which holds the focus for it and the tile map).
    """

    DEFAULT_CSS = """
    TileHeatmap {
        scrollbar-size-horizontal: 0;
    }
    """

    class Selected(Message):
        """TILE is selected now."""

        def __init__(self, tile: int) -> None:
            super().__init__()
            self.tile = tile

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.memory: TileMemory | None = None
        self.rows: TileRows | None = None
        self.label_layout: RowLayout | None = None
        self.zoom = 1
        self.ipu_filter: int | None = None
        self.gaps = True
        self.units = "binary"
        self.selected = 0
        self.swatch: tuple[np.ndarray, int] | None = None  # what colours the swatches, when not the totals
        self._version = 0  # bumped when the data changes (a reload)
        self._palette: tuple[str, Palette] | None = None
        self._strips: LRUCache[tuple, Strip] = LRUCache(LINES_KEPT)  # render_line's rows
        self._lines: LRUCache[tuple, Strip] = LRUCache(LINES_KEPT)  # render_lines' finished lines
        self._style: Style | None = None  # the widget's base style at the last repaint
        self._keys_drawn: dict[int, tuple | None] = {}  # each line's key while render_lines draws them

    def on_resize(self) -> None:
        # The caches stay: their keys hold the width, and shown again after the tile map
        # (hidden, then the same size) every row is still good.
        self._update_virtual_size()
        row = self.cursor_row
        if row is not None:  # a taller header above shrinks the view: the selected row stays in it
            self._follow(row)

    @property
    def palette(self) -> Palette:
        """The current theme's palette (rebuilt when the theme changes)."""
        theme = self.app.theme
        if self._palette is None or self._palette[0] != theme:
            self._palette = (theme, Palette.from_variables(self.app.theme_variables, look_of(self.app)))
            self._strips.clear()
            self._lines.clear()
        return self._palette[1]

    # State: each change regroups the rows and keeps the selected tile where it can --

    def set_memory(self, memory: TileMemory, selected: int) -> None:
        self.memory = memory
        self._version += 1
        self._regroup(selected)

    def set_swatch(self, swatch: tuple[np.ndarray, int] | None) -> None:
        """Colour the swatches by SWATCH (bytes per tile, the scale's top), or by the totals (None).

        A row's swatch level is part of its key: only the rows whose swatch changed are drawn again."""
        self.swatch = swatch
        self.refresh()

    def _swatch_level(self, row: int) -> int | None:
        """The level of ROW's swatch when a variable colours it; None: by the totals (fixed per row)."""
        if self.swatch is None:
            return None
        assert self.rows is not None
        return variable_level(self.palette, self.swatch, int(self.rows.representative[row]))

    def set_zoom(self, zoom: int) -> None:
        self.zoom = zoom
        self._regroup()

    def set_ipu_filter(self, ipu: int | None) -> None:
        self.ipu_filter = ipu
        self._regroup()

    def set_gaps(self, gaps: bool) -> None:
        self.gaps = gaps
        self._regroup()

    def set_units(self, units: str) -> None:
        self.units = units
        self._regroup()

    def _regroup(self, selected: int | None = None) -> None:
        if self.memory is None:
            return
        tiles = visible_tiles(self.memory.ipu, self.ipu_filter)
        self.rows = tile_rows(self.memory.totals(self.gaps), tiles, self.zoom)
        self.label_layout = row_layout(self.memory, self.zoom, self.units, self.gaps)
        self._update_virtual_size()
        nearest = self.rows.nearest_tile(self.selected if selected is None else selected)
        self.select(nearest or 0, force=True)

    def _update_virtual_size(self) -> None:
        rows = len(self.rows) if self.rows is not None else 0
        size = Size(self.scrollable_content_region.width, rows)
        if size == self.virtual_size:
            return
        if self.show_vertical_scrollbar and rows > self.scrollable_content_region.height:
            # The scrollbar stays: tell it the new size now instead of by a layout,
            # which would repaint it in a second frame.
            self.set_reactive(TileHeatmap.virtual_size, size)
            update_scrollbars(self, size)
            self.refresh()
        else:
            self.virtual_size = size

    @property
    def cursor_row(self) -> int | None:
        return None if self.rows is None else self.rows.row_of(self.selected)

    def select(self, tile: int, force: bool = False) -> None:
        """Select TILE; FORCE repaints every row (the rows changed), else only the two cursor rows."""
        if self.rows is None or (tile == self.selected and not force):
            return
        before = self.cursor_row
        self.selected = tile
        tell_screen(self, self.Selected(tile))
        row = self.cursor_row
        if row is not None:
            self._follow(row)  # a scroll repaints every row
        if force:
            self.refresh()
        else:
            for changed in {before, row} - {None}:
                self.refresh_line(changed)

    def _follow(self, row: int) -> None:
        keep_row_visible(self, row)

    def _select_row(self, row: int) -> None:
        if self.rows is None or len(self.rows) == 0:
            return
        row = max(0, min(row, len(self.rows) - 1))
        self.select(int(self.rows.representative[row]))

    # Moves -----------------------------------------------------------------------

    def move(self, _across: int, down: int) -> None:
        """Down (or up) DOWN rows; a row has no across."""
        self._select_row((self.cursor_row or 0) + down)

    def page(self, direction: int) -> None:
        page = max(self.scrollable_content_region.height - 1, 1)
        self._select_row((self.cursor_row or 0) + direction * page)

    def move_to_end(self, last: bool) -> None:
        if self.rows is not None:
            self._select_row(len(self.rows) - 1 if last else 0)

    def on_click(self, event: Click) -> None:
        self._select_row(int(self.scroll_y) + event.y)

    # Rendering ---------------------------------------------------------------------

    def _row_keys(self, ys: range, width: int, style: Style) -> list[tuple | None]:
        """What each line of YS shows, as a cache key (row, cursor on it, swatch level, then what every line
        shares, looked up once: each is a walk through reactives); None for a line below the last row."""
        if self.memory is None or self.rows is None or self.label_layout is None:
            return [None] * len(ys)
        top, count, cursor = int(self.scroll_y), len(self.rows), self.cursor_row
        shared = (width, self.zoom, self.ipu_filter, self.gaps, self.app.theme, self.units, self._version, style)
        return [(row, row == cursor, self._swatch_level(row), *shared) if (row := top + y) < count else None
                for y in ys]

    def render_lines(self, crop: Region) -> list[Strip]:
        """Finished lines, kept per row: a scroll moves every line, and Textual would
        restyle and refilter each one though only the rows scrolled in are new."""
        # Looked up once per repaint, not per line: each costs a walk up the DOM.
        self._style = style = self.rich_style
        width, colours = self.scrollable_content_region.width, self.background_colors
        row_keys = self._row_keys(crop.line_range, width, style)
        self._keys_drawn = dict(zip(crop.line_range, row_keys))  # for render_line, as Textual asks line by line
        try:
            if self.styles.gutter:  # a border or padding: lines also depend on where they are
                self._draw_rows(row_keys, width, style)
                return super().render_lines(crop)
            keys = [(key, crop.x, crop.width, colours) for key in row_keys]
            lines = [self._lines.get(key) for key in keys]
            missing = [i for i, line in enumerate(lines) if line is None]
            self._draw_rows([row_keys[i] for i in missing], width, style)
            while missing:
                first = last = missing.pop(0)
                while missing and missing[0] == last + 1:
                    last = missing.pop(0)
                drawn = super().render_lines(Region(crop.x, crop.y + first, crop.width, last - first + 1))
                for i, line in enumerate(drawn, first):
                    lines[i] = self._lines[keys[i]] = line
            return lines
        finally:
            self._keys_drawn = {}

    def _draw_rows(self, keys: list[tuple], width: int, style: Style) -> None:
        """The rows of KEYS (see _row_keys; None: no row) not in the row cache, drawn together into it."""
        keys = [key for key in keys if key is not None and key not in self._strips]
        if not keys:
            return
        assert self.memory is not None and self.rows is not None and self.label_layout is not None
        lines = rows_segments(self.memory, self.rows, [key[0] for key in keys], width, self.label_layout, self.gaps,
                              self.units, self.cursor_row, self.palette, self.swatch)
        for key, segments in zip(keys, lines):
            strip = Strip(segments)
            if strip.cell_length != width:  # a label wider than a very narrow widget
                strip = strip.crop_extend(0, width, style)
            self._strips[key] = strip.apply_style(style)

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        style = self._style or self.rich_style
        key = self._keys_drawn[y] if y in self._keys_drawn else self._row_keys(range(y, y + 1), width, style)[0]
        if key is None:
            return Strip.blank(width, style)
        self._draw_rows([key], width, style)  # unless it is drawn already
        return self._strips[key]
