"""Compare: two reports side by side, B - A: summary deltas, tiles, liveness, what grew or shrank."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.style import Style
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.markup import escape
from textual.widgets import DataTable, Static, TabbedContent, TabPane

from pvtui.model.compare import (
    IDENTICAL,
    Changes,
    Comparison,
    LivenessPair,
    TileDiff,
    compare,
    format_change,
    format_delta,
    format_value,
    liveness_table,
    summary_table,
    tiles_table,
)
from pvtui.model.layer_compare import LayerChange, layer_table
from pvtui.model.unavailable import Unavailable
from pvtui.render.layers import CHANGE_HEADINGS, CHANGES_STATEMENT, change_cells
from pvtui.screens.base import Needs, ReportScreen
from pvtui.screens.base import Unavailable as UnavailableNotice
from pvtui.units import count_of
from pvtui.widgets.compare_chart import CompareChart
from pvtui.widgets.diff_heatmap import DiffHeatmap
from pvtui.widgets.palette import rich_colour

if TYPE_CHECKING:
    from pvtui.model.report import Report

SECTIONS = (
    ("deltas", "Summary"), ("tiles", "Tiles"), ("liveness", "Liveness"),
    ("programs", "Programs"), ("operations", "Operations"), ("layers", "Model layers"),
)
MIN_WIDTH = 8  # the narrowest a cut column gets: A and B of the summary, the names of a changes table
LISTED = 500  # changed programs or operations listed, largest change first


class CompareScreen(ReportScreen):
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
    ]
    KEYS = {"tile": Needs(shown=("on_tiles",)), "peak": Needs(shown=("on_liveness",))}

    def __init__(self) -> None:
        super().__init__()
        self.comparison: Comparison | None = None

    def compose_body(self) -> ComposeResult:
        yield Static(id="names")  # the title bar gives the names up to its tabs at 80 columns
        with TabbedContent(id="sections"):
            with TabPane(f"1 {SECTIONS[0][1]}", id="deltas"):
                yield Static(IDENTICAL, classes="statement", id="deltas-statement")
                yield DataTable(id="deltas-table", cursor_type="row", zebra_stripes=True)
            with TabPane(f"2 {SECTIONS[1][1]}", id="tiles"):
                yield UnavailableNotice("", id="tiles-missing")
                yield Static(classes="statement", id="tiles-statement")
                yield DiffHeatmap(on_select=lambda _tile: self._show_tile(), id="diff-heatmap")
                yield Static(classes="detail", id="tile-detail")
            with TabPane(f"3 {SECTIONS[2][1]}", id="liveness"):
                yield UnavailableNotice("", id="liveness-missing")
                yield Static(classes="statement", id="liveness-statement")
                yield CompareChart(on_move=lambda _fraction: self._show_column(), id="compare-chart")
                yield Static(classes="detail", id="liveness-detail")
            for index, section in ((4, "programs"), (5, "operations"), (6, "layers")):
                with TabPane(f"{index} {SECTIONS[index - 1][1]}", id=section):
                    yield UnavailableNotice("", id=f"{section}-missing")
                    yield Static(classes="statement", id=f"{section}-statement")
                    yield DataTable(id=f"{section}-table", cursor_type="row", zebra_stripes=True)

    def show_report(self) -> None:
        self.watch(self.app, "theme", self._theme_changed, init=False)
        self._show_names("comparing…")
        self._compare(self.report, self.report_b)

    @property
    def report(self) -> "Report":
        return self.pv_app.a.report  # A, whichever report the other screens show

    @property
    def report_b(self) -> "Report | None":
        b = self.pv_app.b
        return b.report if b is not None else None

    def title_label(self) -> str:
        a, b = (slot.files if slot is not None else None for slot in (self.pv_app.a, self.pv_app.b))
        return f"A {a.name if a is not None else '—'} · B {b.name if b is not None else '—'}"

    @work(thread=True, exclusive=True, group="compare")
    def _compare(self, a, b) -> None:
        """Matching every program by name takes a while on a large report: off the UI thread."""
        comparison = compare(a, b)
        self.app.call_from_thread(self._compared, comparison)

    def _compared(self, comparison: Comparison) -> None:
        if comparison.a is not self.report or comparison.b is not self.report_b:
            return  # a reload came in meanwhile; its own comparison follows
        self.comparison = comparison
        self._show_all()
        self.refresh_bindings()

    # Reactions ------------------------------------------------------------------------

    def report_changed(self) -> None:
        super().report_changed()
        self._compare(self.report, self.report_b)

    def _theme_changed(self) -> None:
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
            self._show_layers(self.comparison.layers)

    def on_tabbed_content_tab_activated(self, event: TabbedContent.TabActivated) -> None:
        self._focus_section()
        self.refresh_bindings()

    # Sections -------------------------------------------------------------------------

    @property
    def section(self) -> str:
        return self.query_one(TabbedContent).active

    def _show_all(self) -> None:
        c = self.comparison
        assert c is not None
        self._show_deltas(c)
        self._show_tiles(c.tiles)
        self._show_liveness(c.liveness)
        self._show_changes("programs", c.programs)
        self._show_changes("operations", c.operations)
        self._show_layers(c.layers)
        self._focus_section()

    def _focus_section(self) -> None:
        target = {"deltas": "#deltas-table", "tiles": DiffHeatmap, "liveness": CompareChart,
                  "programs": "#programs-table", "operations": "#operations-table",
                  "layers": "#layers-table"}[self.section]
        widget = self.query_one(target)  # type: ignore[call-overload]
        if widget.display:
            widget.focus()

    def _show_names(self, what: str) -> None:
        b = self.report_b
        self.query_one("#names", Static).update(
            f"A [b]{escape(self.report.name)}[/b] · B [b]{escape(b.name if b is not None else '—')}[/b] · {what}"
        )

    def _room(self, table: DataTable, columns: int, *widths: int) -> int:
        """The cells left on a line of TABLE, of COLUMNS columns, besides WIDTHS and every column's padding."""
        scrollbar = table.styles.scrollbar_size_vertical
        return self.size.width - scrollbar - 2 * table.cell_padding * columns - sum(widths)

    def _show_deltas(self, c: Comparison) -> None:
        minus = self.minus
        self._show_names("[b]identical[/b]" if c.identical else f"differences are B {minus} A")
        self.query_one("#deltas-statement").display = c.identical  # said plainly, above a table of zeros
        units = self.pv_app.units
        values = [(format_value(r.a, r.unit, units), format_value(r.b, r.unit, units)) for r in c.summary]
        deltas = [self._signed(format_delta(r.delta, r.unit, units, minus), r.delta) for r in c.summary]
        changes = [format_change(r.change, minus) for r in c.summary]
        table = self.query_one("#deltas-table", DataTable)
        label_width = max(len(r.label) for r in c.summary)
        delta_width = max(len(f"B {minus} A"), *(d.cell_len for d in deltas))
        change_width = max(len("change"), *map(len, changes))
        widest = max(len(v) for pair in values for v in pair)
        room = self._room(table, 5, label_width, delta_width, change_width) // 2
        width = max(MIN_WIDTH, min(widest, room))  # text (the Poplar version) ends in an ellipsis past it
        cursor = table.cursor_row
        table.clear(columns=True)
        table.add_column("Quantity", width=label_width)
        for name, column_width in (("A", width), ("B", width), (f"B {minus} A", delta_width), ("change", change_width)):
            table.add_column(name, width=column_width)
        for row, (a, b), delta, change in zip(c.summary, values, deltas, changes):
            table.add_row(row.label, _cut(a, width), _cut(b, width), delta, change)
        table.move_cursor(row=cursor)

    def _show_tiles(self, diff: TileDiff | Unavailable) -> None:
        self._available("tiles", diff, ("#tiles-statement", DiffHeatmap, "#tile-detail"))
        if isinstance(diff, Unavailable):
            return
        heatmap = self.query_one(DiffHeatmap)
        statement = Text(diff.statement + "\n")
        statement.append_text(heatmap.legend())
        self.query_one("#tiles-statement", Static).update(statement)
        keep = heatmap.diff is not None
        heatmap.show(diff, heatmap.selected if keep else (diff.ranked(True, 1) or [0])[0])

    def _show_tile(self) -> None:
        c = self.comparison
        if c is None or isinstance(c.tiles, Unavailable):
            return
        diff, tile = c.tiles, self.query_one(DiffHeatmap).selected
        a, b = diff.bytes_of(tile)
        ipu_a, ipu_b = ("—" if value is None else "IPU unknown" if ipu is None else f"IPU {ipu}"
                        for value, ipu in zip((a, b), diff.ipus_of(tile)))
        where = ipu_a if ipu_a == ipu_b else f"{ipu_a} in A, {ipu_b} in B"
        detail = Text.assemble((f"Tile {tile}", "bold"), f" · {where}\n")
        if a is None or b is None:
            only, value = ("A", a) if b is None else ("B", b)
            detail.append(f"only in {only}: {self.bytes(value)};"
                          f" the other report has {count_of(diff.compared, 'tile')}")
        else:
            change = format_change((b - a) / a if a else None, self.minus)
            detail.append(f"A {self.bytes(a)}   B {self.bytes(b)}   B {self.minus} A ")
            detail.append_text(self._signed(format_delta(b - a, "bytes", self.pv_app.units, self.minus), b - a))
            detail.append(f" ({change})")
        self.query_one("#tile-detail", Static).update(detail)

    def _show_liveness(self, pair: LivenessPair | Unavailable) -> None:
        self._available("liveness", pair, ("#liveness-statement", CompareChart, "#liveness-detail"))
        chart = self.query_one(CompareChart)
        if isinstance(pair, Unavailable):
            chart.show(None)
            return
        statement = Text(pair.statement + "\n")
        statement.append_text(chart.legend())
        self.query_one("#liveness-statement", Static).update(statement)
        chart.units = self.pv_app.units
        chart.show(pair)
        self._show_column()

    def _show_column(self) -> None:
        c = self.comparison
        if c is None or isinstance(c.liveness, Unavailable):
            return
        chart, pair = self.query_one(CompareChart), c.liveness
        frame = chart.frame()
        column, width = chart.cursor, frame.plot_width
        a, b = int(frame.a[column]), int(frame.b[column])

        def steps(series) -> str:
            first, last = pair.point_steps(series, column, width)
            span = f"{first:,}" if first == last else f"{first:,}–{last:,}"
            return f"step{'s' if first != last else ''} {span} of {len(series):,}"

        units = self.pv_app.units
        self.query_one("#liveness-detail", Static).update(Text.assemble(
            (f"At {chart.fraction:.0%}", "bold"), f" · B {self.minus} A ",
            self._signed(format_delta(b - a, "bytes", units, self.minus), b - a), " (most live in the column)\n"
            f"A {self.bytes(a)} ({steps(pair.a)})   B {self.bytes(b)} ({steps(pair.b)})",
        ))

    def _show_changes(self, section: str, changes: Changes | Unavailable) -> None:
        self._available(section, changes, (f"#{section}-statement", f"#{section}-table"))
        if isinstance(changes, Unavailable):
            return
        shown = min(LISTED, len(changes.rows))
        counts = (f"{len(changes.rows):,} changed ({shown:,} listed, largest change first); "
                  f"{changes.matched:,} in both, {changes.only_a:,} only in A, {changes.only_b:,} only in B.")
        self.query_one(f"#{section}-statement", Static).update(f"{changes.statement} {counts}")
        units = self.pv_app.units
        difference = f"B {self.minus} A"
        rows = [(self._signed(format_delta(c.delta, "bytes", units, self.minus), c.delta), self._absent_or_bytes(c.a),
                 self._absent_or_bytes(c.b)) for c in changes.rows[:LISTED]]
        table = self.query_one(f"#{section}-table", DataTable)
        widths = [max([len(title)] + [row[i].cell_len for row in rows]) for i, title in enumerate((difference, "A", "B"))]
        longest = max((len(c.name) for c in changes.rows[:LISTED]), default=4)
        name_width = max(MIN_WIDTH, min(longest, self._room(table, 4, *widths)))
        cursor = table.cursor_row
        table.clear(columns=True)
        for title, width in zip((difference, "A", "B", "Name"), (*widths, name_width)):
            table.add_column(title, width=width)
        for change, row in zip(changes.rows, rows):
            table.add_row(*row, _cut(change.name, name_width))
        table.move_cursor(row=cursor)

    def _show_layers(self, layers: list[LayerChange] | Unavailable) -> None:
        self._available("layers", layers, ("#layers-statement", "#layers-table"))
        if isinstance(layers, Unavailable):
            return
        self.query_one("#layers-statement", Static).update(
            f"{CHANGES_STATEMENT} Growth reads as a regression, shrinkage as a gain.")
        rows = [[self._signed(text, delta) if delta is not None else Text(text, "dim" if change.host else "")
                 for text, delta in change_cells(change.as_dict(), self.pv_app.units)] for change in layers]
        table = self.query_one("#layers-table", DataTable)
        widths = [max([len(title)] + [row[i].cell_len for row in rows]) for i, title in enumerate(CHANGE_HEADINGS)]
        widths[0] = max(MIN_WIDTH, min(widths[0], self._room(table, len(widths), *widths[1:])))
        cursor = table.cursor_row
        table.clear(columns=True)
        for title, width in zip(CHANGE_HEADINGS, widths):
            table.add_column(title, width=width)
        for row in rows:
            row[0].truncate(widths[0], overflow="ellipsis")
            table.add_row(*row)
        table.move_cursor(row=cursor)

    def _available(self, section: str, value: object, shown: tuple) -> None:
        """Show SECTION's VALUE in the widgets SHOWN, or in their place why the comparison is Unavailable."""
        missing = isinstance(value, Unavailable)
        notice = self.query_one(f"#{section}-missing", UnavailableNotice)
        notice.display = missing
        notice.update(value.reason if isinstance(value, Unavailable) else "")
        for selector in shown:
            self.query_one(selector).display = not missing

    def _absent_or_bytes(self, value: int | None) -> Text:
        return Text("absent", style="dim") if value is None else Text(self.bytes(value))

    def _signed(self, text: str, value: int | None) -> Text:
        """Growth in the theme's error colour, shrinkage in its success colour."""
        if not value:
            return Text(text)
        colour = rich_colour(self.app.theme_variables, "error" if value > 0 else "success")
        return Text(text, style=Style(color=colour))

    # Export ---------------------------------------------------------------------------

    def export_table(self):
        c = self.comparison
        if c is None:
            return None
        section = self.section
        value = {"tiles": c.tiles, "liveness": c.liveness, "programs": c.programs,
                 "operations": c.operations, "layers": c.layers}.get(section)
        if value is None or isinstance(value, Unavailable):
            return summary_table(c.summary)
        if isinstance(value, list):
            return layer_table(value)
        if isinstance(value, TileDiff):
            return tiles_table(value)
        if isinstance(value, LivenessPair):
            return liveness_table(value)
        return value.table()

    # Actions --------------------------------------------------------------------------

    @property
    def on_tiles(self) -> bool:
        """The Tiles section shows, and the two reports' tiles compare."""
        c = self.comparison
        return self.section == "tiles" and c is not None and isinstance(c.tiles, TileDiff)

    @property
    def on_liveness(self) -> bool:
        """The Liveness section shows, and the two reports' liveness compares."""
        c = self.comparison
        return self.section == "liveness" and c is not None and isinstance(c.liveness, LivenessPair)

    def action_section(self, section: str) -> None:
        self.query_one(TabbedContent).active = section

    def action_tile(self, grown: bool) -> None:
        c = self.comparison
        assert c is not None and isinstance(c.tiles, TileDiff)
        ranked = c.tiles.ranked(grown, 1)
        if ranked:
            self.query_one(DiffHeatmap).select(ranked[0])
        else:
            self.notify(f"No tile {'grew' if grown else 'shrank'}.", timeout=3)

    def action_peak(self, which: str) -> None:
        c = self.comparison
        assert c is not None and isinstance(c.liveness, LivenessPair)
        series = c.liveness.a if which == "a" else c.liveness.b
        self.query_one(CompareChart).cursor_to_peak(c.liveness.peak(series)["fraction"])


def _cut(text: str, width: int) -> Text:
    """TEXT in WIDTH cells, ending in an ellipsis where it is cut."""
    cut = Text(text, no_wrap=True)
    cut.truncate(width, overflow="ellipsis")
    return cut
