"""Figures of several things side by side, a column each: the Liveness screen's marked steps, the Memory
screen's marked tiles. A dialog over the screen; Escape or q closes it."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Input, Static


class ColumnsDialog(ModalScreen[None]):
    """TITLE, then HEADINGS (the first over the figures' names, then one per column) and ROWS (a figure
    each), in a table that scrolls both ways, then NOTE. Every text is plain (never markup)."""

    DEFAULT_CSS = """
    ColumnsDialog { align: center middle; }
    ColumnsDialog > Vertical { width: 100%; max-width: 120; height: auto; max-height: 90%;
                               border: round $primary; background: $surface; padding: 0 1; }
    ColumnsDialog DataTable { height: auto; max-height: 30; }
    ColumnsDialog #columns-note { color: $text-muted; }
    """
    BINDINGS = [Binding("escape,q", "dismiss(None)", "Close")]

    def __init__(self, title: str, headings: list[str], rows: list[list[str]], note: str) -> None:
        super().__init__()
        self.title_text, self.headings, self.rows, self.note = title, headings, rows, note

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Text(self.title_text, "bold"))
            yield DataTable(id="columns", cursor_type="column", zebra_stripes=True)
            yield Static(Text(self.note), id="columns-note")

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_columns(*(Text(heading) for heading in self.headings))
        table.add_rows([[Text(cell) for cell in row] for row in self.rows])
        table.focus()


class ListPrompt(ModalScreen["list[int] | None"]):
    """A line to type numbers in (`3,17,1461`, ranges `8-11`), checked by PARSE (the numbers, or the one line
    saying what is wrong) as Enter is pressed; the numbers are the result, Escape gives None."""

    DEFAULT_CSS = """
    ListPrompt { align: center middle; }
    ListPrompt > Vertical { width: 60; height: auto; border: round $primary; background: $surface; padding: 0 1; }
    ListPrompt #list-problem { color: $error; }
    """
    BINDINGS = [Binding("escape", "dismiss(None)", "Cancel")]

    def __init__(self, title: str, text: str, parse) -> None:
        super().__init__()
        self.title_text, self.text, self.parse = title, text, parse

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Text(self.title_text, "bold"))
            yield Input(self.text, placeholder="3,17,1461 or 8-11", id="list-input")
            yield Static("", id="list-problem", markup=False)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        numbers = self.parse(event.value)
        if isinstance(numbers, str):
            self.query_one("#list-problem", Static).update(numbers)
        else:
            self.dismiss(numbers)
