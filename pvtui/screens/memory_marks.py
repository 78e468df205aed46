"""The Memory screen's marked tiles: Space marks or unmarks the selected tile, T lists the marked tiles in a
line to edit (`3,17,1461`, `8-11`) and shows them side by side, by category and by what is on each."""

from __future__ import annotations

from pvtui.model.navigators.memory import MemoryNavigator, compare_tiles, parse_tiles
from pvtui.render.memory import tile_columns
from pvtui.screens.base import ReportScreenPart


class TileMarking(ReportScreenPart):
    """The marks' keys: the Memory screen gives the `selected` tile and `_show_header`."""

    nav: MemoryNavigator

    def action_mark_tile(self) -> None:
        """Mark the selected tile to compare, or clear its mark (T compares those marked)."""
        self.nav.mark_tile(self.selected)
        self._show_header()
        self.notify(f"Marked to compare: {', '.join(map(str, self.nav.marked_tiles)) or 'none'}; T compares them.",
                    timeout=3)

    def action_compare_tiles(self) -> None:
        """The tiles marked (else the selected one) in a line to change, then side by side."""
        from pvtui.screens.columns_dialog import ListPrompt  # its DataTable's import, when first asked for

        memory = self.nav.memory
        text = ",".join(map(str, self.nav.marked_tiles or [self.selected]))
        self.app.push_screen(ListPrompt("Tiles to compare", text, lambda typed: parse_tiles(typed, memory.num_tiles)),
                             self._compare_tiles)

    def _compare_tiles(self, tiles: list[int] | None) -> None:
        from pvtui.model.tile_detail import tile_contents  # imported with the detail pane's tabs, after the first frame
        from pvtui.screens.columns_dialog import ColumnsDialog

        if tiles and self.nav.memory is not None:
            figures, contents = compare_tiles(self.nav.memory, tiles), tile_contents(self.report, tiles)
            headings, rows = tile_columns(tiles, figures, contents, self.bytes)
            self.app.push_screen(ColumnsDialog(f"{len(tiles)} tiles side by side", headings, rows,
                                               "Space on a tile marks or unmarks it · Esc closes"))
