"""Two liveness curves on one chart: A and B against the fraction of their program steps.

Rows, top to bottom: a marker row (each report's peak and the cursor), the plot, the
x axis and its percentages. Each column fills up to the lower curve in a neutral
colour and from there up to the higher curve in that report's colour, so where
either is higher reads at a glance. Cells are drawn in eighth blocks.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import groupby

import numpy as np
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.binding import Binding
from textual.message import Message
from textual.strip import Strip
from textual.widget import Widget

from pvtui.model.compare import LivenessPair
from pvtui.model.navigators.liveness import stacked_row
from pvtui.widgets.chart_rows import (
    AXIS_ROWS,
    MARKER_ROWS,
    axis_line,
    cell_glyph,
    chart_row,
    labelled_levels,
    y_label,
    y_label_width,
)
from pvtui.widgets.line_cache import CachedLines
from pvtui.widgets.look import Look, look_of
from pvtui.widgets.tell_screen import tell_screen

BOTH, HIGHER, EMPTY = range(3)  # the stacked layers, bottom to top
TICKS = (0, 0.25, 0.5, 0.75, 1.0)
COLOURS = {"A": "pv-cat-0", "B": "pv-cat-1", "both": "pv-muted"}


@dataclass(frozen=True)
class Frame:
    """The geometry and the curves of one size of the chart."""

    top: int  # bytes at the top of the plot
    label_width: int
    plot_width: int
    plot_height: int
    a: np.ndarray  # bytes per column
    b: np.ndarray
    boundaries: np.ndarray  # (2, plot_width): the lower curve, the higher
    b_higher: np.ndarray  # bool per column

    @classmethod
    def build(cls, pair: LivenessPair, width: int, height: int, units: str) -> "Frame":
        peak = max(pair.peak(pair.a)["bytes"], pair.peak(pair.b)["bytes"], 1)
        plot_height = max(1, height - MARKER_ROWS - AXIS_ROWS)
        label_width = y_label_width(peak, plot_height, units)
        plot_width = max(1, width - label_width)
        a, b = pair.points(plot_width)
        boundaries = np.vstack([np.minimum(a, b), np.maximum(a, b)]).astype(float)
        return cls(peak, label_width, plot_width, plot_height, a, b, boundaries, b > a)

    def column_of(self, fraction: float) -> int:
        return min(int(fraction * self.plot_width), self.plot_width - 1)


class CompareChart(CachedLines, Widget, can_focus=True):
    """Draws a LivenessPair; the cursor is a column, read out by the screen."""

    DEFAULT_CSS = """
    CompareChart {
        background: $background;
        height: 1fr;
        min-height: 6;
    }
    """

    BINDINGS = [
        Binding("left", "move(-1)", "Previous column", show=False),
        Binding("right", "move(1)", "Next column", show=False),
        Binding("home", "move(-1_000_000)", "First column", show=False),
        Binding("end", "move(1_000_000)", "Last column", show=False),
    ]

    class Moved(Message):
        """The cursor stands for other steps: at FRACTION of each report's steps."""

        def __init__(self, fraction: float) -> None:
            super().__init__()
            self.fraction = fraction

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.pair: LivenessPair | None = None
        self.units = "binary"
        self.cursor = 0  # a column of the plot
        self._peak: float | None = None  # a peak asked for before the chart was laid out
        self._frame_cache: tuple[tuple, Frame] | None = None
        self._styles: dict[tuple, Style] = {}

    def restyle(self) -> None:
        self._styles.clear()

    def on_resize(self) -> None:  # CachedLines.on_resize empties the strips
        self._frame_cache = None
        if self._peak is not None:
            self.cursor_to_peak(self._peak)
        elif self.pair is not None:
            tell_screen(self, self.Moved(self.fraction))  # the cursor's column now stands for other steps

    def show(self, pair: LivenessPair | None) -> None:
        self.pair = pair
        self.clear_caches()

    def clear_caches(self) -> None:
        """Forget what was drawn: the units or the reports changed."""
        self._strips.clear()
        self._frame_cache = None
        self.refresh()

    @property
    def fraction(self) -> float:
        """The cursor's place: the fraction of each report's steps its column starts at."""
        return self.cursor / self.frame().plot_width

    def action_move(self, columns: int) -> None:
        frame = self.frame()
        self.cursor = max(0, min(self.cursor + columns, frame.plot_width - 1))
        tell_screen(self, self.Moved(self.fraction))
        self._strips.clear()
        self.refresh()

    def cursor_to_peak(self, fraction: float) -> None:
        """The cursor to the column of FRACTION of the steps; once the chart has its width, if it has none
        yet (its tab opened in the same read of keys)."""
        self._peak = None if self.size.width else fraction
        if self._peak is None:
            self.action_move(self.frame().column_of(fraction) - self.cursor)

    # Rendering ----------------------------------------------------------------------

    def frame(self) -> Frame:
        key = (self.size, self.units)
        if self.pair is None:
            return Frame(1, 0, max(1, self.size.width), 1, np.zeros(1), np.zeros(1), np.zeros((2, 1)),
                         np.zeros(1, bool))
        if self._frame_cache is None or self._frame_cache[0] != key:
            frame = Frame.build(self.pair, self.size.width, self.size.height, self.units)
            self.cursor = min(self.cursor, frame.plot_width - 1)
            self._frame_cache = (key, frame)
        return self._frame_cache[1]

    def render_line(self, y: int) -> Strip:
        key = (y, self.size, self.units, self.cursor)
        strip = self._strips.get(key)
        if strip is None:
            strip = self._strips[key] = self._render_row(y)
        return strip

    def _render_row(self, y: int) -> Strip:
        width = self.size.width
        background = self.theme_text_style("background")
        if self.pair is None:
            return Strip.blank(width, background)
        frame = self.frame()
        segments = chart_row(y, frame.plot_height, lambda: self._marker_row(frame),
                             lambda row: self._plot_row(frame, row), lambda: self._axis_row(frame),
                             lambda: self._tick_row(frame))
        if segments is None:
            return Strip.blank(width, background)
        return Strip(segments).adjust_cell_length(width, background)

    def _marker_row(self, frame: Frame) -> list[Segment]:
        assert self.pair is not None
        marks = [(" ", "pv-muted")] * frame.plot_width
        for name, series in (("A", self.pair.a), ("B", self.pair.b)):
            column = frame.column_of(self.pair.peak(series)["fraction"])
            marks[column] = (name, COLOURS[name])
        marks[self.cursor] = (self._look.glyphs.marker, "pv-cursor")
        segments = [Segment(" " * frame.label_width, self.theme_text_style("pv-muted"))]
        for (_, colour), run in groupby(marks, key=lambda mark: (mark[0] == " ", mark[1])):
            segments.append(Segment("".join(text for text, _ in run), self._mark_style(colour)))
        return segments

    def _plot_row(self, frame: Frame, level: int) -> list[Segment]:
        """Row LEVEL of the plot, 0 at the bottom."""
        unit = frame.top / frame.plot_height
        cells = stacked_row(frame.boundaries, level * unit, (level + 1) * unit)
        segments = [Segment(self._y_label(frame, level), self.theme_text_style("pv-muted"))]
        at_cursor = np.arange(frame.plot_width) == self.cursor
        runs = zip(cells.eighths.tolist(), cells.lower.tolist(), cells.upper.tolist(),
                   frame.b_higher.tolist(), at_cursor.tolist())
        glyphs = self._look.glyphs
        for (eighths, lower, upper, b_higher, cursor), run in groupby(runs):
            char, lower, upper = cell_glyph(eighths, lower, upper, EMPTY, glyphs.blocks)
            if self._look.plain and HIGHER in (lower, upper):  # the report's letter, not its grey, says which
                char, lower, upper = glyphs.higher[b_higher], HIGHER, EMPTY
            segments.append(Segment(char * len(list(run)), self._cell_style(lower, upper, b_higher, cursor)))
        return segments

    def _y_label(self, frame: Frame, level: int) -> str:
        labelled = labelled_levels(frame.plot_height)
        return y_label(frame.top, level, frame.plot_height, frame.label_width, self.units, labelled, self._look.glyphs)

    def _axis_row(self, frame: Frame) -> list[Segment]:
        line = axis_line(frame.label_width, frame.plot_width, (frame.column_of(f) for f in TICKS), self.units,
                         self._look.glyphs)
        return [Segment(line, self.theme_text_style("pv-muted"))]

    def _tick_row(self, frame: Frame) -> list[Segment]:
        text = [" "] * frame.plot_width
        for fraction in TICKS:
            label = f"{fraction:.0%}"
            column = min(frame.column_of(fraction), frame.plot_width - len(label))
            text[column : column + len(label)] = label
        return [Segment(" " * frame.label_width + "".join(text)[: frame.plot_width], self.theme_text_style("pv-muted"))]

    def legend(self) -> Text:
        text = Text()
        glyphs = self._look.glyphs
        for name, label in (("A", "A higher"), ("B", "B higher"), ("both", "both")):
            fill = glyphs.higher["AB".index(name)] if self._look.plain and name != "both" else glyphs.blocks[8]
            text.append(fill * 2, self.theme_text_style(COLOURS[name]))
            text.append(f" {label}  ")
        text.append(glyphs.marker, self._mark_style("pv-cursor"))
        text.append(" cursor  ")
        text.append("A", self.theme_text_style(COLOURS["A"]))
        text.append(" ")
        text.append("B", self.theme_text_style(COLOURS["B"]))
        text.append(" peaks")
        return text

    # Colours ------------------------------------------------------------------------

    @property
    def _look(self) -> Look:
        return look_of(self.app)

    def _mark_style(self, colour: str) -> Style:
        """A mark above the plot; plain, the cursor's is reversed."""
        style = self.theme_text_style(colour)
        return style + Style(reverse=True, bold=True) if colour == "pv-cursor" and self._look.plain else style

    def _cell_style(self, lower: int, upper: int, b_higher: bool, cursor: bool) -> Style:
        key = (lower, upper, b_higher, cursor)
        style = self._styles.get(key)
        if style is None:
            background = self.theme_colour("background")
            empty = background.blend(self.theme_colour("pv-cursor"), 0.25) if cursor else background
            layers = [self.theme_colour(COLOURS["both"]), self.theme_colour(COLOURS["B" if b_higher else "A"]), empty]
            style = self._styles[key] = Style(color=layers[lower].rich_color, bgcolor=layers[upper].rich_color)
        return style
