"""The keys that apply now, on one line at the bottom of every report screen, and the status message.

It shows what Textual's Footer shows (keys of the focused widget, the screen and the app;
dimmed when they do not apply; grouped keys together; the palette key on the right) as
one rendered line. The Footer builds a widget per key and restyles each of them on every
binding change, which cost 60-150 ms of every screen's first frame.

The app's status message (widgets/status.py) comes first on the line, the keys that still fit after
it; a message longer than the line takes up to MAX_ROWS rows, the keys giving way.
"""

from __future__ import annotations

from itertools import groupby
from typing import Any, Callable

from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.widget import Widget

from pvtui.widgets.drawn_by_rich import DrawnByRich
from pvtui.widgets.status import MAX_ROWS, Said


# the bindings kept whatever else gives way: help lists every key; in a comparison, B is the way to report B
KEPT_IDS = ("help", "switch_report")
# the keys that give way first on a narrow line, on every screen: the ones people know without a footer
# (zoom is + and -, q quits); a screen names its own in GIVES_WAY (the keys that lead somewhere stay longer)
OBVIOUS_IDS = ("zoom_in", "zoom_out", "quit", "units", "export")


def _fitting(items: list, room: int, rank: Callable[[Any], int]) -> list:
    """ITEMS (each a (Text, its keys' spans) pair) that fit in ROOM cells, in their order: taken by RANK
    (0 whatever room it takes), each rank in order; none is cut."""
    chosen, used = set(), 0
    for index, item in sorted(enumerate(items), key=lambda pair: rank(pair[1])):
        if rank(item) == 0 or used + item[0].cell_len <= room:
            chosen.add(index)
            used += item[0].cell_len
    return [item for index, item in enumerate(items) if index in chosen]


class KeyBar(Widget, can_focus=False):
    """The active bindings as `key Description` items; clicking one presses its key.

    Items that do not fit left of the palette key are left out whole, from the last, but
    those of KEPT_IDS.
    """

    ALLOW_SELECT = False
    COMPONENT_CLASSES = {"key-bar--key", "key-bar--description", "key-bar--separator", "key-bar--message",
                         "key-bar--warning", "key-bar--error"}
    DEFAULT_CSS = """
    KeyBar {
        dock: bottom;
        height: 1;
        color: $footer-foreground;
        background: $footer-background;
        .key-bar--key {
            color: $footer-key-foreground;
            background: $footer-key-background;
            text-style: bold;
        }
        .key-bar--description {
            color: $footer-description-foreground;
            background: $footer-description-background;
        }
        .key-bar--separator { color: $foreground 20%; }
        .key-bar--message { text-style: bold; }
        .key-bar--warning { color: $text-warning; background: $warning-muted; text-style: bold; }
        .key-bar--error { color: $text-error; background: $error-muted; text-style: bold reverse; }
    }
    """

    def __init__(self, id: str | None = None) -> None:
        super().__init__(id=id)
        self.spans: list[tuple[int, int, Binding, bool]] = []  # cells of each key shown: start, end, key, enabled
        self._shown: tuple | None = None  # what the line last drawn said (see _bindings_updated)
        self.message_cells = 0  # the cells the status message takes at the start of the line

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, lambda _screen: self._bindings_updated())
        if self._status is not None:
            self._status.changed.subscribe(self, lambda _message: self._message_changed())

    @property
    def _status(self):
        return getattr(self.app, "status", None)  # the app's StatusMessage (none in a bare test app)

    @property
    def message(self) -> Said | None:
        """The status message shown, if any."""
        status = self._status
        return None if status is None else status.said

    def _message_changed(self) -> None:
        """A new message, or none: as many rows as it takes (one, unless it is longer than the line)."""
        cells, width = self._message().cell_len, self.size.width
        rows = 1 if cells <= width or not width else min(MAX_ROWS, -(-cells // width))
        if self.styles.height is None or self.styles.height.value != rows:
            self.styles.height = rows
        self.refresh()

    def on_resize(self) -> None:
        if self.message is not None:
            self._message_changed()

    def _bindings_updated(self) -> None:
        """Repaint only if the keys changed: Textual publishes after every focus change, once more
        after the next frame, and that repaint of an unchanged line was a frame of its own."""
        if self._said(*self._items()) != self._shown:
            self.refresh()

    def _said(self, groups: list, palette: tuple[Binding, bool] | None) -> tuple:
        """What a line of these keys says: each key, its display, description, group and whether it applies."""
        shown = [(self.app.get_key_display(binding), binding.description, binding.group, enabled)
                 for _group, bindings in groups for binding, enabled in bindings]
        if palette is not None:
            shown.append((self.app.get_key_display(palette[0]), palette[0].description, None, palette[1]))
        return tuple(shown)

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)
        if self._status is not None:
            self._status.changed.unsubscribe(self)

    def _items(self) -> tuple[list[tuple[Binding.Group | None, list[tuple[Binding, bool]]]], tuple[Binding, bool] | None]:
        """The keys to show, one per action, in groups; and the command palette's key."""
        active = self.screen.active_bindings
        first_of_action: dict[str, tuple[Binding, bool]] = {}
        for _node, binding, enabled, _tooltip in active.values():
            if binding.show:
                first_of_action.setdefault(binding.action, (binding, enabled))
        groups = [(group, list(items)) for group, items in groupby(first_of_action.values(), lambda i: i[0].group)]
        palette = None
        if self.app.ENABLE_COMMAND_PALETTE and self.app.COMMAND_PALETTE_BINDING in active:
            _node, binding, enabled, _tooltip = active[self.app.COMMAND_PALETTE_BINDING]
            palette = (binding, enabled)
        return groups, palette

    def render(self) -> DrawnByRich:
        return DrawnByRich(self.line_text())

    def line_text(self) -> Text:
        """The line: the status message, then the keys that fit (self.spans: where each is)."""
        key_style = self.get_component_rich_style("key-bar--key")
        description_style = self.get_component_rich_style("key-bar--description")
        dim = Style(dim=True)

        def key_text(binding: Binding, enabled: bool, key: str, description: str) -> Text:
            text = Text.assemble((key, key_style), (description, description_style))
            if not enabled:
                text.stylize(dim)
            return text

        items: list[tuple[Text, list[tuple[int, int, Binding, bool]]]] = []  # each: its text, its keys' cells
        groups, palette = self._items()
        self._shown = self._said(groups, palette)
        for group, bindings in groups:
            if group is not None and len(bindings) > 1:  # " n N Section ": the keys, then what they do
                text, spans = Text(" "), []
                for binding, enabled in bindings:
                    start = text.cell_len
                    text.append_text(key_text(binding, enabled, self.app.get_key_display(binding), " "))
                    spans.append((start, text.cell_len, binding, enabled))
                text.append(f"{group.description} ", description_style)
                items.append((text, spans))
            else:
                for binding, enabled in bindings:
                    text = key_text(binding, enabled, f" {self.app.get_key_display(binding)} ", f"{binding.description} ")
                    items.append((text, [(0, text.cell_len, binding, enabled)]))
        tail = self._palette_tail(palette, key_style, description_style)
        width = self.content_size.width
        line = self._message()
        self.message_cells = line.cell_len
        if line.cell_len > width - tail.cell_len:  # a long message: the keys give way, on as many rows as it takes
            self.spans = []
            return line
        room = width - tail.cell_len - line.cell_len
        kept = _fitting(items, room, self._rank)
        if len(kept) < len(items):  # help says that it lists the keys left out; the palette's key alone
            items = [self._more(item) for item in items]
            if palette is not None:
                tail = tail[:1 + len(self.app.get_key_display(palette[0]))]
                tail.append(" ")
            room = width - tail.cell_len - line.cell_len
            kept = _fitting(items, room, self._rank)
        spans: list[tuple[int, int, Binding, bool]] = []
        for text, item_spans in kept:
            offset = line.cell_len
            line.append_text(text)
            spans += [(offset + start, offset + end, binding, enabled) for start, end, binding, enabled in item_spans]
        if palette is not None:
            start = max(width - tail.cell_len, 0)  # on the right; the keys give way to it
            line.truncate(start, pad=True)
            spans = [span for span in spans if span[1] <= start]
            line.append_text(tail)
            spans.append((start + 1, line.cell_len, palette[0], palette[1]))
        self.spans = spans
        return line

    def _palette_tail(self, palette: tuple[Binding, bool] | None, key_style: Style, description_style: Style) -> Text:
        """The command palette's key on the right, after a separator (nothing where there is none)."""
        if palette is None:
            return Text()
        separator = self.get_component_rich_style("key-bar--separator")
        return Text.assemble(("▏", separator), (self.app.get_key_display(palette[0]), key_style),
                             (f" {palette[0].description} ", description_style))

    def _rank(self, item: tuple[Text, list]) -> int:
        """Which keys fit first: KEPT_IDS, then the screen's others, then OBVIOUS_IDS and its GIVES_WAY."""
        ids = {span[2].id for span in item[1]}
        if ids & set(KEPT_IDS):
            return 0
        return 2 if ids <= set(OBVIOUS_IDS) | set(getattr(self.screen, "GIVES_WAY", ())) else 1

    def _more(self, item: tuple[Text, list]) -> tuple[Text, list]:
        """ITEM, or where it is help's key, `? more`: help lists the keys left out."""
        text, spans = item
        if len(spans) != 1 or spans[0][2].id != "help":
            return item
        key = text[:len(self.app.get_key_display(spans[0][2])) + 2]  # " ? "
        more = Text.assemble(key, ("more ", self.get_component_rich_style("key-bar--description")))
        return more, [(0, more.cell_len, *spans[0][2:])]

    def _message(self) -> Text:
        """The status message as it starts the line (empty where there is none); an error says how it goes."""
        said = self.message
        if said is None:
            return Text(no_wrap=True, overflow="crop")
        style = self.get_component_rich_style(
            {"warning": "key-bar--warning", "error": "key-bar--error"}.get(said.severity, "key-bar--message"))
        message = Text(no_wrap=False, overflow="crop", end="")
        message.append(f" {said.text} ", style)
        if said.stays:
            message.append("Esc dismisses ", self.get_component_rich_style("key-bar--description") + Style(dim=True))
        return message

    def on_mouse_down(self, event: events.MouseDown) -> None:
        if event.y > 0 or event.x < self.message_cells:  # on the message: it goes
            if self._status is not None:
                self._status.dismiss()
            return
        for start, end, binding, enabled in self.spans:
            if start <= event.x < end:
                if enabled:
                    self.app.simulate_key(binding.key.split(",")[0])
                else:
                    self.app.bell()
                return
