"""The Operations screen: where cycles and memory go, by model layer (a tree of the operations' names:
layer, operation, PopLibs calls) or by the operations of one debug layer; sortable and filterable,
with the selected row's figures, and jumps to the program tree and the trace."""

from __future__ import annotations

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import DataTable, Input, Label, Static

from pvtui.model.layer_views import SORTS, LayerOutline, layers_table
from pvtui.model.layers import build_tree, layer_figures
from pvtui.model.operations import (
    SORT_KEYS,
    LayerOperations,
    OperationIndex,
    OperationRow,
    operations_table,
    program_steps,
    select_rows,
    top_program,
)
from pvtui.model.tables import Table
from pvtui.render.columns import TOTAL, TableRows
from pvtui.render.layers import layer_header, layer_rows, node_details
from pvtui.render.operations import operation_details, operation_header, operation_rows
from pvtui.screens.base import Needs, ReportScreen, Unavailable
from pvtui.widgets.fitted_table import FittedTable
from pvtui.widgets.look import look_of

MIN_NAME_WIDTH = 24  # below this, figures other than the sort's give way to the names
SCROLLBAR = 2
CHROME_ROWS = 12  # rows of the screen besides the table's rows (tabs, header, headings, details, keys)


class OperationsScreen(ReportScreen):
    SCREEN_NAME = "Operations"

    DEFAULT_CSS = """
    OperationsScreen #operations-header { height: auto; max-height: 3; padding: 0 1; background: $surface; }
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
        Binding("g", "toggle_group", "Group", key_display="g", id="operations.group"),
        Binding("L", "next_layer(1)", "Debug layer", key_display="L", id="operations.layer"),
        Binding("S", "next_sort", "Sort", key_display="S", id="operations.sort"),
        Binding("slash", "open_filter", "Filter", key_display="/", id="operations.filter"),
        Binding("escape", "clear_filter", "Clear filter", id="operations.clear_filter"),
        Binding("P", "show_program", "In Programs", key_display="P", id="operations.programs"),
        Binding("T", "show_step", "In Trace", key_display="T", id="operations.trace"),
    ]
    KEYS = {
        "clear_filter": Needs(shown=("filtering",)),
        "toggle_group": Needs(shown=("has_programs", "has_operations")),
        "next_layer": Needs(shown=("has_programs", "by_operation"), usable=("ready",)),
        "next_sort": Needs(shown=("has_programs", "layer_not_empty"), usable=("ready",)),
        "open_filter": Needs(shown=("has_programs", "layer_not_empty"), usable=("ready",)),
        "show_program": Needs(shown=("has_programs", "layer_not_empty", "row_has_program"), usable=("ready",)),
        "show_step": Needs(shown=("has_programs", "layer_not_empty", "row_has_steps"), usable=("ready",)),
    }

    def __init__(self) -> None:
        super().__init__()
        self.index: OperationIndex | None = None
        self.operations_reason: str | None = None  # why there are no operations of a debug layer
        self.group: str | None = None  # "layer" or "operation", once chosen
        self.outline: LayerOutline | None = None  # by model layer, once read
        self.nodes: list[int] = []  # by model layer: the nodes shown, in order
        self.layer_name: str | None = None
        self.view: LayerOperations | None = None  # by operation, once read
        self.sort = SORT_KEYS[0]
        self.filter_text = ""
        self.shown: list[OperationRow] = []
        self.filled_width = 0  # of the table when it was last filled
        self._name_width = MIN_NAME_WIDTH  # of the name column when it was last filled
        self._reopen: set[str] = set()  # after a reload: the paths of the model layers that were open

    def compose_body(self) -> ComposeResult:
        if self.report.programs is None:
            yield Unavailable(self.report.missing("programs"))
            return
        self.index = OperationIndex(self.report)
        self.operations_reason = self.index.unavailable()
        yield Static("Reading the operations…", id="operations-header")
        with Horizontal(id="filter-bar"):
            yield Label("/")
            yield Input(placeholder="part of a name; Enter keeps the rows that contain it", id="filter-input",
                        compact=True)
        with Horizontal(id="operations-body"):
            yield FittedTable(id="operations-table", cursor_type="row", zebra_stripes=True)
            with VerticalScroll(id="operation-scroll", can_focus=False):
                yield Static(id="operation-details")

    def show_report(self) -> None:
        self.on_resize()
        if self.index is None:
            return
        if self.group is None:  # by model layer where the operations would not fit on a screen
            many = (self.operations_reason is not None
                    or len(self.report.operations) > self.app.size.height - CHROME_ROWS)
            self.group = "layer" if many else "operation"
        self._load()

    def _load(self) -> None:
        """Read the rows of the grouping chosen, unless they are read already."""
        if self.group == "layer" and self.outline is None:
            self._load_layers()
        elif self.group == "operation" and self.view is None:
            self._load_layer(self.layer_name)
        else:
            self._shown_again()

    def on_resize(self) -> None:
        self.call_after_refresh(self._fit_width)

    def _fit_width(self) -> None:
        """Fill the table again when its width changed: the names and columns shown depend on it."""
        table = self.table
        if table is not None and self._ready() and table.size.width != self.filled_width:
            self._fill(keep=self._selected_key())

    @property
    def table(self) -> FittedTable | None:
        found = self.query("#operations-table")
        return found.first(FittedTable) if found else None

    def _ready(self) -> bool:
        return self.outline is not None if self.group == "layer" else self.view is not None

    # Loading ----------------------------------------------------------------------

    @work(thread=True, exclusive=True, group="operations-layers")
    def _load_layers(self) -> None:
        report = self.report
        figures = layer_figures(report, build_tree(report))
        self.app.call_from_thread(self._layers_loaded, report, figures)

    def _layers_loaded(self, report, figures) -> None:
        if report is not self.report or self.index is None:
            return  # a reload came in meanwhile
        self.outline = LayerOutline(figures)
        if self._reopen:
            self.outline.expanded = {n for n, path in enumerate(figures.tree.paths) if path in self._reopen}
        self.outline.filter(self.filter_text)
        self._shown_again()

    @work(thread=True, exclusive=True, group="operations-layer")
    def _load_layer(self, layer: str | None) -> None:
        index = self.index
        if index is None or self.operations_reason is not None:
            return
        chosen = layer if layer in index.layers else index.default_layer
        view = index.layer(chosen) if chosen is not None else None
        self.app.call_from_thread(self._layer_loaded, index, view)

    def _layer_loaded(self, index: OperationIndex, view: LayerOperations | None) -> None:
        if index is not self.index:
            return  # a reload came in meanwhile
        self.view = view
        self.layer_name = view.layer if view is not None else None
        self._shown_again()

    def _shown_again(self) -> None:
        self._fill()
        self.refresh_bindings()

    # Filling the table ----------------------------------------------------------------

    def _fill(self, keep: str | None = None) -> None:
        """Show the rows of the grouping chosen, sorted and filtered; keep the row keyed KEEP selected."""
        table = self.table
        if table is None:
            return
        table.folds = self.group == "layer"
        self.filled_width = table.size.width
        room = (table.size.width or self.app.size.width) - SCROLLBAR
        keys = table.show_rows(self._rows(), room, MIN_NAME_WIDTH)
        self._show_header()
        if keep is not None and keep in keys:
            table.move_cursor(row=keys.index(keep))
        self._show_details()
        table.focus()

    def _rows(self) -> TableRows:
        """The rows of the grouping chosen, as the table shows them."""
        if self.group == "layer" and self.outline is not None:
            self.nodes = self.outline.rows()
            glyphs = look_of(self.app).glyphs
            return layer_rows(self.outline, self.bytes, glyphs.marker, glyphs.pointer)
        view = self.view
        self.shown = select_rows(view.rows, self.sort, self.filter_text) if view is not None else []
        return operation_rows(self.shown, self.sort, bool(self.filter_text), self.bytes)

    def _show_header(self) -> None:
        header = self.query_one("#operations-header", Static)
        if self.group == "layer":
            if self.outline is not None:
                header.update(layer_header(self.report, self.outline))
        elif self.view is None:
            header.update("No debug context of this report belongs to an operation.")
        else:
            header.update(operation_header(self.view, len(self.shown), self.sort, self.filter_text))

    # Details -----------------------------------------------------------------------

    def _selected_key(self) -> str | None:
        table = self.table
        if table is None or not table.row_count or not 0 <= table.cursor_row < table.row_count:
            return None
        return table.coordinate_to_cell_key((table.cursor_row, 0)).row_key.value

    def selected_node(self) -> int | None:
        """By model layer: the node under the cursor (None on the total row)."""
        key = self._selected_key() if self.group == "layer" else None
        return int(key) if key is not None and key != TOTAL else None

    def selected_row(self) -> OperationRow | None:
        """By operation: the row under the cursor (None on the total row)."""
        table = self.table
        if self.group != "operation" or table is None or not 0 <= table.cursor_row < len(self.shown):
            return None
        return self.shown[table.cursor_row]

    @on(DataTable.RowHighlighted, "#operations-table")
    def _highlighted(self) -> None:
        self._show_details()

    def _show_details(self) -> None:
        details = self.query("#operation-details")
        if not details:
            return
        details.first(Static).update(self._details())

    def _details(self) -> Text:
        if self._selected_key() == TOTAL:
            return Text(f"The total of what the filter {self.filter_text!r} keeps: every row it matches, each"
                        " counted once (the rows under a kept row are within it).")
        node, row = self.selected_node(), self.selected_row()
        if node is not None:
            return node_details(self.report, self.outline.shown, node, self.bytes, self.outline.partial(node))
        if row is not None:
            return operation_details(self.report, row, self.layer_name or "", self.bytes)
        empty = self.filter_text and (self.group == "layer" or (self.view is not None and self.view.rows))
        return Text("Nothing matches the filter." if empty else "", "dim")

    def units_changed(self) -> None:
        self._fill(keep=self._selected_key())

    # Actions -----------------------------------------------------------------------

    @property
    def filtering(self) -> bool:
        return bool(self.filter_text) or bool(self.query("#filter-bar.open"))

    @property
    def has_programs(self) -> bool:
        """The report has a program table to group by model layer (else the keys hide)."""
        return self.index is not None

    @property
    def has_operations(self) -> bool:
        """Some debug layer has operations (the grouping by operation)."""
        return self.operations_reason is None

    @property
    def by_operation(self) -> bool:
        return self.group == "operation"

    @property
    def ready(self) -> bool:
        """The rows of the grouping shown are read."""
        return self._ready()

    @property
    def layer_not_empty(self) -> bool:
        """Rows to sort, filter or show: by model layer, or a debug layer with operations (or one still read)."""
        return not self._ready() or self.group != "operation" or bool(self.view.rows)

    @property
    def row_has_steps(self) -> bool:
        """The row selected has execution steps (or the rows are still read)."""
        return not self._ready() or bool(self._selected_steps())

    @property
    def row_has_program(self) -> bool:
        """The row selected has a program (or the rows are still read)."""
        return not self._ready() or self._selected_program() >= 0

    def action_toggle_group(self) -> None:
        self.group = "operation" if self.group == "layer" else "layer"
        self._load()

    def action_next_layer(self, delta: int) -> None:
        layers = self.index.layers
        position = layers.index(self.layer_name) if self.layer_name in layers else -1
        self._load_layer(layers[(position + delta) % len(layers)])

    def action_next_sort(self) -> None:
        keep = self._selected_key()
        if self.group == "layer":
            self.outline.sort = SORTS[(SORTS.index(self.outline.sort) + 1) % len(SORTS)]
        else:
            self.sort = SORT_KEYS[(SORT_KEYS.index(self.sort) + 1) % len(SORT_KEYS)]
        self._fill(keep=keep)

    @on(FittedTable.Fold)
    def _fold(self, event: FittedTable.Fold) -> None:
        self._fold_node(event.opened)

    @on(DataTable.RowSelected, "#operations-table")
    def _selected(self) -> None:
        if self.group == "layer":
            self._fold_node(None)

    def _fold_node(self, opened: bool | None) -> None:
        """Open (OPENED), close or toggle (None) the node under the cursor; right on an open node goes to its
        first row, left on a closed one to the row above it, as in the program tree."""
        node, outline = self.selected_node(), self.outline
        if node is None or outline is None:
            return
        target, is_open = node, node in outline.expanded
        if opened is None or opened != is_open:
            if outline.has_children(node):
                outline.expanded ^= {node}
        elif opened:
            target = (outline.children(node) or [node])[0]
        elif outline.tree.parent[node] >= 0:
            target = int(outline.tree.parent[node])
        self._fill(keep=str(target))

    def action_open_filter(self) -> None:
        self.query_one("#filter-bar").add_class("open")
        self.start_typing(self.query_one("#filter-input", Input))
        self.refresh_bindings()

    @on(Input.Submitted, "#filter-input")
    def _filter_submitted(self, event: Input.Submitted) -> None:
        self._filter(event.value.strip(), keep=None)

    def action_clear_filter(self) -> None:
        self.query_one("#filter-input", Input).value = ""
        self._filter("", keep=self._selected_key())

    def _filter(self, text: str, keep: str | None) -> None:
        self.filter_text = text
        if not text:
            self.query_one("#filter-bar").remove_class("open")
        if self.outline is not None:
            self.outline.filter(text)
        self._fill(keep=keep)
        self.refresh_bindings()

    def _selected_program(self) -> int:
        node, row = self.selected_node(), self.selected_row()
        if node is not None:
            return int(self.outline.tree.first_program[node])
        return top_program(self.report, row) if row is not None else -1

    def _selected_steps(self) -> tuple[str, list[int]]:
        """The name of the row under the cursor and the execution steps of its programs, in order."""
        node, row = self.selected_node(), self.selected_row()
        if node is not None and self.outline.figures.steps[node]:
            steps = program_steps(self.report, self.outline.tree.programs_under(node))
            return self.outline.tree.paths[node], steps.tolist()
        if row is not None and row.steps:
            return row.name, self.index.execution_steps(row).tolist()
        return "", []

    async def action_show_program(self) -> None:
        program = self._selected_program()
        if program < 0:
            self.notify("This row has no programs.", severity="warning")
            return
        await self.app.switch_mode("programs")
        screen = self.app.screen
        if hasattr(screen, "jump_to"):
            screen.jump_to(program)

    async def action_show_step(self) -> None:
        """Show the row's first execution step in the trace; T again (here or there) shows its next."""
        name, steps = self._selected_steps()
        if not steps:
            return
        await self.app.switch_mode("trace")
        screen = self.app.screen
        if hasattr(screen, "follow_operation"):
            screen.follow_operation(name, steps)

    # Export and reload ---------------------------------------------------------------

    def export_table(self) -> Table | None:
        if self.group == "layer":
            return None if self.outline is None else layers_table(self.outline.shown, self.nodes)
        if self.view is None or not self.view.rows:
            return None
        return operations_table(self.view, self.shown)

    def report_changed(self) -> None:
        super().report_changed()
        self._rebuild()

    @work(exclusive=True, group="operations-rebuild")
    async def _rebuild(self) -> None:
        if self.outline is not None:
            self._reopen = {self.outline.tree.paths[n] for n in self.outline.expanded}
        self.index, self.view, self.outline = None, None, None
        await self.recompose()
        self.on_resize()
        if self.index is not None:
            self._load()

