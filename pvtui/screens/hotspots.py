"""The Hotspots screen: the compute sets, exchanges, programs and single steps that take the IPU-cycles,
costliest first; sortable and filterable, with the selected row's details, and jumps to its program, its
longest step, its model layer and its slowest tile."""

from __future__ import annotations

from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widgets import Label

from pvtui.model.navigators.hotspots import HotspotsNavigator, Key
from pvtui.model.hotspots import HotspotTable, StepRows, TileBalance
from pvtui.model.tables import Table
from pvtui.render.columns import TOTAL, TableRows
from pvtui.render.hotspots import (
    COLUMN_WORDS, hotspot_details, hotspot_header, hotspot_rows, hotspot_total_details, step_rows,
)
from pvtui.ui.long_lived import freeze_after_frame
from pvtui.screens.base import Needs, ReportScreen, UnavailableNotice, beside_or_under
from pvtui.widgets.detail_text import DetailText, PaneText
from pvtui.widgets.figures_table import FiguresTable
from pvtui.widgets.filter_line import FilterLine
from pvtui.widgets.pane_scroll import PaneScroll
from pvtui.widgets.to_ui import to_ui

MIN_NAME_WIDTH = 24  # below this, figures other than the sort's give way to the names


class HotspotsScreen(ReportScreen):
    """A header, the table shown (read in a worker), a filter bar, and the selected row's details.

    `nav` (a HotspotsNavigator) holds the table, run and step type, the sort and filter; render/hotspots.py
    words them.
    """

    SCREEN_NAME = "Hotspots"
    COLUMN_WORDS = COLUMN_WORDS  # what `?` says each column counts

    DEFAULT_CSS = beside_or_under("HotspotsScreen", "#hotspots-body", "#hotspots-table", "#hotspot-scroll", 8) + """
    HotspotsScreen #hotspots-header { height: auto; max-height: 3; padding: 0 1; background: $surface; }
    /* always there, brighter while a filter is typed: opening and closing it lays out nothing (a layout
       that resizes the panes below costs a second frame) */
    HotspotsScreen #hotspots-filter { height: 1; background: $surface; }
    HotspotsScreen #hotspots-filter.open { background: $panel; }
    HotspotsScreen #hotspots-filter Label { width: auto; padding: 0 1; }
    HotspotsScreen #hotspots-filter-input { width: 1fr; }
    """

    BINDINGS = [
        Binding("g", "next_table", "Table", id="hotspots.table"),
        Binding("S", "next_sort", "Sort", key_display="S", id="hotspots.sort"),
        Binding("slash", "open_filter", "Filter", key_display="/", id="hotspots.filter"),
        Binding("escape", "clear_filter", "Clear filter", id="hotspots.clear_filter"),
        Binding("r", "next_run", "Run", id="hotspots.run"),
        Binding("y", "next_type", "Step type", id="hotspots.type"),
        Binding("T", "show_step", "In Trace", key_display="T", id="hotspots.trace"),
        Binding("L", "show_layer", "In Operations", key_display="L", id="hotspots.layer"),
        Binding("w", "show_tile", "Slowest tile", id="hotspots.tile"),
    ]
    KEYS = {
        "next_table": Needs(shown=("available",)),
        "next_sort": Needs(shown=("available",), usable=("ready",)),
        "open_filter": Needs(shown=("available",), usable=("ready",)),
        "clear_filter": Needs(shown=("filtering",)),
        "next_run": Needs(shown=("several_runs",)),
        "next_type": Needs(shown=("available",)),
        "show_step": Needs(shown=("available", "row_has_step"), usable=("ready",)),
        "show_layer": Needs(shown=("available", "row_has_layer"), usable=("ready",)),
        "show_tile": Needs(shown=("available", "row_has_tiles"), usable=("ready",)),
    }

    NAVIGATOR = HotspotsNavigator
    nav: HotspotsNavigator
    filter_line: FilterLine | None = None  # takes the keys typed while open; the table keeps the focus

    def compose_body(self) -> ComposeResult:
        if self.nav.report is not self.report:
            self.nav.open(self.report)
        self.filter_line = None  # a recompose over a report without hotspots leaves no line typing
        if self.nav.reason is not None:
            yield UnavailableNotice(self.nav.reason)
            return
        yield PaneText(id="hotspots-header")
        self.filter_line = FilterLine("part of a name; Enter keeps the rows that contain it",
                                      id="hotspots-filter-input")
        with Horizontal(id="hotspots-filter"):
            yield Label("/")
            yield self.filter_line
        with Horizontal(id="hotspots-body"):
            yield FiguresTable(id="hotspots-table")
            with PaneScroll(id="hotspot-scroll", can_focus=False):
                yield DetailText(id="hotspot-details")  # grows only: no layout, and no second frame, per key

    def show_report(self) -> None:
        self.query_one("#hotspots-header", PaneText).show(Text("Reading the hotspots…", "italic"))
        self._load()

    @property
    def table(self) -> FiguresTable | None:
        found = self.query("#hotspots-table")
        return found.first(FiguresTable) if found else None

    # Reading -------------------------------------------------------------------------

    def _load(self) -> None:
        """Read the table shown in a worker, unless it is read already."""
        key = self.nav.to_read()
        if key is None:
            self._shown_again()
            return
        self._read(key)

    def _progress(self, words: str) -> None:
        self.query_one("#hotspots-header", PaneText).show(Text(words, "italic"))

    @work(thread=True, exclusive=True, group="hotspots-read")
    def _read(self, key: Key) -> None:
        nav = self.nav
        report = nav.report
        for words, stage in nav.reading_stages(key):  # each said as it starts
            to_ui(self, self._progress, words)
            stage()
        table = nav.read_table(key)
        to_ui(self, self._read_done, report, key, table)

    def _read_done(self, report, key: Key, table: HotspotTable | StepRows) -> None:
        if report is not self.nav.report:
            return  # a reload came in meanwhile
        self.nav.table_read(key, table)
        freeze_after_frame(self.app)  # kept while the report is shown
        if self.nav.key == key:
            self._shown_again()
        # Once the table is painted: a worker beside the frame would hold the GIL from it (54 ms, not 25)
        self.call_after_refresh(self._prepare, table)

    @work(thread=True, group="hotspots-prepare")
    def _prepare(self, table: HotspotTable | StepRows) -> None:
        self.nav.prepare(table)

    def _shown_again(self) -> None:
        self._fill()
        self.refresh_bindings()

    # Filling ------------------------------------------------------------------------

    @on(FiguresTable.Refit)
    def _refit(self) -> None:
        if self.nav.ready:
            self._fill(keep=self._selected_key())

    def _fill(self, keep: str | None = None) -> None:
        table = self.table
        if table is None or not self.nav.ready:
            return
        table.show_rows(self._rows(), MIN_NAME_WIDTH, keep)
        self.query_one("#hotspots-header", PaneText).show(hotspot_header(self.nav, self._host()))
        self._show_details()
        self.set_focus(table)  # now, not on the next message: the focus moves in this key's frame

    def _host(self) -> dict[str, int]:
        return self.nav.hotspots.host_totals(self.nav.run)

    def _rows(self) -> TableRows:
        nav = self.nav
        nav.rows()
        if isinstance(nav.table, StepRows):
            return step_rows(self.report, nav.table, nav.shown, nav.sort)
        return hotspot_rows(nav.table, nav.shown, nav.sort, bool(nav.filter_text), self.bytes)

    def _selected_key(self) -> str | None:
        return self.table.cursor_key if self.table is not None else None

    @on(FiguresTable.RowHighlighted, "#hotspots-table")
    def _highlighted(self) -> None:
        self._show_details()
        self.refresh_bindings()

    def _show_details(self) -> None:
        table = self.table
        if table is None:
            return
        self.nav.select(table.cursor_row if table.row_count else -1)
        details = self.query_one("#hotspot-details", DetailText)
        if self._selected_key() == TOTAL:
            details.show(hotspot_total_details(self.nav))
        else:
            details.show(hotspot_details(self.report, self.nav, self.bytes))

    def units_changed(self) -> None:
        self._fill(keep=self._selected_key())

    # Actions -------------------------------------------------------------------------

    def action_next_table(self) -> None:
        self.nav.next_table()
        self._load()

    def action_next_sort(self) -> None:
        self.nav.next_sort()
        self._fill()  # on the first row: what the new order ranks first

    def action_next_run(self) -> None:
        self.nav.next_run()
        self._load()

    def action_next_type(self) -> None:
        self.nav.next_type()
        self._load()

    def action_open_filter(self) -> None:
        self.nav.filter_open = True
        self.query_one("#hotspots-filter").add_class("open")
        self.filter_line.start()
        self.refresh_bindings()

    def take_typed(self, event: events.Key | events.Paste) -> bool:
        """While the filter is typed: Enter keeps the rows whose name contains the text, Escape clears it,
        and the filter line takes the characters, a paste and its editing keys (the screen's letters
        among them: they type, they do not switch tables)."""
        line = self.filter_line
        if line is None or not line.typing:
            return False
        key = event.key if isinstance(event, events.Key) else None
        if key == "enter":
            self._filter(line.value.strip())
        elif key == "escape":
            self.action_clear_filter()
        else:
            return line.take(event)
        return True

    def action_clear_filter(self) -> None:
        self.filter_line.value = ""
        self._filter("")

    def _filter(self, text: str) -> None:
        self.filter_line.stop()
        self.nav.filter(text)
        self.query_one("#hotspots-filter").set_class(self.nav.filter_open, "open")
        self._load()  # single steps are read again for a filter; the other tables are only shown again
        self.refresh_bindings()

    @on(FiguresTable.RowSelected, "#hotspots-table")
    async def _selected(self) -> None:
        await self.show_program(self.nav.selected_program())

    async def action_show_step(self) -> None:
        """The row's longest step on the IPU it ran that long on, in the Trace; H comes back."""
        place = self.nav.selected_step()
        if place is None:
            return
        if await self.show_in("trace", "show_step", *place):
            self.notify(f"Step {place[0]:,} on IPU {place[1]}: the longest of the row (H: back to Hotspots)",
                        timeout=4)

    async def action_show_layer(self) -> None:
        layer = self.nav.selected_layer()
        if layer is None:
            return
        await self.show_in("operations", "show_layer", layer)

    async def action_show_tile(self) -> None:
        balance = self.nav.selected_balance()
        if not isinstance(balance, TileBalance):
            return
        await self.show_in("memory", "show_tile", balance.slowest)

    # Export and reload -----------------------------------------------------------------

    def export_table(self) -> Table | None:
        return self.nav.export_table()

    def report_changed(self) -> None:
        super().report_changed()
        self._rebuild()

    @work(exclusive=True, group="hotspots-rebuild")
    async def _rebuild(self) -> None:
        self.nav.open(self.report)
        await self.recompose()
        if self.nav.reason is None:
            self._load()
