"""The Memory screen: every tile's memory as bars or a map, the selected tile in detail, a variable search."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.events import Resize
from textual.geometry import Size
from textual.reactive import var

from pvtui.model.tables import Table
from pvtui.model.navigators.memory import MapValues, MemoryNavigator, tile_memory, tiles_table
from pvtui.model.unavailable import Unavailable
from pvtui.render.item_lines import item_lines
from pvtui.render.memory import header_items, variable_label
from pvtui.screens.base import Needs, ReportScreen, UnavailableNotice
from pvtui.screens.memory_details import TileDetailing
from pvtui.screens.memory_marks import TileMarking
from pvtui.screens.memory_search import VariableSearching
from pvtui.widgets.detail_pane import DetailPane
from pvtui.widgets.detail_text import DetailText
from pvtui.widgets.heatmap import TileHeatmap, legend
from pvtui.widgets.keys import ZOOM, close_search, open_search
from pvtui.widgets.memory_views import MemoryViews
from pvtui.widgets.tile_map import TileMap
from pvtui.widgets.tile_map import legend as map_legend
from pvtui.widgets.variable_bar import VariableBar

WIDER = 150  # columns from which the detail pane is wide enough for the variables' names


class MemoryScreen(VariableSearching, TileMarking, TileDetailing, ReportScreen):
    """Every tile's memory as rows of bars or as a map (`view`), the selected tile's details and
    tables beside them, and a search for a variable that colours both by where it lives.

    `nav` (a MemoryNavigator) holds the tiles shown, the zoom, the colour and the search; the
    widgets draw what it says, and the view shown holds the selected tile. A new view is a value
    of `view` and a branch of `watch_view`.
    """

    SCREEN_NAME = "Memory"

    # its layout: parsed as the screen is first composed, not at every start as the app's CSS_PATH is
    DEFAULT_CSS = Path(__file__).with_name("memory.tcss").read_text("utf-8")

    GIVES_WAY = ("memory.ipu", "memory.gaps", "memory.by_liveness", "memory.mark", "memory.compare", "memory.sort", "memory.previous_tab")  # on a narrow key bar
    BINDINGS = [
        Binding("w", "worst", "Worst tile", id="memory.worst"),
        Binding("I", "cycle_ipu", "IPU filter", key_display="I", id="memory.ipu"),
        *ZOOM,
        Binding("g", "toggle_gaps", "Gaps", id="memory.gaps"),
        Binding("b", "bars_by_liveness", "By liveness", id="memory.by_liveness"),
        Binding("space", "mark_tile", "Mark tile", key_display="Space", id="memory.mark"),
        Binding("T", "compare_tiles", "Compare tiles", key_display="T", id="memory.compare"),
        Binding("v", "view('map')", "Bars/map", id="memory.map"),
        Binding("c", "next_colour", "Colour by", id="memory.colour"),
        Binding("right_square_bracket", "next_tab(1)", "Next tab", key_display="]", id="memory.next_tab"),
        Binding("left_square_bracket", "next_tab(-1)", "Previous tab", key_display="[", id="memory.previous_tab",
                show=False),
        Binding("S", "next_sort", "Sort", key_display="S", id="memory.sort"),
        Binding("f", "full_details", "Full pane", id="memory.full_details"),
        open_search("Find variable"),
        close_search("No variable"),
        Binding("enter", "pick_variable", "Where it lives", id="memory.pick"),
        Binding("enter", "show_program", "In Programs", id="memory.program"),
        Binding("up", "next_match(-1)", "Previous match", show=False),
        Binding("down", "next_match(1)", "Next match", show=False),
    ]
    NAVIGATOR = MemoryNavigator
    nav: MemoryNavigator
    KEYS = {
        **{action: Needs(usable=("has_tiles",)) for action in ("worst", "view", "next_tab", "open_search", "mark_tile",
                                                               "compare_tiles")},
        "cycle_ipu": Needs(usable=("has_tiles", "has_ipus")),
        "zoom": Needs(shown=("bars_shown",), usable=("has_tiles",)),  # the map fits every tile
        "toggle_gaps": Needs(usable=("has_tiles", "has_gaps")),
        "bars_by_liveness": Needs(shown=("bars_shown",), usable=("has_tile_liveness",)),
        "next_colour": Needs(shown=("map_shown",), usable=("has_tiles",)),  # the bars show every category
        "next_sort": Needs(shown=("tab_table",)),
        "close_search": Needs(shown=("searched",)),
        "next_match": Needs(shown=("searching",)),
        "pick_variable": Needs(shown=("variables_listed",)),
        "show_program": Needs(shown=("programs_listed",)),
    }

    view = var("bars", init=False)  # "bars" or "map"

    def compose_body(self) -> ComposeResult:
        yield UnavailableNotice(id="memory-unavailable")
        with Vertical(id="memory-view", classes="unpainted"):
            yield DetailText(id="memory-header")
            yield VariableBar(self.nav.search, id="variable-bar")
            with Horizontal(id="memory-body", classes="unpainted"):
                yield MemoryViews(TileHeatmap(id="heatmap"), TileMap(id="tile-map"), id="memory-views")
                yield DetailPane(id="detail-pane")

    def show_report(self) -> None:
        self._load(selected=self.pv_app.remembered("tile"))  # where it was left (a whole number: pvtui.user.state)

    def remembered_place(self) -> dict:
        return {"tile": int(self.selected)} if self.nav.memory is not None else {}

    def size_classes(self, size: Size) -> dict[str, bool]:
        return {**super().size_classes(size), "wider": size.width >= WIDER}

    def on_resize(self, event: Resize) -> None:
        self.update_classes(self.size_classes(event.size))  # before the header is drawn for it
        if self.nav.memory is not None and self.heatmap.rows is not None:
            self._show_header()  # its lines break where the width allows

    @property
    def views(self) -> MemoryViews:
        return self.query_one(MemoryViews)

    @property
    def heatmap(self) -> TileHeatmap:
        return self.views.heatmap

    @property
    def tile_map(self) -> TileMap:
        return self.views.tile_map

    @property
    def selected(self) -> int:
        """The selected tile, in the view shown."""
        return self.views.shown.selected

    def _load(self, selected: int | None) -> None:
        """Read the tiles from the current model; SELECTED stays selected if it still exists."""
        nav = self.nav
        selected = nav.load(tile_memory(self.report), selected)
        self.query_one(VariableBar).lowered = self.report.lowered
        memory = nav.memory
        self.query_one("#memory-view").display = memory is not None
        if memory is None:
            self.query_one("#memory-unavailable", UnavailableNotice).show(
                Unavailable(f"{self.report.missing('memory')} {self.report.missing('archive')}"))
            return
        being_read = self.report.categories_being_read  # the totals shown meanwhile, with how far the reading is
        self.query_one("#memory-unavailable", UnavailableNotice).show(
            Unavailable(self.report.missing("categories")) if being_read else None)
        heatmap = self.heatmap
        heatmap.ipu_filter, heatmap.gaps, heatmap.zoom = nav.ipu_filter, nav.gaps, nav.zoom
        heatmap.units, heatmap.swatch = self.pv_app.units, None
        heatmap.set_memory(nav.bars, selected)
        self._update_map(selected, hidden_too=True)  # laid out (and drawn) while hidden: the first `v` only shows it
        self.views.focus()
        if (details := self.details) is not None:
            details.forget_tables()
            self._reserve(details)
        self._redraw_text()

    # Reactions ---------------------------------------------------------------------

    def report_changed(self) -> None:
        super().report_changed()
        self._load(selected=self.selected)

    def theme_changed(self) -> None:
        self.heatmap.refresh()
        self.tile_map.refresh()
        self._redraw_text()

    def units_changed(self) -> None:
        if self.nav.memory is not None:
            self.heatmap.set_units(self.pv_app.units)
            if (details := self.details) is not None:
                details.forget_tables()
            self._redraw_text()

    def watch_view(self, view: str) -> None:
        """Bars <-> map, the selected tile kept."""
        tile = self.selected
        self.nav.map_shown = view == "map"
        self.views.show_map(self.nav.map_shown)
        if self.nav.map_shown:
            self._update_map(tile)
        else:
            self.heatmap.select(tile)
        self._show_header()  # the detail is the same tile's
        self.refresh_bindings()

    # Actions -----------------------------------------------------------------------

    def action_worst(self) -> None:
        self.show_tile(self.nav.worst(), on_map=False)

    def show_tile(self, tile: int | None, on_map: bool = True) -> None:
        """TILE selected, on the tile map where ON_MAP (Hotspots' w: a compute set's slowest tile)."""
        if tile is not None and self.nav.memory is not None:
            self.view = "map" if on_map else self.view
            self.views.shown.select(tile)

    def action_cycle_ipu(self) -> None:
        self.nav.next_ipu()
        self.heatmap.set_ipu_filter(self.nav.ipu_filter)
        self._update_map(self.selected)
        self._redraw_text()

    def action_view(self, view: str) -> None:
        self.view = "bars" if self.view == view else view

    def action_next_colour(self) -> None:
        self.nav.next_colour()
        self._update_map(self.selected)
        self._redraw_text()

    def action_zoom(self, direction: int) -> None:
        """Direction 1 puts half as many tiles on a row, -1 twice as many."""
        self.nav.zoomed(direction, self.heatmap.scrollable_content_region.height)
        self.heatmap.set_zoom(self.nav.zoom)
        self._show_header()  # the tile's details follow the heatmap's Selected, posted as it regroups

    def action_toggle_gaps(self) -> None:
        self.nav.gaps = not self.nav.gaps
        self.heatmap.set_gaps(self.nav.gaps)
        self._update_map(self.selected)
        self._redraw_text()

    def action_bars_by_liveness(self) -> None:
        """Each bar broken down by liveness (always-live, not-always-live), and by category again."""
        self.nav.bars_by_liveness = not self.nav.bars_by_liveness
        self.heatmap.set_memory(self.nav.bars, self.selected)
        self._redraw_text()

    def export_table(self) -> Table | None:
        """The tile's table in the detail pane's tab shown, else the tiles under the IPU filter: their totals
        with and without gaps (where the report has gaps), whichever the screen shows, and each category."""
        table = self.table_pane
        if self.nav.memory is None:
            return None
        if table is not None and table.table is not None:
            return table.sorted_table()
        return tiles_table(self.nav.memory, self.nav.ipu_filter)

    # Drawing -------------------------------------------------------------------------

    def _chosen_label(self, values: np.ndarray) -> str:
        """The chosen variable, with its bytes per tile VALUES."""
        lowered = self.report.lowered
        return variable_label(lowered.names[self.nav.search.variable], values, self.bytes)

    def _map_values(self) -> MapValues:
        return self.nav.map_values(self.report.lowered, self._chosen_label)

    def _update_map(self, selected: int, hidden_too: bool = False) -> None:
        """The map shows the tiles and colours chosen; while hidden, only if HIDDEN_TOO (it is
        brought up to date when shown)."""
        nav = self.nav
        if nav.memory is None or not (nav.map_shown or hidden_too):
            return
        self.tile_map.set_tiles(nav.memory.ipu, nav.tiles, self._map_values(), selected)

    @on(TileMap.Relaid)
    def _redraw_text(self) -> None:
        if self.nav.memory is None:
            return
        self._show_header()
        self._show_detail()

    def _show_header(self) -> None:
        nav, heatmap, tile_map = self.nav, self.heatmap, self.tile_map
        assert nav.memory is not None
        values = self._map_values() if nav.map_shown else None
        swatch = None
        if values is None and nav.search.variable is not None:
            swatch = self._chosen_label(nav.search.bytes_by_tile(self.report.lowered))
        width = max(self.size.width - 2, 20)  # the header's padding
        lines = item_lines(header_items(nav, values.name if values else "", swatch, self.bytes), width, gap=" · ")
        if values is not None and tile_map.grid is not None:
            entries = map_legend(values, tile_map.colours, self.pv_app.units, tile_map.grid.per_cell)
        else:
            entries = legend(nav.bars, heatmap.palette, nav.gaps)
        lines += item_lines(entries, width, max_lines=1 if self.has_class("short") else 2)
        self.query_one("#memory-header", DetailText).show(Text("\n").join(lines))

    @on(TileHeatmap.Selected)
    @on(TileMap.Selected)
    def _show_detail(self) -> None:
        if self.nav.memory is not None and (details := self.details) is not None:
            details.show_tile(self.report, self.nav.memory, self.selected, self.bytes, self.heatmap.palette)
            self._tab_shown()
