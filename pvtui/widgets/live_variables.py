"""The Liveness screen's variables panel: the largest variables of a step, each name whole."""

from __future__ import annotations

from rich.text import Text
from textual.widget import Widget

from pvtui.render.item_lines import item_lines
from pvtui.render.names import wrap_at_slashes


class LiveVariables(Widget):
    """The not-always-live variables at a step, largest first: as many as fit, then a count.

    A name wider than the panel goes on as many lines as it needs (broken after a '/'):
    its end tells it from its neighbours as much as its start.
    """

    DEFAULT_CSS = """
    LiveVariables {
        width: 1fr;
        height: 1fr;
        padding: 0 1;
        text-wrap: nowrap;
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.heading: list[str] = []  # its parts, on as few lines as the width allows
        self.variables: list[tuple[str, str]] = []  # (size shown, name), the largest
        self.total = 0

    def show(self, heading: list[str], variables: list[tuple[str, str]], total: int) -> None:
        if (heading, variables, total) == (self.heading, self.variables, self.total):
            return  # the same step again (a zoom, a pan): nothing to repaint
        self.heading, self.variables, self.total = heading, variables, total
        self.refresh()

    def render(self) -> Text:
        width = max(self.content_size.width, 1)
        text = Text("\n").join(item_lines([Text(part, style="bold") for part in self.heading], width, gap=" · "))
        room = max(0, self.size.height - len(text.plain.splitlines()))
        size_width = max((len(size) for size, _ in self.variables), default=0)
        indent = " " * (size_width + 2)
        shown = 0
        for size, name in self.variables:
            lines = wrap_at_slashes(name, width - len(indent))
            if len(lines) + (self.total > shown + 1) > room:
                break  # whole names only, and a line left for the count of the rest
            text.append(f"\n{size:>{size_width}}  {lines[0]}")
            for line in lines[1:]:
                text.append(f"\n{indent}{line}")
            room -= len(lines)
            shown += 1
        rest = self.total - shown
        if rest:
            text.append(f"\n… and {rest:,} more", style="italic")
        return text
