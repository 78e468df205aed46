"""The Memory screen's variable search: /, a field for part of a variable's name, and what it found."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual import work
from textual.message import Message
from textual.widget import Widget

from pvtui.ui.textual_private import InputWithoutLayout
from pvtui.widgets.detail_text import DetailText
from pvtui.widgets.search_bar import SearchBar
from pvtui.widgets.tell_screen import tell_screen
from pvtui.widgets.to_ui import to_ui

if TYPE_CHECKING:
    from pvtui.model.lowered import Lowered
    from pvtui.model.navigators.memory import VariableSearch


class VariableBar(SearchBar):
    """Each key typed searches SEARCH at once and says the largest match (Found).

    A watcher of the field's value, run within the key, searches, and its answer is painted in the same
    frame as the key's character (Input.Changed, a message bubbling up, came a frame later). The names and each variable's total are indexed in a worker when the bar opens,
    before the keys need them.
    """

    class Found(Message):
        """The largest variable matching what is typed: VARIABLE (None: none)."""

        def __init__(self, variable: int | None) -> None:
            super().__init__()
            self.variable = variable

    def __init__(self, search: "VariableSearch", *, id: str) -> None:
        super().__init__("part of a variable name", id=id)
        self.search = search
        self.lowered: Lowered | None = None  # the report's lowered variables, set by the screen

    def fields(self) -> list[Widget]:
        from textual.widgets import Label  # see SearchBar.fields

        field = InputWithoutLayout(placeholder=self.placeholder, id="variable-input", compact=True)
        field.cursor_blink = False  # a frame every half second over SSH, for nothing
        return [Label("/"), field, DetailText(id="variable-status")]  # a DetailText: no layout on each key

    def build(self) -> None:
        if not self.children:
            super().build()
            for field in self.query(InputWithoutLayout):  # none where the bar is being removed (the app quit as it showed)
                self.watch(field, "value", self._search_for, init=False)

    def open(self, shown: bool) -> None:
        self.search.open = shown  # asked by the keys' table on every key: no DOM query there
        self.set_class(shown, "open")
        if shown and self.lowered is not None and self.search.ready is not self.lowered:
            self._prepare(self.lowered)

    def show_status(self, text: Text) -> None:
        self.build()
        self.query_one("#variable-status", DetailText).show(text)

    @work(thread=True, exclusive=True, group="variable-search")
    def _prepare(self, lowered: "Lowered") -> None:
        """Index the names and total each variable's bytes (a pass over every piece: a tenth of a
        second or more on a Pod16's), off the UI thread."""
        lowered.prepare_search()
        to_ui(self, self._prepared, lowered)

    def _prepared(self, lowered: "Lowered") -> None:
        if lowered is self.lowered:  # else a reload came in meanwhile
            self.search.ready = lowered
            self._search_for(self.field.value)  # what was typed meanwhile

    def _search_for(self, text: str) -> None:
        if self.lowered is not None and text and self.search.ready is not self.lowered:
            self.show_status(Text("reading the variables' names and sizes…"))
            return  # _prepared searches for what is typed by then
        tell_screen(self, self.Found(self.search.find(self.lowered, text)))
