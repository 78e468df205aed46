"""The Operations screen's navigator: the grouping shown (by model layer, or by the operations of one
debug layer), each grouping's rows once read, the sort, the filter, the rows shown and the one under
the cursor, and what each key does to them. Pure: the screen reads the rows in workers and draws."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pvtui.model.layer_outline import SORTS, LayerOutline, layers_table
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

if TYPE_CHECKING:
    from pvtui.model.layers import LayerFigures
    from pvtui.model.report import Report
    from pvtui.model.unavailable import Unavailable

class OperationsNavigator:
    """Where the Operations screen is. By model layer (`group` "layer") the rows are the nodes `outline`
    shows; by operation ("operation") the operations of debug layer `layer_name` (`view`), sorted and
    filtered. The screen tells `select` the row under the table's cursor (a filter's total row is last)."""

    def __init__(self) -> None:
        self.report: Report | None = None
        self.index: OperationIndex | None = None  # None: the report has no programs
        self.operations_reason: Unavailable | None = None  # why there are no operations of a debug layer
        self.group: str | None = None  # "layer" or "operation", once chosen
        self.outline: LayerOutline | None = None  # by model layer, once read
        self.nodes: list[int] = []  # by model layer: the nodes shown, in order
        self.layer_name: str | None = None
        self.view: LayerOperations | None = None  # by operation, once read
        self.sort = SORT_KEYS[0]
        self.filter_text = ""
        self.filter_open = False  # the filter bar shows
        self.shown: list[OperationRow] = []  # by operation: the rows shown, in order
        self.cursor = -1  # the row under the table's cursor
        self.reopen: set[str] = set()  # after a reload: the paths of the model layers that were open
        self.wanted: str | None = None  # a model layer to select once the model layers are read

    def open(self, report: Report) -> None:
        """REPORT (a reload's): its operations, whose rows are read again; the grouping, sort, filter and the
        model layers open kept."""
        if self.outline is not None:
            self.reopen = {self.outline.tree.paths[n] for n in self.outline.expanded}
        self.report, self.filter_open = report, False  # the filter bar is made anew, closed
        self.index = OperationIndex(report) if report.programs is not None else None
        self.operations_reason = self.index.unavailable() if self.index is not None else None
        self.outline, self.view = None, None

    def choose_group(self, operations: int, rows: int) -> None:
        """By model layer where the OPERATIONS would not fit in ROWS rows, unless one is chosen already."""
        if self.group is None:
            many = self.operations_reason is not None or operations > rows
            self.group = "layer" if many else "operation"

    def want_layer(self, path: str) -> None:
        """By model layer, with model layer PATH selected once they are read (Hotspots' L)."""
        self.group, self.wanted = "layer", path

    def take_wanted(self) -> str | None:
        """The key of the model layer wanted, once the model layers are read; then no longer wanted."""
        if self.wanted is None or self.outline is None or self.group != "layer":
            return None
        wanted, self.wanted = self.wanted, None
        paths = self.outline.tree.paths
        return str(paths.index(wanted)) if wanted in paths else None

    # Reading the rows -----------------------------------------------------------------------------

    def to_read(self) -> str | None:
        """What the grouping shown waits for: "layers" (the model layers), "operations" (a debug layer's)."""
        if self.group == "layer" and self.outline is None:
            return "layers"
        if self.group == "operation" and self.view is None:
            return "operations"
        return None

    def layers_read(self, figures: "LayerFigures") -> None:
        self.outline = LayerOutline(figures)
        if self.reopen:
            self.outline.expanded = {n for n, path in enumerate(figures.tree.paths) if path in self.reopen}
        self.outline.filter(self.filter_text)

    def layer_to_read(self, layer: str | None) -> str | None:
        """The debug layer to read for LAYER: itself where the report has it, else the one of most operations."""
        assert self.index is not None
        return layer if layer in self.index.layers else self.index.default_layer

    def operations_read(self, view: LayerOperations | None) -> None:
        self.view = view
        self.layer_name = view.layer if view is not None else None

    @property
    def ready(self) -> bool:
        """The rows of the grouping shown are read."""
        return self.outline is not None if self.group == "layer" else self.view is not None

    def rows(self) -> None:
        """Work out the rows shown, in order: the nodes the outline shows, or the operations the filter
        keeps in the sort's order."""
        if self.group == "layer" and self.outline is not None:
            self.nodes = self.outline.rows()
        else:
            view = self.view
            self.shown = select_rows(view.rows, self.sort, self.filter_text) if view is not None else []

    # The row under the cursor --------------------------------------------------------------------

    def select(self, cursor: int) -> None:
        self.cursor = cursor

    def selected_node(self) -> int | None:
        """By model layer: the node under the cursor (None on the total row)."""
        if self.group != "layer" or not 0 <= self.cursor < len(self.nodes):
            return None
        return self.nodes[self.cursor]

    def selected_row(self) -> OperationRow | None:
        """By operation: the row under the cursor (None on the total row)."""
        if self.group != "operation" or not 0 <= self.cursor < len(self.shown):
            return None
        return self.shown[self.cursor]

    def selected_program(self) -> int:
        """The program of the row under the cursor to show in the tree, or -1."""
        node, row = self.selected_node(), self.selected_row()
        if node is not None and self.outline is not None:
            return int(self.outline.tree.first_program[node])
        return top_program(self.report, row) if row is not None else -1

    def selected_steps(self) -> tuple[str, list[int]]:
        """The name of the row under the cursor and the execution steps of its programs, in order."""
        node, row = self.selected_node(), self.selected_row()
        if node is not None and self.outline is not None and self.outline.figures.steps[node]:
            steps = program_steps(self.report, self.outline.tree.programs_under(node))
            return self.outline.tree.paths[node], steps.tolist()
        if row is not None and row.steps and self.index is not None:
            return row.name, self.index.execution_steps(row).tolist()
        return "", []

    # What the keys need ---------------------------------------------------------------------------

    @property
    def filtering(self) -> bool:
        return bool(self.filter_text) or self.filter_open

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
    def layer_not_empty(self) -> bool:
        """Rows to sort, filter or show: by model layer, or a debug layer with operations (or one still read)."""
        return not self.ready or self.group != "operation" or bool(self.view and self.view.rows)

    @property
    def row_has_steps(self) -> bool:
        """The row selected has execution steps (or the rows are still read)."""
        node, row = self.selected_node(), self.selected_row()
        if node is not None and self.outline is not None:
            steps = int(self.outline.figures.steps[node])
        else:
            steps = row.steps if row is not None else 0
        return not self.ready or steps > 0

    @property
    def row_has_program(self) -> bool:
        """The row selected has a program (or the rows are still read)."""
        return not self.ready or self.selected_program() >= 0

    # What the keys do -----------------------------------------------------------------------------

    def toggle_group(self) -> None:
        self.group = "operation" if self.group == "layer" else "layer"

    def next_layer(self, delta: int) -> str:
        """The debug layer DELTA after the one shown."""
        assert self.index is not None
        layers = self.index.layers
        position = layers.index(self.layer_name) if self.layer_name in layers else -1
        return layers[(position + delta) % len(layers)]

    def next_sort(self) -> None:
        if self.group == "layer" and self.outline is not None:
            self.outline.sort = SORTS[(SORTS.index(self.outline.sort) + 1) % len(SORTS)]
        else:
            self.sort = SORT_KEYS[(SORT_KEYS.index(self.sort) + 1) % len(SORT_KEYS)]

    def filter(self, text: str) -> None:
        """Keep the rows whose name (path, by model layer) contains TEXT; none closes the filter bar."""
        self.filter_text = text
        self.filter_open = self.filter_open and bool(text)
        if self.outline is not None:
            self.outline.filter(text)

    def fold(self, opened: bool | None) -> str | None:
        """Open (OPENED), close or toggle (None) the node under the cursor; right on an open node goes to its
        first row, left on a closed one to the row above it, as in the program tree. The key of the row to
        select then; None off a node."""
        node, outline = self.selected_node(), self.outline
        if node is None or outline is None:
            return None
        target, is_open = node, node in outline.expanded
        if opened is None or opened != is_open:
            if outline.has_children(node):
                outline.expanded ^= {node}
        elif opened:
            target = (outline.children(node) or [node])[0]
        elif outline.tree.parent[node] >= 0:
            target = int(outline.tree.parent[node])
        return str(target)

    def export_table(self) -> Table | None:
        if self.group == "layer":
            return None if self.outline is None else layers_table(self.outline.shown, self.nodes)
        if self.view is None or not self.view.rows:
            return None
        return operations_table(self.view, self.shown)
