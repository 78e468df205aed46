"""Several liveness steps compared column by column: the Liveness screen's marks and its cursor's step."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Static


class StepComparison(ModalScreen[None]):
    """HEADINGS (a column per step) and ROWS (a figure each, from pvtui.render.step_change.step_columns),
    in a table that scrolls both ways; any of Escape, B or q closes it."""

    DEFAULT_CSS = """
    StepComparison { align: center middle; }
    StepComparison > Vertical { width: 100%; max-width: 120; height: auto; max-height: 90%;
                                 border: round $primary; background: $surface; padding: 0 1; }
    StepComparison DataTable { height: auto; max-height: 14; }
    StepComparison #step-comparison-note { color: $text-muted; }
    """
    BINDINGS = [Binding("escape,B,q", "dismiss(None)", "Close")]

    def __init__(self, headings: list[str], rows: list[list[str]]) -> None:
        super().__init__()
        self.headings, self.rows = headings, rows

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Text(f"{len(self.headings) - 1} steps compared, each with the one before it", "bold"))
            yield DataTable(id="step-comparison", cursor_type="column", zebra_stripes=True)
            yield Static(Text("b on a step marks or unmarks it · Esc closes"), id="step-comparison-note")

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_columns(*(Text(heading) for heading in self.headings))
        table.add_rows([[Text(cell) for cell in row] for row in self.rows])
        table.focus()
