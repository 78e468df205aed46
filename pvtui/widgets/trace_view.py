"""The execution trace: one lane per IPU of steps over a cycle window, and a cycle axis.

One Line-API widget: the first line is the axis and stays put; the lanes below
scroll. Each line is built in O(width) from `column_cells` and kept in an LRU
cache keyed on everything that changes it.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.cache import LRUCache
from textual.geometry import Size
from textual.strip import Strip

from pvtui.model.step_types import PHASES
from pvtui.model.lanes import Lane
from pvtui.model.navigators.trace import IDLE, axis_ticks, column_cells
from pvtui.ui.textual_private import SteadyScrollbars
from pvtui.widgets.line_cache import CachedLines
from pvtui.widgets.look import UNICODE, Look, look_of
from pvtui.widgets.palette import phase_fill_styles

GUTTER = 10  # columns of labels left of the cells; the BSP view uses the same


class TraceState(NamedTuple):
    """What the trace shows: the run's lanes over a window, and the cursor."""

    run: int
    lanes: tuple[Lane, ...]
    window: tuple[int, int]
    cursor_ipu: int
    cursor_pos: int
    names: tuple[str, ...] = ()  # each lane's label, where it is not "IPU n"
    axis: str = "cycles"  # what the axis counts
    origin: int = 0  # the cycle the axis counts from: the run's start

    def lane_name(self, lane: int) -> str:
        return self.names[lane] if lane < len(self.names) else f"IPU {lane}"


def coded_segments(codes: np.ndarray, cells: list[tuple[str, Style]]) -> list[Segment]:
    """Columns given as indices into CELLS (glyph, style): one segment per run of equal codes."""
    if not len(codes):
        return []
    breaks = np.flatnonzero(np.diff(codes)) + 1
    starts = np.concatenate(([0], breaks)).tolist()
    ends = np.concatenate((breaks, [len(codes)])).tolist()
    return [
        Segment(cells[code][0] * (end - start), cells[code][1])
        for code, start, end in zip(np.asarray(codes)[starts].tolist(), starts, ends)
    ]


def lane_cell_table(styles: dict[str, Style], look: Look = Look()) -> list[tuple[str, Style]]:
    """The trace's cells: for each phase one step, several steps, the cursor; then idle (IDLE_CODE).

    Plain (see look.py), a phase's cells also carry its glyph, and several steps a light shade
    (the dark one would read as a step's solid fill in grey).
    """
    glyphs, table = look.glyphs, []
    several = glyphs.shades[0] if look.plain else glyphs.several
    for phase, glyph in zip(PHASES, glyphs.phases if look.plain else " " * len(PHASES)):
        one = styles[phase]
        table += [(glyph, one + styles["on_fill"] if look.plain else one), (several, one + styles["idle"]),
                  (glyphs.cursor_line, one + styles["cursor"])]
    return table + [(" ", styles["idle"])]


CELL_KINDS = 3  # one step, several steps, cursor
IDLE_CODE = len(PHASES) * CELL_KINDS


def lane_legend(styles: dict[str, Style], look: Look = Look()) -> Text:
    """What the lanes' cells mean: each phase's fill, then several steps in a column."""
    cells = lane_cell_table(styles, look)
    text = Text()
    for index, phase in enumerate(PHASES):
        glyph, style = cells[index * CELL_KINDS]
        text.append(glyph * 2, style=style)
        text.append(f" {phase}  ")
    text.append(*cells[1])  # several steps, drawn as compute's
    text.append(" several steps")
    return text


def axis_strip(lo: int, hi: int, width: int, title: str, muted: Style, tick: str = UNICODE.tick,
               origin: int = 0) -> Strip:
    """TITLE in the gutter, then TICK marks and compact cycle labels over WIDTH columns, counted from ORIGIN."""
    chars = [" "] * width
    for column, label in axis_ticks(lo - origin, hi - origin, width):
        text = tick + label
        if column + len(text) > width or any(c != " " for c in chars[max(column - 1, 0) : column + len(text)]):
            continue
        chars[column : column + len(text)] = text
    return Strip([Segment(title.ljust(GUTTER)[:GUTTER], muted), Segment("".join(chars), muted)])


class TraceView(CachedLines, SteadyScrollbars, can_focus=False):
    """Lanes of steps coloured by phase; the screen owns the state and sets it here."""

    DEFAULT_CSS = """
    TraceView {
        height: 1fr;
        min-height: 3;
        overflow-x: hidden;
        scrollbar-size-vertical: 1;
    }
    """

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.state: TraceState | None = None
        self._cells: LRUCache[tuple, tuple] = LRUCache(64)
        self._styles: dict[str, Style] = {}
        self._cell_table: list[tuple[str, Style]] = []

    def restyle(self) -> None:
        self._styles = phase_fill_styles(self.app.theme_variables)
        self._cell_table = lane_cell_table(self._styles, look_of(self.app))

    def on_resize(self) -> None:
        self._cells.clear()

    def show(self, state: TraceState) -> None:
        if self.state is None or state.lanes is not self.state.lanes:
            self._cells.clear()
            self._strips.clear()
        self.state = state
        self.virtual_size = Size(self.size.width, 1 + len(state.lanes))
        self.scroll_to_lane(state.cursor_ipu)
        self.refresh()

    @property
    def visible_rows(self) -> int:
        """Rows of lanes on screen: all but the axis."""
        return max(self.scrollable_content_region.height - 1, 1)

    @property
    def cells_width(self) -> int:
        return max(self.scrollable_content_region.width - GUTTER, 0)

    def scroll_to_lane(self, lane: int) -> None:
        """Scroll the lanes so LANE is visible below the axis."""
        visible = self.visible_rows
        top = int(self.scroll_y)
        if lane < top:
            self.scroll_to(y=lane, animate=False)
        elif lane >= top + visible:
            self.scroll_to(y=lane - visible + 1, animate=False)

    def lane_cells(self, ipu: int, width: int) -> tuple:
        """The lane positions shown in each column of IPU's lane (cached per window)."""
        state = self.state
        assert state is not None
        key = (state.run, ipu, state.window, width)
        cached = self._cells.get(key)
        if cached is None:
            cached = column_cells(state.lanes[ipu], *state.window, width)
            self._cells[key] = cached
        return cached

    def render_line(self, y: int) -> Strip:
        state = self.state
        width = self.cells_width
        total = self.scrollable_content_region.width
        if state is None or not self._styles:
            return Strip.blank(total)
        lane = -1 if y == 0 else y - 1 + int(self.scroll_y)
        if lane >= len(state.lanes):
            return Strip.blank(total)
        cursor = state.cursor_pos if lane == state.cursor_ipu else None
        key = (lane, width, state.window, state.run, cursor, self.app.theme)
        strip = self._strips.get(key)
        if strip is None:
            strip = self._render_row(lane, width, cursor).adjust_cell_length(total)
            self._strips[key] = strip
        return strip

    def _render_row(self, lane: int, width: int, cursor: int | None) -> Strip:
        state = self.state
        assert state is not None
        styles = self._styles
        if lane < 0:
            return axis_strip(*state.window, width, state.axis, styles["muted"], look_of(self.app).glyphs.tick,
                              state.origin)
        positions, several = self.lane_cells(lane, width)
        phases = state.lanes[lane].phases
        kinds = several.astype(np.int64)
        if cursor is not None:
            kinds[list(self._cursor_columns(lane, positions, width))] = 2
        idle = positions == IDLE
        shown = phases[np.maximum(positions, 0)].astype(np.int64) if len(phases) else np.zeros(width, np.int64)
        codes = np.where(idle, IDLE_CODE, shown * CELL_KINDS + kinds)
        label = state.lane_name(lane)
        pointer = look_of(self.app).glyphs.pointer
        gutter = (f"{pointer}{label}" if cursor is not None else f" {label}").ljust(GUTTER)[:GUTTER]
        gutter_style = styles["cursor"] if cursor is not None else styles["muted"]
        return Strip([Segment(gutter, gutter_style), *coded_segments(codes, self._cell_table)])

    def _cursor_columns(self, lane: int, positions, width: int) -> set[int]:
        """Columns marking the selected step: where it shows, else where its middle falls."""
        state = self.state
        assert state is not None
        pos = state.cursor_pos
        if pos < 0:
            return set()
        shown = {int(c) for c in (positions == pos).nonzero()[0]}
        if shown:
            return shown
        lo, hi = state.window
        data = state.lanes[lane]
        middle = (int(data.starts[pos]) + int(data.ends[pos])) / 2
        column = int((middle - lo) * width / (hi - lo)) if hi > lo else -1
        return {column} if 0 <= column < width else set()
