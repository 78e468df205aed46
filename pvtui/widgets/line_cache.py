"""What every Line-API view shares: a Strip cache emptied on resize and on theme change, and
lines completed with the widget's own style.

Textual leaves a Line-API widget's segments as they are: one without a background
shows the terminal's (a dark band inside a light theme), and one without a style
breaks the NO_COLOR filter. So every line is laid over the widget's style (its
colour on the theme's background) by a line filter that runs before the app's own
(Textual keeps each Strip's filtered result).
"""

from __future__ import annotations

from typing import Sequence

from rich.segment import Segment
from rich.style import Style
from textual.cache import LRUCache
from textual.color import Color
from textual.filter import LineFilter
from textual.strip import Strip

from pvtui.widgets.palette import text_style, theme_colour


class OnStyle(LineFilter):
    """Lays every segment over STYLE: what a segment leaves unset, STYLE gives."""

    def __init__(self, style: Style) -> None:
        super().__init__()
        self.style = style

    def apply(self, segments: list[Segment], background: Color) -> list[Segment]:
        return list(Segment.apply_style(segments, self.style))


class CachedLines:
    """Mix into a Line-API widget: `self._strips` holds rendered lines by the caller's key.

    Resizing empties it. A theme change, and the mount, call `restyle()` (the subclass
    rebuilds what it derives from theme colours), then empty it and repaint.
    """

    STRIP_CACHE_SIZE = 256
    # True where every segment a line is drawn with already has the widget's style added:
    # the filter laying lines over it is then skipped (a pass over each new line's segments)
    LINES_ON_BASE = False

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._strips: LRUCache[tuple, Strip] = LRUCache(self.STRIP_CACHE_SIZE)
        self._on_base: OnStyle | None = None

    def on_mount(self) -> None:
        self.watch(self.app, "theme", self._theme_changed, init=True)

    def on_resize(self) -> None:
        self._strips.clear()

    def get_line_filters(self) -> Sequence[LineFilter]:
        if self.LINES_ON_BASE:
            return super().get_line_filters()
        base = self.rich_style  # asked once per repaint
        if self._on_base is None or self._on_base.style != base:
            self._on_base = OnStyle(base)
        return [self._on_base, *super().get_line_filters()]

    def restyle(self) -> None:
        """Rebuild theme-derived styles; nothing by default."""

    def _theme_changed(self) -> None:
        self.restyle()
        self._strips.clear()
        self.refresh()

    def theme_colour(self, name: str) -> Color:
        """The current theme's colour NAME (a variable such as "pv-muted" or "background")."""
        return theme_colour(self.app.theme_variables, name)

    def theme_text_style(self, name: str) -> Style:
        """Text in the theme's colour NAME over the theme's background."""
        return text_style(self.app.theme_variables, name)
