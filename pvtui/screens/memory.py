"""The Memory screen: every tile's memory as a heatmap, and the selected tile in detail."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.events import Resize
from textual.widgets import DataTable, Input, Label, TabbedContent, TabPane

from pvtui.model.tables import Table
from pvtui.model.tile_detail import TILE_TABLES, tile_table, why_missing
from pvtui.model.tile_views import (
    TileMemory,
    max_zoom,
    next_ipu_filter,
    tile_memory,
    tile_vertices,
    visible_tiles,
    worst_tile,
)
from pvtui.screens.base import SHORT, ReportScreen, Unavailable
from pvtui.textual_private import InputWithoutLayout
from pvtui.units import count_of
from pvtui.widgets.detail_text import DetailText
from pvtui.widgets.heatmap import TileHeatmap, legend
from pvtui.widgets.item_lines import item_lines
from pvtui.widgets.memory_views import MemoryViews
from pvtui.widgets.tile_map import MapValues, TileMap
from pvtui.widgets.tile_map import legend as map_legend
from pvtui.widgets.tile_tables import TileTablePane

if TYPE_CHECKING:
    from pvtui.model.lowered import Lowered

WIDER = 150  # columns from which the detail pane is wide enough for the variables' names
LISTED = 12  # vertices listed in the detail pane
CHOSEN = "chosen variable"  # colour by the variable found with / (no category name has a space)
TAB_TITLES = {"variables": "Variables", "compute_sets": "Sets", "vertices": "Vertices", "exchanges": "Exchange"}


class MemoryScreen(ReportScreen):
    SCREEN_NAME = "Memory"

    DEFAULT_CSS = """
    MemoryScreen #memory-header {
        height: auto;
        padding: 0 1;
        color: $foreground;
        text-wrap: nowrap;
        text-overflow: ellipsis;
    }
    MemoryScreen #memory-body {
        layout: horizontal;
        height: 1fr;
    }
    MemoryScreen #memory-views {
        width: 1fr;
        height: 1fr;
    }
    MemoryScreen #detail-pane {
        width: 52;
        height: 1fr;
        border-left: vkey $panel;
        background: $surface;
    }
    MemoryScreen.wider #detail-pane {
        width: 68;
    }
    MemoryScreen #detail-pane ContentSwitcher {
        height: 1fr;
    }
    MemoryScreen #detail-scroll {
        padding: 0 1;
    }
    MemoryScreen #detail-columns {
        layout: vertical;
        height: auto;
    }
    MemoryScreen .detail {
        text-wrap: nowrap;
        text-overflow: ellipsis;
    }
    MemoryScreen TileTablePane .detail {
        text-wrap: wrap;  /* what the report lacks, and the option that would add it, in full */
    }
    MemoryScreen #variable-bar { height: 1; display: none; background: $panel; }
    MemoryScreen #variable-bar.open { display: block; }
    MemoryScreen #variable-bar Label { width: auto; padding: 0 1; }
    MemoryScreen #variable-input { width: 30; }
    MemoryScreen #variable-status { width: 1fr; height: 1; padding: 0 1; color: $text-muted; }
    MemoryScreen.narrow #memory-body {
        layout: vertical;
    }
    MemoryScreen.narrow #detail-pane {
        width: 1fr;
        height: 11;
        border-left: none;
        border-top: hkey $panel;
    }
    MemoryScreen.narrow #detail-columns {
        layout: horizontal;
    }
    MemoryScreen.short.narrow #detail-pane {
        height: 30vh;
    }
    MemoryScreen.narrow #detail-facts {
        width: auto;
        max-width: 38;
        margin-right: 1;
    }
    MemoryScreen.narrow #detail-categories {
        width: 1fr;
    }
    """

    BINDINGS = [
        Binding("w", "worst", "Worst tile", id="memory.worst"),
        Binding("I", "cycle_ipu", "IPU filter", key_display="I", id="memory.ipu"),
        Binding("plus", "zoom(-1)", "Zoom in", key_display="+", id="memory.zoom_in"),
        Binding("minus", "zoom(1)", "Zoom out", key_display="-", id="memory.zoom_out"),
        Binding("g", "toggle_gaps", "Gaps", id="memory.gaps"),
        Binding("v", "toggle_map", "Bars/map", id="memory.map"),
        Binding("c", "next_colour", "Colour by", id="memory.colour"),
        Binding("right_square_bracket", "next_tab(1)", "Next tab", key_display="]", id="memory.next_tab"),
        Binding("left_square_bracket", "next_tab(-1)", "Previous tab", key_display="[", id="memory.previous_tab",
                show=False),
        Binding("S", "next_sort", "Sort", key_display="S", id="memory.sort"),
        Binding("slash", "open_search", "Find variable", key_display="/", id="memory.search"),
        Binding("escape", "close_search", "No variable", id="memory.close_search"),
        Binding("enter", "pick_variable", "Where it lives", id="memory.pick"),
        Binding("up", "next_match(-1)", "Previous match", show=False),
        Binding("down", "next_match(1)", "Next match", show=False),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.memory: TileMemory | None = None
        self.colour_by = "total"  # on the map: "total", "always-live", "not-always-live", a category or CHOSEN
        self.matches: np.ndarray | tuple = ()  # variable ids the search found, largest first (numpy waits for the report)
        self.variable: int | None = None  # the variable chosen: it colours the map and the bars' swatches
        self.searching = False  # the search bar is open
        self._chosen_bytes: tuple[int, np.ndarray] | None = None  # the chosen variable's bytes per tile
        self._search_ready: Lowered | None = None  # the lowered variables whose names and totals are ready

    def compose_body(self) -> ComposeResult:
        yield Unavailable("", id="memory-unavailable")
        with Vertical(id="memory-view"):
            yield DetailText(id="memory-header")
            with Horizontal(id="variable-bar"):
                yield Label("/")
                search = InputWithoutLayout(placeholder="part of a variable name", id="variable-input", compact=True)
                search.cursor_blink = False  # a frame every half second over SSH, for nothing
                yield search
                yield DetailText(id="variable-status")  # no layout on each key, as a Label would cost
            with Horizontal(id="memory-body"):
                yield MemoryViews(
                    TileHeatmap(on_select=lambda _tile: self._show_detail(), id="heatmap"),
                    TileMap(on_select=lambda _tile: self._show_detail(), on_relayout=self._redraw_text, id="tile-map"),
                    id="memory-views",
                )
                with TabbedContent(id="detail-pane", initial="tab-details"):
                    with TabPane("Details", id="tab-details"):
                        with VerticalScroll(id="detail-scroll"):
                            with Horizontal(id="detail-columns"):
                                yield DetailText(id="detail-facts")
                                yield DetailText(id="detail-categories")
                            yield DetailText(id="detail-vertices")
                    for name, title in TAB_TITLES.items():
                        yield TileTablePane(title, name)

    def show_report(self) -> None:
        self.app.theme_changed_signal.subscribe(self, lambda _theme: self._redraw_text())
        self.watch(self.query_one("#variable-input", Input), "value", self._search_for, init=False)
        self._load(selected=None)

    def on_resize(self, event: Resize) -> None:
        self.set_class(event.size.width >= WIDER, "wider")
        self.set_class(event.size.height < SHORT, "short")  # before the header is drawn for it
        if self.memory is not None and self.heatmap.rows is not None:
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
    def map_shown(self) -> bool:
        return self.views.map_shown

    @property
    def selected(self) -> int:
        """The selected tile, in the view shown."""
        return self.views.shown.selected

    def _select(self, tile: int) -> None:
        self.views.shown.select(tile)

    def _load(self, selected: int | None) -> None:
        """Read the tiles from the current model; SELECTED stays selected if it still exists."""
        memory = tile_memory(self.report)
        self.memory = memory if memory is not None and memory.num_tiles else None
        available = self.memory is not None
        self.query_one("#memory-view").display = available
        notice = self.query_one("#memory-unavailable", Unavailable)
        notice.display = not available
        if not available:
            notice.update(f"{self.report.missing('memory')} {self.report.missing('archive')}")
            return
        assert self.memory is not None
        if selected is None or selected >= self.memory.num_tiles:
            selected = 0
        heatmap = self.heatmap
        if heatmap.ipu_filter not in self.memory.ipus:
            heatmap.ipu_filter = None
        heatmap.gaps = heatmap.gaps and self.memory.has_gaps
        heatmap.units = self.pv_app.units
        self.variable, self.matches, self._chosen_bytes = None, (), None  # ids of the model replaced
        heatmap.swatch = None
        heatmap.set_memory(self.memory, selected)
        if self.colour_by not in self._colour_choices():
            self.colour_by = "total"
        self._update_map(selected, hidden_too=True)  # laid out (and drawn) while hidden: the first `v` only shows it
        self._forget_tables()
        self.views.focus()
        self.query_one("#detail-categories", DetailText).reserve(1 + len(self.memory.categories))
        if tile_vertices(self.report, selected) is not None:
            self.query_one("#detail-vertices", DetailText).reserve(LISTED + 3)  # heading, "… more", a note
        self._redraw_text()

    # Reactions ---------------------------------------------------------------------

    def report_changed(self) -> None:
        super().report_changed()
        self._load(selected=self.selected)

    def units_changed(self) -> None:
        if self.memory is not None:
            self.heatmap.set_units(self.pv_app.units)
            self._forget_tables()
            self._redraw_text()

    def _forget_tables(self) -> None:
        """The tables show the tile again when next shown: the model or the units changed."""
        for pane in self.query(TileTablePane):
            pane.tile = None

    # Actions -----------------------------------------------------------------------

    def key_state(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in {"worst", "cycle_ipu", "zoom", "toggle_gaps", "toggle_map", "next_colour", "next_tab",
                      "next_sort", "open_search", "close_search", "next_match"} and self.memory is None:
            return None
        if action == "next_sort" and (self.table_pane is None or self.table_pane.table is None):
            return False
        if action == "close_search":
            return self.searching or self.variable is not None
        if action == "next_match":
            return self.searching
        if action == "pick_variable":
            pane = self.table_pane
            return pane is not None and pane.table_name == "variables" and pane.table is not None
        if (action == "zoom" and self.map_shown) or (action == "next_colour" and not self.map_shown):
            return False  # the other view's key
        if action == "cycle_ipu" and self.memory is not None and not self.memory.ipus:
            return None
        if action == "toggle_gaps" and self.memory is not None and not self.memory.has_gaps:
            return None
        return True

    def action_worst(self) -> None:
        assert self.memory is not None
        tiles = visible_tiles(self.memory.ipu, self.heatmap.ipu_filter)
        tile = worst_tile(self.memory.including_gaps, tiles)
        if tile is not None:
            self._select(tile)

    def action_cycle_ipu(self) -> None:
        assert self.memory is not None
        self.heatmap.set_ipu_filter(next_ipu_filter(self.heatmap.ipu_filter, self.memory.ipus))
        self._update_map(self.selected)
        self._redraw_text()

    def action_toggle_map(self) -> None:
        """Bars <-> map, the selected tile kept."""
        tile = self.selected
        self.views.show_map(not self.map_shown)
        if self.map_shown:
            self._update_map(tile)
        else:
            self.heatmap.select(tile)
        self._show_header()  # the detail is the same tile's
        self.refresh_bindings()

    def action_next_colour(self) -> None:
        choices = self._colour_choices()
        self.colour_by = choices[(choices.index(self.colour_by) + 1) % len(choices)]
        self._update_map(self.selected)
        self._redraw_text()

    def _colour_choices(self) -> list[str]:
        assert self.memory is not None
        live = ["always-live", "not-always-live"] if self.memory.always_live is not None else []
        chosen = [CHOSEN] if self.variable is not None else []
        return ["total", *live, *self.memory.categories, *chosen]

    def map_values(self) -> MapValues:
        """What the map colours by now."""
        memory = self.memory
        assert memory is not None
        gaps = self.heatmap.gaps
        if self.colour_by == "total":
            name = "total" if not memory.has_gaps else "total incl. gaps" if gaps else "total excl. gaps"
            totals = memory.totals(gaps)
            return MapValues(name, totals, memory.limit or float(totals.max(initial=1)), memory.limit)
        if self.colour_by == CHOSEN:
            values = self._variable_bytes()
            return MapValues(self._variable_label(values), values, float(values.max(initial=1)), None)
        if self.colour_by in ("always-live", "not-always-live"):
            values = memory.always_live if self.colour_by == "always-live" else memory.not_always_live
        else:
            values = memory.by_category[:, memory.categories.index(self.colour_by)]
        return MapValues(self.colour_by, values, float(values.max(initial=1)), None)

    # The variable search -------------------------------------------------------------

    def action_open_search(self) -> None:
        self._show_search_bar(True)
        self.start_typing(self.query_one("#variable-input", Input))
        lowered = self.report.lowered
        if lowered is not None and self._search_ready is not lowered:
            self._prepare_search(lowered)

    @work(thread=True, exclusive=True, group="variable-search")
    def _prepare_search(self, lowered: "Lowered") -> None:
        """Index the names and total each variable's bytes (a pass over every piece: a tenth of a
        second or more on a Pod16's) before the keys need them, off the UI thread."""
        lowered.prepare_search()
        self.app.call_from_thread(self._search_prepared, lowered)

    def _search_prepared(self, lowered: "Lowered") -> None:
        if lowered is not self.report.lowered:
            return  # a reload came in meanwhile
        self._search_ready = lowered
        self._search_for(self.query_one("#variable-input", Input).value)  # what was typed meanwhile

    def action_close_search(self) -> None:
        """Close the search and colour by totals again."""
        self._show_search_bar(False)
        self._choose(None)
        self.views.focus()

    def _show_search_bar(self, shown: bool) -> None:
        self.searching = shown  # asked by key_state on every key: no DOM query there
        self.query_one("#variable-bar").set_class(shown, "open")

    def _search_for(self, text: str) -> None:
        """Each key: the variables containing the text, the largest chosen at once.

        A watcher of the Input's value, run within the key: its answer is painted in the same
        frame as the key's character (Input.Changed, a message, came a frame later)."""
        lowered = self.report.lowered
        if lowered is not None and text and self._search_ready is not lowered:
            self.query_one("#variable-status", DetailText).show(Text("reading the variables' names and sizes…"))
            return  # _search_prepared searches for what is typed by then
        self.matches = lowered.find(text) if lowered is not None and text else ()
        self._choose(int(self.matches[0]) if len(self.matches) else None)

    @on(Input.Submitted, "#variable-input")
    def _search_submitted(self, event: Input.Submitted) -> None:
        """Keep the variable chosen and go back to the tiles."""
        self._show_search_bar(False)
        self.views.focus()

    @on(DataTable.RowSelected, "#table-variables")
    def _variable_picked(self, event: DataTable.RowSelected) -> None:
        self.action_pick_variable()

    def action_pick_variable(self) -> None:
        """The variable under the Variables tab's cursor (the largest, until moved): where else it lives,
        on the map and the bars."""
        lowered, pane = self.report.lowered, self.table_pane
        row = pane.query_one(DataTable).cursor_row if pane is not None else -1
        name = pane.row_value(row, "name") if pane is not None else None
        variable = lowered.name_id(name) if lowered is not None and name is not None else None
        if variable is not None:
            self.matches = np.array([variable], np.int64)
            self._choose(variable)

    def action_next_match(self, step: int) -> None:
        if self.variable is not None and len(self.matches):
            self._choose(int(self.matches[(self._match_index() + step) % len(self.matches)]))

    def _match_index(self) -> int:
        """Where the chosen variable is among the matches (0 when it is not one of them)."""
        matches = list(self.matches)
        return matches.index(self.variable) if self.variable in matches else 0

    def _choose(self, variable: int | None) -> None:
        """Colour the map and the bars' swatches by VARIABLE's bytes per tile (None: by the totals)."""
        if self.memory is None:
            return  # no tiles: the screen says why instead
        if variable == self.variable:
            self._show_search_status()  # the same colours: only the count of matches may have changed
            return
        self.variable = variable
        if variable is None:
            self.heatmap.set_swatch(None)
            if self.colour_by == CHOSEN:
                self.colour_by = "total"
        else:
            values = self._variable_bytes()
            self.heatmap.set_swatch((values, int(values.max(initial=1))))
            self.colour_by = CHOSEN
        self._update_map(self.selected)
        self._show_search_status()
        self._show_header()  # the detail does not depend on the variable

    def _variable_bytes(self) -> np.ndarray:
        lowered = self.report.lowered
        assert lowered is not None and self.variable is not None
        if self._chosen_bytes is None or self._chosen_bytes[0] != self.variable:
            self._chosen_bytes = (self.variable, lowered.bytes_by_tile(self.variable))
        return self._chosen_bytes[1]

    def _variable_label(self, values: np.ndarray) -> str:
        lowered = self.report.lowered
        assert lowered is not None and self.variable is not None
        tiles = int(np.count_nonzero(values))
        return f"{lowered.names[self.variable]}: {self.bytes(int(values.sum()))} on {count_of(tiles, 'tile')}"

    def _show_search_status(self) -> None:
        status = self.query_one("#variable-status", DetailText)
        lowered = self.report.lowered
        text = self.query_one("#variable-input", Input).value
        if lowered is None:
            status.show(Text(self.report.missing("lowered")))
        elif not text:
            status.show(Text(count_of(len(lowered.names), "variable")))
        elif self.variable is None:
            status.show(Text(f"no variable name contains {text!r}"))
        else:  # the chosen variable's bytes and tiles are in the header
            status.show(Text(f"{self._match_index() + 1:,}/{len(self.matches):,} · ↑↓ another, Enter keeps it"))

    def _update_map(self, selected: int, hidden_too: bool = False) -> None:
        """The map shows the tiles and colours chosen; while hidden, only if HIDDEN_TOO (it is
        brought up to date when shown)."""
        if self.memory is None or not (self.map_shown or hidden_too):
            return
        tiles = visible_tiles(self.memory.ipu, self.heatmap.ipu_filter)
        self.tile_map.set_tiles(self.memory.ipu, tiles, self.map_values(), selected)

    def action_zoom(self, direction: int) -> None:
        """Direction 1 puts twice as many tiles on a row, -1 half as many."""
        heatmap = self.heatmap
        assert heatmap.rows is not None
        most = max_zoom(len(heatmap.rows.tiles), heatmap.scrollable_content_region.height)
        zoom = heatmap.zoom * 2 if direction > 0 else heatmap.zoom // 2
        heatmap.set_zoom(max(1, min(zoom, most)))
        self._redraw_text()

    def action_toggle_gaps(self) -> None:
        self.heatmap.set_gaps(not self.heatmap.gaps)
        self._update_map(self.selected)
        self._redraw_text()

    def action_next_tab(self, step: int) -> None:
        tabs = ["tab-details", *(f"tab-{name}" for name in TAB_TITLES)]
        pane = self.query_one(TabbedContent)
        pane.active = tabs[(tabs.index(pane.active) + step) % len(tabs)]

    def action_next_sort(self) -> None:
        table = self.table_pane
        if table is not None:
            table.next_sort(self.bytes)

    @property
    def table_pane(self) -> TileTablePane | None:
        """The detail pane's tab when it is one of the tile's tables."""
        pane = self.query_one(TabbedContent)
        active = pane.active_pane
        return active if isinstance(active, TileTablePane) else None

    def on_tabbed_content_tab_activated(self, event: TabbedContent.TabActivated) -> None:
        self._show_table()
        self.refresh_bindings()

    def _show_table(self) -> None:
        """Fill the active tab's table for the selected tile (only the tab shown costs anything)."""
        table = self.table_pane
        if self.memory is None or table is None:
            return
        tile = self.selected
        if table.tile != tile:
            name = table.table_name
            table.show(tile, tile_table(self.report, tile, name), why_missing(self.report, name), self.bytes)

    def export_table(self) -> Table | None:
        """The tile's table in the detail pane's tab shown, else the tiles under the IPU filter: their totals
        with and without gaps (where the report has gaps), whichever the screen shows, and each category."""
        memory = self.memory
        if memory is None:
            return None
        if self.table_pane is not None and self.table_pane.table is not None:
            return self.table_pane.sorted_table()
        tiles = visible_tiles(memory.ipu, self.heatmap.ipu_filter)
        if memory.has_gaps:
            columns = [memory.including_gaps, memory.excluding_gaps]
            names = ["tile", "ipu", "bytes_including_gaps", "bytes_excluding_gaps"]
        else:
            columns, names = [memory.excluding_gaps], ["tile", "ipu", "bytes"]
        if memory.always_live is not None and memory.not_always_live is not None:
            columns += [memory.always_live, memory.not_always_live]
            names += ["always_live_bytes", "not_always_live_bytes"]
        by_category = memory.by_category
        rows = ([int(tile), memory.ipu_of(tile), *(int(column[tile]) for column in columns),
                 *by_category[tile].tolist()] for tile in tiles)
        scope = "" if self.heatmap.ipu_filter is None else f"-ipu{self.heatmap.ipu_filter}"
        return Table(f"memory-tiles{scope}", names + list(memory.categories), rows)

    # Text --------------------------------------------------------------------------

    def _redraw_text(self) -> None:
        if self.memory is None:
            return
        self._show_header()
        self._show_detail()

    def _show_header(self) -> None:
        memory, heatmap = self.memory, self.heatmap
        assert memory is not None and heatmap.rows is not None
        tiles = heatmap.rows.tiles
        scope = "IPUs unknown" if not memory.ipu_known else "all IPUs" if heatmap.ipu_filter is None \
            else f"IPU {heatmap.ipu_filter}"
        per_row = "1 tile/row" if heatmap.zoom == 1 else f"{heatmap.zoom} tiles/row, the fullest shown"
        parts = [count_of(len(tiles), "tile"), scope]
        if self.map_shown:  # first: a chosen variable's total and tiles are what the user looks for
            parts.insert(0, f"colour: {self.map_values().name}")  # it says the gaps setting where it applies
        else:
            parts.append(per_row)
            if self.variable is not None:
                parts.append(f"swatch: {self._variable_label(self._variable_bytes())}")
        if memory.source == "archive":
            parts.append("from archive.a")
        elif not memory.has_gaps:
            parts.append("incl. gaps")
        elif not self.map_shown:
            parts.append("incl. gaps" if heatmap.gaps else "excl. gaps")
        if memory.limit:
            over = int((memory.totals(heatmap.gaps)[tiles] > memory.limit).sum())
            parts.append(f"limit {self.bytes(memory.limit)}, {over:,} over")
        width = max(self.size.width - 2, 20)  # the header's padding
        lines = item_lines([Text(part) for part in parts], width, gap=" · ")
        tile_map = self.tile_map
        if self.map_shown and tile_map.grid is not None:
            entries = map_legend(self.map_values(), tile_map.colours, self.pv_app.units, tile_map.grid.per_cell)
        else:
            entries = legend(memory, heatmap.palette, heatmap.gaps)
        lines += item_lines(entries, width, max_lines=1 if self.has_class("short") else 2)
        self.query_one("#memory-header", DetailText).show(Text("\n").join(lines))

    def _show_detail(self) -> None:
        memory = self.memory
        if memory is None:
            return
        tile = self.selected
        palette = self.heatmap.palette
        total = int(memory.including_gaps[tile])
        facts = Text()
        facts.append(f"Tile {tile}", "bold")
        ipu = memory.ipu_of(tile)
        facts.append(f" · IPU {'unknown' if ipu is None else ipu}\n")
        if memory.has_gaps:
            facts.append(f"Including gaps   {self.bytes(total)}\n")
            facts.append(f"Excluding gaps   {self.bytes(int(memory.excluding_gaps[tile]))}\n")
        else:
            facts.append(f"Allocated        {self.bytes(total)}\n")
        if memory.limit:
            share = total / memory.limit
            facts.append("Of limit         ")
            facts.append(f"{share:.1%}", palette.over_label if share > 1 else palette.label)
            facts.append(f" of {self.bytes(memory.limit)}\n")
        if memory.always_live is not None and memory.not_always_live is not None:
            facts.append(f"Always live      {self.bytes(int(memory.always_live[tile]))}\n")
            facts.append(f"Not always live  {self.bytes(int(memory.not_always_live[tile]))}\n")
        else:
            facts.append(self.report.missing("memory" if memory.source == "archive" else "tile_split") + "\n", "dim")
        self.query_one("#detail-facts", DetailText).show(facts)
        self.query_one("#detail-categories", DetailText).show(self._categories_text(tile))
        self.query_one("#detail-vertices", DetailText).show(self._vertices_text(tile))
        self._show_table()

    def _categories_text(self, tile: int) -> Text:
        memory = self.memory
        assert memory is not None
        palette = self.heatmap.palette
        text = Text("Categories\n", "bold")
        index = {name: i for i, name in enumerate(memory.categories)}
        rows = [(name, self.bytes(value)) for name, value in memory.tile_categories(tile)]
        width = max((len(shown) for _, shown in rows), default=0)  # the names get the rest
        for name, shown in rows:
            text.append("  ", palette.category(index[name]))
            text.append(f" {shown:>{width}}  {name}\n")
        return text

    def _vertices_text(self, tile: int) -> Text:
        text = Text()
        vertices = tile_vertices(self.report, tile)
        if vertices is None:
            text.append("Vertices and compute sets: this report does not list them per tile.", "dim")
            return text
        if not vertices:
            text.append("No vertices on this tile.", "dim")
            return text
        text.append(f"Vertices ({len(vertices)})\n", "bold")
        for vertex in vertices[:LISTED]:
            text.append(f" {self.bytes(vertex.code_bytes):>10}  {vertex.name}\n")
        if len(vertices) > LISTED:
            text.append(f"  … and {len(vertices) - LISTED} more\n", "dim")
        text.append("Compute sets, vertex types and exchange code on this tile: the tabs (] and [).", "dim")
        return text
