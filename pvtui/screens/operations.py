"""The Operations screen: where cycles and memory go, by model layer (a tree of the operations' names:
layer, operation, PopLibs calls) or by the operations of one debug layer; sortable and filterable,
with the selected row's figures, and jumps to the program tree and the trace."""

from __future__ import annotations

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widgets import Input, Static

from pvtui.model.layers import build_tree, layer_figures
from pvtui.model.navigators.operations import OperationsNavigator
from pvtui.model.operations import LayerOperations, OperationIndex
from pvtui.model.tables import Table
from pvtui.model.unavailable import Unavailable
from pvtui.render.columns import TOTAL, TableRows
from pvtui.render.layers import MEMORY_NOTE, layer_header, layer_rows, node_details
from pvtui.render.operations import operation_details, operation_header, operation_rows
from pvtui.screens.base import Needs, ReportScreen, UnavailableNotice, beside_or_under
from pvtui.widgets.figures_table import FiguresTable
from pvtui.widgets.look import look_of
from pvtui.widgets.pane_scroll import PaneScroll
from pvtui.widgets.search_bar import SearchBar
from pvtui.widgets.to_ui import to_ui

MIN_NAME_WIDTH = 24  # below this, figures other than the sort's give way to the names
CHROME_ROWS = 12  # rows of the screen besides the table's rows (tabs, header, headings, details, keys)


class OperationsScreen(ReportScreen):
    """A header, the table of the rows of the grouping shown (model layers, whose rows open and close, or
    a debug layer's operations), a filter bar, and the selected row's details.

    `nav` (an OperationsNavigator) holds the grouping, the rows read and shown, the sort and filter; the
    rows are read in workers; render/layers.py and render/operations.py word them.
    """

    SCREEN_NAME = "Operations"

    DEFAULT_CSS = beside_or_under("OperationsScreen", "#operations-body", "#operations-table", "#operation-scroll",
                                  8) + """
    OperationsScreen #operations-header { height: auto; max-height: 3; padding: 0 1; background: $surface; }
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

    NAVIGATOR = OperationsNavigator
    nav: OperationsNavigator

    def compose_body(self) -> ComposeResult:
        if self.nav.report is not self.report:
            self.nav.open(self.report)
        if self.nav.index is None:
            yield UnavailableNotice(Unavailable(self.report.missing("programs")))
            return
        yield Static("Reading the operations…", id="operations-header")
        yield SearchBar("part of a name; Enter keeps the rows that contain it", id="filter")
        with Horizontal(id="operations-body"):
            yield FiguresTable(id="operations-table")
            with PaneScroll(id="operation-scroll", can_focus=False):
                yield Static(id="operation-details")

    def show_report(self) -> None:
        if self.nav.index is None:
            return
        operations = self.report.operations  # by model layer where they would not fit on a screen
        self.nav.choose_group(len(operations) if operations is not None else 0, self.app.size.height - CHROME_ROWS)
        self.after_the_frame(self._load)

    def _load(self) -> None:
        """Read the rows of the grouping chosen, unless they are read already."""
        wanted = self.nav.to_read()
        if wanted == "layers":
            self._load_layers()
        elif wanted == "operations":
            self._load_layer(self.nav.layer_name)
        else:
            self._shown_again()

    @on(FiguresTable.Refit)
    def _refit(self) -> None:
        if self.nav.ready:
            self._fill(keep=self._selected_key())

    @property
    def table(self) -> FiguresTable | None:
        found = self.query("#operations-table")
        return found.first(FiguresTable) if found else None

    # Loading ----------------------------------------------------------------------

    @work(thread=True, exclusive=True, group="operations-layers")
    def _load_layers(self) -> None:
        report = self.report
        figures = layer_figures(report, build_tree(report))
        to_ui(self, self._layers_loaded, report, figures)

    def _layers_loaded(self, report, figures) -> None:
        if report is not self.report or self.nav.index is None:
            return  # a reload came in meanwhile
        self.nav.layers_read(figures)
        self._shown_again()

    @work(thread=True, exclusive=True, group="operations-layer")
    def _load_layer(self, layer: str | None) -> None:
        index = self.nav.index
        if index is None or self.nav.operations_reason is not None:
            return
        chosen = self.nav.layer_to_read(layer)
        view = index.layer(chosen) if chosen is not None else None
        to_ui(self, self._layer_loaded, index, view)

    def _layer_loaded(self, index: OperationIndex, view: LayerOperations | None) -> None:
        if index is not self.nav.index:
            return  # a reload came in meanwhile
        self.nav.operations_read(view)
        self._shown_again()

    def _shown_again(self) -> None:
        self._fill(keep=self.nav.take_wanted())
        self.refresh_bindings()

    # Filling the table ----------------------------------------------------------------

    def _fill(self, keep: str | None = None) -> None:
        """Show the rows of the grouping chosen, sorted and filtered; keep the row keyed KEEP selected."""
        table = self.table
        if table is None:
            return
        table.folds = self.nav.group == "layer"
        table.show_rows(self._rows(), MIN_NAME_WIDTH, keep)
        self._show_header()
        self._show_details()
        table.focus()

    def _rows(self) -> TableRows:
        """The rows of the grouping chosen, as the table shows them."""
        nav = self.nav
        nav.rows()
        if nav.group == "layer" and nav.outline is not None:
            glyphs = look_of(self.app).glyphs
            return layer_rows(nav.outline, self.bytes, glyphs.marker, glyphs.pointer)
        return operation_rows(nav.shown, nav.sort, bool(nav.filter_text), self.bytes)

    def _show_header(self) -> None:
        header, nav = self.query_one("#operations-header", Static), self.nav
        if nav.group == "layer":
            if nav.outline is not None:
                header.update(layer_header(self.report, nav.outline))
        elif nav.view is None:
            header.update("No debug context of this report belongs to an operation.")
        else:
            header.update(operation_header(nav.view, len(nav.shown), nav.sort, nav.filter_text))

    # Details -----------------------------------------------------------------------

    def _selected_key(self) -> str | None:
        return self.table.cursor_key if self.table is not None else None

    @on(FiguresTable.RowHighlighted, "#operations-table")
    def _highlighted(self) -> None:
        self._show_details()
        self.refresh_bindings()  # P and T apply to some rows only (the key bar redraws when they change)

    def _show_details(self) -> None:
        """The row under the cursor, told to the navigator, and its details."""
        table = self.table
        if table is None:
            return
        self.nav.select(table.cursor_row if table.row_count else -1)
        self.query_one("#operation-details", Static).update(self._details())

    def _details(self) -> Text:
        nav = self.nav
        if self._selected_key() == TOTAL:
            return Text(f"The total of what the filter {nav.filter_text!r} keeps: every row it matches, each"
                        f" counted once (the rows under a kept row are within it).\n{MEMORY_NOTE[0].upper()}"
                        f"{MEMORY_NOTE[1:]}.")
        node, row = nav.selected_node(), nav.selected_row()
        if node is not None and nav.outline is not None:
            return node_details(self.report, nav.outline.shown, node, self.bytes, nav.outline.partial(node))
        if row is not None:
            return operation_details(self.report, row, nav.layer_name or "", self.bytes)
        empty = nav.filter_text and (nav.group == "layer" or (nav.view is not None and nav.view.rows))
        return Text("Nothing matches the filter." if empty else "", "dim")

    def units_changed(self) -> None:
        self._fill(keep=self._selected_key())

    # Actions -----------------------------------------------------------------------

    def action_toggle_group(self) -> None:
        self.nav.toggle_group()
        self._load()

    def action_next_layer(self, delta: int) -> None:
        self._load_layer(self.nav.next_layer(delta))

    def action_next_sort(self) -> None:
        keep = self._selected_key()
        self.nav.next_sort()
        self._fill(keep=keep)

    @on(FiguresTable.Fold)
    def _fold(self, event: FiguresTable.Fold) -> None:
        self._fold_node(event.opened)

    @on(FiguresTable.RowSelected, "#operations-table")
    def _selected(self) -> None:
        if self.nav.group == "layer":
            self._fold_node(None)

    def _fold_node(self, opened: bool | None) -> None:
        target = self.nav.fold(opened)
        if target is not None:
            self._fill(keep=target)

    def action_open_filter(self) -> None:
        self.nav.filter_open = True
        self.query_one(SearchBar).add_class("open")
        self.start_typing(self.query_one(SearchBar).field)
        self.refresh_bindings()

    @on(Input.Submitted, "#filter-input")
    def _filter_submitted(self, event: Input.Submitted) -> None:
        self._filter(event.value.strip(), keep=None)

    def action_clear_filter(self) -> None:
        self.query_one(SearchBar).field.value = ""
        self._filter("", keep=self._selected_key())

    def _filter(self, text: str, keep: str | None) -> None:
        self.nav.filter(text)
        self.query_one(SearchBar).set_class(self.nav.filter_open, "open")
        self._fill(keep=keep)
        self.refresh_bindings()

    async def action_show_program(self) -> None:
        await self.show_program(self.nav.selected_program())

    async def action_show_step(self) -> None:
        """Show the row's first execution step in the trace; T again (here or there) shows its next."""
        name, steps = self.nav.selected_steps()
        if not steps:
            return
        await self.show_in("trace", "follow_operation", name, steps)

    def show_layer(self, path: str) -> None:
        """Model layer PATH selected, by model layer (Hotspots' L)."""
        self.nav.want_layer(path)
        if not self.opening and self.nav.index is not None:
            self._load()

    # Export and reload ---------------------------------------------------------------

    def export_table(self) -> Table | None:
        return self.nav.export_table()

    def report_changed(self) -> None:
        super().report_changed()
        self._rebuild()

    @work(exclusive=True, group="operations-rebuild")
    async def _rebuild(self) -> None:
        self.nav.open(self.report)  # its rows not ready until read again
        await self.recompose()
        if self.nav.index is not None:
            self._load()
