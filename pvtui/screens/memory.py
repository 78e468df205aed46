"""The Memory screen: every tile's memory as a heatmap, and the selected tile in detail."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll

from pvtui.model.tables import Table
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
from pvtui.widgets.detail_text import DetailText
from pvtui.widgets.heatmap import TileHeatmap, legend
from pvtui.widgets.item_lines import item_lines

LISTED = 12  # vertices listed in the detail pane


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
    MemoryScreen #heatmap {
        width: 1fr;
        height: 1fr;
    }
    MemoryScreen #detail-pane {
        width: 52;
        height: 1fr;
        border-left: vkey $panel;
        padding: 0 1;
        background: $surface;
    }
    MemoryScreen #detail-columns {
        layout: vertical;
        height: auto;
    }
    MemoryScreen .detail {
        text-wrap: nowrap;
        text-overflow: ellipsis;
    }
    MemoryScreen.narrow #memory-body {
        layout: vertical;
    }
    MemoryScreen.narrow #detail-pane {
        width: 1fr;
        height: 9;
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
    ]

    def __init__(self) -> None:
        super().__init__()
        self.memory: TileMemory | None = None

    def compose_body(self) -> ComposeResult:
        yield Unavailable("", id="memory-unavailable")
        with Vertical(id="memory-view"):
            yield DetailText(id="memory-header")
            with Horizontal(id="memory-body"):
                yield TileHeatmap(on_select=lambda _tile: self._show_detail(), id="heatmap")
                with VerticalScroll(id="detail-pane"):
                    with Horizontal(id="detail-columns"):
                        yield DetailText(id="detail-facts")
                        yield DetailText(id="detail-categories")
                    yield DetailText(id="detail-vertices")

    def show_report(self) -> None:
        self.app.theme_changed_signal.subscribe(self, lambda _theme: self._redraw_text())
        self._load(selected=None)

    def on_resize(self, event: Resize) -> None:
        self.set_class(event.size.height < SHORT, "short")  # before the header is drawn for it
        if self.memory is not None and self.heatmap.rows is not None:
            self._show_header()  # its lines break where the width allows

    @property
    def heatmap(self) -> TileHeatmap:
        return self.query_one(TileHeatmap)

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
        heatmap.set_memory(self.memory, selected)
        heatmap.focus()
        self.query_one("#detail-categories", DetailText).reserve(1 + len(self.memory.categories))
        if tile_vertices(self.report, selected) is not None:
            self.query_one("#detail-vertices", DetailText).reserve(LISTED + 3)  # heading, "… more", a note
        self._redraw_text()

    # Reactions ---------------------------------------------------------------------

    def report_changed(self) -> None:
        super().report_changed()
        self._load(selected=self.heatmap.selected)

    def units_changed(self) -> None:
        if self.memory is not None:
            self.heatmap.set_units(self.pv_app.units)
            self._redraw_text()

    # Actions -----------------------------------------------------------------------

    def key_state(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in {"worst", "cycle_ipu", "zoom", "toggle_gaps"} and self.memory is None:
            return None
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
            self.heatmap.select(tile)

    def action_cycle_ipu(self) -> None:
        assert self.memory is not None
        self.heatmap.set_ipu_filter(next_ipu_filter(self.heatmap.ipu_filter, self.memory.ipus))
        self._redraw_text()

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
        self._redraw_text()

    def export_table(self) -> Table | None:
        """The tiles under the IPU filter: their totals with and without gaps (where the report has gaps),
        whichever the screen shows, and each category."""
        memory = self.memory
        if memory is None:
            return None
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
        parts = [f"{len(tiles):,} tiles", scope, per_row]
        if memory.has_gaps:
            parts.append("incl. gaps" if heatmap.gaps else "excl. gaps")
        else:
            parts.append("from archive.a")
        if memory.limit:
            over = int((memory.totals(heatmap.gaps)[tiles] > memory.limit).sum())
            parts.append(f"limit {self.bytes(memory.limit)}, {over:,} over")
        width = max(self.size.width - 2, 20)  # the header's padding
        lines = item_lines([Text(part) for part in parts], width, gap=" · ")
        lines += item_lines(legend(memory, heatmap.palette, heatmap.gaps), width,
                            max_lines=1 if self.has_class("short") else 2)
        self.query_one("#memory-header", DetailText).show(Text("\n").join(lines))

    def _show_detail(self) -> None:
        memory = self.memory
        if memory is None:
            return
        tile = self.heatmap.selected
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
            facts.append(self.report.missing("memory") + "\n", "dim")
        self.query_one("#detail-facts", DetailText).show(facts)
        self.query_one("#detail-categories", DetailText).show(self._categories_text(tile))
        self.query_one("#detail-vertices", DetailText).show(self._vertices_text(tile))

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
        # libpva gives vertices per tile but not which compute sets placed them there.
        text.append("Compute sets per tile are not in the profile.", "dim")
        return text
