"""Compare: two reports side by side, B - A: summary deltas, tiles, liveness, what grew or shrank."""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from rich.style import Style
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import DataTable, Static, TabbedContent, TabPane

from pvtui.model.compare import Changes, Comparison, LivenessPair, TileDiff, compare
from pvtui.model.navigators.compare import CompareNavigator
from pvtui.model.unavailable import Unavailable
from pvtui.render.compare import (
    IDENTICAL,
    Differences,
    changes_counts,
    changes_headings,
    changes_rows,
    changes_statement,
    column_detail,
    layer_headings,
    layer_rows,
    liveness_statement,
    names_line,
    summary_headings,
    summary_rows,
    tile_detail,
    tile_statement,
)
from pvtui.render.layers import CHANGES_STATEMENT
from pvtui.screens.base import Needs, ReportScreen
from pvtui.screens.base import UnavailableNotice
from pvtui.widgets.compare_chart import CompareChart
from pvtui.widgets.cut_table import fill_cut
from pvtui.widgets.diff_heatmap import DiffHeatmap
from pvtui.widgets.palette import rich_colour
from pvtui.widgets.to_ui import to_ui

if TYPE_CHECKING:
    from pvtui.model.report import Report
    from pvtui.model.tables import Table

SECTIONS = (
    ("deltas", "Summary"), ("tiles", "Tiles"), ("liveness", "Liveness"),
    ("programs", "Programs"), ("operations", "Operations"), ("layers", "Model layers"),
)
LISTED = 500  # changed programs or operations listed, largest change first
NAME_COLUMN = {"deltas": 0, "programs": 3, "operations": 3, "layers": 0}  # of each table; the figures align right


class CompareScreen(ReportScreen):
    """A's and B's names, and a tab for each section of their comparison: the summary's figures, the
    tiles' heatmap, the liveness curves, the programs, operations and model layers that changed.

    `nav` (a CompareNavigator) holds the comparison and the section shown; the heatmap holds the tile
    selected, the chart its column; render/compare.py words what they show.
    """

    SCREEN_NAME = "Compare"

    DEFAULT_CSS = """
    CompareScreen TabbedContent {
        height: 1fr;
    }
    CompareScreen TabPane {
        padding: 0;
        height: 1fr;
    }
    CompareScreen #names {
        height: 1;
        padding: 0 1;
        text-wrap: nowrap;
        text-overflow: ellipsis;
    }
    CompareScreen .statement {
        height: auto;
        padding: 0 1;
        color: $text-muted;
    }
    CompareScreen #deltas-statement {
        display: none;  /* until the comparison finds no difference */
        color: $foreground;
        text-style: bold;
    }
    CompareScreen .detail {
        height: 2;
        padding: 0 1;
        background: $surface;
        text-wrap: nowrap;
        text-overflow: ellipsis;
    }
    CompareScreen DataTable {
        height: 1fr;
    }
    """

    BINDINGS = [
        *(Binding(str(i), f"section('{section}')", f"{label} section", show=False, id=f"compare.{section}")
          for i, (section, label) in enumerate(SECTIONS, start=1)),
        Binding("w", "tile(True)", "Most grown tile", id="compare.grown"),
        Binding("W", "tile(False)", "Most shrunk tile", key_display="W", id="compare.shrunk"),
        Binding("a", "peak('a')", "A's peak", id="compare.peak_a"),
        Binding("b", "peak('b')", "B's peak", id="compare.peak_b"),
        Binding("S", "next_layer_sort", "Sort", key_display="S", id="compare.layer_sort"),
    ]
    NAVIGATOR = CompareNavigator
    nav: CompareNavigator
    KEYS = {"tile": Needs(shown=("on_tiles",)), "peak": Needs(shown=("on_liveness",)),
            "next_layer_sort": Needs(shown=("on_layers",))}

    def compose_body(self) -> ComposeResult:
        yield Static(id="names")  # the title bar gives the names up to its tabs at 80 columns
        with TabbedContent(id="sections"):
            with TabPane(f"1 {SECTIONS[0][1]}", id="deltas"):
                yield Static(IDENTICAL, classes="statement", id="deltas-statement")
                yield DataTable(id="deltas-table", cursor_type="row", zebra_stripes=True)
            with TabPane(f"2 {SECTIONS[1][1]}", id="tiles"):
                yield UnavailableNotice(id="tiles-missing")
                yield Static(classes="statement", id="tiles-statement")
                yield DiffHeatmap(id="diff-heatmap")
                yield Static(classes="detail", id="tile-detail")
            with TabPane(f"3 {SECTIONS[2][1]}", id="liveness"):
                yield UnavailableNotice(id="liveness-missing")
                yield Static(classes="statement", id="liveness-statement")
                yield CompareChart(id="compare-chart")
                yield Static(classes="detail", id="liveness-detail")
            for index, section in ((4, "programs"), (5, "operations"), (6, "layers")):
                with TabPane(f"{index} {SECTIONS[index - 1][1]}", id=section):
                    yield UnavailableNotice(id=f"{section}-missing")
                    yield Static(classes="statement", id=f"{section}-statement")
                    yield DataTable(id=f"{section}-table", cursor_type="row", zebra_stripes=True)

    def show_report(self) -> None:
        self._show_names(None)
        self.after_the_frame(self._compare, self.report, self.report_b)

    @property
    def report(self) -> "Report":
        return self.pv_app.a.report  # A, whichever report the other screens show

    @property
    def report_b(self) -> "Report | None":
        b = self.pv_app.b
        return b.report if b is not None else None

    @property
    def comparison(self) -> Comparison | None:
        return self.nav.comparison

    def title_label(self) -> str:
        """Short: the line under the title names A and B, and at 80 columns the names ran into the tabs."""
        return "A and B" if self.pv_app.b is not None else "A"

    @work(thread=True, exclusive=True, group="compare")
    def _compare(self, a, b) -> None:
        """Matching every program by name takes a while on a large report: off the UI thread."""
        comparison = compare(a, b)
        to_ui(self, self._compared, comparison)

    def _compared(self, comparison: Comparison) -> None:
        if comparison.a is not self.report or comparison.b is not self.report_b:
            return  # a reload came in meanwhile; its own comparison follows
        self.nav.comparison = comparison
        self._show_all()
        self.refresh_bindings()

    # Reactions ------------------------------------------------------------------------

    def report_changed(self) -> None:
        super().report_changed()
        self._compare(self.report, self.report_b)

    def shown_changed(self) -> None:
        """Nothing: Compare shows A and B whichever the other screens show."""

    def theme_changed(self) -> None:
        if self.comparison is not None:
            self._show_all()  # the tables' growth and shrinkage colours come from the theme

    def units_changed(self) -> None:
        if self.comparison is not None:
            self.query_one(CompareChart).units = self.pv_app.units
            self._show_all()

    def on_resize(self) -> None:
        if self.comparison is not None:  # the tables' cut columns take the room there is
            self._show_deltas(self.comparison)
            self._show_changes("programs", self.comparison.programs)
            self._show_changes("operations", self.comparison.operations)
            self._show_layers()

    def on_tabbed_content_tab_activated(self, event: TabbedContent.TabActivated) -> None:
        self.nav.section = self.query_one(TabbedContent).active  # a key, or a click on the tab
        self._focus_section()
        self.refresh_bindings()

    # Sections -------------------------------------------------------------------------

    def _show_all(self) -> None:
        c = self.comparison
        assert c is not None
        self._show_deltas(c)
        self._show_tiles(c.tiles)
        self._show_liveness(c.liveness)
        self._show_changes("programs", c.programs)
        self._show_changes("operations", c.operations)
        self._show_layers()
        self._focus_section()

    def _focus_section(self) -> None:
        target = {"deltas": "#deltas-table", "tiles": DiffHeatmap, "liveness": CompareChart,
                  "programs": "#programs-table", "operations": "#operations-table",
                  "layers": "#layers-table"}[self.nav.section]
        widget = self.query_one(target)  # type: ignore[call-overload]
        if widget.display:
            widget.focus()

    def _show_names(self, identical: bool | None) -> None:
        b = self.report_b
        self.query_one("#names", Static).update(
            names_line(self.report.name, b.name if b is not None else None, identical, self.minus))

    def _differences(self) -> Differences:
        """Bytes in the user's units, the look's minus sign, growth and shrinkage in the theme's error and
        success colours."""
        variables = self.app.theme_variables
        return Differences(self.pv_app.units, self.minus, Style(color=rich_colour(variables, "error")),
                           Style(color=rich_colour(variables, "success")))

    def _fill(self, section: str, headings: Sequence[str], rows: list[list[Text]], cut: Sequence[int]) -> None:
        """SECTION's table: ROWS under HEADINGS, the columns CUT cut to the room the screen's width leaves."""
        fill_cut(self.query_one(f"#{section}-table", DataTable), headings, rows, cut, NAME_COLUMN[section],
                 self.size.width)

    def _show_deltas(self, c: Comparison) -> None:
        self._show_names(c.identical)
        self.query_one("#deltas-statement").display = c.identical  # said plainly, above a table of zeros
        d = self._differences()
        self._fill("deltas", summary_headings(d), summary_rows([row.as_dict() for row in c.summary], d), cut=(1, 2))

    def _show_tiles(self, diff: TileDiff | Unavailable) -> None:
        self._available("tiles", diff, ("#tiles-statement", DiffHeatmap, "#tile-detail"))
        if isinstance(diff, Unavailable):
            return
        heatmap = self.query_one(DiffHeatmap)
        statement = Text(tile_statement(diff) + "\n")
        statement.append_text(heatmap.legend())
        self.query_one("#tiles-statement", Static).update(statement)
        keep = heatmap.diff is not None
        heatmap.show(diff, heatmap.selected if keep else self.nav.most_changed_tile(grown=True) or 0)

    @on(DiffHeatmap.Selected)
    def _show_tile(self) -> None:
        diff = self.nav.tiles
        if diff is not None:
            detail = tile_detail(diff, self.query_one(DiffHeatmap).selected, self._differences())
            self.query_one("#tile-detail", Static).update(detail)

    def _show_liveness(self, pair: LivenessPair | Unavailable) -> None:
        self._available("liveness", pair, ("#liveness-statement", CompareChart, "#liveness-detail"))
        chart = self.query_one(CompareChart)
        if isinstance(pair, Unavailable):
            chart.show(None)
            return
        statement = Text(liveness_statement(pair) + "\n")
        statement.append_text(chart.legend())
        self.query_one("#liveness-statement", Static).update(statement)
        chart.units = self.pv_app.units
        chart.show(pair)
        self._show_column()

    @on(CompareChart.Moved)
    def _show_column(self) -> None:
        pair = self.nav.liveness
        if pair is None:
            return
        chart = self.query_one(CompareChart)
        frame, column = chart.frame(), chart.cursor
        self.query_one("#liveness-detail", Static).update(column_detail(
            pair, column, frame.plot_width, int(frame.a[column]), int(frame.b[column]), chart.fraction,
            self._differences()))

    def _show_changes(self, section: str, changes: Changes | Unavailable) -> None:
        self._available(section, changes, (f"#{section}-statement", f"#{section}-table"))
        if isinstance(changes, Unavailable):
            return
        counts = changes_counts(len(changes.rows), changes.matched, changes.only_a, changes.only_b,
                                listed=min(LISTED, len(changes.rows)))
        self.query_one(f"#{section}-statement", Static).update(f"{changes_statement(changes)} {counts}")
        d = self._differences()
        self._fill(section, changes_headings(d), changes_rows([c.as_dict() for c in changes.rows[:LISTED]], d),
                   cut=(3,))

    def _show_layers(self) -> None:
        layers = self.nav.layers
        if layers is None:
            return
        self._available("layers", layers, ("#layers-statement", "#layers-table"))
        if isinstance(layers, Unavailable):
            return
        self.query_one("#layers-statement", Static).update(
            f"{CHANGES_STATEMENT} Growth reads as a regression, shrinkage as a gain; S sorts.")
        d = self._differences()
        headings = [heading + ("▼" if i == self.nav.layer_sort else "") for i, heading in enumerate(layer_headings(d))]
        self._fill("layers", headings, layer_rows([change.as_dict() for change in layers], d), cut=(0,))

    def _available(self, section: str, value: object, shown: tuple) -> None:
        """Show SECTION's VALUE in the widgets SHOWN, or in their place why the comparison is Unavailable."""
        missing = isinstance(value, Unavailable)
        self.query_one(f"#{section}-missing", UnavailableNotice).show(value if missing else None)
        for selector in shown:
            self.query_one(selector).display = not missing

    # Export and actions ---------------------------------------------------------------

    def export_table(self) -> "Table | None":
        return self.nav.export_table()

    def action_section(self, section: str) -> None:
        self.query_one(TabbedContent).active = self.nav.section = section

    def action_tile(self, grown: bool) -> None:
        tile = self.nav.most_changed_tile(grown)
        if tile is not None:
            self.query_one(DiffHeatmap).select(tile)
        else:
            self.notify(f"No tile {'grew' if grown else 'shrank'}.", timeout=3)

    def action_next_layer_sort(self) -> None:
        self.nav.next_layer_sort()
        self._show_layers()

    def action_peak(self, which: str) -> None:
        self.query_one(CompareChart).cursor_to_peak(self.nav.peak(which))
