"""The trace's flame view: under each IPU's lane, one row per depth of the steps' nesting.

The same Line-API widget as the flat trace (a TraceView), with more rows: each
IPU has its lane, then its depth rows. A depth row draws the blocks `flame_rows`
computed, their names written inside where they fit and elided where they do not;
leaves take their step type's colour, the groups above them two alternating greys.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from rich.segment import Segment
from rich.style import Style
from textual.color import Color
from textual.geometry import Size
from textual.strip import Strip

from pvtui.model.flame import FlameRow
from pvtui.model.step_types import PHASES
from pvtui.model.trace_views import IDLE, column_cells
from pvtui.widgets.look import ASCII, look_of
from pvtui.widgets.palette import rich_colour, text_style, theme_colour
from pvtui.widgets.trace_view import GUTTER, TraceState, TraceView


@dataclass(frozen=True)
class FlameCursor:
    """Where the cursor is in the flame view: DEPTH -1 is the IPU's lane (a step), else a block."""

    depth: int = -1
    block: int = -1


def elide(name: str, width: int, ellipsis: str = "…") -> str:
    """NAME in WIDTH cells: whole, or cut with an ellipsis; nothing in a single cell."""
    if width <= 1:
        return " " * max(width, 0)
    if len(name) <= width:
        return name.ljust(width)
    return name[: width - 1] + ellipsis


def block_runs(positions: np.ndarray, several: np.ndarray) -> list[tuple[int, int, int, bool]]:
    """(block, first column, columns, several) for each run of columns showing the same thing."""
    if not len(positions):
        return []
    codes = np.where(several, -2, positions)
    breaks = np.flatnonzero(np.diff(codes)) + 1
    starts = np.concatenate(([0], breaks))
    ends = np.concatenate((breaks, [len(codes)]))
    # whole-array reads, then plain lists: indexing numpy one element at a time costs more than the rest
    return list(zip(positions[starts].tolist(), starts.tolist(), (ends - starts).tolist(), several[starts].tolist()))


class FlameView(TraceView):
    """A TraceView that, given flame rows, draws each IPU's nesting under its lane."""

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.flame: tuple[list[FlameRow], ...] | None = None  # per IPU, a row per depth; None: the flat trace
        self.names: list[str] = []
        self.cursor = FlameCursor()
        self._flame_styles: dict[str, Style] = {}
        self._cursor_row = 0  # the row the cursor is on, below the axis
        self._shown: tuple = ()  # run, window and flame rows last drawn

    @property
    def depth(self) -> int:
        return len(self.flame[0]) if self.flame else 0

    @property
    def rows_per_ipu(self) -> int:
        return 1 + self.depth

    def restyle(self) -> None:
        super().restyle()
        variables = self.app.theme_variables
        styles: dict[str, Style] = {}

        def fill(name: str, colour: Color) -> None:
            styles[name] = Style(color=colour.get_contrast_text(1.0).rich_color, bgcolor=colour.rich_color)
            # a column of several blocks: the one at its centre, shaded
            styles[f"{name}-several"] = Style(color=colour.darken(0.2).rich_color, bgcolor=colour.rich_color)

        for phase in PHASES:
            fill(phase, theme_colour(variables, f"pv-{phase}"))
        grey = theme_colour(variables, "pv-muted")
        fill("group0", grey)
        fill("group1", grey.darken(0.12))
        fill("cursor", theme_colour(variables, "pv-cursor"))
        # without colours that tell apart, the cursor's block stands out by reverse too
        styles["cursor"] += Style(bold=True, reverse=look_of(self.app).plain)
        styles["idle"] = Style(bgcolor=rich_colour(variables, "pv-idle"))
        styles["gutter"] = text_style(variables, "pv-muted")
        styles["gutter_cursor"] = text_style(variables, "pv-cursor", bold=True)
        self._flame_styles = styles

    def show_flame(
        self, state: TraceState, flame: tuple[list[FlameRow], ...] | None, names: list[str], cursor: FlameCursor
    ) -> None:
        """Show STATE, with FLAME's depth rows under each lane (None: the flat trace) and CURSOR in them."""
        if flame is not self.flame:
            self._strips.clear()
        self.flame, self.names, self.cursor = flame, names, cursor
        self.show(state)

    def show(self, state: TraceState) -> None:
        if self.flame is None:
            super().show(state)
            return
        before, shown_row, top = self.state, self._cursor_row, self.scroll_y
        if before is None or state.lanes is not before.lanes:
            self._cells.clear()
            self._strips.clear()
        self.state = state
        self.virtual_size = Size(self.size.width, 1 + len(state.lanes) * self.rows_per_ipu)
        self._cursor_row = state.cursor_ipu * self.rows_per_ipu + 1 + self.cursor.depth
        self.scroll_to_lane(self._cursor_row)
        unmoved = before is not None and self.scroll_y == top and self._shown == (state.run, state.window, self.flame)
        self._shown = (state.run, state.window, self.flame)
        if unmoved and before.lanes is state.lanes:  # only the cursor moved: repaint its old and new rows
            for row in {shown_row, self._cursor_row}:
                self.refresh_line(row + 1)  # the axis is line 0
        else:
            self.refresh()

    def render_line(self, y: int) -> Strip:
        if self.flame is None:
            return super().render_line(y)
        state = self.state
        total = self.scrollable_content_region.width
        if state is None or not self._flame_styles:
            return Strip.blank(total, self._flame_styles.get("gutter"))
        if y == 0:
            return super().render_line(0)
        row = y - 1 + int(self.scroll_y)
        ipu, depth = divmod(row, self.rows_per_ipu)
        depth -= 1
        if ipu >= len(state.lanes):
            return Strip.blank(total, self._flame_styles["gutter"])
        width = self.cells_width
        here = ipu == state.cursor_ipu and depth == self.cursor.depth
        if depth < 0:
            cursor = state.cursor_pos if here else None
            key = ("lane", ipu, width, state.window, state.run, cursor, self.app.theme)
            build = lambda: self._render_row(ipu, width, cursor)  # noqa: E731
        else:
            block = self.cursor.block if here else None
            key = ("flame", ipu, depth, width, state.window, state.run, block, self.app.theme)
            build = lambda: self._render_depth(ipu, depth, width, block)  # noqa: E731
        strip = self._strips.get(key)
        if strip is None:
            strip = build().adjust_cell_length(total, self._flame_styles["gutter"])
            self._strips[key] = strip
        return strip

    def _render_depth(self, ipu: int, depth: int, width: int, cursor_block: int | None) -> Strip:
        state, styles = self.state, self._flame_styles
        assert state is not None and self.flame is not None
        row = self.flame[ipu][depth]
        positions, several = column_cells(row.lane, *state.window, width)
        glyphs = look_of(self.app).glyphs
        ellipsis = "~" if glyphs is ASCII else "…"
        marker = glyphs.pointer if cursor_block is not None else " "
        gutter = Segment(f"{marker} depth {depth + 1}".ljust(GUTTER)[:GUTTER],
                         styles["gutter_cursor" if cursor_block is not None else "gutter"])
        segments = [gutter]
        for block, start, columns, many in block_runs(positions, several):
            if block == IDLE:
                segments.append(Segment(" " * columns, styles["idle"]))
            elif many:
                segments.append(Segment(glyphs.several * columns,
                                        styles[self._block_kind(row, block, cursor_block) + "-several"]))
            else:
                segments.append(Segment(elide(self.names[int(row.node[block])], columns, ellipsis),
                                        styles[self._block_kind(row, block, cursor_block)]))
        return Strip(segments)

    @staticmethod
    def _block_kind(row: FlameRow, block: int, cursor_block: int | None) -> str:
        """The style a block is drawn in: the cursor's, its step type's (a leaf), else a grey by parity."""
        if block == cursor_block:
            return "cursor"
        if row.leaf[block]:
            return PHASES[int(row.lane.phases[block])]
        return f"group{block % 2}"
