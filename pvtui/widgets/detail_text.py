"""Text for detail panes that a cursor redraws on every key."""

from __future__ import annotations

from rich.text import Text
from textual.widget import Widget


class DetailText(Widget):
    """Text whose height only grows: shorter texts are padded with blank lines.

    The cursor redraws the detail on every key press, and a new layout each time
    (whenever the number of lines changed) would cost more than the heatmap itself.
    """

    DEFAULT_CSS = """
    DetailText {
        height: auto;
    }
    """

    def __init__(self, *, id: str) -> None:
        super().__init__(id=id, classes="detail")
        self.text = Text()
        self.lines = 0

    def render(self) -> Text:
        return self.text

    def reserve(self, lines: int) -> None:
        """Be at least LINES high from now on: the tallest text known to come, laid out once."""
        self.lines = max(self.lines, lines)

    def show(self, text: Text) -> None:
        text.rstrip()
        lines = len(text.plain.splitlines())
        grew = lines > self.lines
        self.lines = max(lines, self.lines)
        text.append("\n" * (self.lines - lines))
        if text == self.text:
            return  # the same tile again (a zoom, a filter): nothing to repaint
        self.text = text
        self.refresh(layout=grew)
