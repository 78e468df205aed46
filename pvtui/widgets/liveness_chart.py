"""The liveness chart: always-live plus not-always-live bytes per step, one Line-API widget.

Rows, top to bottom: a marker row (the peak, the marked step and the cursor), the plot, the x axis
and its step numbers. The y axis labels sit on the left. Each plot cell is drawn
with eighth blocks, so a column's height has eight levels per row.
"""

from __future__ import annotations

from itertools import groupby
from typing import NamedTuple

import numpy as np
from rich.segment import Segment
from rich.style import Style
from textual.color import Color
from textual.events import Click
from textual.message import Message
from textual.strip import Strip
from textual.widget import Widget

from pvtui.model.arrays import runs_by_row
from pvtui.model.navigators.liveness import (
    BANDS,
    CellRow,
    StepSeries,
    Window,
    YScale,
    column_first_steps,
    columns_of_step,
    stacked_rows,
)
from pvtui.widgets.chart_rows import (
    AXIS_ROWS,
    MARKER_ROWS,
    axis_line,
    cell_glyph,
    chart_row,
    labelled_levels,
)
from pvtui.units import format_bytes
from pvtui.widgets.line_cache import CachedLines
from pvtui.widgets.look import Look, look_of

ALWAYS, SOLID, RANGE, EMPTY = range(4)  # the stacked layers, bottom to top
# how a column is highlighted (MARKED and CURSOR_ON_MARKED: in the marker row only; the latter the
# marked step's glyph in the cursor's colour, where the two share a column)
PLAIN, PEAK, CURSOR, MARKED, CURSOR_ON_MARKED = range(5)
MIN_LABEL_GAP = 2
MIN_TICK_SPACING = 8
NO_PLOT = (None, range(0), [])  # LivenessChart._plot_cache before a plot is drawn: (frame, cursor, rows)


class Frame(NamedTuple):
    """The geometry and data of one window of the chart, shared by all its rows (the cursor aside)."""

    scale: YScale  # the bytes of each plot row
    label_width: int
    plot_width: int
    plot_height: int
    first_steps: np.ndarray  # the first step of each column
    boundaries: np.ndarray  # (3, plot_width): always-live, then + min and + max not-always-live
    kinds: np.ndarray  # PLAIN or PEAK per column
    marked: range  # the columns of the step marked to compare with
    cells: CellRow  # (plot rows, plot_width), row 0 at the bottom
    ticks: list[tuple[int, str]]  # (column, step number) under the axis
    labels: dict[int, str]  # the y label of each plot row that has one

    @classmethod
    def build(cls, series: StepSeries | None, window: Window, width: int, height: int,
              band: str, units: str, marked: int | None = None) -> "Frame":
        has_data = series is not None and len(series) > 0
        base = (series.always_live or 0) if has_data and band != "hidden" else 0
        top = max(1, base + (series.at(series.peak_step) if has_data else 0))
        plot_height = max(1, height - MARKER_ROWS - AXIS_ROWS)
        scale = YScale.build(top, plot_height, base, band)
        labels = _y_labels(scale, units)
        label_width = max(len(label) for label in [format_bytes(0, units), *labels.values()]) + 2
        plot_width = max(1, width - label_width)
        start, stop = window.start, window.stop
        kinds = np.full(plot_width, PLAIN, dtype=np.int8)
        if has_data:
            mins, maxs = series.columns(start, min(stop, len(series)), plot_width)
            kinds[list(columns_of_step(series.peak_step, start, stop, plot_width))] = PEAK
        else:
            mins = maxs = np.zeros(plot_width, dtype=np.int64)
        boundaries = np.vstack([np.full(plot_width, base), base + mins, base + maxs]).astype(float)
        first_steps = column_first_steps(start, stop, plot_width)
        marked_columns = range(0) if marked is None or not has_data else columns_of_step(marked, start, stop, plot_width)
        cells = stacked_rows(boundaries, scale.bottoms, scale.tops)
        return cls(scale, label_width, plot_width, plot_height, first_steps, boundaries, kinds, marked_columns, cells,
                   _ticks(first_steps, stop), labels)


def _y_labels(scale: YScale, units: str) -> dict[int, str]:
    """The bytes at the top of the labelled rows: every quarter or so; over a compressed band, the band's
    top (the always-live bytes) and every quarter or so of the rows above it."""
    rows, band = len(scale.tops), scale.band_rows
    levels = labelled_levels(rows) if not band else [band - 1, *(band + level for level in labelled_levels(rows - band))]
    return {level: format_bytes(scale.tops[level], units) for level in levels}


def _ticks(first_steps: np.ndarray, stop: int) -> list[tuple[int, str]]:
    """Columns with a step number below them, spaced so the numbers never touch.

    Zoomed in past one step a column, a step spans several columns: the ticks go to the
    first column of every so many steps, so no number is repeated and all are as far apart.
    """
    width = len(first_steps)
    spacing = max(len(str(stop)) + MIN_LABEL_GAP, MIN_TICK_SPACING)
    start = int(first_steps[0]) if width else 0
    span = stop - start
    if span >= width:
        last = max(1, width - spacing + 1)
        return [(column, str(int(first_steps[column]))) for column in range(0, last, spacing)]
    every = -(-spacing * span // width)  # steps between ticks: at least SPACING columns
    steps = np.arange(start, stop, every)
    columns = np.searchsorted(first_steps, steps, side="left").tolist()
    return [(column, str(step)) for column, step in zip(columns, steps.tolist())
            if column + len(str(step)) <= width]


class LivenessChart(CachedLines, Widget):
    """Draws a StepSeries over a Window of steps, with a cursor step highlighted and a marked step flagged."""

    LINES_ON_BASE = True  # every style a line is drawn with is laid over the widget's own (`_on_base`)
    DEFAULT_CSS = """
    LivenessChart {
        background: $background;
        height: 1fr;
        min-height: 6;
    }
    """

    class Picked(Message):
        """A step was clicked."""

        def __init__(self, step: int) -> None:
            super().__init__()
            self.step = step

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.series: StepSeries | None = None
        self.window = Window(0, 1)
        self.cursor = 0
        self.marked: int | None = None  # the step marked to compare with
        self.units = "binary"
        self.band = BANDS[0]  # how the always-live band is drawn (LivenessNavigator.band)
        self._styles: dict[tuple[int, int, int] | str, Style] = {}  # each over the widget's style, `_base`
        self._base = Style()
        self._frame_cache: tuple[tuple, Frame] | None = None
        # the state of the chart last drawn (all but the row) and its first cursor
        self._first_cursor: tuple[tuple, range] = ((), range(0))
        self._cursor_cache: tuple[Frame | None, int, range] = (None, 0, range(0))  # the frame, the cursor, its columns
        self._plot_cache: tuple[Frame | None, range, list[list[Segment]]] = NO_PLOT  # each plot row's cells

    def restyle(self) -> None:
        self._styles.clear()
        self._plot_cache = NO_PLOT

    def on_resize(self) -> None:
        self._frame_cache = None

    def render_lines(self, crop):
        base = self.rich_style  # looked up once a repaint: each lookup walks up the DOM
        if base != self._base:
            self._base = base
            self.restyle()
            self._strips.clear()
        return super().render_lines(crop)

    def clear_caches(self) -> None:
        """Forget what was drawn: the units or the report changed."""
        self._strips.clear()
        self._frame_cache = None
        self.refresh()

    def show(self, series: StepSeries | None, window: Window, cursor: int, marked: int | None = None,
             band: str = BANDS[0]) -> None:
        if series is not self.series:
            self._strips.clear()
            self._frame_cache = None
        self.series, self.window, self.cursor, self.marked, self.band = series, window, cursor, marked, band
        self.refresh()

    def _cursor_columns(self, frame: Frame) -> range:
        """The columns the cursor is in (asked for by each row drawn: worked out once per frame and cursor)."""
        shown_for, cursor, columns = self._cursor_cache
        if shown_for is not frame or cursor != self.cursor:
            columns = columns_of_step(self.cursor, self.window.start, self.window.stop, frame.plot_width)
            self._cursor_cache = (frame, self.cursor, columns)
        return columns

    @property
    def plot_width(self) -> int:
        return self._frame().plot_width

    @property
    def label_width(self) -> int:
        return self._frame().label_width

    def step_at(self, x: int) -> int | None:
        """The first step shown at column X of the widget, if X is on the plot."""
        frame = self._frame()
        column = x - frame.label_width
        if self.series is None or not 0 <= column < frame.plot_width:
            return None
        return int(frame.first_steps[column])

    def on_click(self, event: Click) -> None:
        step = self.step_at(event.x)
        if step is not None:
            self.post_message(self.Picked(step))

    # Rendering ----------------------------------------------------------------------

    def _frame(self) -> Frame:
        """What every row shares, computed once per state of the chart."""
        key = (self.size, self.window, self.band, self.units, self.marked)
        if self._frame_cache is None or self._frame_cache[0] != key:
            width, height = self.size
            frame = Frame.build(self.series, self.window, width, height, self.band, self.units, self.marked)
            self._frame_cache = (key, frame)
        return self._frame_cache[1]

    def render_line(self, y: int) -> Strip:
        """Row Y with the cursor; the row without it is kept for when only the cursor moves."""
        frame = self._frame()
        label = self.series.label if self.series is not None else ""
        key = (y, self.size, self.window, label, self.band, self.units, self.app.theme, self.marked)
        cursor = self._cursor_columns(frame)
        if not cursor or self.series is None or not len(self.series) or y >= MARKER_ROWS + frame.plot_height:
            plain = self._strips.get(key)
            if plain is None:
                plain = self._strips[key] = self._render_row(frame, y, range(0))
            return plain
        cursor_key = (*key, cursor.start, cursor.stop)
        strip = self._strips.get(cursor_key)
        if strip is not None:
            return strip
        if self._first_cursor[0] != key[1:]:
            self._first_cursor = (key[1:], cursor)
        plain = self._strips.get(key)
        if plain is None and self._first_cursor[1] == cursor:
            # The first cursor on a new frame (zoomed, scrolled): draw the row with it in one pass.
            strip = self._render_row(frame, y, cursor)
        else:  # the cursor moved over this frame: lay it over the row without it, kept for the next move
            if plain is None:
                plain = self._strips[key] = self._render_row(frame, y, range(0))
            x0, x1 = frame.label_width + cursor.start, frame.label_width + cursor.stop
            if y < MARKER_ROWS:
                over = [Segment(self._look.glyphs.marker * len(cursor), self._marker_style(CURSOR))]
            else:
                level = frame.plot_height - 1 - (y - MARKER_ROWS)
                over = self._plot_cells(frame, range(level, level + 1), cursor, [CURSOR] * len(cursor))[0]
            strip = Strip.join([plain.crop(0, x0), Strip(over), plain.crop(x1, self.size.width)])
        self._strips[cursor_key] = strip
        return strip

    def _render_row(self, frame: Frame, y: int, cursor: range) -> Strip:
        """Row Y, with the CURSOR columns highlighted."""
        width = self.size.width
        background = self._style(EMPTY, EMPTY, PLAIN)
        if self.series is None or len(self.series) == 0:
            return Strip.blank(width, background)
        kinds = frame.kinds.tolist()
        kinds[cursor.start : cursor.stop] = [CURSOR] * len(cursor)
        segments = chart_row(
            y, frame.plot_height, lambda: self._marker_row(frame, kinds),
            lambda row: self._plot_row(frame, row, cursor, kinds),
            lambda: self._axis_row(frame), lambda: self._step_label_row(frame),
        )
        if segments is None:
            return Strip.blank(width, background)
        return Strip(segments).adjust_cell_length(width, background)

    def _marker_row(self, frame: Frame, kinds: list[int]) -> list[Segment]:
        muted = self._text("pv-muted")
        segments = [Segment(" " * frame.label_width, muted)]
        marks = [(CURSOR_ON_MARKED if kind == CURSOR else MARKED) if column in frame.marked else kind
                 for column, kind in enumerate(kinds)]
        for kind, run in groupby(marks):
            n = len(list(run))
            if kind == PLAIN:
                segments.append(Segment(" " * n, muted))
            else:
                glyph = self._look.glyphs.marked if kind in (MARKED, CURSOR_ON_MARKED) else self._look.glyphs.marker
                segments.append(Segment(glyph * n, self._marker_style(CURSOR if kind == CURSOR_ON_MARKED else kind)))
        return segments

    def _plot_row(self, frame: Frame, level: int, cursor: range, kinds: list[int]) -> list[Segment]:
        """Row LEVEL of the plot, 0 at the bottom, the CURSOR columns highlighted (as KINDS says): the cells of
        every row are found together, for the first row a repaint draws, and kept for the others."""
        drawn_for, drawn_cursor, rows = self._plot_cache
        if drawn_for is not frame or drawn_cursor != cursor:
            rows = self._plot_cells(frame, range(frame.plot_height), range(frame.plot_width), kinds)
            self._plot_cache = (frame, cursor, rows)
        return [Segment(self._y_label(frame, level), self._text("pv-muted")), *rows[level]]

    def _plot_cells(self, frame: Frame, levels: range, columns: range, kinds: list[int]) -> list[list[Segment]]:
        """The cells of COLUMNS in each row of LEVELS, each highlighted as KINDS says: a segment per run of like
        cells, the runs of all the rows found in one pass."""
        cells, rows, span = frame.cells, slice(levels.start, levels.stop), slice(columns.start, columns.stop)
        eighths, lower, upper = cells.eighths[rows, span], cells.lower[rows, span], cells.upper[rows, span]
        highlights = np.asarray(kinds, dtype=np.int64)
        like = (((eighths.astype(np.int64) << 4) | lower) << 4 | upper) << 4 | highlights
        row, start, stop = runs_by_row(like)
        runs = zip(row.tolist(), (stop - start).tolist(), eighths[row, start].tolist(), lower[row, start].tolist(),
                   upper[row, start].tolist(), highlights[start].tolist())
        look = self._look
        blocks, texture = look.glyphs.blocks, look.glyphs.shades[1] if look.plain else None
        segments: list[list[Segment]] = [[] for _ in levels]
        for level, length, filled, below, above, kind in runs:
            char, below, above = cell_glyph(filled, below, above, EMPTY, blocks)
            if texture is not None and below == above == ALWAYS:  # a texture, not a grey, sets it apart
                char, above = texture, EMPTY
            segments[level].append(Segment(char * length, self._style(below, above, kind)))
        return segments

    def _y_label(self, frame: Frame, level: int) -> str:
        """The y axis beside plot row LEVEL: its bytes where it has a label; broken at a compressed band's top."""
        axis = self._look.glyphs.axis
        mark = self._look.glyphs.axis_break if level == frame.scale.band_rows - 1 else axis[1]
        label = frame.labels.get(level)
        return " " * (frame.label_width - 1) + axis[0] if label is None else \
            label.rjust(frame.label_width - 2) + " " + mark

    def _axis_row(self, frame: Frame) -> list[Segment]:
        line = axis_line(frame.label_width, frame.plot_width, (column for column, _ in frame.ticks), self.units,
                         self._look.glyphs)
        return [Segment(line, self._text("pv-muted"))]

    def _step_label_row(self, frame: Frame) -> list[Segment]:
        text = [" "] * frame.plot_width
        for column, label in frame.ticks:
            text[column : column + len(label)] = label
        line = " " * frame.label_width + "".join(text)[: frame.plot_width]
        return [Segment(line, self._text("pv-muted"))]

    # Colours ------------------------------------------------------------------------

    @property
    def _look(self) -> Look:
        return look_of(self.app)

    def _text(self, name: str) -> Style:
        """Text in the theme's colour NAME over the widget's style."""
        style = self._styles.get(name)
        if style is None:
            style = self._styles[name] = self._base + self.theme_text_style(name)
        return style

    def _marker_style(self, kind: int) -> Style:
        """The peak's, the marked step's or the cursor's mark; plain, the cursor's is reversed, as the others' are not."""
        if kind == MARKED:  # its own glyph, in the text's colour: no pv-* colour is spare
            return self._text("foreground") + Style(bold=True)
        style = self._text("pv-peak" if kind == PEAK else "pv-cursor")
        return style + Style(reverse=True, bold=True) if kind == CURSOR and self._look.plain else style

    def _style(self, lower: int, upper: int, kind: int) -> Style:
        key = (lower, upper, kind)
        style = self._styles.get(key)
        if style is None:
            layers = self._layer_colours(kind)
            style = self._styles[key] = self._base + Style(color=layers[lower].rich_color,
                                                           bgcolor=layers[upper].rich_color)
        return style

    def _layer_colours(self, kind: int) -> list[Color]:
        """Always-live, not-always-live (to the column's min), its range (min to max), empty."""
        background = self.theme_colour("background")
        live = self.theme_colour({PLAIN: "pv-not-always-live", PEAK: "pv-peak", CURSOR: "pv-cursor"}[kind])
        empty = background.blend(self.theme_colour("pv-cursor"), 0.18) if kind == CURSOR else background
        return [self.theme_colour("pv-always-live"), live, background.blend(live, 0.5), empty]
