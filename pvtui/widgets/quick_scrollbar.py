"""A scrollbar drawn without the Rich render a widget's content goes through."""

from __future__ import annotations

from rich.color import Color
from rich.segment import Segment
from rich.style import Style
from textual.geometry import Region
from textual.scrollbar import ScrollBar, ScrollBarRender
from textual.strip import Strip

from pvtui.ui.drawn_once import each_kind_drawn_once


class QuickScrollBar(ScrollBar):
    """A ScrollBar whose lines are Textual's own bar (`renderer.render_bar`, sized, placed and coloured as
    ScrollBar.render says), each segment over the widget's style as Textual lays a Rich renderable's, drawn
    without the Rich render a widget's content goes through (0.6-1.5 ms a draw; the Memory heatmap's bar
    changes on every zoom and page). SteadyScrollbars views make theirs of this class; a test compares the
    lines with Textual's."""

    _drawn: tuple[tuple, list[Strip]] = ((), [])  # (what the bar was drawn for, its lines)

    def render_lines(self, crop: Region) -> list[Strip]:
        """The lines of CROP, each kind (the thumb's, its ends', the track's) drawn once through Textual's styles
        (a bar has no border nor padding: a line's place changes nothing of it)."""
        width, height = self.size
        bar, base = self.render(), self.visual_style.rich_style  # once a repaint: each is a walk through styles
        drawn_for = (width, height, bar.virtual_size, bar.window_size, bar.position, bar.thickness, bar.vertical,
                     bar.style, base)
        if self._drawn[0] != drawn_for:
            self._drawn = (drawn_for, self._bar_lines(bar, width, height, base))
        kinds = self._drawn[1]
        return each_kind_drawn_once(super().render_lines, crop, lambda y: id(kinds[y]) if y < len(kinds) else None)

    def render_line(self, y: int) -> Strip:
        lines = self._drawn[1]
        return lines[y] if y < len(lines) else Strip.blank(self.size.width, self.visual_style.rich_style)

    @staticmethod
    def _bar_lines(bar: ScrollBarRender, width: int, height: int, base: Style) -> list[Strip]:
        """The bar's lines, one Strip for each kind of line (repeated where lines are alike)."""
        size, thickness = (height, width) if bar.vertical else (width, height)
        style = bar.style if isinstance(bar.style, Style) else Style.parse(str(bar.style))
        segments = bar.render_bar(size=size, virtual_size=bar.virtual_size, window_size=bar.window_size,
                                  position=bar.position, thickness=thickness, vertical=bar.vertical,
                                  back_color=style.bgcolor or Color.parse("#555555"),
                                  bar_color=style.color or Color.parse("bright_magenta"))
        if segments.new_lines:  # a segment a line: Textual repeats one Segment where lines are alike
            kinds: dict[int, Strip] = {}
            return [kinds.setdefault(id(segment), Strip([Segment(segment.text, base + segment.style)]))
                    for segment in segments.segments][:height]
        line: list[Segment] = []
        for segment in segments.segments:
            if segment.text == "\n":
                break
            line.append(Segment(segment.text, base + segment.style))
        return [Strip(line)] * min(thickness, height)  # every line of a horizontal bar is alike
