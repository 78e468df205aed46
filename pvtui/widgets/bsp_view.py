"""The BSP view: an IPU's tiles, grouped into rows, against the trace's cycle window.

Each tile works from its step's start for its own cycles (in the step's phase),
then waits at the sync until the step ends. A cell's glyph says what share of its
group of tiles is still working: solid phase colour for all, shades for some,
the sync colour for none. Columns whose step has no per-tile cycles stay blank.
"""

from __future__ import annotations

import numpy as np
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.strip import Strip

from pvtui.model.navigators import trace as tv
from pvtui.model.lanes import Lane
from pvtui.model.step_types import PHASES
from pvtui.model.navigators.trace import IDLE, BspFrame, busy_fractions, tile_groups
from pvtui.units import count_of
from pvtui.ui.textual_private import SteadyScrollbars
from pvtui.widgets.line_cache import CachedLines
from pvtui.widgets.look import UNICODE, Look, look_of
from pvtui.widgets.palette import phase_fill_styles
from pvtui.widgets.trace_view import GUTTER, coded_segments

LEVELS = len(UNICODE.shades) + 2  # all working, the shades (some, about half, most still working), all waiting
BLANK_CODE = len(PHASES) * LEVELS


def busy_levels(fractions: np.ndarray) -> np.ndarray:
    """0 where every tile works, 1..3 for the shades, LEVELS - 1 where all wait."""
    fractions = np.asarray(fractions, dtype=np.float64)
    count = len(UNICODE.shades)
    shades = 1 + np.minimum((fractions * count).astype(np.int64), count - 1)
    return np.where(fractions >= 1, 0, np.where(fractions <= 0, LEVELS - 1, shades))


def bsp_cell_table(styles: dict[str, Style], look: Look = Look()) -> list[tuple[str, Style]]:
    """Cells by phase and level (see busy_levels), then the blank of a column without data.

    Plain (see look.py), all working carries the phase's glyph and all waiting the sync's, as in
    the trace: two greys alone would not tell them apart.
    """
    marks = look.glyphs.phases if look.plain else " " * len(PHASES)
    on_fill = styles["on_fill"] if look.plain else Style()
    waiting = (marks[PHASES.index("sync")], styles["waiting"] + on_fill)
    table = []
    for phase, mark in zip(PHASES, marks):
        working = styles[phase]
        table += [(mark, working + on_fill), *((shade, working + styles["waiting"]) for shade in look.glyphs.shades),
                  waiting]
    return table + [(" ", Style())]


class BspView(CachedLines, SteadyScrollbars, can_focus=False):
    """Rows of tile groups; the screen computes the frame and sets it here."""

    DEFAULT_CSS = """
    BspView {
        height: 1fr;
        overflow: hidden hidden;
    }
    """

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.frame: BspFrame | None = None
        self.first_tile = 0
        self.key: tuple = ()
        self._styles: dict[str, Style] = {}
        self._cell_table: list[tuple[str, Style]] = []

    def restyle(self) -> None:
        self._styles = phase_fill_styles(self.app.theme_variables)
        self._cell_table = bsp_cell_table(self._styles, look_of(self.app))

    def show(self, frame: BspFrame, first_tile: int, key: tuple) -> None:
        """Draw FRAME; KEY names what it was computed from (run, IPU, window, width)."""
        if key != self.key:
            self._strips.clear()
        self.frame, self.first_tile, self.key = frame, first_tile, key
        self.refresh()

    def draw(self, execution, tiles_per_ipu: int | None, lane: Lane, ipu: int, window: tuple[int, int],
             lanes_key: tuple) -> Text:
        """Draw IPU's tiles under WINDOW of its LANE (computed again only where LANES_KEY, the run and
        lanes shown, the IPU, the window or the width changed); the status line saying what is drawn."""
        bsp_cycles = execution.bsp_cycles
        tiles = tv.ipu_tiles(ipu, bsp_cycles.shape[1], execution.num_ipus, tiles_per_ipu)
        width = max(self.scrollable_content_region.width - GUTTER, 0)
        key = (*lanes_key, ipu, window, width)
        if key != self.key:
            self.show(tv.bsp_frame(lane, window, width, execution.bsp_steps, bsp_cycles, tiles), tiles.start, key)
        frame = self.frame
        assert frame is not None
        per_group = -(-frame.tile_cycles.shape[1] // max(self.scrollable_content_region.height, 1))
        cells = bsp_cell_table(phase_fill_styles(self.app.theme_variables), look_of(self.app))
        return Text.assemble(
            f"tiles {tiles.start}–{tiles.stop - 1} ({per_group}/row) · "
            f"tile cycles: {frame.steps_with_data}/{count_of(frame.steps_shown, 'step')} drawn · ",
            cells[0], " working ", cells[2], " some ", cells[LEVELS - 1], " waiting",  # as compute's
        )

    def render_line(self, y: int) -> Strip:
        region = self.scrollable_content_region
        frame = self.frame
        if frame is None or not self._styles:
            return Strip.blank(region.width)
        groups = tile_groups(frame.tile_cycles.shape[1], region.height)
        if y >= len(groups):
            return Strip.blank(region.width)
        key = (y, region.width, region.height, self.key, self.app.theme)
        strip = self._strips.get(key)
        if strip is None:
            strip = self._render_group(*groups[y]).adjust_cell_length(region.width)
            self._strips[key] = strip
        return strip

    def _render_group(self, first: int, last: int) -> Strip:
        frame = self.frame
        assert frame is not None
        fractions = busy_fractions(frame.tile_cycles[:, first:last], frame.offsets)
        blank = frame.phases == IDLE
        codes = np.where(blank, BLANK_CODE, np.maximum(frame.phases, 0) * LEVELS + busy_levels(fractions))
        tiles = f"{self.first_tile + first}-{self.first_tile + last - 1}"
        gutter = tiles.rjust(GUTTER - 1)[: GUTTER - 1] + " "
        return Strip([Segment(gutter, self._styles["muted"]), *coded_segments(codes, self._cell_table)])

