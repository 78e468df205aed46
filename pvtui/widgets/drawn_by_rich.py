"""A Rich Text that Textual draws through Rich, for the one-line bars drawn in every frame (keys, tabs)."""

from __future__ import annotations

from rich.console import Console, ConsoleOptions, RenderResult
from rich.text import Text


class DrawnByRich:
    """TEXT, as a renderable that is not a Text: Textual converts a Text into its own Content, span by span,
    before drawing it (the key bar's 60 spans: 4-5 ms of CPU in each of a screen's first frames); any other
    Rich renderable it draws as Rich does, the widget's style under it alike."""

    __slots__ = ("text",)

    def __init__(self, text: Text) -> None:
        self.text = text

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield self.text
