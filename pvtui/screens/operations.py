"""The Operations screen: the operations of one debug layer, sortable and filterable,
with the selected one's programs, memory and cycles, and jumps to the tree and the trace."""

from __future__ import annotations

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import DataTable, Input, Label, Static

from pvtui.model.operations import (
    COLUMNS,
    SORT_KEYS,
    LayerOperations,
    OperationIndex,
    OperationRow,
    cycles_note,
    layer_label,
    operations_table,
    select_rows,
    top_program,
)
from pvtui.model.tables import Table
from pvtui.screens.base import Needs, ReportScreen, Unavailable
from pvtui.units import count_of, format_cycles

LISTED = 6  # programs and operations named in the details
MIN_NAME_WIDTH = 24  # below this, the columns the details also give make room for the names
# dropped in this order (never the sort's) until the names get MIN_NAME_WIDTH: memory is the sum of
# code and variables, and the details give every figure
DROP_ORDER = ("code bytes", "variable bytes", "operations", "programs", "first step", "cycles", "memory bytes")
CELL_PADDING = 2  # a DataTable cell's padding, both sides
SCROLLBAR = 2
HEADINGS = {"name": "name", "memory bytes": "memory", "code bytes": "code", "variable bytes": "variables",
            "cycles": "cycles", "programs": "progs", "operations": "ops", "first step": "step"}
SORT_COLUMN = {"memory": "memory bytes", "code": "code bytes", "variables": "variable bytes", "cycles": "cycles",
               "programs": "programs", "step": "first step", "name": "name"}


def shorten(name: str, width: int) -> str:
    """NAME in WIDTH characters: its first part, an ellipsis and as much of its end as fits."""
    if len(name) <= width:
        return name
    head = name.split("/", 1)[0] + "/"
    if len(head) > width // 2:
        return name[: width - 1] + "…"
    return head + "…" + name[len(name) - (width - len(head) - 1):]


class OperationsScreen(ReportScreen):
    SCREEN_NAME = "Operations"

    DEFAULT_CSS = """
    OperationsScreen #operations-header { height: 1; padding: 0 1; background: $surface; }
    OperationsScreen #operations-body { height: 1fr; }
    OperationsScreen #operations-table { width: 3fr; height: 1fr; }
    OperationsScreen #operation-scroll {
        width: 2fr;
        height: 1fr;
        border-left: vkey $panel;
        padding: 0 1;
    }
    OperationsScreen.narrow #operations-body { layout: vertical; }
    OperationsScreen.narrow #operations-table { width: 1fr; }
    OperationsScreen.narrow #operation-scroll {
        width: 1fr;
        height: 8;
        border-left: none;
        border-top: hkey $panel;
    }
    OperationsScreen.short.narrow #operation-scroll { height: 30vh; }
    OperationsScreen #filter-bar { height: 1; display: none; background: $panel; }
    OperationsScreen #filter-bar.open { display: block; }
    OperationsScreen #filter-bar Label { width: auto; padding: 0 1; }
    OperationsScreen #filter-input { width: 1fr; }
    """

    BINDINGS = [
        Binding("L", "next_layer(1)", "Next layer", key_display="L", id="operations.layer"),
        Binding("S", "next_sort", "Sort", key_display="S", id="operations.sort"),
        Binding("slash", "open_filter", "Filter", key_display="/", id="operations.filter"),
        Binding("escape", "clear_filter", "Clear filter", id="operations.clear_filter"),
        Binding("P", "show_program", "In Programs", key_display="P", id="operations.programs"),
        Binding("T", "show_step", "In Trace", key_display="T", id="operations.trace"),
    ]
    KEYS = {
        "clear_filter": Needs(shown=("filtering",)),
        "next_layer": Needs(shown=("has_operations",), usable=("layer_read",)),
        "next_sort": Needs(shown=("has_operations", "has_rows")),
        "open_filter": Needs(shown=("has_operations", "has_rows")),
        "show_program": Needs(shown=("has_operations", "has_rows", "row_selected")),
        "show_step": Needs(shown=("has_operations", "has_rows", "row_has_steps")),
    }

    def __init__(self) -> None:
        super().__init__()
        self.index: OperationIndex | None = None
        self.layer_name: str | None = None
        self.view: LayerOperations | None = None
        self.sort = SORT_KEYS[0]
        self.filter_text = ""
        self.shown: list[OperationRow] = []
        self.filled_width = 0  # of the table when it was last filled

    def compose_body(self) -> ComposeResult:
        index = OperationIndex(self.report)
        reason = index.unavailable()
        if reason is not None:
            yield Unavailable(reason)
            return
        self.index = index
        yield Static("Reading the operations…", id="operations-header")
        with Horizontal(id="filter-bar"):
            yield Label("/")
            yield Input(placeholder="part of a name; Enter keeps the rows that contain it", id="filter-input",
                        compact=True)
        with Horizontal(id="operations-body"):
            yield DataTable(id="operations-table", cursor_type="row", zebra_stripes=True)
            with VerticalScroll(id="operation-scroll", can_focus=False):
                yield Static(id="operation-details")

    def show_report(self) -> None:
        self.on_resize()
        if self.index is not None:
            self._load_layer(self.layer_name)

    def on_resize(self) -> None:
        self.call_after_refresh(self._fit_width)

    def _fit_width(self) -> None:
        """Fill the table again when its width changed: the names and columns shown depend on it."""
        table = self.table
        if table is not None and self.view is not None and table.size.width != self.filled_width:
            selected = self.selected_row()
            self._fill(keep=selected.name if selected else None)

    @property
    def table(self) -> DataTable | None:
        found = self.query("#operations-table")
        return found.first(DataTable) if found else None

    # Loading ----------------------------------------------------------------------

    @work(thread=True, exclusive=True, group="operations-layer")
    def _load_layer(self, layer: str | None) -> None:
        index = self.index
        if index is None:
            return
        chosen = layer if layer in index.layers else index.default_layer
        view = index.layer(chosen) if chosen is not None else None
        self.app.call_from_thread(self._layer_loaded, index, view)

    def _layer_loaded(self, index: OperationIndex, view: LayerOperations | None) -> None:
        if index is not self.index:
            return  # a reload came in meanwhile
        self.view = view
        self.layer_name = view.layer if view is not None else None
        self._fill()
        self.refresh_bindings()

    def _fill(self, keep: str | None = None) -> None:
        """Show the rows of the layer, sorted and filtered; keep the row named KEEP selected."""
        table = self.table
        if table is None:
            return
        table.clear(columns=True)
        view = self.view
        self.shown = select_rows(view.rows, self.sort, self.filter_text) if view is not None else []
        self.filled_width = table.size.width
        figures = [self._figures(row) for row in self.shown]
        columns, name_width = self._columns(figures, (table.size.width or self.app.size.width) - SCROLLBAR)
        for column in columns:
            label = HEADINGS[column] + ("▼" if SORT_COLUMN[self.sort] == column else "")
            table.add_column(Text(label, justify="left" if column == "name" else "right"), key=column,
                             width=name_width if column == "name" else None)
        for row, cells in zip(self.shown, figures):
            table.add_row(shorten(row.name, name_width), *(Text(cells[c], justify="right") for c in columns[1:]))
        self._show_header()
        if keep is not None:
            position = next((i for i, row in enumerate(self.shown) if row.name == keep), 0)
            table.move_cursor(row=position)
        self._show_details()
        table.focus()

    def _columns(self, figures: list[dict[str, str]], width: int) -> tuple[list[str], int]:
        """The columns that fit in WIDTH with names of at least MIN_NAME_WIDTH, and the names' width."""
        def cell_width(column: str) -> int:
            heading = len(HEADINGS[column]) + 1  # room for the sort mark
            return max([heading, *(len(cells[column]) for cells in figures)]) + CELL_PADDING

        columns = COLUMNS[1:]
        for dropped in DROP_ORDER:
            if width - sum(map(cell_width, columns)) - CELL_PADDING >= MIN_NAME_WIDTH:
                break
            if dropped != SORT_COLUMN[self.sort]:
                columns = [c for c in columns if c != dropped]
        longest = max([len(HEADINGS["name"]) + 1, *(len(row.name) for row in self.shown)])
        name_width = min(longest, max(width - sum(map(cell_width, columns)) - CELL_PADDING, MIN_NAME_WIDTH))
        return ["name", *columns], name_width

    def _figures(self, row: OperationRow) -> dict[str, str]:
        """The row's figures as shown, by column."""
        return {
            "memory bytes": self.bytes(row.memory),
            "code bytes": self.bytes(row.code_bytes),
            "variable bytes": "not found" if row.variable_bytes is None else self.bytes(row.variable_bytes),
            "cycles": format_cycles(row.cycles),
            "programs": f"{len(row.programs):,}",
            "operations": f"{len(row.operations):,}",
            "first step": "—" if row.first_step < 0 else f"{row.first_step:,}",
        }

    def _show_header(self) -> None:
        view, header = self.view, self.query_one("#operations-header", Static)
        if view is None:
            header.update("No debug context of this report belongs to an operation.")
            return
        text = Text(no_wrap=True, overflow="ellipsis")
        text.append(f"{view.label}", "bold")
        text.append(f" · {len(self.shown):,} of {len(view.rows):,} · by {self.sort}")
        if self.filter_text:
            text.append(f" · name contains {self.filter_text!r}")
        if view.reason:
            text = Text(f"{view.label}: {view.reason}  (L: next layer)")
        header.update(text)
        header.styles.height = "auto" if view.reason else 1

    # Details -----------------------------------------------------------------------

    def selected_row(self) -> OperationRow | None:
        table = self.table
        if table is None or not self.shown or not 0 <= table.cursor_row < len(self.shown):
            return None
        return self.shown[table.cursor_row]

    @on(DataTable.RowHighlighted, "#operations-table")
    def _highlighted(self) -> None:
        self._show_details()

    def _show_details(self) -> None:
        details = self.query("#operation-details")
        if not details:
            return
        row = self.selected_row()
        if row is None:
            empty = "No operation matches the filter." if self.view is not None and self.view.rows else ""
            details.first(Static).update(Text(empty, "dim"))
            return
        details.first(Static).update(self._details_text(row))

    def _details_text(self, row: OperationRow) -> Text:
        report, muted = self.report, "dim"
        text = Text()
        text.append(row.name + "\n", "bold")
        if row.context >= 0:
            text.append(f"{layer_label(self.layer_name or '')} debug context {row.context}\n", muted)
        if len(row.operations) > 1:
            names = ", ".join(report.operations.names[op] for op in row.operations[:LISTED])
            more = f" and {len(row.operations) - LISTED} more" if len(row.operations) > LISTED else ""
            text.append(f"{count_of(len(row.operations), 'operation')}: {names}{more}\n")
        text.append(f"Code          {self.bytes(row.code_bytes)}  (leaf programs)\n")
        if row.variable_bytes is None:
            text.append("Variables     not found by name in the liveness data\n")
        else:
            text.append(f"Variables     {self.bytes(row.variable_bytes)}")
            text.append(f"  ({row.unmatched_variables} not found)\n" if row.unmatched_variables else "\n")
        text.append(f"Memory        {self.bytes(row.memory)}\n")
        if row.cycles is None:
            text.append(cycles_note(report) + "\n", muted)
        else:
            text.append(f"Cycles        {format_cycles(row.cycles)} in {count_of(row.steps, 'step')}\n")
            text.append(cycles_note(report) + "\n", muted)
        if row.foreign_calls:
            text.append("It calls code another operation owns: those steps, cycles and code count there.\n", muted)
        if row.first_step >= 0:
            text.append(f"First step    {row.first_step:,}, the first of its {row.steps:,}"
                        "  (T: in the trace; T again: the next)\n")
        if row.liveness_steps is not None:
            text.append(f"Liveness      steps {row.liveness_steps[0]:,}–{row.liveness_steps[1]:,}\n")
        programs = report.programs
        text.append(f"Programs ({len(row.programs):,})  P shows the first in the tree\n", "bold")
        for program in row.programs[:LISTED].tolist():
            text.append(f"  {program:>6} {programs.type_name(program):<14} {programs.names[program]}\n")
        if len(row.programs) > LISTED:
            text.append(f"  … and {len(row.programs) - LISTED:,} more\n", muted)
        return text

    def units_changed(self) -> None:
        selected = self.selected_row()
        self._fill(keep=selected.name if selected else None)

    # Actions -----------------------------------------------------------------------

    @property
    def filtering(self) -> bool:
        return bool(self.filter_text) or bool(self.query("#filter-bar.open"))

    @property
    def has_operations(self) -> bool:
        return self.index is not None

    @property
    def layer_read(self) -> bool:
        return self.view is not None

    @property
    def has_rows(self) -> bool:
        """The layer read has rows to sort, filter or show."""
        return self.view is not None and bool(self.view.rows)

    @property
    def row_selected(self) -> bool:
        return self.selected_row() is not None

    @property
    def row_has_steps(self) -> bool:
        row = self.selected_row()
        return row is not None and row.steps > 0

    def action_next_layer(self, delta: int) -> None:
        layers = self.index.layers
        position = layers.index(self.layer_name) if self.layer_name in layers else -1
        self._load_layer(layers[(position + delta) % len(layers)])

    def action_next_sort(self) -> None:
        selected = self.selected_row()
        self.sort = SORT_KEYS[(SORT_KEYS.index(self.sort) + 1) % len(SORT_KEYS)]
        self._fill(keep=selected.name if selected else None)

    def action_open_filter(self) -> None:
        self.query_one("#filter-bar").add_class("open")
        self.start_typing(self.query_one("#filter-input", Input))
        self.refresh_bindings()

    @on(Input.Submitted, "#filter-input")
    def _filter_submitted(self, event: Input.Submitted) -> None:
        self.filter_text = event.value.strip()
        if not self.filter_text:
            self.query_one("#filter-bar").remove_class("open")
        self._fill()
        self.refresh_bindings()

    def action_clear_filter(self) -> None:
        selected = self.selected_row()
        self.filter_text = ""
        self.query_one("#filter-input", Input).value = ""
        self.query_one("#filter-bar").remove_class("open")
        self._fill(keep=selected.name if selected else None)
        self.refresh_bindings()

    async def action_show_program(self) -> None:
        row = self.selected_row()
        program = top_program(self.report, row) if row is not None else -1
        if program < 0:
            self.notify("This row has no programs.", severity="warning")
            return
        await self.app.switch_mode("programs")
        screen = self.app.screen
        if hasattr(screen, "jump_to"):
            screen.jump_to(program)

    async def action_show_step(self) -> None:
        """Show the row's first execution step in the trace; T again (here or there) shows its next."""
        row = self.selected_row()
        steps = self.index.execution_steps(row).tolist() if row is not None else []
        if not steps:
            return
        await self.app.switch_mode("trace")
        screen = self.app.screen
        if hasattr(screen, "follow_operation"):
            screen.follow_operation(row.name, steps)

    # Export and reload ---------------------------------------------------------------

    def export_table(self) -> Table | None:
        if self.view is None or not self.view.rows:
            return None
        return operations_table(self.view, self.shown)

    def report_changed(self) -> None:
        super().report_changed()
        self._rebuild()

    @work(exclusive=True, group="operations-rebuild")
    async def _rebuild(self) -> None:
        self.index, self.view = None, None
        await self.recompose()
        self.on_resize()
        if self.index is not None:
            self._load_layer(self.layer_name)
