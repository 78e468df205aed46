"""The Memory screen's variable search: /, a variable's name typed or picked in the Variables tab, and the map
and the bars' swatches coloured by where it lives."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pvtui.model.navigators.memory import MemoryNavigator
from pvtui.render.memory import search_status
from pvtui.screens.base import ReportScreenPart
from pvtui.widgets.variable_bar import VariableBar

if TYPE_CHECKING:
    from textual.widgets import Input


class VariableSearching(ReportScreenPart):
    """The search's keys and what they colour: the Memory screen gives the tiles' `views`, `heatmap`,
    `cursor_row` and `selected` tile, `_update_map` and `_show_header`."""

    nav: MemoryNavigator

    def action_open_search(self) -> None:
        bar = self.query_one(VariableBar)
        bar.open(True)
        self.start_typing(bar.field)

    def action_close_search(self) -> None:
        """Close the search and colour by totals again."""
        self.query_one(VariableBar).open(False)
        self._choose(None)
        self.views.focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        """Keep the variable chosen and go back to the tiles."""
        if event.input.id == "variable-input":
            self.query_one(VariableBar).open(False)
            self.views.focus()

    def action_pick_variable(self) -> None:
        """The variable under the Variables tab's cursor (the largest, until moved): where else it lives,
        on the map and the bars."""
        lowered, name = self.report.lowered, self.cursor_row()[1].get("name")
        variable = lowered.name_id(name) if lowered is not None and name is not None else None
        if variable is not None:
            self.nav.search.only(variable)
            self._choose(variable)

    def action_next_match(self, step: int) -> None:
        variable = self.nav.search.stepped(step)
        if variable is not None:
            self._choose(variable)

    def on_variable_bar_found(self, event: VariableBar.Found) -> None:
        self._choose(event.variable)

    def _choose(self, variable: int | None) -> None:
        """Colour the map and the bars' swatches by VARIABLE's bytes per tile (None: by the totals)."""
        if self.nav.memory is None:
            return  # no tiles: the screen says why instead
        if not self.nav.choose(variable):
            self._show_search_status()  # the same colours: only the count of matches may have changed
            return
        if variable is None:
            self.heatmap.set_swatch(None)
        else:
            values = self.nav.search.bytes_by_tile(self.report.lowered)
            self.heatmap.set_swatch((values, int(values.max(initial=1))))
        self._update_map(self.selected)
        self._show_search_status()
        self._show_header()  # the detail does not depend on the variable

    def _show_search_status(self) -> None:
        lowered, bar = self.report.lowered, self.query_one(VariableBar)
        variables = None if lowered is None else len(lowered.names)
        bar.show_status(search_status(self.nav, bar.field.value, variables, self.report.missing("lowered")))
