"""The Liveness screen's variables panel: the largest variables of a step, each name whole, or what changed
from the marked step."""

from __future__ import annotations

import re
import textwrap

from rich.text import Text
from textual.widget import Widget

from pvtui.render.names import wrap_at_slashes

UNIT_SPACE = re.compile(r"(?<=\d) (?=\w*B\b)")  # between a figure and its unit of bytes


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
        self.heading = ""  # on as many lines as the width needs, broken between words
        self.variables: list[tuple[str, str]] = []  # (size shown, name), the largest
        self.total = 0

    def show(self, heading: str, variables: list[tuple[str, str]], total: int) -> None:
        if (heading, variables, total) == (self.heading, self.variables, self.total):
            return  # the same step again (a zoom, a pan): nothing to repaint
        self.heading, self.variables, self.total = heading, variables, total
        self.refresh()

    def render(self) -> Text:
        width = max(self.content_size.width, 1)
        kept = UNIT_SPACE.sub("\xa0", self.heading)  # a figure and its unit stay on one line
        heading = [line.replace("\xa0", " ") for line in textwrap.wrap(kept, width)] or [""]
        text = Text()
        text.append("\n".join(heading), "bold")
        room = max(0, self.size.height - len(heading))
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
