"""The liveness chart's arithmetic: windows of steps, columns, and the series of each view.

A window of SPAN steps drawn in WIDTH columns gives column c the steps
[first[c], first[c + 1]). Zoomed out, a column covers several steps and shows their
min and max; zoomed in (SPAN < WIDTH), a step spans several columns.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from pvtui.model.envelope import Envelope

MIN_SPAN = 8  # the most one can zoom in: this many steps across the chart
ZOOM_FACTOR = 2


@dataclass(frozen=True)
class Window:
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


@dataclass(frozen=True)
class CellRow:
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
