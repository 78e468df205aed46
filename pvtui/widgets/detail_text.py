"""Text for detail panes that a cursor redraws on every key."""

from __future__ import annotations

from rich.cells import cell_len
from rich.text import Text
from textual.content import Content
from textual.widget import Widget
from textual.widgets import Static


class DetailText(Widget):
    """Text whose size only grows: shorter texts are padded with blank lines.

    The cursor redraws the detail on every key press, and a new layout each time
    (whenever the number of lines changed) would cost more than the heatmap itself.
    A wider text lays it out again too, where its width is `auto`: else its end
    would be cut at the width of the widest text before it.
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
        self.laid_out_lines = 0  # the height last laid out: a reserve beyond it lays the next text out again
        self.widest = 0  # cells of the widest line shown yet

    def render(self) -> Text:
        return self.text

    def reserve(self, lines: int) -> None:
        """Be at least LINES high from now on: the tallest text known to come, laid out once."""
        self.lines = max(self.lines, lines)

    def show(self, text: Text) -> None:
        text.rstrip()
        plain = text.plain
        lines = len(plain.splitlines())
        widest = max(map(cell_len, plain.split("\n")), default=0)  # not Text.split: a Text a line, 20x slower
        self.lines, self.widest, was_widest = max(lines, self.lines), max(widest, self.widest), self.widest
        grew = self.lines > self.laid_out_lines or widest > was_widest
        text.append("\n" * (self.lines - lines))
        if text == self.text:
            return  # the same tile again (a zoom, a filter): nothing to repaint
        self.text, self.laid_out_lines = text, self.lines
        self.refresh(layout=grew)


class PaneText(Static):
    """Text that a key may redraw: drawn again only when it changed, and laid out again only when
    the number of its lines changed and its height follows them (`height: auto`).

    A layout on each key (a zoom, a pan) would cost a frame; a text drawn again unchanged, a third
    of one for a long one.
    """

    def __init__(self, *, id: str) -> None:
        super().__init__(id=id)
        self.shown: Text | str | tuple[str, ...] | None = None
        self._lines = -1
        self._parsed: dict[str, Content] = {}  # each markup line shown, parsed

    def show(self, content: Text | str) -> None:
        if content == self.shown:
            return
        self._update(content, content, (content.plain if isinstance(content, Text) else content).count("\n"))

    def show_lines(self, lines: list[str]) -> None:
        """Markup LINES, no tag open from one line to the next: a line is parsed once while it is shown, so
        that a key changing one line (the liveness chart's scale on a zoom) parses that one."""
        shown = tuple(lines)
        if shown == self.shown:
            return
        parsed = {line: self._parsed.get(line) or Content.from_markup(line) for line in shown}
        self._parsed = parsed
        self._update(shown, Content("\n").join(parsed[line] for line in shown), len(shown) - 1)

    def _update(self, shown: Text | str | tuple[str, ...], visual: Text | str | Content, lines: int) -> None:
        height = self.styles.height
        self.update(visual, layout=lines != self._lines and (height is None or height.is_auto))
        self.shown, self._lines = shown, lines
