"""The arithmetic behind the execution trace: lanes, columns, windows, BSP phases.

Pure numpy over the execution columns; the trace and BSP widgets only draw what
these functions return. A window is a half-open cycle range [lo, hi).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pvtui.model.step_types import PHASES, phase_index

OTHER = PHASES.index("other")
SYNC = PHASES.index("sync")
MIN_SPAN = 32  # cycles: the narrowest window zooming in reaches
IDLE = -1


@dataclass(frozen=True, eq=False)
class Lane:
    """The steps of one run that ran on one IPU, in the order they started."""

    steps: np.ndarray  # int64 absolute step indices
    starts: np.ndarray  # int64 first cycle
    ends: np.ndarray  # int64 cycle after the last
    phases: np.ndarray  # int8 index into PHASES
    reach: np.ndarray  # int64 running maximum of ends: sorted, so it can be searched

    def __len__(self) -> int:
        return len(self.steps)


def step_phases(step_programs: np.ndarray, program_types: np.ndarray | None, type_names: list[str]) -> np.ndarray:
    """The phase index of each step's program type ("other" where it is unknown)."""
    programs = np.asarray(step_programs, dtype=np.int64)
    phases = np.full(len(programs), OTHER, dtype=np.int8)
    if program_types is None or not type_names:
        return phases
    phase_of_type = np.array([phase_index(name) for name in type_names], dtype=np.int8)
    types = np.asarray(program_types, dtype=np.int64)
    known = (programs >= 0) & (programs < len(types))
    step_types = types[programs[known]]
    valid = (step_types >= 0) & (step_types < len(phase_of_type))
    phases[np.flatnonzero(known)[valid]] = phase_of_type[step_types[valid]]
    return phases


def build_lanes(cycles_from: np.ndarray, cycles_to: np.ndarray, phases: np.ndarray, first_step: int) -> list[Lane]:
    """One lane per IPU from a run's [steps, IPUs] cycles (-1 where a step did not run)."""
    starts_all = np.asarray(cycles_from, dtype=np.int64)
    ends_all = np.asarray(cycles_to, dtype=np.int64)
    if starts_all.ndim == 1:  # a single IPU's column
        starts_all, ends_all = starts_all[:, None], ends_all[:, None]
    lanes = []
    for ipu in range(starts_all.shape[1]):
        ran = np.flatnonzero(starts_all[:, ipu] >= 0)
        starts = starts_all[ran, ipu]
        if len(starts) > 1 and np.any(starts[1:] < starts[:-1]):
            order = np.argsort(starts, kind="stable")
            ran, starts = ran[order], starts[order]
        ends = np.maximum(ends_all[ran, ipu], starts)
        reach = np.maximum.accumulate(ends) if len(ends) else ends
        lanes.append(Lane(ran + first_step, starts, ends, np.asarray(phases)[ran], reach))
    return lanes


def run_span(lanes: list[Lane]) -> tuple[int, int]:
    """The cycles a run covers on all its IPUs; (0, MIN_SPAN) when nothing ran."""
    used = [lane for lane in lanes if len(lane)]
    if not used:
        return 0, MIN_SPAN
    lo = min(int(lane.starts[0]) for lane in used)
    hi = max(int(lane.ends.max()) for lane in used)
    return lo, max(hi, lo + 1)


def column_edges(lo: int, hi: int, width: int) -> np.ndarray:
    """WIDTH + 1 cycle boundaries splitting [lo, hi) into columns."""
    return lo + (np.arange(width + 1, dtype=np.float64) * (hi - lo) / max(width, 1))


def column_cells(lane: Lane, lo: int, hi: int, width: int) -> tuple[np.ndarray, np.ndarray]:
    """For each column: the lane position it shows (IDLE for none), and whether it holds several steps.

    A column shows the step under its centre (else the last step overlapping it):
    one searchsorted per column, O(width log n) at any zoom, and every cell is a
    real step the cursor can land on. Summing each phase's cycles per column would
    cost O(steps in the window); the `several` flag keeps the sampling honest
    instead, so a column of many steps is never mistaken for one long step.
    """
    if width <= 0 or not len(lane):
        return np.full(max(width, 0), IDLE, dtype=np.int64), np.zeros(max(width, 0), dtype=bool)
    edges = column_edges(lo, hi, width)
    centres = (edges[:-1] + edges[1:]) / 2
    at_centre = np.searchsorted(lane.starts, centres, side="right") - 1
    covered = (at_centre >= 0) & (lane.ends[np.maximum(at_centre, 0)] > centres)
    last = np.searchsorted(lane.starts, edges[1:], side="left") - 1
    overlaps = (last >= 0) & (lane.ends[np.maximum(last, 0)] > edges[:-1])
    cells = np.where(covered, at_centre, np.where(overlaps, last, IDLE))
    first = np.searchsorted(lane.reach, edges[:-1], side="right")
    several = (last - first) >= 1
    return cells.astype(np.int64), several


def position_at(lane: Lane, cycle: float) -> int:
    """The lane position of the step covering CYCLE, else the nearest one; -1 on an empty lane."""
    n = len(lane)
    if n == 0:
        return -1
    i = int(np.searchsorted(lane.starts, cycle, side="right")) - 1
    if i < 0:
        return 0
    if lane.ends[i] > cycle or i == n - 1:
        return i
    before = cycle - float(lane.ends[i])
    after = float(lane.starts[i + 1]) - cycle
    return i if before <= after else i + 1


def position_of_step(lane: Lane, step: int) -> int:
    """The lane position of absolute STEP, or -1 when it did not run there."""
    hits = np.flatnonzero(lane.steps == step)
    return int(hits[0]) if len(hits) else -1


def clamp_window(lo: float, hi: float, bounds: tuple[int, int]) -> tuple[int, int]:
    """[lo, hi) moved (not shrunk) inside BOUNDS, and no wider than them."""
    first, last = bounds
    span = min(max(int(round(hi - lo)), min(MIN_SPAN, last - first)), last - first)
    start = int(round(lo))
    start = max(first, min(start, last - span))
    return start, start + span


def zoom(window: tuple[int, int], anchor: float, factor: float, bounds: tuple[int, int]) -> tuple[int, int]:
    """The window scaled by FACTOR (< 1 zooms in) keeping ANCHOR at the same place on screen."""
    lo, hi = window
    span = hi - lo
    new_span = max(span * factor, MIN_SPAN)
    share = (anchor - lo) / span if span else 0.5
    share = min(max(share, 0.0), 1.0)
    new_lo = anchor - share * new_span
    return clamp_window(new_lo, new_lo + new_span, bounds)


def pan(window: tuple[int, int], fraction: float, bounds: tuple[int, int]) -> tuple[int, int]:
    lo, hi = window
    shift = (hi - lo) * fraction
    return clamp_window(lo + shift, hi + shift, bounds)


def show_range(window: tuple[int, int], start: int, end: int, bounds: tuple[int, int]) -> tuple[int, int]:
    """The window panned as little as needed to show [start, end), or centred on it when it is wider."""
    lo, hi = window
    span = hi - lo
    if start >= lo and end <= hi:
        return window
    if end - start >= span:
        middle = (start + end) / 2
        return clamp_window(middle - span / 2, middle + span / 2, bounds)
    if start < lo:
        return clamp_window(start, start + span, bounds)
    return clamp_window(end - span, end, bounds)


def nice_step(span: float, target_ticks: int) -> float:
    """A tick interval of 1, 2 or 5 times a power of ten giving about TARGET_TICKS ticks."""
    raw = span / max(target_ticks, 1)
    if raw <= 1:
        return 1.0
    power = 10 ** np.floor(np.log10(raw))
    for mult in (1, 2, 5, 10):
        if mult * power >= raw:
            return float(mult * power)
    return float(10 * power)


def compact_cycles(value: float, step: float = 1.0) -> str:
    """VALUE in the largest unit (k, M, G) that keeps ticks STEP apart distinct: 2,100,030,000 -> 2100030k."""
    for size, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if step >= size:  # ticks are multiples of STEP, so whole numbers of the unit
            return f"{value / size:.0f}{suffix}"
    return f"{int(value)}"


def axis_ticks(lo: int, hi: int, width: int, spacing: int = 12) -> list[tuple[int, str]]:
    """(column, label) of each tick on a WIDTH-column axis over [lo, hi)."""
    if width <= 0 or hi <= lo:
        return []
    step = nice_step(hi - lo, max(width // spacing, 1))
    first = int(np.ceil(lo / step))
    ticks = []
    for i in range(first, int(np.ceil(hi / step))):
        value = i * step
        column = int((value - lo) * width / (hi - lo))
        if 0 <= column < width:
            ticks.append((column, compact_cycles(value, step)))
    return ticks


def tile_groups(num_tiles: int, rows: int) -> list[tuple[int, int]]:
    """[first, last) tile ranges splitting NUM_TILES into at most ROWS even groups."""
    if num_tiles <= 0 or rows <= 0:
        return []
    size = -(-num_tiles // rows)
    return [(first, min(first + size, num_tiles)) for first in range(0, num_tiles, size)]


def busy_fractions(tile_cycles: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Per column, the share of a group's tiles still working OFFSETS cycles into their step.

    TILE_CYCLES is [columns, tiles]: each tile's own cycles in the step the column
    shows. A tile works from the step's start for its own cycles, then waits at the
    sync until the step ends.
    """
    cycles = np.asarray(tile_cycles, dtype=np.float64)
    if cycles.shape[1] == 0:
        return np.zeros(cycles.shape[0])
    return (cycles > np.asarray(offsets, dtype=np.float64)[:, None]).mean(axis=1)


@dataclass(frozen=True, eq=False)
class BspFrame:
    """Per-tile cycles of the step each column shows, over one IPU's tiles."""

    tile_cycles: np.ndarray  # [columns, tiles]; zeros where a column has no per-tile cycles
    offsets: np.ndarray  # [columns] cycles from the step's start to the column's centre
    phases: np.ndarray  # [columns] phase index, IDLE where there is nothing to draw
    steps_with_data: int  # distinct steps in the window that have per-tile cycles
    steps_shown: int  # distinct steps in the window


def bsp_frame(
    lane: Lane, window: tuple[int, int], width: int, bsp_steps: np.ndarray, bsp_cycles: np.ndarray, tiles: slice
) -> BspFrame:
    """What the BSP view draws over WIDTH columns: reads only the rows of the steps shown."""
    positions, _ = column_cells(lane, *window, width)
    shown = positions != IDLE
    steps = np.where(shown, lane.steps[np.maximum(positions, 0)], -1) if len(lane) else positions
    rows = np.searchsorted(bsp_steps, steps)
    rows = np.minimum(rows, max(len(bsp_steps) - 1, 0))
    has_data = shown & (len(bsp_steps) > 0)
    if len(bsp_steps):
        has_data &= np.asarray(bsp_steps)[rows] == steps
    edges = column_edges(*window, width)
    centres = (edges[:-1] + edges[1:]) / 2
    safe = np.maximum(positions, 0)
    offsets = centres - (lane.starts[safe] if len(lane) else 0)
    inside = has_data & (centres < (lane.ends[safe] if len(lane) else 0))
    num_tiles = len(range(*tiles.indices(bsp_cycles.shape[1] if bsp_cycles.ndim == 2 else 0)))
    tile_cycles = np.zeros((width, num_tiles), dtype=np.int32)
    unique_rows, inverse = np.unique(rows[inside], return_inverse=True)
    if len(unique_rows):
        tile_cycles[inside] = np.asarray(bsp_cycles[unique_rows, tiles])[inverse]
    phases = np.where(inside, lane.phases[safe] if len(lane) else IDLE, IDLE)
    return BspFrame(
        tile_cycles=tile_cycles,
        offsets=offsets,
        phases=phases.astype(np.int64),
        steps_with_data=len(np.unique(steps[has_data])),
        steps_shown=len(np.unique(steps[shown])),
    )


def ipu_tiles(ipu: int, num_tiles: int, num_ipus: int, tiles_per_ipu: int | None) -> slice:
    """The columns of IPU's tiles in the per-tile cycles."""
    per_ipu = tiles_per_ipu or max(num_tiles // max(num_ipus, 1), 1)
    return slice(min(ipu * per_ipu, num_tiles), min((ipu + 1) * per_ipu, num_tiles))


def next_position_in(lane: Lane, pos: int, steps: np.ndarray) -> int:
    """The first lane position after POS whose step is one of the sorted STEPS, or -1."""
    later = lane.steps[pos + 1 :]
    if not len(later) or not len(steps):
        return -1
    sorted_steps = np.asarray(steps)
    found = sorted_steps[np.minimum(np.searchsorted(sorted_steps, later), len(sorted_steps) - 1)] == later
    hits = np.flatnonzero(found)
    return pos + 1 + int(hits[0]) if len(hits) else -1


def around(start: int, end: int, bounds: tuple[int, int], margin: float = 0.25) -> tuple[int, int]:
    """A window showing [start, end) with MARGIN of its length on either side."""
    pad = (end - start) * margin
    return clamp_window(start - pad, end + pad, bounds)
