"""Liveness: memory against program step, the peak marked, what is live at the cursor step."""

from __future__ import annotations

from collections import OrderedDict

import numpy as np
from rich.text import Text
from textual import work
from textual.worker import get_current_worker
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.markup import escape
from textual.widget import Widget
from textual.widgets import Static

from pvtui.model.liveness_views import (
    StepSeries,
    Window,
    ZOOM_FACTOR,
    always_live_by_ipu,
    read_column,
    step_columns_away,
    steps_per_column,
)
from pvtui.model.queries import live_difference, step_program_name, unknown_program
from pvtui.model.tables import Table
from pvtui.render.names import CPP_BREAKS, wrap_at_slashes
from pvtui.screens.base import SHORT, ReportScreen, Unavailable
from pvtui.units import count_of
from pvtui.render.item_lines import item_lines
from pvtui.widgets.liveness_chart import LivenessChart
from pvtui.widgets.look import look_of

VIEWS = ("total", "ipu", "tile")
FAST_COLUMNS = 10
TILE_SERIES_KEPT = 8
MAX_VARIABLES_LISTED = 32  # more than the details panel (at most 16 rows high) shows
VERTEX_TYPES_LISTED = 8  # of the step's compute set, in the step's facts
EXPORT_CHUNK = 4096  # steps read at a time when exporting


def column_scale(window: Window, width: int) -> str:
    """How many steps a chart column shows; zoomed in past one step a column, how many columns a step spans."""
    if window.span >= width:
        return f"{count_of(steps_per_column(window, width), 'step')}/column"
    fewest, most = width // window.span, -(-width // window.span)  # the columns split between the steps
    return f"1 step/{fewest} columns" if fewest == most else f"1 step/{fewest}–{most} columns"


def hanging(head: str, name: str, width: int, tail: str = "", style: str = "", after: str = "/") -> list[str]:
    """HEAD, then NAME broken after a character of AFTER onto lines of WIDTH cells, indented under its
    start, then TAIL (muted) after it, or on a line of its own where it does not fit: markup lines, NAME
    and TAIL escaped."""
    room = width - len(head)
    pieces = wrap_at_slashes(name, room, after)
    if tail and len(pieces[-1]) + 1 + len(tail) > room:
        pieces.append("")
    shown = [f"[{style}]{escape(piece)}[/]" if style and piece else escape(piece) for piece in pieces]
    if tail:
        shown[-1] += f"{' ' if pieces[-1] else ''}[$pv-muted]{escape(tail)}[/]"
    return [head + shown[0]] + [" " * len(head) + line for line in shown[1:]]


class LiveVariables(Widget):
    """The not-always-live variables at a step, largest first: as many as fit, then a count.

    A name wider than the panel goes on as many lines as it needs (broken after a '/'):
    its end tells it from its neighbours as much as its start.
    """

    DEFAULT_CSS = """
    LiveVariables {
        width: 1fr;
        height: 1fr;
        padding: 0 1;
        text-wrap: nowrap;
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.heading: list[str] = []  # its parts, on as few lines as the width allows
        self.variables: list[tuple[str, str]] = []  # (size shown, name), the largest
        self.total = 0

    def show(self, heading: list[str], variables: list[tuple[str, str]], total: int) -> None:
        if (heading, variables, total) == (self.heading, self.variables, self.total):
            return  # the same step again (a zoom, a pan): nothing to repaint
        self.heading, self.variables, self.total = heading, variables, total
        self.refresh()

    def render(self) -> Text:
        width = max(self.content_size.width, 1)
        text = Text("\n").join(item_lines([Text(part, style="bold") for part in self.heading], width, gap=" · "))
        room = max(0, self.size.height - len(text.plain.splitlines()))
        size_width = max((len(size) for size, _ in self.variables), default=0)
        indent = " " * (size_width + 2)
        shown = 0
        for size, name in self.variables:
            lines = wrap_at_slashes(name, width - len(indent))
            if len(lines) + (self.total > shown + 1) > room:
                break  # whole names only, and a line left for the count of the rest
            text.append(f"\n{size:>{size_width}}  {lines[0]}")
            for line in lines[1:]:
                text.append(f"\n{indent}{line}")
            room -= len(lines)
            shown += 1
        rest = self.total - shown
        if rest:
            text.append(f"\n… and {rest:,} more", style="italic")
        return text


class LivenessScreen(ReportScreen):
    SCREEN_NAME = "Liveness"

    DEFAULT_CSS = """
    LivenessScreen #details {
        height: 9;
        background: $surface;
    }
    LivenessScreen #step-facts {
        width: 42;
        height: 1fr;
        padding: 0 1;
        text-wrap: nowrap;
        text-overflow: ellipsis;
    }
    LivenessScreen #view-missing {
        height: 1fr;
    }
    """

    BINDINGS = [
        Binding("left", "move(-1)", "Previous column", show=False),
        Binding("right", "move(1)", "Next column", show=False),
        Binding("shift+left", f"move(-{FAST_COLUMNS})", f"Back {FAST_COLUMNS} columns", show=False),
        Binding("shift+right", f"move({FAST_COLUMNS})", f"Forward {FAST_COLUMNS} columns", show=False),
        Binding("pageup", "page(-1)", "Back one chart width", show=False),
        Binding("pagedown", "page(1)", "Forward one chart width", show=False),
        Binding("home", "jump('first')", "First step", show=False),
        Binding("end", "jump('last')", "Last step", show=False),
        Binding("k", "jump('peak')", "Go to peak", id="liveness.peak"),
        Binding("v", "cycle_view", "Next view", id="liveness.view"),
        Binding("I", "next_ipu", "Next IPU", key_display="I", id="liveness.ipu"),
        Binding("left_square_bracket", "tile(-1)", "Previous tile", key_display="[", id="liveness.tile_prev"),
        Binding("right_square_bracket", "tile(1)", "Next tile", key_display="]", id="liveness.tile_next"),
        Binding("plus,equals_sign", "zoom(-1)", "Zoom in", key_display="+", id="liveness.zoom_in"),
        Binding("minus", "zoom(1)", "Zoom out", key_display="-", id="liveness.zoom_out"),
        Binding("0", "fit", "Fit all", id="liveness.fit"),
        Binding("a", "toggle_always_live", "Always-live band", id="liveness.always_live"),
        Binding("b", "mark", "Mark to compare", id="liveness.mark"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.cursor = 0
        self.window = Window(0, 1)
        self.view = "total"
        self.ipu = 0
        self.tile: int | None = None
        self.marked: int | None = None  # the step the cursor's step is compared with
        self._reading: int | None = None  # the tile a worker is reading
        self._facts_shown = ""  # the step facts last shown
        self._series: OrderedDict[tuple[str, int], StepSeries] = OrderedDict()

    def compose_body(self) -> ComposeResult:
        yield Unavailable("", id="liveness-missing")
        with Vertical(id="liveness-body"):
            yield LivenessChart(id="chart")
            yield Unavailable("", id="view-missing")
            with Horizontal(id="details"):
                yield Static(id="step-facts")
                yield LiveVariables(id="live-variables")

    def show_report(self) -> None:
        self._fit_details()
        self.query_one(LivenessChart).units = self.pv_app.units
        live = self.report.liveness
        if live is not None and len(live):
            self.cursor = live.peak_step
            self.window = Window.fit(len(live))
        self.redraw()
        self.call_after_refresh(self.redraw)  # the zoom shown depends on the chart's width, known after layout

    def on_resize(self) -> None:
        if not self.opening:
            self._fit_details()
            self.call_after_refresh(self.redraw)  # the zoom shown depends on the chart's new width

    def _fit_details(self) -> None:
        height = self.size.height
        # on a short terminal the details give way to the chart
        self.query_one("#details").styles.height = height * 3 // 10 if height < SHORT else min(16, max(9, height // 4))
        self.query_one("#step-facts").styles.width = min(72, max(42, self.size.width * 2 // 5))

    # What is shown ------------------------------------------------------------------

    @property
    def num_steps(self) -> int:
        live = self.report.liveness
        return 0 if live is None else len(live)

    def redraw(self) -> None:
        live = self.report.liveness
        missing = self.query_one("#liveness-missing", Unavailable)
        body = self.query_one("#liveness-body")
        if live is None or not len(live):
            missing.update(self.report.missing("liveness") if live is None else "The liveness profile has no steps.")
            missing.display, body.display = True, False
            return
        missing.display, body.display = False, True
        chart = self.query_one(LivenessChart)
        series, why_not = self.current_series()
        view_missing = self.query_one("#view-missing", Unavailable)
        view_missing.display = series is None and why_not is not None
        if view_missing.display:  # updating it costs a layout: only when it shows
            view_missing.update(why_not)
        chart.display = not view_missing.display
        chart.show(series, self.window, self.cursor, self.marked)
        self.show_details(series)

    def current_series(self) -> tuple[StepSeries | None, str | None]:
        """The series of the current view, or why there is none (None while a tile is read)."""
        live = self.report.liveness
        assert live is not None
        target = self.report.target
        if self.view == "total":
            return self._cached(("total", 0), lambda: StepSeries(
                "all IPUs", live.not_always_live, live.always_live_bytes, target.total_memory, live.envelope
            )), None
        if self.view == "ipu":
            if live.by_ipu is None:
                return None, self.report.missing("liveness_tiles")
            self.ipu %= live.by_ipu.shape[1]
            return self._cached(("ipu", self.ipu), lambda: StepSeries(
                f"IPU {self.ipu}", live.by_ipu[:, self.ipu], self._ipu_always_live(self.ipu), target.bytes_per_ipu
            )), None
        if live.by_tile is None:
            return None, self.report.missing("liveness_tiles")
        if self.tile is None:
            self.tile = self._worst_tile()
        self.tile %= live.by_tile.shape[1]
        series = self._series.get(("tile", self.tile))
        if series is None:
            if self._reading != self.tile:
                self._reading = self.tile
                self._read_tile(self.report, self.tile)
            return None, None
        self._series.move_to_end(("tile", self.tile))
        return series, None

    def _cached(self, key: tuple[str, int], build) -> StepSeries:
        series = self._series.get(key)
        if series is None:
            series = self._series[key] = build()
        return series

    def _ipu_always_live(self, ipu: int) -> int | None:
        memory = self.report.memory
        if memory is None:
            return None
        num_ipus = self.report.liveness.by_ipu.shape[1]
        return int(always_live_by_ipu(memory.always_live, memory.ipu, num_ipus)[ipu])

    def _worst_tile(self) -> int:
        """The tile whose not-always-live bytes peak highest (else: most live at the overall peak)."""
        memory, live = self.report.memory, self.report.liveness
        if memory is not None and len(memory.not_always_live) == live.by_tile.shape[1]:
            return int(np.argmax(memory.not_always_live))
        return int(np.argmax(live.by_tile[live.peak_step]))

    @work(thread=True, exclusive=True, group="liveness-tile")
    def _read_tile(self, report, tile: int) -> None:
        """One tile's column: strided reads over the memory map, off the UI thread, given up when cancelled."""
        column = read_column(report.liveness.by_tile, tile, lambda: get_current_worker().is_cancelled)
        if column is None:
            return
        always = int(report.memory.always_live[tile]) if report.memory is not None else None
        ipu = f" on IPU {int(report.memory.ipu[tile])}" if report.memory is not None else ""
        series = StepSeries(f"tile {tile}{ipu}", column, always, report.target.bytes_per_tile)
        self.app.call_from_thread(self._tile_read, report, tile, series)

    def _tile_read(self, report, tile: int, series: StepSeries) -> None:
        if report is not self.report:
            return  # a reload came in meanwhile
        if self._reading == tile:
            self._reading = None
        self._series[("tile", tile)] = series
        while sum(key[0] == "tile" for key in self._series) > TILE_SERIES_KEPT:
            oldest = next(key for key in self._series if key[0] == "tile")
            del self._series[oldest]
        if self.view == "tile" and self.tile == tile:
            self.redraw()

    def show_details(self, series: StepSeries | None) -> None:
        live = self.report.liveness
        step = self.cursor
        facts = self.query_one("#step-facts", Static)
        variables = self.query_one(LiveVariables)
        program = int(live.program[step])
        at_peak = " · [$pv-peak]peak[/]" if series is not None and step == series.peak_step else ""
        width = self._facts_width()
        lines = [f"[b]Step {step:,}[/b] of {len(live):,} · {self._view_label(series)}{at_peak}",
                 *self._program_lines(program, width)]
        if series is not None:
            always, not_always = series.always_live, series.at(step)
            total = not_always if always is None else always + not_always
            share = f"{100 * total / series.capacity:.1f}% of {self.bytes(series.capacity)}" if series.capacity else "—"
            look = look_of(self.app)  # plain, the chart's textures, not its greys, tell the two apart
            always_mark, live_mark = (look.glyphs.shades[1], look.glyphs.blocks[8]) if look.plain else ("■", "■")
            always_text = "unknown" if always is None else self.bytes(always)
            lines += [
                f"[$pv-always-live]{always_mark}[/] Always-live      {always_text}",
                f"[$pv-not-always-live]{live_mark}[/] Not-always-live  {self.bytes(not_always)}",
                f"  Total            {self.bytes(total)}" if always is not None
                else "  [$pv-muted]always-live unknown: not-always-live only[/]",
                f"  Of the memory    {share}",
                f"[$pv-muted]{column_scale(self.window, self.query_one(LivenessChart).plot_width)}"
                f" · steps {self.window.start:,}–{self.window.stop - 1:,}[/]",
            ]
        elif self.view == "tile" and live.by_tile is not None:
            lines.append(f"[$pv-muted]Reading tile {self.tile}…[/]")
        if self.marked is not None:
            marked = look_of(self.app).glyphs.marked
            lines.append(f"[b]{marked}[/b] Marked step {self.marked:,} [$pv-muted]· b on it unmarks[/]")
        lines += self._vertex_lines(program, width)
        text = "\n".join(lines)
        if text != self._facts_shown:  # a zoom changes one line of it, a pan none
            self._facts_shown = text
            facts.update(text, layout=False)  # its size is the pane's: a layout per key would cost a frame
        names = live.variable_names
        if self.marked is not None and self.marked != step:
            added, removed, change = live_difference(self.report, self.marked, step)
            sign = "+" if change >= 0 else "−"
            variables.show(
                [f"vs {self.marked:,}: {sign}{self.bytes(abs(change))}",
                 f"+{len(added):,} −{len(removed):,} variable{'s' * (len(added) + len(removed) != 1)}"],
                [(f"+{self.bytes(size)}", names[v]) for v, size in added[:MAX_VARIABLES_LISTED]]
                + [(f"−{self.bytes(size)}", names[v]) for v, size in removed[:MAX_VARIABLES_LISTED]],
                len(added) + len(removed),
            )
            return
        live_here = live.live_variables(step)
        variables.show(
            [f"Live at step {step:,}: {count_of(len(live_here), 'variable')}"
             + ("" if self.view == "total" else ", all IPUs")],
            [(self.bytes(size), names[v]) for v, size in live_here[:MAX_VARIABLES_LISTED]],
            len(live_here),
        )

    def _facts_width(self) -> int:
        """The cells of a line of the step's facts (their width is set on a resize, in _fit_details)."""
        facts = self.query_one("#step-facts")
        return facts.content_size.width or 40

    def _vertex_lines(self, program: int, width: int) -> list[str]:
        """The vertex types of the step's compute set, most instances first, each name whole."""
        if unknown_program(self.report, program) is not None:
            return []
        programs = self.report.programs
        compute_set = int(programs.compute_set[program])
        if compute_set < 0:
            return ["[$pv-muted]No compute set: no vertices[/]"]
        vertices = sorted(programs.compute_set_vertices(compute_set), key=lambda v: -v[1])
        estimate = programs.estimated_cycles(program)
        cycles = "no cycle estimates in the profile" if estimate is None else f"estimated {estimate:,} cycles"
        types = count_of(len(vertices), "type")
        if len(f"Vertices  {types} · {cycles}") <= width:
            lines = [f"Vertices  [$pv-muted]{types} · {cycles}[/]"]
        else:
            lines = [f"Vertices  [$pv-muted]{types}[/]", f"          [$pv-muted]{cycles}[/]"]
        lines += hanging(" " * 10, f"in {programs.compute_set_names[compute_set]}", width, style="$pv-muted")
        for vertex, count in vertices[:VERTEX_TYPES_LISTED]:
            lines += hanging(f"  {count:>9,} ", programs.vertex_type_names[vertex], width, after=CPP_BREAKS)
        return lines

    def _view_label(self, series: StepSeries | None) -> str:
        if series is not None:
            return series.label
        return {"total": "all IPUs", "ipu": "per IPU", "tile": f"tile {self.tile}"}[self.view]

    def _program_lines(self, program: int, width: int) -> list[str]:
        unknown = unknown_program(self.report, program)
        if unknown is not None:
            return hanging("Program  ", f"{program:,} ({unknown})", width)
        programs = self.report.programs
        return hanging("Program  ", programs.names[program], width, f"({programs.type_name(program)})")

    def export_table(self) -> Table | None:
        """Every step: its program, not-always-live, always-live and total bytes, and each IPU's share."""
        report = self.report
        live = report.liveness
        if live is None or not len(live):
            return None
        always = live.always_live_bytes
        columns = ["step", "program", "program_name", "not_always_live_bytes", "always_live_bytes", "total_bytes"]
        ipus = 0 if live.by_ipu is None else live.by_ipu.shape[1]
        columns += [f"ipu{ipu}_not_always_live_bytes" for ipu in range(ipus)]

        names: dict[int, str | None] = {}  # program -> name: decoded once per program

        def rows():
            for start in range(0, len(live), EXPORT_CHUNK):
                stop = min(start + EXPORT_CHUNK, len(live))
                programs = np.asarray(live.program[start:stop]).tolist()
                not_always = np.asarray(live.not_always_live[start:stop]).tolist()
                by_ipu = np.asarray(live.by_ipu[start:stop]).tolist() if ipus else [[]] * (stop - start)
                for step, program, bytes_, per_ipu in zip(range(start, stop), programs, not_always, by_ipu):
                    total = None if always is None else always + bytes_
                    if program not in names:
                        names[program] = step_program_name(report, program)
                    yield [step, program, names[program], bytes_, always, total, *per_ipu]

        return Table("liveness-steps", columns, rows())

    # Keeping state across reloads and units -------------------------------------------

    def units_changed(self) -> None:
        chart = self.query_one(LivenessChart)
        chart.units = self.pv_app.units
        chart.clear_caches()
        self.redraw()

    def report_changed(self) -> None:
        super().report_changed()
        self._series.clear()
        self._reading = None  # a read of the old report's tile is ignored when it ends
        n = self.num_steps
        self.cursor = min(max(0, self.cursor), max(0, n - 1))
        if self.marked is not None and self.marked >= n:
            self.marked = None
        self.window = self.window.clamped(n).following(n, self.cursor)
        live = self.report.liveness
        if live is not None and live.by_tile is not None and self.tile is not None:
            self.tile = min(self.tile, live.by_tile.shape[1] - 1)
        self.query_one(LivenessChart).clear_caches()
        self.redraw()

    # Actions --------------------------------------------------------------------------

    def key_state(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if not self.num_steps:
            return False
        if action == "next_ipu":
            return self.view == "ipu"
        if action == "tile":
            return self.view == "tile"
        return True

    def go_to(self, step: int) -> None:
        n = self.num_steps
        if not n:
            return
        self.cursor = min(max(0, step), n - 1)
        self.window = self.window.following(n, self.cursor)
        self.redraw()

    def action_move(self, columns: int) -> None:
        width = self.query_one(LivenessChart).plot_width
        self.go_to(step_columns_away(self.cursor, self.window, width, columns))

    def action_page(self, pages: int) -> None:
        self.go_to(self.cursor + pages * max(1, self.window.span))

    def action_jump(self, where: str) -> None:
        if where == "peak":
            series, _ = self.current_series()
            self.go_to(series.peak_step if series is not None else self.report.liveness.peak_step)
        else:
            self.go_to(0 if where == "first" else self.num_steps - 1)

    def action_cycle_view(self) -> None:
        self.view = VIEWS[(VIEWS.index(self.view) + 1) % len(VIEWS)]
        self.refresh_bindings()
        self.redraw()

    def action_next_ipu(self) -> None:
        self.ipu += 1  # wrapped in current_series, which knows how many IPUs there are
        self.redraw()

    def action_tile(self, delta: int) -> None:
        if self.tile is not None:
            self.tile += delta  # wrapped in current_series
        self.redraw()

    def action_zoom(self, direction: int) -> None:
        factor = ZOOM_FACTOR if direction > 0 else 1 / ZOOM_FACTOR
        self.window = self.window.zoomed(self.num_steps, self.cursor, factor)
        self.redraw()

    def action_mark(self) -> None:
        """Mark the cursor's step (or clear the mark on it): the details then compare the cursor's step with it."""
        self.marked = None if self.marked == self.cursor else self.cursor
        if self.marked is not None:
            marked = look_of(self.app).glyphs.marked
            self.notify(f"Step {self.marked:,} marked ({marked} on the chart): move to another step to compare.",
                        timeout=3)
        self.redraw()

    def action_toggle_always_live(self) -> None:
        chart = self.query_one(LivenessChart)
        chart.stack_always_live = not chart.stack_always_live
        chart.refresh()

    def action_fit(self) -> None:
        self.window = Window.fit(self.num_steps)
        self.redraw()

    def on_liveness_chart_picked(self, message: LivenessChart.Picked) -> None:
        self.go_to(message.step)
