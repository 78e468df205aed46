"""A screen's one-line search bar: `/` and a field, and what the search found; shown while open."""

from __future__ import annotations

from textual.containers import Horizontal
from textual.widget import Widget
from textual.widgets import Input, Static


class SearchBar(Horizontal):
    """Hidden until it has the class `open` (the screen's `/` adds it, Escape or Enter takes it away). Its field
    is #ID-input, and what the search found, where it SAYS so, #ID-status.

    Its widgets (`fields`) are mounted by `build`, once the frame it is mounted in is painted (an Input's
    styling, and its CSS parsed, cost a first showing 10-20 ms), or by whatever needs them first.
    """

    DEFAULT_CSS = """
    SearchBar { height: 1; display: none; background: $panel; }
    SearchBar.open { display: block; }
    SearchBar > Label { width: auto; padding: 0 1; }
    SearchBar > .status { color: $text-muted; }
    SearchBar > Input { width: 1fr; }
    """

    def __init__(self, placeholder: str, *, id: str, says: bool = False) -> None:
        super().__init__(id=id)
        self.placeholder = placeholder
        self.says = says

    def fields(self) -> list[Widget]:
        from textual.widgets import Label  # with the fields, after the first frame (its import: 2 M instructions)

        field = Input(placeholder=self.placeholder, id=f"{self.id}-input", compact=True)
        status = [Label("", id=f"{self.id}-status", markup=False, classes="status")] if self.says else []
        return [Label("/"), field, *status]

    def on_mount(self) -> None:
        self.screen.call_after_refresh(self.build)

    def build(self) -> None:
        """Mount the fields, once: they are in the DOM (to query and focus) when this returns."""
        if not self.children:
            self.mount_all(self.fields())

    @property
    def field(self) -> Input:
        self.build()
        return self.query_one(Input)

    def say(self, text: str) -> None:
        self.build()
        self.query_one(f"#{self.id}-status", Static).update(text)
