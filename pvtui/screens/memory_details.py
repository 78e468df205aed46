"""The Memory screen's detail pane: its tabs built after the body's first frame (DetailPane), filled for the
selected tile, and their keys."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pvtui.model.navigators.memory import MemoryNavigator, tile_vertices
from pvtui.screens.base import ReportScreenPart
from pvtui.widgets.detail_pane import DetailPane

if TYPE_CHECKING:
    from textual.widgets import DataTable, TabbedContent

    from pvtui.widgets.tile_tables import TileDetails, TileTablePane


class TileDetailing(ReportScreenPart):
    """The tabs' keys and drawing: the Memory screen gives the tiles' `views`, the `selected` tile and
    `_show_detail` (the tile's details, where the tabs are built)."""

    nav: MemoryNavigator

    @property
    def details(self) -> TileDetails | None:
        """The detail pane's tabs, once built (DetailPane: after the body's first frame)."""
        return self.query_one(DetailPane).details

    @property
    def table_pane(self) -> TileTablePane | None:
        """The detail pane's tab shown, where it is one of the tile's tables."""
        details = self.details
        return None if details is None else details.table_pane

    def cursor_row(self) -> tuple[str, dict]:
        """The detail pane's table shown and the row under its cursor (TileDetails.cursor_row)."""
        details = self.details
        return ("details", {}) if details is None else details.cursor_row()

    def _reserve(self, details: TileDetails) -> None:
        assert self.nav.memory is not None
        details.reserve(self.nav.memory, vertices=tile_vertices(self.report, self.selected) is not None)

    def on_detail_pane_built(self) -> None:
        if self.nav.memory is not None and (details := self.details) is not None:
            self._reserve(details)
            self._show_detail()

    async def on_tabbed_content_tab_activated(self, event: TabbedContent.TabActivated) -> None:
        if (details := self.details) is not None:
            await details.build_shown()
        self._show_table()
        self.refresh_bindings()

    def action_next_tab(self, step: int) -> None:
        if (details := self.details) is not None:
            details.next_tab(step)

    def action_full_details(self) -> None:
        """The detail pane in the whole body, the tiles' view hidden (a table's names whole), and back."""
        full = not self.has_class("details-full")
        self.set_class(full, "details-full")
        if full and self.views.has_focus_within and (details := self.details) is not None:
            details.focus_shown()
        elif not full:
            self.views.focus()

    def action_next_sort(self) -> None:
        table = self.table_pane
        if table is not None:
            table.next_sort(self.bytes)

    async def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        await self.run_action("pick_variable" if self.nav.variables_listed else "show_program")

    async def action_show_program(self) -> None:
        """The program of the Sets or Exchange row under the cursor (a set's first), in the Programs tree."""
        from pvtui.model.tile_detail import row_program  # with the tabs' modules, after the first frame

        await self.show_program(row_program(self.report, *self.cursor_row()))

    def _show_table(self) -> None:
        """Fill the tab's table for the selected tile (only the tab shown costs anything)."""
        if self.nav.memory is not None and (details := self.details) is not None:
            details.show_table(self.report, self.selected, self.bytes)
        self._tab_shown()

    def _tab_shown(self) -> None:
        """Tell the navigator which tab shows, and whether it has a table with rows (for the keys)."""
        table = self.table_pane
        self.nav.tab = "details" if table is None else table.table_name
        self.nav.tab_table = table is not None and table.table is not None and bool(table.rows)
