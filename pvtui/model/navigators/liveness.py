"""The liveness chart's arithmetic: windows of steps, columns, the series of each view, and the
Liveness screen's navigator (the cursor, window, view and mark each key moves).

A window of SPAN steps drawn in WIDTH columns gives column c the steps
[first[c], first[c + 1]). Zoomed out, a column covers several steps and shows their
min and max; zoomed in (SPAN < WIDTH), a step spans several columns.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from functools import cached_property
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from pvtui.model.envelope import Envelope
from pvtui.model.queries import live_difference, step_program_name
from pvtui.model.tables import Table
from pvtui.model.unavailable import Unavailable

if TYPE_CHECKING:
    from pvtui.model.report import Report

MIN_SPAN = 8  # the most one can zoom in: this many steps across the chart
ZOOM_FACTOR = 2
# The always-live band under the chart: squeezed into a few rows under what changes (the axis broken at its
# top), to scale (it fills most of the chart on most reports), or left out (not-always-live bytes alone).
BANDS = ("compressed", "to scale", "hidden")
BAND_SHARE = 0.15  # of the plot's rows, the compressed band's
MIN_COMPRESSED_ROWS = 3  # a plot lower than this shows the band to scale
EXPORT_CHUNK = 4096  # steps read at a time when exporting


class Window(NamedTuple):
    """The steps [start, start + span) shown across the chart."""

    start: int
    span: int

    @property
    def stop(self) -> int:
        return self.start + self.span

    @classmethod
    def fit(cls, num_steps: int) -> "Window":
        return cls(0, max(1, num_steps))

    def clamped(self, num_steps: int) -> "Window":
        span = min(max(1, self.span), max(1, num_steps))
        return Window(min(max(0, self.start), max(0, num_steps - span)), span)

    def zoomed(self, num_steps: int, cursor: int, factor: float) -> "Window":
        """Span times FACTOR, keeping CURSOR where it is on screen."""
        span = int(round(self.span * factor))
        span = min(max(span, min(MIN_SPAN, num_steps)), max(1, num_steps))
        offset = min(max(0, int((cursor - self.start) / self.span * span)), span - 1)
        return Window(cursor - offset, span).clamped(num_steps)

    def following(self, num_steps: int, cursor: int) -> "Window":
        """The same span, recentred on CURSOR when it has left the window."""
        if self.start <= cursor < self.stop:
            return self
        return Window(cursor - self.span // 2, self.span).clamped(num_steps)


def column_first_steps(start: int, stop: int, width: int) -> np.ndarray:
    """The first step shown in each of WIDTH columns over [START, STOP)."""
    return start + (np.arange(width, dtype=np.int64) * (stop - start)) // width


def columns_of_step(step: int, start: int, stop: int, width: int) -> range:
    """The columns that show STEP (empty when it is outside the window)."""
    if not start <= step < stop or width <= 0:
        return range(0)
    first = column_first_steps(start, stop, width)
    hi = int(np.searchsorted(first, step, side="right"))
    lo = min(int(np.searchsorted(first, step, side="left")), hi - 1)
    return range(lo, hi)


def steps_per_column(window: Window, width: int) -> int:
    return max(1, window.span // max(1, width))


def column_around(step: int, window: Window, width: int) -> range:
    """The steps of the chart column that shows STEP (STEP alone where a step spans columns or is off the chart)."""
    shown = columns_of_step(step, window.start, window.stop, width)
    if not shown or window.span <= width:
        return range(step, step + 1)
    first = column_first_steps(window.start, window.stop, width)
    column = shown.start
    return range(int(first[column]), int(first[column + 1]) if column + 1 < width else window.stop)


class YScale(NamedTuple):
    """The bytes each plot row spans, row 0 at the bottom: evenly, or with the always-live band squeezed into
    its first BAND_ROWS rows and what is above it spread over the rest."""

    bottoms: np.ndarray
    tops: np.ndarray
    band_rows: int  # 0: every row spans as many bytes

    @classmethod
    def build(cls, top: float, rows: int, always_live: int, band: str) -> "YScale":
        """ROWS from zero to TOP bytes, the lowest ALWAYS_LIVE bytes compressed where BAND says so and the
        band would take more rows to scale than its share."""
        levels = np.arange(rows, dtype=np.float64)
        band_rows = max(1, round(rows * BAND_SHARE))
        compressed = band == "compressed" and rows >= MIN_COMPRESSED_ROWS and top > always_live
        if not compressed or always_live * rows <= band_rows * top:  # to scale, the band takes no more rows
            return cls(levels * top / rows, (levels + 1) * top / rows, 0)
        above = rows - band_rows
        edges = np.where(levels < band_rows, levels * always_live / band_rows,
                         always_live + (levels - band_rows) * (top - always_live) / above)
        return cls(edges, np.append(edges[1:], float(top)), band_rows)


def step_columns_away(step: int, window: Window, width: int, columns: int) -> int:
    """The first step of the column COLUMNS away from STEP's: one column per press, whatever the zoom.

    Counted from the last column showing STEP going right, from its first going
    left, so a step wider than a column is left in one press. Columns beyond the
    window continue its grid.
    """
    shown = columns_of_step(step, window.start, window.stop, width)
    if not shown:
        return step + columns
    column = (shown.stop - 1 if columns > 0 else shown.start) + columns
    return window.start + (column * window.span) // width


def read_column(table: np.ndarray, column: int, cancelled: Callable[[], bool], chunk: int = 2_000) -> np.ndarray | None:
    """COLUMN of a [steps, columns] TABLE as int64, read CHUNK rows at a time; None once CANCELLED says so."""
    out = np.empty(len(table), dtype=np.int64)
    for start in range(0, len(table), chunk):
        if cancelled():
            return None
        out[start : start + chunk] = table[start : start + chunk, column]
    return out


def series_columns(series: np.ndarray, start: int, stop: int, width: int) -> tuple[np.ndarray, np.ndarray]:
    """Min and max per column of a series without an envelope: reads only [START, STOP)."""
    first = column_first_steps(start, stop, width)
    visible = np.asarray(series[start:stop])
    if stop - start < width:
        values = visible[first - start]
        return values, values.copy()
    offsets = first - start
    return np.minimum.reduceat(visible, offsets), np.maximum.reduceat(visible, offsets)


def envelope_columns(envelope: Envelope, start: int, stop: int, width: int) -> tuple[np.ndarray, np.ndarray]:
    """Min and max per column from an envelope, O(WIDTH) whatever the span."""
    if stop - start >= width:
        return envelope.columns(start, stop, width)
    per_step_min, per_step_max = envelope.columns(start, stop, stop - start)
    index = column_first_steps(start, stop, width) - start
    return per_step_min[index], per_step_max[index]


class StepSeries:
    """Not-always-live bytes per step for one view, over a constant always-live band."""

    def __init__(
        self,
        label: str,
        not_always_live: np.ndarray,
        always_live: int | None,
        capacity: int | None,
        envelope: Envelope | None = None,
    ) -> None:
        self.label = label
        self.not_always_live = not_always_live
        self.always_live = always_live
        self.capacity = capacity  # the memory this view draws from, for percentages
        self.envelope = envelope

    def __len__(self) -> int:
        return len(self.not_always_live)

    def columns(self, start: int, stop: int, width: int) -> tuple[np.ndarray, np.ndarray]:
        if self.envelope is not None:
            return envelope_columns(self.envelope, start, stop, width)
        return series_columns(self.not_always_live, start, stop, width)

    def at(self, step: int) -> int:
        return int(self.not_always_live[step])

    @cached_property
    def peak_step(self) -> int:
        return int(np.argmax(self.not_always_live)) if len(self) else -1


def always_live_by_ipu(tile_always_live: np.ndarray, tile_ipu: np.ndarray, num_ipus: int) -> np.ndarray:
    return np.bincount(np.asarray(tile_ipu, dtype=np.int64), weights=np.asarray(tile_always_live),
                       minlength=num_ipus).astype(np.int64)


class CellRow(NamedTuple):
    """Rows of a stacked column chart: per cell, the eighths of the lower layer and the
    layers below and above the first boundary crossing the cell (one row, or a grid)."""

    eighths: np.ndarray
    lower: np.ndarray
    upper: np.ndarray


def stacked_rows(boundaries: np.ndarray, bottoms: np.ndarray, tops: np.ndarray) -> CellRow:
    """Cells of each row r spanning [BOTTOMS[r], TOPS[r]) for layers stacked up to BOUNDARIES.

    BOUNDARIES has shape (layers, columns), non-decreasing along layers: layer k
    fills [boundaries[k - 1], boundaries[k]), and layer `layers` is the empty space
    above. A cell shows the layer at its bottom, up to the first boundary within it,
    then the layer above that boundary, in eighths of a cell. All rows at once: one
    chart frame costs a few array operations, not a few per row.
    """
    layers, columns = boundaries.shape
    bottom = np.asarray(bottoms, dtype=np.float64)[:, None]
    top = np.asarray(tops, dtype=np.float64)[:, None]
    lower = np.sum(boundaries[None, :, :] <= bottom[:, :, None], axis=1)
    padded = np.vstack([boundaries, np.full((1, columns), np.inf)])
    crossing = padded[lower, np.arange(columns)[None, :]]
    inside = crossing < top
    fraction = np.where(inside, (np.minimum(crossing, top) - bottom) / (top - bottom), 1.0)
    eighths = np.rint(fraction * 8).astype(np.int64)
    upper = np.where(inside, np.sum(boundaries[None, :, :] <= crossing[:, None, :], axis=1), lower)
    return CellRow(eighths, np.minimum(lower, layers), np.minimum(upper, layers))


def stacked_row(boundaries: np.ndarray, bottom: float, top: float) -> CellRow:
    """The cells of one row spanning [BOTTOM, TOP) (see stacked_rows)."""
    cells = stacked_rows(boundaries, np.array([bottom]), np.array([top]))
    return CellRow(cells.eighths[0], cells.lower[0], cells.upper[0])


VIEWS = ("total", "ipu", "tile")  # the chart: all IPUs, one IPU, one tile
TILE_SERIES_KEPT = 8  # tiles' columns kept, the most recently shown


def worst_tile(report: "Report") -> int:
    """The tile whose not-always-live bytes peak highest (else: most live at the overall peak)."""
    memory, live = report.memory, report.liveness
    if memory is not None and len(memory.not_always_live) == live.by_tile.shape[1]:
        return int(np.argmax(memory.not_always_live))
    return int(np.argmax(live.by_tile[live.peak_step]))


class LivenessNavigator:
    """Where the Liveness screen is: the cursor's step, the window of steps across the chart, the
    view (all IPUs, an IPU, a tile) and which IPU or tile, the step marked to compare with, and how
    the always-live band is drawn.

    Pure: each key's move is a method here. It keeps each view's series; a tile's column is read
    by the screen (in a worker) when `tile_to_read` names it, and handed back to `tile_read`.
    """

    def __init__(self) -> None:
        self.num_steps = 0
        self.cursor = 0
        self.window = Window(0, 1)
        self.view = "total"
        self.ipu = 0
        self.tile: int | None = None  # the worst, until moved
        self.marks: list[int] = []  # the steps marked to compare, in the order marked
        self.band = BANDS[0]  # how the always-live band is drawn
        self.reading: int | None = None  # the tile whose column is being read
        self._series: OrderedDict[tuple[str, int], StepSeries] = OrderedDict()

    def load(self, num_steps: int, num_tiles: int | None, peak: int | None = None) -> None:
        """A report of NUM_STEPS (and NUM_TILES, where it has them): the cursor on PEAK and every step
        shown, else (a reload) the cursor, window, mark and tile kept where they still can be; the
        series of the old report forgotten."""
        self.num_steps = num_steps
        self._series.clear()
        self.reading = None  # a read of the old report's tile is ignored when it ends
        if peak is not None:
            self.cursor, self.window = peak, Window.fit(num_steps)
            return
        self.cursor = min(max(0, self.cursor), max(0, num_steps - 1))
        self.marks = [step for step in self.marks if step < num_steps]
        self.window = self.window.clamped(num_steps).following(num_steps, self.cursor)
        if num_tiles is not None and self.tile is not None:
            self.tile = min(self.tile, num_tiles - 1)

    # The series each view draws --------------------------------------------------------

    def series(self, report: "Report") -> tuple[StepSeries | None, Unavailable | None]:
        """The series of the view, or why there is none; neither while a tile's column is read."""
        live, target = report.liveness, report.target
        if self.view == "total":
            return self._kept(("total", 0), lambda: StepSeries(
                "all IPUs", live.not_always_live, live.always_live_bytes, target.total_memory, live.envelope)), None
        if self.view == "ipu":
            if live.by_ipu is None:
                return None, Unavailable(report.missing("liveness_tiles"))
            self.ipu %= live.by_ipu.shape[1]
            ipu = self.ipu
            return self._kept(("ipu", ipu), lambda: StepSeries(
                f"IPU {ipu}", live.by_ipu[:, ipu], _ipu_always_live(report, ipu), target.bytes_per_ipu)), None
        if live.by_tile is None:
            return None, Unavailable(report.missing("liveness_tiles"))
        if self.tile is None:
            self.tile = worst_tile(report)
        self.tile %= live.by_tile.shape[1]
        series = self._series.get(("tile", self.tile))
        if series is not None:
            self._series.move_to_end(("tile", self.tile))
        return series, None

    def _kept(self, key: tuple[str, int], build: Callable[[], StepSeries]) -> StepSeries:
        series = self._series.get(key)
        if series is None:
            series = self._series[key] = build()
        return series

    def tile_to_read(self) -> int | None:
        """The tile the view waits for, unless its column is being read already (from now on, it is)."""
        if self.view != "tile" or self.tile is None or ("tile", self.tile) in self._series or self.reading == self.tile:
            return None
        self.reading = self.tile
        return self.tile

    def tile_read(self, tile: int, series: StepSeries) -> bool:
        """Keep TILE's SERIES (and the last TILE_SERIES_KEPT tiles'); True when the view shows it."""
        if self.reading == tile:
            self.reading = None
        self._series[("tile", tile)] = series
        while sum(key[0] == "tile" for key in self._series) > TILE_SERIES_KEPT:
            del self._series[next(key for key in self._series if key[0] == "tile")]
        return self.view == "tile" and self.tile == tile

    # Moves ------------------------------------------------------------------------------

    def go_to(self, step: int) -> None:
        """The cursor on STEP (within the steps), the window following it."""
        if self.num_steps:
            self.cursor = min(max(0, step), self.num_steps - 1)
            self.window = self.window.following(self.num_steps, self.cursor)

    def step(self, steps: int) -> None:
        """STEPS steps along: one key, one step, whatever the zoom."""
        self.go_to(self.cursor + steps)

    def move(self, columns: int, width: int) -> None:
        """COLUMNS chart columns along, the chart WIDTH columns wide."""
        self.go_to(step_columns_away(self.cursor, self.window, width, columns))

    def page(self, pages: int) -> None:
        self.go_to(self.cursor + pages * max(1, self.window.span))

    def to_end(self, last: bool) -> None:
        self.go_to(self.num_steps - 1 if last else 0)

    def to_peak(self, report: "Report") -> None:
        """The view's peak, else (no series yet) the whole report's."""
        series, _ = self.series(report)
        self.go_to(series.peak_step if series is not None else report.liveness.peak_step)

    def zoom(self, direction: int) -> None:
        """DIRECTION 1 shows half as many steps around the cursor, -1 twice as many."""
        factor = 1 / ZOOM_FACTOR if direction > 0 else ZOOM_FACTOR
        self.window = self.window.zoomed(self.num_steps, self.cursor, factor)

    def fit(self) -> None:
        self.window = Window.fit(self.num_steps)

    def next_band(self) -> None:
        """The always-live band compressed, to scale, left out, and compressed again."""
        self.band = BANDS[(BANDS.index(self.band) + 1) % len(BANDS)]

    def next_ipu(self) -> None:
        self.ipu += 1  # wrapped in `series`, which knows how many IPUs there are

    def next_tile(self, delta: int) -> None:
        if self.tile is not None:
            self.tile += delta  # wrapped in `series`

    @property
    def marked(self) -> int | None:
        """The step marked last: the details compare the cursor's step with it."""
        return self.marks[-1] if self.marks else None

    def mark(self) -> None:
        """Mark the cursor's step (besides those marked before), or clear the mark on it."""
        if self.cursor in self.marks:
            self.marks.remove(self.cursor)
        else:
            self.marks.append(self.cursor)

    @property
    def compared(self) -> list[int]:
        """The steps compared column by column: those marked and the cursor's, in step order."""
        return sorted({*self.marks, self.cursor})

    @property
    def several_marked(self) -> bool:
        """Marks make more than one step to compare (with the cursor's)."""
        return len(self.compared) > 1

    # Facts the keys need ------------------------------------------------------------

    @property
    def has_steps(self) -> bool:
        return self.num_steps > 0

    @property
    def ipu_view(self) -> bool:
        return self.view == "ipu"

    @property
    def tile_view(self) -> bool:
        return self.view == "tile"


def _ipu_always_live(report: "Report", ipu: int) -> int | None:
    memory = report.memory
    if memory is None:
        return None
    return int(always_live_by_ipu(memory.always_live, memory.ipu, report.liveness.by_ipu.shape[1])[ipu])


def tile_series(report: "Report", tile: int, cancelled: Callable[[], bool]) -> StepSeries | None:
    """TILE's series: its column read in strides over the memory map (None once CANCELLED says so)."""
    column = read_column(report.liveness.by_tile, tile, cancelled)
    if column is None:
        return None
    memory = report.memory
    always = int(memory.always_live[tile]) if memory is not None else None
    ipu = f" on IPU {int(memory.ipu[tile])}" if memory is not None else ""
    return StepSeries(f"tile {tile}{ipu}", column, always, report.target.bytes_per_tile)


def steps_table(report: "Report") -> Table | None:
    """Every step: its program, not-always-live, always-live and total bytes, and each IPU's share."""
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


class StepColumn(NamedTuple):
    """A step compared with the one before it in the comparison (none for the first): its not-always-live
    bytes, the change, and the variables that appeared (live here, not there) and went, with their bytes."""

    step: int
    program: str
    not_always_live: int
    change: int | None
    appeared: tuple[int, int] | None  # (variables, bytes)
    gone: tuple[int, int] | None


def compare_steps(report: "Report", steps: list[int]) -> list[StepColumn]:
    """STEPS (in step order, each in the report's liveness) as columns, each compared with the one before."""
    live = report.liveness
    columns = []
    for before, step in zip([None, *steps], steps):
        program = step_program_name(report, int(live.program[step])) or ""
        if before is None:
            columns.append(StepColumn(step, program, int(live.not_always_live[step]), None, None, None))
            continue
        appeared, gone, change = live_difference(report, before, step)
        columns.append(StepColumn(step, program, int(live.not_always_live[step]), change,
                                  (len(appeared), sum(size for _v, size in appeared)),
                                  (len(gone), sum(size for _v, size in gone))))
    return columns
