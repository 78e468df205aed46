"""The arithmetic behind the execution trace over its lanes (model/lanes.py): spans, columns,
windows, BSP phases, and the Trace screen's navigator (the run, window and cursor each key moves).

Pure numpy over the execution columns; the trace and BSP widgets only draw what
these functions return. A window is a half-open cycle range [lo, hi).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from pvtui.model.arrays import distinct
from pvtui.model.lanes import Lane

if TYPE_CHECKING:
    from pvtui.model.flame import FlameRow, MergedFlame
    from pvtui.model.trace_index import TraceIndex

MIN_SPAN = 32  # cycles: the narrowest window zooming in reaches
IDLE = -1
# the upper pane: each IPU's lane of steps, or also its depth rows under it, or the run merged by path
VIEWS = ("lanes", "flame", "merged")
PANES = ("details", "stats", "bsp")  # the lower pane: the cursor's details, step statistics, the BSP view


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


class BspFrame(NamedTuple):
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
        steps_with_data=len(distinct(steps[has_data])),
        steps_shown=len(distinct(steps[shown])),
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


def common_program(programs, first: int, last: int) -> int:
    """The deepest program on both FIRST's and LAST's paths from the root (FIRST when they share none)."""
    if first == last:
        return first
    a, b = programs.path_to(first), programs.path_to(last)
    shared = [x for x, y in zip(a, b) if x == y]
    return shared[-1] if shared else first


def step_place(execution, step: int, ipu: int | None = None) -> tuple[int, int, tuple[int, int] | None]:
    """Where execution STEP is shown: its run, IPU (where it ran there) or the first IPU it ran on, and a
    window of the step with ten times its length either side (None where it ran on no IPU)."""
    offsets = np.asarray(execution.run_step_offsets)
    run = int(np.searchsorted(offsets, step, side="right")) - 1
    ran = np.flatnonzero(np.asarray(execution.cycles_from[step]) >= 0)
    if not len(ran):
        return run, 0, None
    ipu = ipu if ipu in ran else int(ran[0])
    start, end = int(execution.cycles_from[step, ipu]), int(execution.cycles_to[step, ipu])
    pad = 10 * max(end - start, 1)
    return run, ipu, (start - pad, end + pad)


class FlameCursor(NamedTuple):
    """Where the cursor is in the flame view: DEPTH -1 is the IPU's lane (a step), else a block."""

    depth: int = -1
    block: int = -1


class TraceNavigator:
    """Where the Trace screen is: the run shown and its lanes, the cycle window, and the cursor,
    a step on one IPU's lane or, in the flame view, a block of one of its depth rows.

    Each key's move is a method here (pure, no Textual); the screen draws what it then says.
    `flame` holds the run's depth rows while the flame view shows them, else None. While the merged
    view shows (`merged`), the lanes, window and flame rows are the merged flame's, each key moves
    over them alike, and the lanes' own place waits to come back. `view` and `pane` choose the upper
    and lower panes (of VIEWS and PANES); `index` is what is read from the report, built in workers.
    """

    def __init__(self) -> None:
        self.traced = False  # the report has an execution profile
        self.index: TraceIndex | None = None  # the report's lanes, flame rows and statistics, from the first show on
        self.opened = 0  # counts the runs asked for: the indexing of one asked for since is not shown
        self.view = VIEWS[0]
        self.pane = PANES[0]
        self.left = VIEWS[0]  # the view shown before the one shown now
        self.run = 0
        self.lanes: tuple[Lane, ...] = ()
        self.bounds = (0, MIN_SPAN)
        self.window = (0, MIN_SPAN)
        self.cursor_ipu = 0
        self.cursor_pos = -1
        self.flame: tuple[list[FlameRow], ...] | None = None  # per IPU, a FlameRow per depth
        self.flame_cursor = FlameCursor()
        self.generation = 0  # counts the lanes shown, so that drawings of older ones are never reused
        self.operation: tuple[str, list[int]] | None = None  # name and execution steps of the operation followed
        self.operation_at = -1  # which of its steps is shown
        self.include_host = False  # `c` ranks the host waits too
        self.merged: MergedFlame | None = None  # the run merged by model-layer path, while the merged view shows
        self._lanes_place: tuple | None = None  # lanes, bounds, window and cursor of the lanes, meanwhile

    # What is selected --------------------------------------------------------------

    @property
    def current_lane(self) -> Lane | None:
        return self.lanes[self.cursor_ipu] if self.cursor_ipu < len(self.lanes) else None

    @property
    def selected_step(self) -> int:
        """The absolute index of the selected step, or -1 (none, or the merged view, which sums steps)."""
        lane = self.current_lane
        if lane is None or self.cursor_pos < 0 or self.merged is not None:
            return -1
        return int(lane.steps[self.cursor_pos])

    @property
    def selected_node(self) -> int:
        """In the merged view, the node of the block under the cursor (on its lane, of the part there); else -1."""
        merged, block = self.merged, self.flame_block
        if merged is None or self.cursor_pos < 0:
            return -1
        return int(block[0].node[block[1]]) if block is not None else merged.node_at(self.cursor_pos)

    def lanes_place(self) -> tuple[int, tuple[int, int]]:
        """The selected step and the window of the lanes, even while the merged view shows."""
        if self._lanes_place is None:
            return self.selected_step, self.window
        lanes, _, window, ipu, pos = self._lanes_place
        return (int(lanes[ipu].steps[pos]) if ipu < len(lanes) and pos >= 0 else -1), window

    @property
    def flame_block(self) -> tuple[FlameRow, int] | None:
        """The flame row and block under the cursor, when it is on a block."""
        flame, cursor = self.flame, self.flame_cursor
        if flame is None or cursor.depth < 0 or cursor.block < 0 or self.cursor_ipu >= len(flame):
            return None
        return flame[self.cursor_ipu][cursor.depth], cursor.block

    def cursor_range(self) -> tuple[int, int] | None:
        """The cycles of the block or step under the cursor."""
        block = self.flame_block
        if block is not None:
            row, b = block
            return int(row.lane.starts[b]), int(row.lane.ends[b])
        lane = self.current_lane
        if lane is None or self.cursor_pos < 0:
            return None
        return int(lane.starts[self.cursor_pos]), int(lane.ends[self.cursor_pos])

    def selected_program(self, execution, programs) -> int:
        """The program of the block under the cursor (its steps' deepest common one), else of the step; -1."""
        if programs is None:
            return -1
        if self.merged is not None:
            node = self.selected_node
            return int(self.merged.tree.first_program[node]) if node >= 0 else -1
        block, lane = self.flame_block, self.current_lane
        if block is not None and lane is not None:
            row, b = block
            first = int(execution.program[int(lane.steps[int(row.first[b])])])
            last = int(execution.program[int(lane.steps[int(row.stop[b]) - 1])])
            return common_program(programs, first, last)
        step = self.selected_step
        return int(execution.program[step]) if step >= 0 else -1

    # Facts the keys need ------------------------------------------------------------

    @property
    def has_flame(self) -> bool:
        """The flame view shows its rows."""
        return self.flame is not None

    @property
    def following(self) -> bool:
        """An operation's steps are followed (Operations' T)."""
        return self.operation is not None

    @property
    def stepped(self) -> bool:
        """The lanes are steps (not the merged view's sums)."""
        return self.merged is None

    def waiting_for(self, no_programs: str | None) -> str | None:
        """What the view shown waits for (or lacks), in words; None when it shows. NO_PROGRAMS: why the
        report has no program table to merge by, where it has none."""
        if self.view == "lanes" or self.flame is not None:
            return None
        if self.view == "flame":
            return "nesting the steps…"
        if no_programs is not None:
            return f"no merged view: {no_programs}"
        return "merging the run's steps by model layer…"

    # The panes --------------------------------------------------------------------------

    def toggle_view(self, view: str) -> None:
        """VIEW's key: VIEW; again goes back, from the merged view to the view it came from, else to the lanes."""
        if self.view != view:
            self.left = self.view
            self.show_view(view)
        else:
            self.show_view(self.left if view == "merged" and self.left != view else "lanes")

    def show_view(self, view: str) -> None:
        """The upper pane shows VIEW, from its top; not the BSP view under the merged one (which draws one
        IPU's steps, which merged are not)."""
        self.view = view
        self.flame_cursor = FlameCursor()
        if view == "merged" and self.pane == "bsp":
            self.pane = "details"

    def toggle_pane(self, pane: str) -> None:
        """PANE's key: PANE under the view; again, the details."""
        self.pane = "details" if self.pane == pane else pane

    # Moves -----------------------------------------------------------------------------

    def show_run(self, run: int, lanes: tuple[Lane, ...], keep_step: int | None = None,
                 keep_window: tuple[int, int] | None = None) -> None:
        """Show RUN's LANES: over KEEP_WINDOW (else the whole run), on KEEP_STEP where it ran on the
        cursor's IPU (else the step at the window's middle or start)."""
        self.run, self.lanes = run, lanes
        self.generation += 1
        self.merged = self._lanes_place = None
        self.bounds = run_span(list(lanes))
        self.window = clamp_window(*keep_window, self.bounds) if keep_window else self.bounds
        self.cursor_ipu = min(self.cursor_ipu, max(len(lanes) - 1, 0))
        self.flame, self.flame_cursor = None, FlameCursor()
        lane = self.current_lane
        if lane is None:
            self.cursor_pos = -1
        elif keep_step is not None and (pos := position_of_step(lane, keep_step)) >= 0:
            self.cursor_pos = pos
        else:
            self.cursor_pos = position_at(lane, sum(self.window) / 2 if keep_window else self.bounds[0])

    def open_at(self, ipu: int, first: int, stop: int) -> None:
        """The window on IPU's lane positions [FIRST, STOP) (where a run opens), the cursor on FIRST."""
        if ipu >= len(self.lanes) or not 0 <= first < stop <= len(self.lanes[ipu]):
            return
        lane = self.lanes[ipu]
        self.cursor_ipu, self.cursor_pos = ipu, first
        self.window = around(int(lane.starts[first]), int(lane.reach[stop - 1]), self.bounds, margin=0.05)

    def show_merged(self, merged: MergedFlame) -> None:
        """Show MERGED in place of the lanes (theirs kept for leave_merged): all of it in the window,
        the cursor on the costliest block of the first depth that is not the host waits."""
        if self.merged is None:
            self._lanes_place = (self.lanes, self.bounds, self.window, self.cursor_ipu, self.cursor_pos)
        self.merged, self.lanes, self.flame = merged, (merged.lane,), (merged.rows,)
        self.generation += 1
        self.bounds = self.window = (0, max(merged.total, 1))
        self.cursor_ipu, self.cursor_pos, self.flame_cursor = 0, -1, FlameCursor()
        if merged.rows and len(merged.rows[0]):
            top = merged.rows[0]
            ranked = np.flatnonzero(~top.host)
            block = int(ranked[0]) if len(ranked) else 0
            self.flame_cursor, self.cursor_pos = FlameCursor(0, block), int(top.first[block])

    def leave_merged(self) -> None:
        """Back to the lanes as they were before the merged view showed."""
        if self._lanes_place is None:
            return
        self.lanes, self.bounds, self.window, self.cursor_ipu, self.cursor_pos = self._lanes_place
        self.merged = self._lanes_place = None
        self.flame, self.flame_cursor = None, FlameCursor()
        self.generation += 1

    def _anchor(self) -> float:
        """The cycle zooms and moves between lanes keep in place: the cursor's middle, else the window's."""
        span = self.cursor_range()
        return (span[0] + span[1]) / 2 if span else sum(self.window) / 2

    def _show_cursor(self) -> None:
        span = self.cursor_range()
        if span is not None:
            self.window = show_range(self.window, *span, self.bounds)

    def step(self, delta: int) -> bool:
        """The block or step DELTA along the lane; False where the lane has none."""
        lane = self.current_lane
        if lane is None or not len(lane):
            return False
        block = self.flame_block
        if block is not None:
            row, at = block
            at = min(max(at + delta, 0), len(row) - 1)
            self.flame_cursor = FlameCursor(self.flame_cursor.depth, at)
            self.cursor_pos = int(row.first[at])
        else:
            self.cursor_pos = min(max(self.cursor_pos + delta, 0), len(lane) - 1)
        self._show_cursor()
        return True

    def move_row(self, delta: int, rows: list[tuple[int, int]]) -> bool:
        """The lane DELTA away, or in the flame view the row DELTA away of ROWS, the (IPU, depth) of
        each row drawn; the cursor keeps its place in cycles. False where there are no lanes."""
        if not self.lanes:
            return False
        anchor = self._anchor()
        if self.flame is None:
            self.cursor_ipu = min(max(self.cursor_ipu + delta, 0), len(self.lanes) - 1)
            self.cursor_pos = position_at(self.lanes[self.cursor_ipu], anchor)
        else:
            at = rows.index((self.cursor_ipu, self.flame_cursor.depth))
            self._to_flame_row(*rows[min(max(at + delta, 0), len(rows) - 1)], anchor)
        self._show_cursor()
        return True

    def _to_flame_row(self, ipu: int, depth: int, anchor: float) -> None:
        """To IPU's depth row DEPTH (-1: its lane), on the block at the cursor's step, else nearest ANCHOR."""
        assert self.flame is not None
        if ipu != self.cursor_ipu:
            self.cursor_ipu = ipu
            self.cursor_pos = position_at(self.lanes[ipu], anchor)
        block = -1
        if depth >= 0:
            row = self.flame[ipu][depth]
            block = row.block_at(self.cursor_pos) if self.cursor_pos >= 0 else -1
            if block < 0 and len(row):
                block = position_at(row.lane, anchor)
            if block >= 0:
                self.cursor_pos = int(row.first[block])
        self.flame_cursor = FlameCursor(depth, block)

    def zoom(self, direction: int, step: float = 0.5) -> None:
        """DIRECTION 1 narrows the window to STEP of its width around the cursor, -1 widens it as much."""
        self.window = zoom(self.window, self._anchor(), step if direction > 0 else 1 / step, self.bounds)

    def pan(self, fraction: float) -> None:
        self.window = pan(self.window, fraction, self.bounds)

    def page(self, pages: int) -> None:
        """A window's width PAGES times along."""
        self.pan(float(pages))

    def to_end(self, last: bool) -> None:
        """The lane's first (or LAST) step, and the window at the run's start (or end)."""
        lane = self.current_lane
        if lane is not None and len(lane):
            self.cursor_pos = len(lane) - 1 if last else 0
        span = self.window[1] - self.window[0]
        start = self.bounds[1] - span if last else self.bounds[0]
        self.window = clamp_window(start, start + span, self.bounds)

    def fit(self) -> None:
        self.window = self.bounds

    def next_of(self, steps: np.ndarray) -> bool:
        """The lane's next step that is one of the sorted STEPS, the window fitted to it; False if none."""
        lane = self.current_lane
        pos = next_position_in(lane, self.cursor_pos, steps) if lane is not None else -1
        if pos < 0:
            return False
        self.cursor_pos = pos
        self.window = around(int(lane.starts[pos]), int(lane.ends[pos]), self.bounds)
        return True

    def costliest(self) -> bool:
        """In the flame view, the block whose name costs most cycles at the cursor's depth (its largest
        block), the window fitted to it; False where the depth row has none. The host waits' blocks
        count only with `include_host`."""
        if self.flame is None:
            return False
        depth = max(self.flame_cursor.depth, 0)
        row = self.flame[self.cursor_ipu][depth]
        ranked = np.arange(len(row)) if self.include_host else np.flatnonzero(~np.asarray(row.host))
        if not len(ranked):
            return False
        cycles = np.asarray(row.cycles)[ranked]
        _, inverse = np.unique(np.asarray(row.node)[ranked], return_inverse=True)
        costliest = int(np.argmax(np.bincount(inverse, weights=cycles)))
        mine = np.flatnonzero(inverse == costliest)
        block = int(ranked[mine[np.argmax(cycles[mine])]])
        self.flame_cursor = FlameCursor(depth, block)
        self.cursor_pos = int(row.first[block])
        self.window = around(int(row.lane.starts[block]), int(row.lane.ends[block]), self.bounds)
        return True

    def toggle_host_waits(self) -> None:
        """Whether `c` ranks the host waits too."""
        self.include_host = not self.include_host

    def follow(self, name: str, steps: list[int]) -> None:
        """Follow operation NAME's execution STEPS (from the first, unless it is followed already)."""
        if self.operation != (name, steps):
            self.operation, self.operation_at = (name, steps), -1

    def next_operation_step(self) -> int | None:
        """The next execution step of the operation followed, or None."""
        _, steps = self.operation or ("", [])
        if not steps:
            return None
        self.operation_at = (self.operation_at + 1) % len(steps)
        return steps[self.operation_at]
