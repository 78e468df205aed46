"""Labelled values under a title, drawn as Rich draws a borderless two-column grid, line by line.

A Rich Table measured and rendered each of the Summary's fact tables whole several times per layout:
about 60 ms of the report's first showing. FactLines gives the same lines and styles (a bold title; the
label column bold and never wrapped; values wrapped in the room left; one cell of padding each side)
from the labels' widths and each value's own lines. Where the labels leave a value less than
MIN_VALUE_WIDTH cells, Rich's last-resort squeezing of both columns draws it.
"""

from __future__ import annotations

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, RenderableType, RenderResult
from rich.measure import Measurement
from rich.padding import Padding
from rich.segment import Segment
from rich.style import Style
from rich.table import Table
from rich.text import Text

BOLD = Style(bold=True)
PAD = 1  # cells of padding each side of a cell
MIN_VALUE_WIDTH = 2 * PAD + 1
PADDING = Segment(" " * PAD, Style())


class FactLines:
    """TITLE, then each (label, value) row: the label bold, the value a Text or any renderable."""

    def __init__(self, title: str, rows: list[tuple[str, RenderableType]]) -> None:
        self.title = title
        self.rows = rows
        self.label_width = max((cell_len(label) for label, _ in rows), default=0) + 2 * PAD
        self._drawn: tuple[tuple, list[Segment]] | None = None  # the last lines drawn, and for what

    @staticmethod
    def _drawn_for(console: Console, options: ConsoleOptions) -> tuple:
        """What the lines depend on: Textual draws a fact table twice a layout (its height, then its lines),
        with options that differ only in the height, which the lines never depend on."""
        return (id(console), options.max_width, options.min_width, options.justify, options.overflow,
                options.no_wrap, options.highlight, options.markup, options.ascii_only, options.encoding,
                options.legacy_windows, options.is_terminal)

    def _values(self, console: Console, options: ConsoleOptions) -> Measurement:
        """The value column's least and greatest widths, padding included, within the width there is."""
        inner = options.update_width(max(options.max_width - 2 * PAD, 1))
        measures = [Measurement.get(console, inner, value) for _, value in self.rows]
        return Measurement(max(m.minimum for m in measures) + 2 * PAD,
                           max(m.maximum for m in measures) + 2 * PAD).with_maximum(options.max_width)

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        if not self.rows:
            return Measurement.get(console, options, self._as_rich_table())
        values = self._values(console, options)
        return Measurement(self.label_width + values.minimum, self.label_width + values.maximum)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        key = self._drawn_for(console, options)
        if self._drawn is None or self._drawn[0] != key:
            self._drawn = (key, list(self._draw(console, options)))
        return self._drawn[1]

    def _draw(self, console: Console, options: ConsoleOptions) -> RenderResult:
        room = options.max_width - self.label_width
        if not self.rows or room < MIN_VALUE_WIDTH:
            yield from console.render(self._as_rich_table(), options)
            return
        value_width = min(self._values(console, options).maximum, room)
        yield from console.render(Text(self.title, style=BOLD, justify="left"),
                                  options.update(width=self.label_width + value_width, height=None, highlight=False))
        cell = options.update(width=value_width, justify="left", no_wrap=False, overflow="ellipsis",
                              height=None, highlight=False)  # a Rich column's defaults
        label_pad = Segment(" " * self.label_width, BOLD)
        new_line = Segment.line()
        for label, value in self.rows:
            lines = self._value_lines(console, value, cell)
            yield Segment(" " * PAD + label + " " * (self.label_width - PAD - cell_len(label)), BOLD)
            for index, line in enumerate(lines):
                if index:
                    yield label_pad
                yield from line
                yield new_line

    @staticmethod
    def _value_lines(console: Console, value: RenderableType, cell: ConsoleOptions) -> list[list[Segment]]:
        """VALUE's lines in its cell, padded to the cell's width. A Text is wrapped here, as Rich's Text
        wraps itself within a Padding (a third of the time); any other value goes through Padding."""
        if not isinstance(value, Text):
            lines = console.render_lines(Padding(value, (0, PAD)), cell, style=Style())
            return Segment.set_shape(lines, cell.max_width, max(len(lines), 1), style=Style())
        width = cell.max_width - 2 * PAD
        wrapped = value.wrap(console, width, justify=value.justify or "left", overflow=value.overflow or "ellipsis",
                             tab_size=value.tab_size or console.tab_size or 8, no_wrap=bool(value.no_wrap))
        lines = Segment.split_lines(Text("\n").join(wrapped).render(console))  # as Rich joins them: styles as spans
        return [[PADDING, *Segment.adjust_line_length(line, width, Style()), PADDING] for line in lines] or [[
            Segment(" " * cell.max_width, Style())]]  # an empty value

    def _as_rich_table(self) -> Table:
        table = Table(title=self.title, title_justify="left", show_header=False, box=None, padding=(0, PAD),
                      title_style="bold")
        table.add_column(style="bold", no_wrap=True)
        table.add_column()
        for label, value in self.rows:
            table.add_row(Text(label), value)
        return table
