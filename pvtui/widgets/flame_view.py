"""The trace's flame view: under each IPU's lane, one row per depth of the steps' nesting.

The same Line-API widget as the flat trace (a TraceView), with more rows: each
IPU has its lane, then its depth rows. A depth row draws the blocks `flame_rows`
computed, their names written inside where they fit and elided where they do not;
leaves take their step type's colour, the groups above them two alternating greys.
The depth rows are fitted to the height (`fitted_depths`): rows with nothing in the
cycle window are left out, and the deepest give way first, counted on a last line.
"""

from __future__ import annotations

import numpy as np
from rich.segment import Segment
from rich.style import Style
from textual.color import Color
from textual.geometry import Size
from textual.strip import Strip

from pvtui.model.flame import FlameRow, fitted_depths
from pvtui.model.step_types import PHASES
from pvtui.model.navigators.trace import IDLE, FlameCursor, column_cells
from pvtui.widgets.look import ASCII, look_of
from pvtui.widgets.palette import rich_colour, text_style, theme_colour
from pvtui.widgets.trace_view import GUTTER, TraceState, TraceView


LEAST_LETTERS = 3  # of a cut name: fewer say nothing ("q…"), and the block shows none


def elide(name: str, width: int, ellipsis: str = "…") -> str:
    """NAME in WIDTH cells: whole, or cut with an ellipsis after at least LEAST_LETTERS; else blank."""
    if len(name) <= width:
        return name.ljust(width)
    if width < LEAST_LETTERS + len(ellipsis):
        return " " * max(width, 0)
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
        self.rows: list[tuple[int, int]] = []  # (IPU, depth) of each row below the axis; depth -1: the lane
        self.hidden = 0  # depth rows with blocks in the window that do not fit
        self._flame_styles: dict[str, Style] = {}
        self._cursor_row = 0  # the row the cursor is on, below the axis
        self._shown: tuple = ()  # run, window, flame rows and layout last drawn
        self._wanted_rows = 0  # lanes and depth rows with a block in the window, shown or not (get_content_height)

    def fit_rows(self, state: TraceState, flame: tuple[list[FlameRow], ...], cursor: FlameCursor) -> list[tuple[int, int]]:
        """The rows FLAME draws over STATE's window at this height: each IPU's lane, then its fitted depth rows."""
        keep = (state.cursor_ipu, cursor.depth)
        room = max(self.scrollable_content_region.height - 1, 1)  # below the axis
        depths, hidden = fitted_depths(flame, state.window, room, keep)
        if hidden:  # the last line says so
            depths, hidden = fitted_depths(flame, state.window, room - 1, keep)
        self.hidden = hidden
        return [(ipu, depth) for ipu, shown in enumerate(depths) for depth in (-1, *shown)]

    def on_resize(self) -> None:
        if self.flame is not None and self.state is not None:
            self.call_after_refresh(self.show, self.state)  # more or fewer depth rows fit

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        """As tall as every depth row with a block in the window wants (the screen caps it): the room
        left goes to the step's details below, where a fixed share left rows empty above them."""
        if self.flame is None or self.state is None:
            return super().get_content_height(container, viewport, width)
        return 1 + self._wanted_rows

    @property
    def visible_rows(self) -> int:
        """Rows of lanes and depths on screen: all but the axis and the hidden rows' note."""
        fixed = 1 + (1 if self.flame is not None and self.hidden else 0)
        return max(self.scrollable_content_region.height - fixed, 1)

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
        self.rows = self.fit_rows(state, self.flame, self.cursor)
        if len(self.rows) + self.hidden != self._wanted_rows:  # taller or shorter: the rest to the details
            self._wanted_rows = len(self.rows) + self.hidden
            self.refresh(layout=True)
        self.virtual_size = Size(self.size.width, 1 + len(self.rows) + (1 if self.hidden else 0))
        self._cursor_row = self.rows.index((state.cursor_ipu, self.cursor.depth))
        self.scroll_to_lane(self._cursor_row)
        layout = (state.run, state.window, self.flame, tuple(self.rows), self.hidden)
        unmoved = before is not None and self.scroll_y == top and self._shown == layout
        self._shown = layout
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
        if self.hidden and y == self.scrollable_content_region.height - 1:
            return self._hidden_note().adjust_cell_length(total, self._flame_styles["gutter"])
        row = y - 1 + int(self.scroll_y)
        if row >= len(self.rows):
            return Strip.blank(total, self._flame_styles["gutter"])
        ipu, depth = self.rows[row]
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

    def _hidden_note(self) -> Strip:
        rows = "row" if self.hidden == 1 else "rows"
        return Strip([Segment(f" {self.hidden:,} deeper depth {rows} hidden: a taller terminal or a zoom shows more",
                              self._flame_styles["gutter"])])

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
