"""A filter's line that takes the keys typed while the focus stays on what it filters, as `less`'s prompt
does. Opening and closing it moves no focus: the table keeps its look and its drawn lines, where a focus
moved to a field and back restyled the table and its scrollbars and drew every line of it again, in a
frame of its own after the key's (40-90 ms a key on a large report)."""

from __future__ import annotations

from functools import cache

from textual import events
from textual.actions import parse
from textual.widgets import Input

from pvtui.ui.textual_private import InputWithoutLayout, class_bindings, show_as_focused


@cache
def editing_keys() -> dict[str, str]:
    """The keys Textual's Input binds to its own editing actions, and those actions (Enter's submit, left to
    the screen, and the scrolling every widget has, left to the table, excluded)."""
    return {binding.key: binding.action for binding in class_bindings(Input)
            if f"action_{parse(binding.action)[1]}" in vars(Input) and binding.action != "submit"}


class FilterLine(InputWithoutLayout):
    """An Input that never takes the focus. While `typing` it shows its cursor, as a focused Input would,
    and its screen hands it the keys typed (`take`, from PvtuiApp.on_key, in the order they came)."""

    def __init__(self, placeholder: str, *, id: str) -> None:
        super().__init__(placeholder=placeholder, id=id, compact=True)
        self.can_focus = False
        self.cursor_blink = False  # a frame every half second, for nothing

    @property
    def typing(self) -> bool:
        return self.has_focus

    def start(self) -> None:
        """Take the keys typed from now on, the cursor after the text."""
        show_as_focused(self, True)
        self.cursor_position = len(self.value)

    def stop(self) -> None:
        show_as_focused(self, False)

    def take(self, event: events.Key | events.Paste) -> bool:
        """Type EVENT as a focused Input would: a character, a paste's first line, or a key an Input binds
        (Backspace, Delete, the arrows, Home, End, ctrl+w...). False for any other key, left to the screen."""
        if isinstance(event, events.Paste):
            lines = event.text.splitlines()
            self._type(lines[0] if lines else "")
            return True
        if event.is_printable and event.character is not None:
            self._type(event.character)
            return True
        action = editing_keys().get(event.key)
        if action is None:
            return False
        _, name, params = parse(action)
        getattr(self, f"action_{name}")(*params)
        return True

    def _type(self, text: str) -> None:
        if self.selection.is_empty:
            self.insert_text_at_cursor(text)
        else:
            self.replace(text, *self.selection)
