"""What every Line-API view shares: a Strip cache emptied on resize and on theme change."""

from __future__ import annotations

from rich.style import Style
from textual.cache import LRUCache
from textual.color import Color
from textual.strip import Strip


class CachedLines:
    """Mix into a Line-API widget: `self._strips` holds rendered lines by the caller's key.

    Resizing empties it. A theme change, and the mount, call `restyle()` (the subclass
    rebuilds what it derives from theme colours), then empty it and repaint.
    """

    STRIP_CACHE_SIZE = 256

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._strips: LRUCache[tuple, Strip] = LRUCache(self.STRIP_CACHE_SIZE)

    def on_mount(self) -> None:
        self.watch(self.app, "theme", self._theme_changed, init=True)

    def on_resize(self) -> None:
        self._strips.clear()

    def restyle(self) -> None:
        """Rebuild theme-derived styles; nothing by default."""

    def _theme_changed(self) -> None:
        self.restyle()
        self._strips.clear()
        self.refresh()

    def theme_colour(self, name: str) -> Color:
        """The current theme's colour NAME (a variable such as "pv-muted" or "background")."""
        return Color.parse(self.app.theme_variables[name])

    def theme_text_style(self, name: str) -> Style:
        """Text in the theme's colour NAME over the theme's background."""
        return Style(color=self.theme_colour(name).rich_color, bgcolor=self.theme_colour("background").rich_color)
