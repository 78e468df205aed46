"""The tile map: every tile as a half cell (▀, upper tile in the foreground colour, lower in the
background), one labelled block per IPU, coloured by a perceptual scale from the theme.
The cursor's cell keeps its tile's colour, with a contrasting mark on it.

One Line-API widget; each line is built from numpy codes and cached as a Strip keyed on
everything that changes it.
"""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

import numpy as np
from rich.color import Color as RichColor
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.cache import LRUCache
from textual.color import Color
from textual.geometry import Size
from textual.message import Message
from textual.strip import Strip

from pvtui.model.arrays import distinct
from pvtui.model.tile_map import (
    BLOCK_GAP, LEVELS, NONE, OVER, ZERO, Block, MapLayout, block_label, blocks_of, colour_codes, fit_layout,
)
from pvtui.model.navigators.memory import MapValues
from pvtui.ui.textual_private import SteadyScrollbars
from pvtui.units import count_of, format_bytes
from pvtui.widgets.look import Look, look_of
from pvtui.widgets.scrolling import keep_row_visible
from pvtui.widgets.tell_screen import tell_screen

HALF = "▀"
HEAT_STOPS = tuple(f"pv-heat-{i}" for i in range(5))


class MapColours(NamedTuple):
    """One colour per code: the scale's levels, then over, zero and none.

    Plain (see look.py: no colours that tell levels apart), a cell is one glyph for the fuller
    of its two tiles: the heat glyphs from low to high, the over glyph; the cursor's reversed.
    """

    colours: tuple  # rich Color per code
    marks: tuple  # rich Color per code: the cursor's mark on it, black or white, whichever reads
    mark: str  # the cursor's glyph
    label: Style
    muted: Style
    background: Style
    glyphs: tuple[str, ...] | None  # plain: the glyph of each code; None: colour says it

    @classmethod
    def from_variables(cls, v: dict[str, str], look: Look) -> "MapColours":
        stops = [Color.parse(v[name]) for name in HEAT_STOPS]
        levels = []
        for i in range(LEVELS):
            at = i / (LEVELS - 1) * (len(stops) - 1)
            low = min(int(at), len(stops) - 2)
            levels.append(stops[low].blend(stops[low + 1], at - low))
        background = Color.parse(v.get("background", "#000000"))
        extra = [Color.parse(v["pv-over"]), Color.parse(v["pv-idle"]), background]
        colours = tuple(c.rich_color for c in levels + extra)
        marks = tuple(c.get_contrast_text(1.0).rich_color for c in levels + extra)
        heat = look.glyphs.heat
        glyphs = None
        if look.plain:
            glyphs = tuple(heat[i * len(heat) // LEVELS] for i in range(LEVELS)) + (look.glyphs.over, " ", " ")
        return cls(
            colours=colours,
            marks=marks,
            mark=look.glyphs.selected,
            label=Style(color=Color.parse(v.get("foreground", "#ffffff")).rich_color, bgcolor=background.rich_color,
                        bold=True),
            muted=Style(color=Color.parse(v["pv-muted"]).rich_color, bgcolor=background.rich_color),
            background=Style(bgcolor=background.rich_color),
            glyphs=glyphs,
        )

    def cell(self, upper: int, lower: int) -> tuple[str, Style]:
        """The glyph and style of a cell holding two tiles' codes."""
        if self.glyphs is None:
            return HALF, _half_cell(self.colours[upper], self.colours[lower])
        code = _fuller(upper, lower)
        return self.glyphs[code], Style(color=self.colours[code], bgcolor=self.background.bgcolor, bold=code == OVER)

    def cursor_cell(self, code: int) -> tuple[str, Style]:
        """The cursor's cell over a tile of CODE: the mark in a contrasting colour on the tile's own colour;
        plain, the tile's own glyph reversed."""
        if self.glyphs is None:
            return self.mark, Style(color=self.marks[code], bgcolor=self.colours[code], bold=True)
        return self.glyphs[code], Style(color=self.colours[code], bgcolor=self.background.bgcolor, reverse=True,
                                        bold=True)

    def swatch(self, code: int, width: int = 1) -> tuple[str, Style]:
        """A legend swatch of CODE, WIDTH cells."""
        if self.glyphs is None:
            return " " * width, Style(bgcolor=self.colours[code])
        return self.glyphs[code] * width, Style(color=self.colours[code], bgcolor=self.background.bgcolor)


@lru_cache(maxsize=1024)
def _half_cell(upper: RichColor, lower: RichColor) -> Style:
    """The style of a half-cell pair (a Style is costly to build, and a map line has a hundred runs)."""
    return Style(color=upper, bgcolor=lower)


def _fuller(upper: int, lower: int) -> int:
    """Of two codes, the one a single glyph shows: over the limit, then the higher level."""
    if OVER in (upper, lower):
        return OVER
    levels = [c for c in (upper, lower) if c < LEVELS]
    return max(levels) if levels else min(upper, lower)


def legend(values: MapValues, colours: MapColours, units: str, per_cell: int) -> list[Text]:
    """The legend's entries: the scale from nothing to its top in bytes, what stands out, the tiles a cell holds."""
    scale = Text("0 ", colours.muted)
    for level in range(0, LEVELS, 2):
        scale.append(*colours.swatch(level))
    scale.append(f" {format_bytes(int(values.scale), units)}", colours.muted)
    entries = [scale]
    if values.limit:
        entries.append(Text.assemble(colours.swatch(OVER, 2), (" over the limit", colours.muted)))
    entries.append(Text.assemble(colours.swatch(ZERO, 2), (" 0 bytes", colours.muted)))
    fullest = ", the fullest shown" if per_cell > 1 else ""
    entries.append(Text(f"{count_of(per_cell, 'tile')}/half cell{fullest}", colours.muted))
    return entries


class TileMap(SteadyScrollbars, can_focus=False):
    """Every tile at a glance; a cursor over the half cells, the selected tile following it.

    Its keys are MemoryViews' (which holds the focus for it and the bars).
    """

    DEFAULT_CSS = """
    TileMap {
        scrollbar-size-horizontal: 0;
    }
    """

    class Selected(Message):
        """TILE is selected now."""

        def __init__(self, tile: int) -> None:
            super().__init__()
            self.tile = tile

    class Relaid(Message):
        """The tiles per half cell changed: the legend says how many."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.values: MapValues | None = None
        self.ipu: np.ndarray | None = None
        self.tiles: np.ndarray | None = None  # the tiles shown (the IPU filter's)
        self.grid: MapLayout | None = None
        self.selected = 0
        self._codes: np.ndarray | None = None  # per flat group: the colour code of its fullest tile
        self._representative: np.ndarray | None = None
        self._version = 0
        self._line_stamps = np.zeros(0, np.int64)  # per line, bumped when its cells' colours change
        self._colours: tuple[str, MapColours] | None = None
        self._laid_out = (0, 0)  # the size the grid was fitted to
        # Lines by everything that changes them (the theme too): kept while hidden, so that
        # showing the map again repaints from here.
        self._strips: LRUCache[tuple, Strip] = LRUCache(512)

    @property
    def colours(self) -> MapColours:
        """The current theme's colours (rebuilt when the theme changes)."""
        theme = self.app.theme
        if self._colours is None or self._colours[0] != theme:
            self._colours = (theme, MapColours.from_variables(self.app.theme_variables, look_of(self.app)))
        return self._colours[1]

    # State ---------------------------------------------------------------------------

    def set_tiles(self, ipu: np.ndarray, tiles: np.ndarray, values: MapValues, selected: int) -> None:
        """Show TILES (of IPU per tile) coloured by VALUES; SELECTED, or the nearest shown tile, selected."""
        same_tiles = self.grid is not None and ipu is self.ipu and np.array_equal(tiles, self.tiles)
        old_codes, self.ipu, self.tiles, self.values = self._codes, ipu, tiles, values
        if same_tiles and self._laid_out == self._content_size():
            self._recolour(old_codes)  # the same cells: only the ones whose colour changed are drawn again
        else:
            self._relayout()
            self.refresh()
        if len(tiles):
            i = min(int(np.searchsorted(tiles, selected)), len(tiles) - 1)
            self.selected = int(tiles[i])

    def _content_size(self) -> tuple[int, int]:
        """The size the map is laid out for. Hidden since the start, it has none of its own (Textual
        sizes only what it shows): then its container's, which it fills, so that it is laid out
        before it is first shown, not in a frame after."""
        region = self.scrollable_content_region
        if not region.area and self.parent is not None:
            region = self.parent.content_region
        return region.width, region.height

    def on_resize(self) -> None:
        self.fit()

    def fit(self) -> None:
        """Lay the map out for its size, unless it is laid out for it already."""
        if self._content_size() == self._laid_out:
            return  # shown again at the size it was laid out for
        per_cell = None if self.grid is None else self.grid.per_cell
        self._relayout()
        if self.grid is not None and self.grid.per_cell != per_cell:
            tell_screen(self, self.Relaid())

    def _relayout(self) -> None:
        width, height = self._content_size()
        if self.ipu is None or self.tiles is None or self.values is None or not width * height:
            self._laid_out = (0, 0)  # not laid out for these tiles: the next resize does it
            return
        self._version += 1
        self._strips.clear()
        self._laid_out = (width, height)
        self.grid = fit_layout(blocks_of(self.ipu, self.tiles), width, height)
        self._line_stamps = np.zeros(self.grid.lines, np.int64)
        self._representative = self.grid.representatives(self.values.values)
        self._codes = colour_codes(self.values.values[self._representative], self.values.scale, self.values.limit)
        self.virtual_size = Size(width, self.grid.lines)
        if not self.visible:
            self.call_after_refresh(self._prerender)

    def _recolour(self, old_codes: np.ndarray) -> None:
        """Colour the laid-out cells by the new values; repaint the lines whose codes changed."""
        assert self.grid is not None and self.values is not None
        self._representative = self.grid.representatives(self.values.values)
        self._codes = colour_codes(self.values.values[self._representative], self.values.scale, self.values.limit)
        lines = distinct(self.grid.lines_of(np.flatnonzero(old_codes != self._codes)))
        self._line_stamps[lines] += 1  # their cached strips are stale
        top = int(self.scroll_y)
        for line in lines.tolist():
            self.refresh_line(line - top)

    def select(self, tile: int) -> None:
        if self.grid is None:
            return
        before = self.grid.line_of(self.grid.group_of(self.selected))
        self.selected = tile
        tell_screen(self, self.Selected(tile))
        line = self.grid.line_of(self.grid.group_of(tile))
        keep_row_visible(self, line)
        for changed in {before, line}:
            self.refresh_line(changed - int(self.scroll_y))

    def _select_group(self, group: int) -> None:
        assert self._representative is not None
        self.select(int(self._representative[group]))

    # Moves -------------------------------------------------------------------------

    def move(self, across: int, down: int) -> None:
        if self.grid is not None and self.grid.num_groups:
            self._select_group(self.grid.moved(self.grid.group_of(self.selected), across, down))

    def page(self, direction: int) -> None:
        """The same place in the next (or previous) IPU's block."""
        layout = self.grid
        if layout is None or not layout.num_groups:
            return
        group = layout.group_of(self.selected)
        block = layout.block_of_group(group)
        target = min(max(block + direction, 0), len(layout.blocks) - 1)
        local = min(group - int(layout.group_offsets[block]), layout.groups(target) - 1)
        self._select_group(int(layout.group_offsets[target]) + local)

    def move_to_end(self, last: bool) -> None:
        if self.grid is not None and self.grid.num_groups:
            self._select_group(self.grid.num_groups - 1 if last else 0)

    # Rendering -----------------------------------------------------------------------

    def _prerender(self) -> None:
        """Hidden, draw the lines it would show first, after the frame at hand: showing it then costs
        a copy of them."""
        if self.grid is not None and not self.visible:
            for y in range(min(self._laid_out[1], self.grid.lines)):
                self.render_line(y)

    def render_line(self, y: int) -> Strip:
        width = self._content_size()[0]  # hidden (prerender), its container's
        line = int(self.scroll_y) + y
        layout = self.grid
        colours = self.colours
        if layout is None or line >= layout.lines:
            return Strip.blank(width, colours.background)
        cursor = layout.group_of(self.selected)
        on_line = layout.line_of(cursor) == line
        key = (line, width, self._version, int(self._line_stamps[line]), self.app.theme, cursor if on_line else -1)
        strip = self._strips.get(key)
        if strip is None:
            strip = Strip(self._line_segments(layout, line, cursor if on_line else -1), width)
            strip = strip.crop_extend(0, width, colours.background)
            self._strips[key] = strip
        return strip

    def _line_segments(self, layout: MapLayout, line: int, cursor: int) -> list[Segment]:
        colours = self.colours
        block_row, within = divmod(line, layout.lines_per_block)
        first = block_row * layout.block_columns
        segments: list[Segment] = []
        for b in range(first, min(first + layout.block_columns, len(layout.blocks))):
            if b > first:
                segments.append(Segment(" " * BLOCK_GAP, colours.background))
            if within == 0:
                segments.append(self._label(layout.blocks[b], layout.block_width))
            else:
                segments += self._cells(layout, b, 2 * (within - 1), cursor)
        return segments

    def _label(self, block: Block, width: int) -> Segment:
        return Segment(f"{block_label(block, width):<{width}}", self.colours.label)

    def _cells(self, layout: MapLayout, block: int, half_row: int, cursor: int) -> list[Segment]:
        assert self._codes is not None
        rows = []
        for r in (half_row, half_row + 1):
            groups = layout.half_row_groups(block, r)
            codes = np.where(groups >= 0, self._codes[np.maximum(groups, 0)], NONE)
            at = np.flatnonzero(groups == cursor) if cursor >= 0 else ()
            rows.append((codes, at))
        (upper, upper_cursor), (lower, lower_cursor) = rows
        cursor_column, cursor_code = -1, NONE  # the cursor's cell shows its tile, not the other half's
        if len(upper_cursor) or len(lower_cursor):
            cursor_column = int((upper_cursor if len(upper_cursor) else lower_cursor)[0])
            cursor_code = int((upper if len(upper_cursor) else lower)[cursor_column])
        marked = np.arange(len(upper)) == cursor_column
        changed = (upper[1:] != upper[:-1]) | (lower[1:] != lower[:-1]) | (marked[1:] != marked[:-1])
        change = np.flatnonzero(changed) + 1
        starts = [0, *change.tolist()]
        ends = [*change.tolist(), len(upper)]
        colours = self.colours
        segments = []
        for s, e in zip(starts, ends):
            if s == cursor_column:
                glyph, style = colours.cursor_cell(cursor_code)
            else:
                glyph, style = colours.cell(int(upper[s]), int(lower[s]))
            segments.append(Segment(glyph * (e - s), style))
        return segments
